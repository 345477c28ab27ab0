"""``jax.experimental.compilation_cache.compilation_cache.set_cache_dir(path)``: the
same as ``jax.config.update("jax_compilation_cache_dir", path)``; ``reset_cache()``
(see ``glassjax/xla/compilation_cache.py``)."""
from glassjax.xla.compilation_cache import reset_cache, set_cache_dir

__all__ = ["reset_cache", "set_cache_dir"]
