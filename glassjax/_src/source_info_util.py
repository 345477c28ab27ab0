"""``jax._src.source_info_util``: the names of ``jax.extend.source_info_util``, and
``is_user_filename`` (whether a file is the user's, not JAX's or a registered library's)."""
from glassjax.extend.source_info_util import *  # noqa: F401,F403
from glassjax.source_info import is_user_filename  # noqa: F401
