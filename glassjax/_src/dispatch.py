"""``jax._src.dispatch``: ``apply_primitive``, running one primitive eagerly (compiled, as
every primitive's eager implementation is), and ``wait_for_tokens``, the barrier run at
exit that waits for every dispatched computation's host callbacks (equinox re-registers
it to silence errors raised at exit)."""
from glassjax.xla.dispatch import apply_primitive  # noqa: F401
from glassjax.xla.dispatch import effects_barrier as wait_for_tokens

__all__ = ["apply_primitive", "wait_for_tokens"]
