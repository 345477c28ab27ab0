"""``jax._src.literals``: the host values that carry their JAX type, as literals of a
jaxpr and as canonicalized Python scalars (equinox counts ``TypedNdArray`` among arrays,
brainstate turns ``TypedInt``/``TypedFloat`` back into plain numbers)."""
from glassjax.core import TypedNdArray
from glassjax.dtypes import TypedComplex, TypedFloat, TypedInt

__all__ = ["TypedComplex", "TypedFloat", "TypedInt", "TypedNdArray"]
