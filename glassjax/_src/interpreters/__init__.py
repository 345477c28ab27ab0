"""``jax._src.interpreters``: of JAX's private interpreters, only ``mlir`` (lowering
rules), as the export guide imports it."""
