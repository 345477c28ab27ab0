"""``jax._src.source_info_util``: the names of ``jax.extend.source_info_util``."""
from glassjax.extend.source_info_util import *  # noqa: F401,F403
