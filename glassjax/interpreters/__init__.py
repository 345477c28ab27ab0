"""The interpreters: one module per transformation, each a Trace subclass and its rules."""
