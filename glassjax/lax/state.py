"""The state primitives: what a staged mutable array reference becomes in a jaxpr.

Under ``jit`` or ``make_jaxpr``, ``jax.new_ref(x)`` is a jaxpr variable of type
``Ref{f32[3]}`` and reading or writing it is an equation, printed as JAX 0.10.2 prints
them::

    b:Ref{f32[4]} = new_ref[kind=None memory_space=None] a
    c:f32[4] <- b[...]             get:       c = b[...]
    b[0] <- f                      swap:      b[0] = f (the old value unused)
    e:f32[], b[0] <- b[0], f       swap:      e = b[0]; b[0] = f
    b[...] += d                    addupdate: b[...] += d
    g:f32[4] = freeze b            the final value; the ref is not used after

An index is an ``Indexer`` param (static slices) plus operands (integer indices, index
arrays and dynamic slice starts), as JAX's ``NDIndexer`` splits it.

These equations only exist while a program is staged. Everywhere else a ref is a Python
box (glassjax/ref.py) whose value the operations rebind: eagerly, and whenever a
transformation (``grad``, ``vmap``) re-runs a staged program, ``new_ref`` gives a box and
the other primitives act on it directly (``StatePrimitive.bind``). Compiling a program
re-runs it the same way with boxes (``discharging``): each read and write becomes array
operations on the box's value, which is what XLA runs.
"""
from __future__ import annotations

import contextlib
import re
from typing import NamedTuple

import numpy as np

from glassjax import core, dtypes, pretty
from glassjax.interpreters import ad, batching, staging
from glassjax.lax import slicing
from glassjax.slots import Slot, Slots


class _Hooks(Slots):
    """What the ref primitives need from ref.py above."""
    eager_ref = Slot("glassjax.ref", "eager_ref(value): what a ref is outside staging "
                     "(a box)")


hooks = _Hooks()

_discharging = [False]


@contextlib.contextmanager
def discharging():
    """Re-run staged programs with boxes for refs even under a staging trace (what
    compiling a program with refs does: its reads and writes become array operations)."""
    before, _discharging[0] = _discharging[0], True
    try:
        yield
    finally:
        _discharging[0] = before


def discharging_now() -> bool:
    return _discharging[0]


def staged_now() -> bool:
    """Does ``new_ref`` make a jaxpr variable now: staging (perhaps under ``vmap``s,
    whose refs are staged refs of whole batches, or ``jvp``s, whose refs come with a
    staged ref of tangents), not discharging? (Under ``grad`` refs are boxes.)"""
    trace = core.trace_ctx.trace
    while isinstance(trace, batching.BatchTrace) or type(trace) is ad.JVPTrace:
        trace = trace.parent_trace
    return isinstance(trace, staging.DynamicJaxprTrace) and not _discharging[0]


def is_box(ref) -> bool:
    return ref is not None and not isinstance(ref, core.Tracer)


# ----------------------------------------------------------------------------------------
# Indexers: the static part of an index into a ref
# ----------------------------------------------------------------------------------------

class Slice(NamedTuple):
    """A static slice of one dimension: ``size`` elements from ``start`` by ``stride``."""
    start: int
    size: int
    stride: int = 1


class DynamicSlice(NamedTuple):
    """``jax.ds(start, size, stride)`` with a traced ``start`` (the next operand)."""
    size: int
    stride: int = 1


OPERAND = "operand"      # an integer index or index array: the next operand


class Indexer(NamedTuple):
    """One entry per dimension of the ref (``shape``): a ``Slice``, a ``DynamicSlice``
    or ``OPERAND``; ``shape_out`` is the shape of what it selects."""
    shape: tuple
    entries: tuple
    shape_out: tuple

    def __str__(self):
        """``[i0,1:3]``: the index as JAX's jaxprs show it, ``i0``, ``i1``, ... standing
        for the operands (how messages and the notebook's graphs name it)."""
        parts, k = [], 0
        for e, dim in zip(self.entries, self.shape):
            if isinstance(e, Slice):
                end = e.start + e.size
                parts.append(f"{e.start or ''}:{'' if end == dim else end}")
            else:
                parts.append(f"i{k}" if e == OPERAND else f"i{k}:i{k}+{e.size}")
                k += 1
        return f"[{','.join(parts)}]"

    def index(self, operands):
        """The NumPy-style index (with ``Slice``-like ``ds`` objects for dynamic slices)
        that selects the same elements, given the operands."""
        it = iter(operands)
        out = []
        for e in self.entries:
            if e == OPERAND:
                out.append(next(it))
            elif isinstance(e, DynamicSlice):
                out.append(slicing.ds(next(it), e.size, e.stride))
            else:
                out.append(slice(e.start, e.start + (e.size - 1) * e.stride + 1, e.stride)
                           if e.size else slice(e.start, e.start))
        return tuple(out)


