"""``jax._src.sharding_impls``: ``UNSPECIFIED``, the default of ``jit``'s
``in_shardings`` / ``out_shardings`` that libraries wrapping ``jit`` pass along or compare
against (glassjax's own sentinel, which ``jit`` reads as "not told")."""
from glassjax.jit import UNSPECIFIED, UnspecifiedValue

__all__ = ["UNSPECIFIED", "UnspecifiedValue"]
