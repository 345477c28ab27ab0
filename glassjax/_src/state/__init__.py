"""``jax._src.state``: the types of mutable array references."""
from glassjax._src.state.types import AbstractRef  # noqa: F401