def _slice_of(s: slice, dim: int) -> Slice:
    start, stop, step = s.indices(dim)
    if step < 1:
        raise NotImplementedError("negative strides in an index into a ref")
    return Slice(start, len(range(start, stop, step)), step)


def make_indexer(shape, idx) -> tuple[Indexer | None, list]:
    """Split a user's index into a ref of ``shape`` into its ``Indexer`` (None for
    ``ref[...]``) and operands."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    idx = tuple(i for i in idx if i is not None)
    if idx in ((), (Ellipsis,)):
        return None, []
    if sum(i is Ellipsis for i in idx) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in idx:
        k = idx.index(Ellipsis)
        idx = idx[:k] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[k + 1:]
    if len(idx) > len(shape):
        raise IndexError(f"too many indices for a ref of shape {tuple(shape)}: {len(idx)}")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    entries, operands, probe = [], [], []
    for i, dim in zip(idx, shape):
        if isinstance(i, slice):
            e = _slice_of(i, dim)
            entries.append(e)
            probe.append(slice(e.start, e.start + e.size * e.stride, e.stride))
        elif isinstance(i, slicing.Slice):           # jax.ds
            if isinstance(i.start, core.Tracer):
                entries.append(DynamicSlice(i.size, i.stride))
                operands.append(i.start)
            else:
                entries.append(Slice(int(i.start), i.size, i.stride))
            probe.append(slice(0, i.size))
        else:
            aval = core.get_aval(i)
            if not dtypes.issubdtype(aval.dtype, np.integer):
                raise IndexError(f"a ref is indexed by integers, slices and integer "
                                 f"arrays, not {aval.str_short()}")
            entries.append(OPERAND)
            operands.append(np.int32(i) if type(i) is int or isinstance(i, np.integer)
                            else i)
            probe.append(np.zeros(aval.shape, np.intp))
    shape_out = np.broadcast_to(np.empty((), np.int8), shape)[tuple(probe)].shape
    return Indexer(tuple(shape), tuple(entries), shape_out), operands


def _selected(ref_aval, indexer):
    inner = ref_aval.inner_aval
    return inner if indexer is None else inner.update(shape=indexer.shape_out)


def _batched(indexer, operands, ref_aval, dim):
    """The indexer into a batch of refs (stacked along ``dim``) selecting from each what
    ``indexer`` selects, and where the batch axis of the selection is."""
    if indexer is None:
        return None, dim
    if any(np.ndim(x) for x in operands):
        raise NotImplementedError("vmap of a ref indexed by integer arrays")
    entries = list(indexer.entries)
    out_dim = sum(e != OPERAND for e in entries[:dim])
    entries.insert(dim, Slice(0, ref_aval.shape[dim]))
    shape_out = list(indexer.shape_out)
    shape_out.insert(out_dim, ref_aval.shape[dim])
    return Indexer(ref_aval.shape, tuple(entries), tuple(shape_out)), out_dim


# ----------------------------------------------------------------------------------------
# Printing: ``b[1:3,i]``
# ----------------------------------------------------------------------------------------

def _pp_ref(context, ref, indexer, operands):
    name = pretty.atom_name(ref, context)
    if indexer is None:
        return pretty.text(f"{name}[...]")
    names = {f"i{k}": pretty.atom_name(x, context, print_dtype=False)
             for k, x in enumerate(operands)}
    index = re.sub(r"i\d+", lambda m: names[m.group()], str(indexer))
    return pretty.text(name + index)


def _src(eqn, settings):
    return pretty._annotations(eqn, settings)[0]


def _pp_get(eqn, context, settings):
    ref, *operands = eqn.invars
    lhs = pretty.pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes)
    return pretty.concat([lhs, pretty.text(" <- ", _src(eqn, settings)),
                          _pp_ref(context, ref, eqn.params["indexer"], operands)])


def _pp_swap(eqn, context, settings):
    ref, value, *operands = eqn.invars
    old, = eqn.outvars
    at = _pp_ref(context, ref, eqn.params["indexer"], operands)
    arrow = pretty.text(" <- ", _src(eqn, settings))
    new = pretty.text(pretty.atom_name(value, context))
    if pretty.atom_name(old, context) == "_":
        return pretty.concat([at, arrow, new])
    lhs = pretty.pp_vars([old], context, print_shapes=settings.print_shapes)
    return pretty.concat([lhs, pretty.text(", "), at, arrow, at, pretty.text(", "), new])


def _pp_addupdate(eqn, context, settings):
    ref, value, *operands = eqn.invars
    return pretty.concat([_pp_ref(context, ref, eqn.params["indexer"], operands),
                          pretty.text(" += ", _src(eqn, settings)),
                          pretty.text(pretty.atom_name(value, context))])


# ----------------------------------------------------------------------------------------
# The primitives
# ----------------------------------------------------------------------------------------

class StatePrimitive(core.Primitive):
    """A state primitive applied to a box (not a staged ref) acts on it directly."""

    takes_refs = True

    def __init__(self, name, on_box):
        super().__init__(name)
        self.on_box = on_box

    def bind(self, *args, **params):
        if is_box(args[0]):
            return self.on_box(*args, **params)
        return super().bind(*args, **params)


state_effect = core.state_effect


def _no_vmapped_writes(ref_dim, ref):
    """A write under ``vmap`` into a ref it does not map: JAX's error (for any value)."""
    if ref_dim is batching.not_mapped:
        raise Exception("performing a set/swap operation with vmapped value on an "
                        f"unbatched array reference of type {core.get_aval(ref)}. Move "
                        "the array reference to be an argument to the vmapped function?")


