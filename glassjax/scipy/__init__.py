"""``glassjax.scipy``: SciPy-compatible functions (JAX's ``jax.scipy``): ``linalg``,
``signal`` and ``special``."""
from glassjax.scipy import linalg, signal, special
