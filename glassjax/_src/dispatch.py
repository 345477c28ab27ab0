"""``jax._src.dispatch``: ``wait_for_tokens``, the barrier run at exit that waits for
every dispatched computation's host callbacks (equinox re-registers it to silence errors
raised at exit)."""
from glassjax.xla.dispatch import effects_barrier as wait_for_tokens

__all__ = ["wait_for_tokens"]
