"""``jax._src.state.types``: ``AbstractRef``, the type of a mutable array reference
(glassjax's ``core.AbstractRef``)."""
from glassjax.core import AbstractRef  # noqa: F401
