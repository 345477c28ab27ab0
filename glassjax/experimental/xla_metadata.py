"""``jax.experimental.xla_metadata.set_xla_metadata``: attach attributes to the XLA
operations of a computation (XLA's *frontend attributes*, which compiler passes and
profilers read).

Three forms: ``set_xla_metadata(value, k=v)`` tags the operation that computed ``value``
(through the identity primitive ``xla_metadata_value``, whose lowering tags its operand's
defining op); ``with set_xla_metadata(k=v):`` tags every operation staged inside (the
attributes ride on each equation's ``SourceInfo``, and lowering adds them to the ops of the
equation's results); and ``@set_xla_metadata(k=v)`` runs a function, or a jitted function's
``lower``/``trace``, inside that ``with``. The attributes in force are part of jit's
cache key, so a function traced without them is traced again with them.
"""
from __future__ import annotations

import functools

from jaxlib.mlir import ir

from glassjax import core, source_info, tree_util
from glassjax.config import internal_cell
from glassjax.interpreters import ad, batching
from glassjax.xla import dispatch, lowering

# The attributes of the innermost ``with`` (None outside): read by jit's cache key only.
_in_force = internal_cell("xla_metadata_context_manager", None, in_jit_key=True,
                          in_trace_context=True)


class XlaMetadataContextManager:
    """``with set_xla_metadata(k=v):``, or a decorator running the function inside it."""

    def __init__(self, updates: dict):
        self.metadata = tuple(sorted(updates.items()))
        self._entered = []

    def __enter__(self):
        if not self.metadata:
            return
        prev = _in_force.swap_local(source_info.merge_metadata(
            _in_force.value or (), self.metadata))
        swap = source_info.set_xla_metadata(self.metadata)
        swap.__enter__()
        self._entered.append((prev, swap))

    def __exit__(self, *exc):
        if not self.metadata:
            return
        prev, swap = self._entered.pop()
        swap.__exit__(*exc)
        _in_force.set_local(prev)

    def __call__(self, fun):
        return _XlaMetadataWrapper(fun, self)


class _XlaMetadataWrapper:
    """A function decorated with ``set_xla_metadata``: calls to it, and to its callable
    attributes (a jitted function's ``lower``, ``trace``), run inside the ``with``."""

    def __init__(self, fun, manager):
        self._fun, self._manager = fun, manager
        functools.update_wrapper(self, fun, updated=())   # (attributes: __getattr__)

    def __call__(self, *args, **kwargs):
        with self._manager:
            return self._fun(*args, **kwargs)

    def __getattr__(self, name):
        attr = getattr(self._fun, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def inside(*args, **kwargs):
            with self._manager:
                return attr(*args, **kwargs)
        return inside


def set_xla_metadata(x=None, **kwargs):
    """Tag the operations computing the arrays of pytree ``x`` with ``kwargs``, or (with
    no ``x``) return a context manager / decorator tagging all operations inside."""
    if x is None:
        return XlaMetadataContextManager(kwargs)
    metadata = tuple(sorted(kwargs.items()))
    return tree_util.tree_map(
        lambda v: xla_metadata_value_p.bind(v, xla_metadata_kvs=metadata), x)


def _xla_metadata_value_lowering(ctx, value, *, xla_metadata_kvs):
    if isinstance(value.owner, ir.OpView):         # (not an argument of the function)
        lowering.add_frontend_attributes(value.owner.operation, xla_metadata_kvs)
    return value


xla_metadata_value_p = core.Primitive("xla_metadata_value")
xla_metadata_value_p.def_impl(functools.partial(dispatch.apply_primitive,
                                                xla_metadata_value_p))
xla_metadata_value_p.def_abstract_eval(lambda aval, *, xla_metadata_kvs: aval)
lowering.register_lowering(xla_metadata_value_p, _xla_metadata_value_lowering)
batching.defvectorized(xla_metadata_value_p)
ad.deflinear2(xla_metadata_value_p, lambda ct, _, **params: [ct])
