"""``jax._src.lib.mlir``: jaxlib's MLIR bindings."""
from jaxlib.mlir import ir  # noqa: F401
