"""``jax._src.ad_util``: JAX's differentiation utilities that libraries import from here
(lineax: ``stop_gradient_p``, to tell its own primitive's operands apart), glassjax's own
objects."""
from glassjax.interpreters.ad import Zero  # noqa: F401
from glassjax.lax import stop_gradient_p  # noqa: F401
