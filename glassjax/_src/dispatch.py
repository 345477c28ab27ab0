"""``jax._src.dispatch``: ``apply_primitive``, running one primitive eagerly (compiled,
as every primitive's eager implementation is)."""
from glassjax.xla.dispatch import apply_primitive  # noqa: F401
