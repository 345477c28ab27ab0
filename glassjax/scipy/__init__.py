"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``): ``cluster``,
``fft``, ``integrate``, ``linalg``, ``ndimage``, ``optimize``, ``signal``,
``spatial``, ``special`` and ``stats``."""
from glassjax.scipy import (cluster, fft, integrate, linalg, ndimage, optimize, signal,
                            spatial, special, stats)
