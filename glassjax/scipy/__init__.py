"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``): ``linalg``,
``signal``, ``special`` and ``stats.norm``."""
from glassjax.scipy import linalg, signal, special, stats
