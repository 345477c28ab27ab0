"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``): ``linalg``,
``ndimage``, ``optimize``, ``signal``, ``special`` and ``stats``."""
from glassjax.scipy import linalg, ndimage, optimize, signal, special, stats
