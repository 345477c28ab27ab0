"""``jax._src.lax.lax``: the lax functions (``add``, ``mul``, ``full_like``, ...)."""
from glassjax.lax import *  # noqa: F401,F403 (the same names, re-exported)
