"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``); so far
``special``, ``signal`` and ``stats.norm``."""
from glassjax.scipy import signal, special, stats