def _unbatched_only(prim, args, dims):
    if any(d is not batching.not_mapped for d in dims):
        raise NotImplementedError(f"vmap of '{prim}' with a batched index into a ref")


def _no_differentiated_writes(ref_tangent, value_tangent, ref):
    if type(value_tangent) is not ad.Zero and type(ref_tangent) is ad.Zero:
        raise Exception("performing a set/swap operation with a differentiated value on a "
                        f"non-differentiated array reference of type {core.get_aval(ref)}. "
                        "Move the array reference to be an argument of the differentiated "
                        "function?")


# -- new_ref: a ref holding a copy of its operand -------------------------------------------

def _new_ref_bind(x, *, kind=None, memory_space=None):
    if staged_now():
        return core.Primitive.bind(new_ref_p, x, kind=kind, memory_space=memory_space)
    return hooks.eager_ref(x)


new_ref_p = core.Primitive("new_ref")
new_ref_p.bind = _new_ref_bind
new_ref_p.def_abstract_eval(lambda x, **_: core.AbstractRef(x))
staging.effects_rules[new_ref_p] = lambda **_: frozenset({state_effect})
# Under vmap a new ref holds the whole batch, batch axis first, even when its first
# value is the same for all (later writes may differ), as in JAX.
def _new_ref_batched(axis, args, dims, **params):
    (x,), (dim,) = args, dims
    if dim is batching.not_mapped:
        x, dim = batching.broadcast(x, axis.size, 0), 0
    return new_ref_p.bind(x, **params), dim


batching.fancy_primitive_batchers[new_ref_p] = _new_ref_batched
# Under jvp a ref comes with a ref of tangents (zeros when its value has none).
ad.primitive_jvps[new_ref_p] = lambda primals, tangents, **params: (
    new_ref_p.bind(*primals, **params),
    new_ref_p.bind(ad.instantiate_zeros(tangents[0]), **params))
ad.jvp_of_constants.add(new_ref_p)


# -- get: ``ref[idx]`` ---------------------------------------------------------------------

def _get_on_box(box, *operands, indexer):
    return box[Ellipsis if indexer is None else indexer.index(operands)]


