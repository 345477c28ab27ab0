"""``glassjax.scipy.integrate``: ``trapezoid`` (JAX's ``jax.scipy.integrate``)."""
from glassjax.numpy.numerical import trapezoid

__all__ = ["trapezoid"]
