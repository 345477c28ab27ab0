"""``jax.extend.mlir.passmanager``: running MLIR passes over a module."""
from jaxlib.mlir.passmanager import *  # noqa: F401,F403
