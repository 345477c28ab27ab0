"""``jax.extend.backend``: the jaxlib clients glassjax runs on."""
from glassjax.xla.runtime import backends, get_backend

__all__ = ["backends", "get_backend"]
