"""``glassjax.scipy.stats``: probability distributions (JAX's ``jax.scipy.stats``); so
far the normal distribution, ``norm``."""
from glassjax.scipy.stats import norm
