"""``jax.extend.mlir.dialects``: the MLIR dialects jaxlib ships, as JAX exposes them:
``stablehlo`` (the ops XLA compiles), ``func``, ``chlo``, ``sdy`` (Shardy's sharding
annotations) and the upstream ``arith``, ``math``, ``scf`` and others."""
from jaxlib.mlir.dialects import (  # noqa: F401
    arith, builtin, chlo, func, math, memref, mpmd, scf, sdy, sparse_tensor, stablehlo,
    vector)
