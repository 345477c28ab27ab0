"""``jax._src.xla_bridge``: the jaxlib clients (backends) programs compile and run on."""
from glassjax.xla.runtime import backends, get_backend  # noqa: F401
