"""``jax._src.tree_util``: JAX's docstring of ``flatten_one_level`` imports it from
here; glassjax's public ``tree_util``."""
from glassjax.tree_util import *  # noqa: F401,F403
from glassjax.tree_util import flatten_one_level, flatten_one_level_with_keys  # noqa: F401
from glassjax.tree_util import _registry  # noqa: F401
