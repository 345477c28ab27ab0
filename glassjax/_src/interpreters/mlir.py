"""``jax._src.interpreters.mlir``: ``register_lowering``, ``custom_call``, ... (the names
of glassjax's ``jax.interpreters.mlir``)."""
from glassjax.interpreters.mlir import *  # noqa: F401,F403
