"""``jax._src.earray``: JAX's array of an extended dtype whose rules are JAX's
``dtype._rules`` protocol (flax.linen.fp8_ops' fp8 meta arrays are made so, by their
result handler). glassjax's extended dtypes follow its own, smaller protocol (typed PRNG
keys: ``physical_aval`` / ``wrap_physical``) and never call such a handler, so flax's
module imports and works while these arrays are not made; building one says so."""


class EArray:
    """An array of an extended dtype held as its physical array: not implemented."""

    def __init__(self, aval, data):
        raise NotImplementedError(
            "jax._src.earray.EArray: glassjax does not implement JAX's extended-dtype "
            "rules protocol (dtype._rules), so arrays of such dtypes (flax fp8 meta "
            f"arrays) are not built (aval {aval})")
