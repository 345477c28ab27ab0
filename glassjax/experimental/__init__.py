"""``glassjax.experimental``: what JAX 0.10.2 keeps under ``jax.experimental``."""
from glassjax.callbacks import io_callback
