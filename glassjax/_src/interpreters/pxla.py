"""``jax._src.interpreters.pxla``: of JAX's execution internals, the table of result
handlers flax.linen.fp8_ops names (its extended dtype makes results with the array
handler). glassjax builds results in ``xla/runtime.py`` and keeps no such table: looking
a handler up says so."""


class _ResultHandlers:
    """``global_result_handlers[aval type](aval, sharding, committed)`` in JAX: not
    implemented (see the module's docstring)."""

    def __getitem__(self, aval_type):
        raise NotImplementedError(
            "jax._src.interpreters.pxla.global_result_handlers: glassjax makes its "
            "results in glassjax/xla/runtime.py and has no table of result handlers "
            f"(asked for {getattr(aval_type, '__name__', aval_type)})")

    def __contains__(self, aval_type):
        return False


global_result_handlers = _ResultHandlers()
