"""``jax._src.checkify``: where JAX defines ``jax.experimental.checkify`` (flax nnx's
``checkify`` wraps it from here); glassjax's ``experimental.checkify``."""
from typing import TypeVar

from glassjax.experimental.checkify import *  # noqa: F401,F403
from glassjax.experimental.checkify import (Error, JaxException, all_checks,  # noqa: F401
                                            checkify, user_checks)

Out = TypeVar("Out")
