"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``); so far
``special``."""
from glassjax.scipy import signal, special
