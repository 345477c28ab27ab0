"""``glassjax.experimental``: what JAX 0.10.2 keeps under ``jax.experimental``."""
from glassjax.callbacks import io_callback
from glassjax.experimental import multihost_utils  # (JAX loads it with its array helpers)
from glassjax.experimental.hijax import cur_qdd
