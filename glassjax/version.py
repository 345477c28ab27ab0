"""The version of glassjax (one place, read by the package root and by bug reports).
Read next: core.py."""
__version__ = "0.1.0"
