"""``jax.scipy.optimize``: ``minimize`` (BFGS) and its ``OptimizeResults``."""
from glassjax.scipy.optimize.minimize import OptimizeResults, minimize
