"""``jax._src.api_util``: the names of ``jax.api_util`` (``flatten_axes``, ...)."""
from glassjax.api_util import *  # noqa: F401,F403
from glassjax.api_util import (PytreeLeaf, debug_info, flatten_axes,  # noqa: F401
                               shaped_abstractify)