get_p = StatePrimitive("get", _get_on_box)
get_p.def_abstract_eval(lambda ref, *ops, indexer: _selected(ref, indexer))
staging.effects_rules[get_p] = lambda **_: frozenset({state_effect})
pretty.pp_eqn_rules[get_p] = _pp_get


def _get_batched(args, dims, *, indexer):
    (ref, *ops), (ref_dim, *op_dims) = args, dims
    _unbatched_only("get", ops, op_dims)
    indexer, out_dim = _batched(indexer, ops, core.get_aval(ref), ref_dim)
    return get_p.bind(ref, *ops, indexer=indexer), out_dim


batching.primitive_batchers[get_p] = _get_batched


def _on_tangent_ref(prim, ref_t, *args, indexer, zero_aval):
    """``prim`` applied to the ref of tangents as to the ref: a ref without one (a
    constant's) has zero tangents."""
    if type(ref_t) is ad.Zero:
        return ad.Zero(zero_aval.to_tangent_aval())
    return prim.bind(ref_t, *args, indexer=indexer)


def _get_jvp(primals, tangents, *, indexer):
    ref, *ops = primals
    out = get_p.bind(ref, *ops, indexer=indexer)
    return out, _on_tangent_ref(get_p, tangents[0], *ops, indexer=indexer,
                                zero_aval=core.get_aval(out))


ad.primitive_jvps[get_p] = _get_jvp


# -- swap: ``old = ref[idx]; ref[idx] = value`` ----------------------------------------------

def _swap_on_box(box, value, *operands, indexer):
    idx = Ellipsis if indexer is None else indexer.index(operands)
    old = box[idx]
    box[idx] = value
    return old


def check_write(ref_shape, want, got, transforms: str):
    """JAX's checks of ``ref[idx] = value`` (for staged refs and boxes alike): the value
    has exactly the shape and dtype ``want`` of ``ref[idx]``."""
    if got.shape != want.shape:
        raise ValueError(f"Invalid shape for `swap`. Ref shape: {ref_shape}. Expected "
                         f"shape: {want.shape}. Value shape: {got.shape}. "
                         f"Transforms: {transforms}. ")
    if got.dtype != want.dtype:
        raise ValueError(f"Invalid dtype for `swap`. Ref dtype: {want.dtype}. Value "
                         f"dtype: {got.dtype}. ")


def _check_staged_write(ref, indexer, value):
    check_write(ref.shape, _selected(ref, indexer), value,
                "()" if indexer is None else f"({indexer},)")


def _swap_abstract_eval(ref, value, *ops, indexer):
    _check_staged_write(ref, indexer, value)
    return _selected(ref, indexer)


swap_p = StatePrimitive("swap", _swap_on_box)
swap_p.def_abstract_eval(_swap_abstract_eval)
staging.effects_rules[swap_p] = lambda **_: frozenset({state_effect})
pretty.pp_eqn_rules[swap_p] = _pp_swap


def _write_batched(prim, args, dims, indexer):
    """A write into a batch of refs: the value broadcast to the batch if it is the
    same for all."""
    (ref, value, *ops), (ref_dim, value_dim, *op_dims) = args, dims
    _no_vmapped_writes(ref_dim, ref)
    _unbatched_only(prim.name, ops, op_dims)
    ref_aval = core.get_aval(ref)
    indexer, out_dim = _batched(indexer, ops, ref_aval, ref_dim)
    value = (batching.broadcast(value, ref_aval.shape[ref_dim], out_dim)
             if value_dim is batching.not_mapped
             else batching.moveaxis(value, value_dim, out_dim))
    return prim.bind(ref, value, *ops, indexer=indexer), out_dim


def _swap_batched(axis, args, dims, *, indexer):
    return _write_batched(swap_p, args, dims, indexer)


def _swap_jvp(primals, tangents, *, indexer):
    (ref, value, *ops), (ref_t, value_t, *_) = primals, tangents
    _no_differentiated_writes(ref_t, value_t, ref)
    old = swap_p.bind(ref, value, *ops, indexer=indexer)
    return old, _on_tangent_ref(swap_p, ref_t, ad.instantiate_zeros(value_t), *ops,
                                indexer=indexer, zero_aval=core.get_aval(old))


batching.fancy_primitive_batchers[swap_p] = _swap_batched     # (even on unmapped values)
ad.primitive_jvps[swap_p] = _swap_jvp


