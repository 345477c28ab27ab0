"""``jax._src.core``: JAX's core (``Primitive``, ``ShapedArray``, ``Tracer``, ...), which
the export guide imports to define a primitive; glassjax's core holds the same names."""
from glassjax.core import *  # noqa: F401,F403
