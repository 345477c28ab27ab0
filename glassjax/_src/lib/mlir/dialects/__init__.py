"""``jax._src.lib.mlir.dialects``: the MLIR dialects lowering rules build with; JAX calls
StableHLO ``hlo``."""
from jaxlib.mlir.dialects import func, stablehlo as hlo  # noqa: F401
