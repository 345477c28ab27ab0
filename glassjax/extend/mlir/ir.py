"""``jax.extend.mlir.ir``: MLIR's core objects (contexts, types, attributes, operations)."""
from jaxlib.mlir.ir import *  # noqa: F401,F403
