"""``jax.extend``: the names JAX offers to libraries that build on its core, here
glassjax's own objects, so JAX's "Writing custom interpreters" and "JAX primitives"
tutorials (``from jax.extend import core``; ``core.Primitive``, ``core.Literal``) run on
glassjax unchanged. Next: ``extend/core.py``."""
from glassjax.extend import backend, core, linear_util, source_info_util

__all__ = ["backend", "core", "linear_util", "source_info_util"]