# -- addupdate: ``ref[idx] += value`` --------------------------------------------------------

def _addupdate_on_box(box, value, *operands, indexer):
    idx = Ellipsis if indexer is None else indexer.index(operands)
    box[idx] = box[idx] + value
    return []


addupdate_p = StatePrimitive("addupdate", _addupdate_on_box)
addupdate_p.multiple_results = True
addupdate_p.def_abstract_eval(lambda ref, value, *ops, indexer: (
    _check_staged_write(ref, indexer, value), [])[1])
staging.effects_rules[addupdate_p] = lambda **_: frozenset({state_effect})
pretty.pp_eqn_rules[addupdate_p] = _pp_addupdate


def _addupdate_batched(axis, args, dims, *, indexer):
    return _write_batched(addupdate_p, args, dims, indexer)[0], []


def _addupdate_jvp(primals, tangents, *, indexer):
    (ref, value, *ops), (ref_t, value_t, *_) = primals, tangents
    _no_differentiated_writes(ref_t, value_t, ref)
    addupdate_p.bind(ref, value, *ops, indexer=indexer)
    if type(ref_t) is not ad.Zero:
        addupdate_p.bind(ref_t, ad.instantiate_zeros(value_t), *ops, indexer=indexer)
    return [], []


batching.fancy_primitive_batchers[addupdate_p] = _addupdate_batched
ad.primitive_jvps[addupdate_p] = _addupdate_jvp


# -- freeze: the ref's final value ------------------------------------------------------------

freeze_p = StatePrimitive("freeze", lambda box: box[...])
freeze_p.def_abstract_eval(lambda ref: ref.inner_aval)
staging.effects_rules[freeze_p] = lambda **_: frozenset({state_effect})
ad.primitive_jvps[freeze_p] = lambda primals, tangents: (
    freeze_p.bind(*primals), ad.Zero(core.get_aval(primals[0]).inner_aval.to_tangent_aval())
    if type(tangents[0]) is ad.Zero else freeze_p.bind(*tangents))
batching.primitive_batchers[freeze_p] = lambda args, dims: (freeze_p.bind(*args), dims[0])


# ----------------------------------------------------------------------------------------
# What ``ref[idx]``, ``ref[idx] = v`` and ``ref[idx] += v`` do to a staged ref
# ----------------------------------------------------------------------------------------

def implicit_cast(dtype, value):
    """JAX's implicit cast of a value written into a ref of ``dtype``: a weakly typed
    float into a float ref, any integer into an integer ref."""
    aval = core.get_aval(value)
    if (aval.weak_type and dtypes.issubdtype(dtype, np.floating) and
            dtypes.issubdtype(aval.dtype, np.floating)) or (
            dtypes.issubdtype(dtype, np.integer) and
            dtypes.issubdtype(aval.dtype, np.integer)):
        return core.hooks.convert_element_type(value, dtype, False)
    return value


def ref_get(ref, idx=Ellipsis):
    indexer, operands = make_indexer(ref.aval.shape, idx)
    return get_p.bind(ref, *operands, indexer=indexer)


def ref_swap(ref, idx, value):
    indexer, operands = make_indexer(ref.aval.shape, idx)
    value = implicit_cast(ref.aval.dtype, value)
    return swap_p.bind(ref, value, *operands, indexer=indexer)


def ref_addupdate(ref, idx, value):
    indexer, operands = make_indexer(ref.aval.shape, idx)
    addupdate_p.bind(ref, value, *operands, indexer=indexer)


def ref_freeze(ref):
    return freeze_p.bind(ref)


class RefAt:
    """``ref.at[idx]`` of a staged ref: ``.get()`` reads ``ref[idx]``, ``.set(v)``
    writes it (JAX's transformed refs, for indexing)."""
    __slots__ = ("ref",)

    def __init__(self, ref):
        self.ref = ref

    def __getitem__(self, idx):
        return RefView(self.ref, idx)


class RefView:
    __slots__ = ("ref", "idx")

    def __init__(self, ref, idx):
        self.ref, self.idx = ref, idx

    def get(self):
        return ref_get(self.ref, self.idx)

    def set(self, value):
        ref_swap(self.ref, self.idx, value)
