"""jaxlib's error and traceback types: the door through which errors.py and
source_info.py reach them. Like every private jaxlib name, they are reached only from
glassjax/xla/; this module sits in the base layer (tests/test_layers.py) because those
two do."""
from jaxlib import _jax

JaxRuntimeError = _jax.JaxRuntimeError      # what XLA raises when a computation fails
Traceback = _jax.Traceback                  # a cheap C++ snapshot of the Python stack
TracebackScope = _jax.TracebackScope        # tracebacks taken inside stop at its frame
