"""Vectorisation (vmap): rule tables, the helpers primitives use to fill them, and the
batching interpreter.

A *batching rule* says how to apply a primitive to inputs that carry an extra mapped
axis: ``rule(args, dims, **params) -> (out, out_dim)``, where ``dims[i]`` is the position
of the mapped axis in ``args[i]`` or ``not_mapped`` (None) when that input is the same for
every element of the batch. Rules move the mapped axis only when they must, so the jaxpr
of ``vmap(f)`` stays close to the jaxpr of ``f``.

The interpreter is ``BatchTrace``: a value of the batch is a ``BatchTracer`` holding the
whole stack of values (``val``, an array of the parent trace) and where its batch axis is
(``batch_dim``). The user's function sees only one element (the tracer's ``aval`` has the
batch axis removed); each primitive applied to such tracers is handed to its batching
rule, which runs on the parent trace.
"""
from __future__ import annotations

import contextlib
import functools
import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from glassjax import caches, core
from glassjax.interpreters import staging
from glassjax.interpreters.ad import AvalMemo, SymbolicZero, Zero
from glassjax.rule_tables import Rules

not_mapped = None

# prim -> rule(args, dims, **params) -> (out, out_dim). Called only when some input is
# mapped; otherwise the primitive simply runs on the parent trace.
primitive_batchers = Rules("batching", "vmap: the batched primitive")
# prim -> rule(axis_data, args, dims, **params) -> (out, out_dim), for primitives that
# must know the mapped axis itself (its size and name): collectives (``psum`` over the
# vmapped axis), and primitives with a jaxpr inside (``jit``, control flow), whose body
# may use collectives. Called even when no input is mapped.
fancy_primitive_batchers = Rules("batching_axis", "vmap: batching that knows the axis")



class _AxisPrimitiveBatchers:
    """``axis_primitive_batchers[prim] = rule``: JAX's older way to register a rule that
    knows the mapped axis, ``rule(axis_size, axis_name, trace_type, args, dims,
    **params)`` (libraries such as equinox still use it); it becomes a fancy rule."""

    def __setitem__(self, primitive, rule):
        def fancy(axis_data, args, dims, **params):
            return rule(axis_data.size, axis_data.name, None, args, dims, **params)
        fancy_primitive_batchers[primitive] = fancy


axis_primitive_batchers = _AxisPrimitiveBatchers()

# ----------------------------------------------------------------------------------------
# Moving batch axes around
# ----------------------------------------------------------------------------------------

def canonicalize_axis(axis, ndim: int) -> int:
    """An axis in ``[-ndim, ndim)`` as one in ``[0, ndim)`` (JAX's error otherwise)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def moveaxis(x, src: int, dst: int):
    """Move axis ``src`` of ``x`` to ``dst`` (a transpose, or nothing when src == dst)."""
    lax = core.hooks                     # lax's operations (lax registers them)
    if src == dst:
        return x
    ndim = core.ndim_of(x)
    src, dst = canonicalize_axis(src, ndim), canonicalize_axis(dst, ndim)
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def broadcast(x, size: int, axis: int):
    """Give an unmapped value a mapped axis of ``size`` at ``axis``. (The kept axes are
    NumPy ints, as in JAX, which prints them as ``broadcast_dimensions=(np.int64(1),)``.)"""
    lax = core.hooks                     # lax's operations (lax registers them)
    shape = list(core.shape_of(x))
    shape.insert(axis, size)
    return lax.broadcast_in_dim(x, tuple(shape), _kept_axes(len(shape), axis % len(shape)))


@caches.lru("interpreters.batching._kept_axes", 256)
def _kept_axes(ndim: int, new_axis: int) -> tuple:
    """The axes of a rank-``ndim`` result other than ``new_axis``, as NumPy ints (made
    once per rank and axis: unmapped operands are broadcast at nearly every operation
    that meets one)."""
    return tuple(np.int64(i) for i in range(ndim) if i != new_axis)


def bdim_at_front(x, bdim, size: int):
    """``x`` with its mapped axis first (broadcasting it in when it is unmapped)."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def _mapped_aval(aval: core.ShapedArray, axis: int) -> core.ShapedArray:
    """The type of one element of a batch whose batch axis is ``axis`` (split over
    Explicit mesh axes as the batch is, along its other dimensions)."""
    typed = getattr(aval, "_sharding", None)
    rest = typed and tuple(e for i, e in enumerate(typed[1]) if i != axis)
    return aval.update(shape=tuple(d for i, d in enumerate(aval.shape) if i != axis),
                       sharding=(typed[0], rest) if rest and any(rest) else None)


# (Every batched value asks once, and most ask about an aval seen before.)
mapped_aval = AvalMemo(_mapped_aval)


def unmapped_aval(aval: core.ShapedArray, size: int, axis) -> core.ShapedArray:
    """The type of a batch of ``size`` values of type ``aval`` stacked at ``axis``."""
    if axis is not_mapped:
        return aval
    shape = list(aval.shape)
    shape.insert(axis, size)
    typed = getattr(aval, "_sharding", None)
    return aval.update(shape=tuple(shape), sharding=typed and (
        typed[0], (*typed[1][:axis], None, *typed[1][axis:])))


# ----------------------------------------------------------------------------------------
# Helpers for writing rules
# ----------------------------------------------------------------------------------------

def defvectorized(primitive):
    """Elementwise primitives whose inputs share one shape: apply to the whole batch; the
    axis stays put."""
    primitive_batchers[primitive] = functools.partial(_vectorized_batcher, primitive)


def _vectorized_batcher(primitive, args, dims, **params):
    assert all(d == dims[0] for d in dims[1:]), dims
    return primitive.bind(*args, **params), dims[0]


def defbroadcasting(primitive):
    """Elementwise n-ary primitives whose operands broadcast (rank-0 or size-1 axes)."""
    primitive_batchers[primitive] = functools.partial(broadcast_batcher, primitive)


def broadcast_batcher(primitive, args, dims, **params):
    """Apply an elementwise primitive to operands with mapped axes.

    If every non-scalar operand is mapped at the same axis with the same shape, the
    primitive applies as is (scalars broadcast on their own). Otherwise mapped axes are
    moved to the front and unmapped operands get a size-1 front axis, so the primitive's
    own broadcasting spreads them over the batch; lower-rank mapped operands get
    trailing size-1 axes so they line up with the rest."""
    shapes = [core.shape_of(x) for x in args]
    shape = dim = None          # (those of the first mapped operand)
    aligned = True              # (every other non-scalar operand mapped alike)
    for s, d in zip(shapes, dims):
        if d is not_mapped:
            aligned = aligned and not s         # (an unmapped array needs a batch axis)
        elif dim is None:
            shape, dim = s, d
        elif s != shape or d != dim:
            aligned = False
    if aligned:
        out = primitive.bind(*args, **params)
        return (out, [dim] * len(out)) if primitive.multiple_results else (out, dim)
    args = [bdim_at_front(x, d, 1) if s else x for x, s, d in zip(args, shapes, dims)]
    # Ranks once the batch axes are in front (an unmapped operand gained one).
    ranks = [len(s) + (d is not_mapped and bool(s)) for s, d in zip(shapes, dims)]
    ndim = max(ranks)
    args = [_expand_trailing(x, r, ndim) if d is not not_mapped else x
            for x, r, d in zip(args, ranks, dims)]
    out = primitive.bind(*args, **params)
    return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)


def _expand_trailing(x, rank, ndim):
    """``x`` (of rank ``rank``) with trailing size-1 axes up to rank ``ndim``."""
    if rank == ndim:
        return x
    return core.hooks.expand_dims(x, tuple(range(rank, ndim)))


# ----------------------------------------------------------------------------------------
# The batching interpreter
# ----------------------------------------------------------------------------------------

class AxisData(NamedTuple):
    """The axis being vectorised over: its name (None when vmap has no ``axis_name``) and
    its size."""
    name: Any
    size: int


class BatchTracer(core.Tracer):
    """One element of a batch, as the vectorised function sees it: ``val`` holds all the
    elements, stacked along axis ``batch_dim``."""
    __slots__ = ("val", "batch_dim", "_aval")

    def __init__(self, trace, val, batch_dim: int):
        self._trace = trace         # (what Tracer.__init__ does, without the call)
        self.val = val
        self.batch_dim = batch_dim
        self._aval = None

    @property
    def aval(self):
        # Computed on first use and kept: rules ask for it often, and ``val`` never changes.
        if self._aval is None:
            self._aval = mapped_aval(core.get_aval(self.val), self.batch_dim)
        return self._aval

    def __repr__(self):
        return f"VmapTracer(aval={self.aval}, batched={core.get_aval(self.val)})"

    __str__ = __repr__


class BatchTrace(core.Trace):
    """Runs every primitive on whole batches, on ``parent_trace``, via batching rules.

    ``tag`` identifies one vmap: a function handed to a higher-order primitive (custom
    derivative rules) is batched later by a fresh BatchTrace with the same tag, which must
    recognise this trace's tracers as its own."""

    def __init__(self, parent_trace, tag, axis_data: AxisData):
        self.parent_trace = parent_trace
        self.tag = tag
        self.axis_data = axis_data

    def to_batch_info(self, x):
        """``(value on the parent trace, batch dim)``; other values are unmapped."""
        if type(x) is BatchTracer and x._trace.tag is self.tag:
            return x.val, x.batch_dim
        return x, not_mapped

    def wrap(self, val, dim):
        return val if dim is not_mapped else BatchTracer(self, val, dim)

    def process_primitive(self, primitive, tracers, params):
        # (``to_batch_info`` and ``wrap``, inlined: every operation of a vmapped function
        # comes through here.)
        fancy_rule = fancy_primitive_batchers.get(primitive)
        tag = self.tag
        vals, dims, mapped = [], [], False
        for x in tracers:
            if type(x) is BatchTracer and x._trace.tag is tag:
                vals.append(x.val)
                dims.append(x.batch_dim)
                mapped = True
            else:
                vals.append(x)
                dims.append(not_mapped)
        if not mapped and fancy_rule is None:
            return primitive.bind_with_trace(self.parent_trace, tracers, params)
        vals, dims = tuple(vals), tuple(dims)       # (rules written for JAX get tuples)
        with core.set_current_trace(self.parent_trace):
            if fancy_rule is not None:
                out, out_dim = fancy_rule(self.axis_data, vals, dims, **params)
            else:
                out, out_dim = get_batching_rule(primitive)(vals, dims, **params)
        if primitive.multiple_results:
            return [self.wrap(v, d) for v, d in zip(out, out_dim)]
        return out if out_dim is not_mapped else BatchTracer(self, out, out_dim)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        vals, dims = core.unzip2(map(self.to_batch_info, tracers))
        fun, fun_dims = batch_subtrace(fun, self.tag, self.axis_data, dims)
        jvp, jvp_dims = _batch_custom_jvp_subtrace(jvp, self.tag, self.axis_data, dims)
        outs = primitive.bind_with_trace(self.parent_trace, (fun, jvp, *vals),
                                         dict(symbolic_zeros=symbolic_zeros))
        out_dims = fun_dims or jvp_dims
        return [self.wrap(v, d) for v, d in zip(outs, out_dims)]

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        vals, dims = core.unzip2(map(self.to_batch_info, tracers))
        fun, fun_dims = batch_subtrace(fun, self.tag, self.axis_data, dims)
        fwd, fwd_dims = batch_subtrace(fwd, self.tag, self.axis_data, dims)

        def bwd_in_dims():
            """Residuals where the batched fwd left them (or where the forwarded inputs
            are), then output cotangents, batched like the outputs."""
            _, _, forwards = out_trees()
            rest = iter(fwd_dims)
            res_dims = [next(rest) if f is None else dims[f] for f in forwards]
            return [*res_dims, *rest]

        bwd = _batch_custom_vjp_bwd(bwd, self.tag, self.axis_data, bwd_in_dims, dims)
        outs = primitive.bind_with_trace(
            self.parent_trace, (fun, fwd, bwd, *vals),
            dict(out_trees=out_trees, symbolic_zeros=symbolic_zeros))
        if fun_dims:
            out_dims = fun_dims
        else:   # the forward rule ran: its outputs start with the residuals
            _, res_tree, forwards = out_trees()
            num_res = res_tree.num_leaves - sum(f is not None for f in forwards)
            out_dims = fwd_dims[num_res:]
        return [self.wrap(v, d) for v, d in zip(outs, out_dims)]


def get_batching_rule(primitive):
    rule = primitive_batchers.get(primitive)
    if rule is None:
        raise NotImplementedError(f"Batching rule for '{primitive}' not implemented")
    return rule


# ----------------------------------------------------------------------------------------
# Matching output axes
# ----------------------------------------------------------------------------------------

class SpecMatchError(Exception):
    """An output is mapped but ``out_axes`` says None (vmap turns it into a ValueError
    naming the output)."""

    def __init__(self, leaf_idx, src, dst):
        super().__init__(leaf_idx, src, dst)
        self.leaf_idx, self.src, self.dst = leaf_idx, src, dst


def matchaxis(axis_data: AxisData, src, dst, x, sum_match=False):
    """Put the batch axis of ``x`` (now at ``src``) at ``dst``: move it, broadcast an
    unmapped value, or (``sum_match``, for cotangents of unmapped inputs) sum it away."""
    if not core.valid_jaxtype(x):
        raise TypeError(f"Output from batched function {x!r} with type {type(x)} is not a "
                        "valid JAX type")
    if src == dst:
        return x
    if src is not_mapped:
        return broadcast(x, axis_data.size, canonicalize_axis(dst, np.ndim(x) + 1))
    if dst is not_mapped:
        if sum_match:
            return x.sum(src)
        if axis_data.name is not None:
            raise ValueError(f"vmap has mapped output (axis_name={axis_data.name}) but "
                             f"out_axes is {dst}")
        raise SpecMatchError(None, src, dst)
    return moveaxis(x, src, dst)


# ----------------------------------------------------------------------------------------
# Batching functions
# ----------------------------------------------------------------------------------------

def batch(fun: Callable, axis_data: AxisData, in_dims, out_dim_dests):
    """Run ``fun(*flat_args) -> flat_outs`` on batches: argument i is mapped along
    ``in_dims[i]`` (None: not mapped); output j comes back with its batch axis at
    ``out_dim_dests[j]`` (a list, or a thunk called once ``fun`` has run, for when the
    number of outputs is only known then). Returns the flat outputs."""
    def batched(*args):
        parent = core.trace_ctx.trace
        trace = BatchTrace(parent, object(), axis_data)
        tracers = [trace.wrap(x, d if d is not_mapped else canonicalize_axis(d, np.ndim(x)))
                   for x, d in zip(args, in_dims)]
        with core.set_current_trace(trace), _axis_env(axis_data):
            outs = fun(*tracers)
            dests = out_dim_dests() if callable(out_dim_dests) else out_dim_dests
            with core.set_current_trace(parent):
                out_vals = []
                for i, (out, dst) in enumerate(zip(outs, dests)):
                    val, src = trace.to_batch_info(out)
                    try:
                        out_vals.append(matchaxis(axis_data, src, dst, val))
                    except SpecMatchError:
                        raise SpecMatchError(i, src, dst) from None
        return out_vals
    return batched


def _axis_env(axis_data: AxisData):
    """A named vmap axis is in scope (for collectives) while the function runs."""
    return core.extend_axis_env([] if axis_data.name is None else
                                [(axis_data.name, axis_data.size)])


def batch_subtrace(fun, tag, axis_data: AxisData, in_dims):
    """``fun`` (a custom rule with ``call_wrapped``) as a function of whole batches, run
    later by whichever trace calls it. Returns it with a list that is filled with the
    output batch dims when it runs."""
    out_dims: list = []

    def batched(*args, **kwargs):
        with _subtrace(tag, axis_data, in_dims, args) as (trace, tracers):
            outs = fun.call_wrapped(*tracers, **kwargs)
            vals, out_dims[:] = core.unzip2(map(trace.to_batch_info, outs))
        return vals

    return core.Rule(batched, fun.name), out_dims


@contextlib.contextmanager
def _subtrace(tag, axis_data, in_dims, args):
    """A BatchTrace (with ``tag``) over the current trace, made current, and ``args`` as
    its tracers (``in_dims`` may be a thunk)."""
    trace = BatchTrace(core.trace_ctx.trace, tag, axis_data)
    dims = in_dims() if callable(in_dims) else in_dims
    with core.set_current_trace(trace), _axis_env(axis_data):
        yield trace, [trace.wrap(x, d) for x, d in zip(args, dims)]


def _unbatch_symbolic_zeros(args, dims):
    """A symbolic zero given to a custom rule carries no data to batch: it is typed as
    one element of the batch and is not mapped."""
    args = [SymbolicZero(mapped_aval(x.aval, d)) if type(x) is SymbolicZero and
            d is not not_mapped else x for x, d in zip(args, dims)]
    return args, [not_mapped if type(x) is SymbolicZero else d for x, d in zip(args, dims)]


def _batch_custom_jvp_subtrace(jvp, tag, axis_data: AxisData, in_dims):
    """A custom JVP rule on batches: tangents are batched like their primals, and each
    output's primal and tangent leave with one batch dim."""
    out_dims: list = []

    def batched(*args):
        args, dims = _unbatch_symbolic_zeros(args, list(in_dims) * 2)
        with _subtrace(tag, axis_data, dims, args) as (trace, tracers):
            outs = jvp.call_wrapped(*tracers)
            vals, dims_out = core.unzip2(map(trace.to_batch_info, outs))
        n = len(vals) // 2
        merged = [_merge_bdims(p, t) for p, t in zip(dims_out[:n], dims_out[n:])]
        primals = [matchaxis(axis_data, s, d, x) for s, d, x in zip(dims_out[:n], merged,
                                                                   vals[:n])]
        tangents = [_matchaxis_symzeros(axis_data, s, d, x)
                    for s, d, x in zip(dims_out[n:], merged, vals[n:])]
        out_dims[:] = merged
        return [*primals, *tangents]

    return core.Rule(batched, jvp.name), out_dims


def _batch_custom_vjp_bwd(bwd, tag, axis_data: AxisData, in_dims, out_dim_dests):
    """A custom VJP's backward rule on batches; each input cotangent leaves batched like
    its primal input, summed over the batch for unmapped inputs."""

    def batched(*args):
        args, dims = _unbatch_symbolic_zeros(args, in_dims())
        with _subtrace(tag, axis_data, dims, args) as (trace, tracers):
            outs = bwd.call_wrapped(*tracers)
            vals, dims_out = core.unzip2(map(trace.to_batch_info, outs))
            with core.set_current_trace(trace.parent_trace):
                return [_matchaxis_symzeros(axis_data, s, d, x, sum_match=True)
                        for s, d, x in zip(dims_out, out_dim_dests, vals)]

    return core.Rule(batched, bwd.name)


def _merge_bdims(x, y):
    return y if x is not_mapped else x


def _matchaxis_symzeros(axis_data: AxisData, src, dst, x, sum_match=False):
    """``matchaxis`` that also moves symbolic zeros (by changing their type)."""
    if type(x) not in (Zero, SymbolicZero):
        return matchaxis(axis_data, src, dst, x, sum_match=sum_match)
    if src == dst:
        return x
    if src is not_mapped:
        return type(x)(unmapped_aval(x.aval, axis_data.size, dst))
    if dst is not_mapped and sum_match:
        return type(x)(mapped_aval(x.aval, src))
    if dst is not_mapped:
        raise ValueError((axis_data.name, x, src, dst))
    return type(x)(unmapped_aval(mapped_aval(x.aval, src), axis_data.size, dst))


# ----------------------------------------------------------------------------------------
# Batching jaxprs (for primitives that carry one: jit, control flow)
# ----------------------------------------------------------------------------------------

# ClosedJaxpr -> {(axis_data, in_axes, out_axes_dest): result}. Batching the same jaxpr
# the same way gives the same jaxpr object, so a jitted function called twice under vmap
# prints its body once, as in JAX.
_batch_jaxpr_cache = caches.table("interpreters.batching.batch_jaxpr", weak=True,
                                  why="entries die with their jaxpr")


def batch_jaxpr2(closed_jaxpr: core.ClosedJaxpr, axis_data: AxisData, in_axes):
    """Batch a jaxpr with inputs mapped at ``in_axes``, leaving each output's batch axis
    where the rules put it. Returns ``(batched closed jaxpr, out_axes)``."""
    return _batch_jaxpr_axes(closed_jaxpr, axis_data, tuple(in_axes), None)


def batch_jaxpr(closed_jaxpr: core.ClosedJaxpr, axis_data: AxisData, in_batched,
                instantiate):
    """Batch a jaxpr whose batched inputs have their batch axis first; batched outputs
    get it first too, and outputs in ``instantiate`` (a bool, or one per output) are
    batched even if they do not depend on the batch. Returns ``(batched closed jaxpr,
    out_batched)``."""
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(closed_jaxpr.out_avals)
    in_axes = [0 if b else not_mapped for b in in_batched]
    out_dests = [0 if inst else zero_if_mapped for inst in instantiate]
    return batch_jaxpr_axes(closed_jaxpr, axis_data, in_axes, out_dests)


def batch_jaxpr_axes(closed_jaxpr: core.ClosedJaxpr, axis_data: AxisData, in_axes,
                     out_axes_dest):
    """Batch a jaxpr with inputs mapped at ``in_axes`` and outputs moved to
    ``out_axes_dest`` (an axis, None, or ``zero_if_mapped``). Returns ``(batched closed
    jaxpr, out_batched)``."""
    jaxpr, out_axes = _batch_jaxpr_axes(closed_jaxpr, axis_data, tuple(in_axes),
                                        tuple(out_axes_dest))
    return jaxpr, [d is not not_mapped for d in out_axes]


class _ZeroIfMapped:
    def __repr__(self):
        return "zero_if_mapped"


zero_if_mapped = _ZeroIfMapped()   # an out_axes_dest: axis 0 if batched, else unbatched


def _batch_jaxpr_axes(closed_jaxpr, axis_data, in_axes, out_axes_dest):
    per_jaxpr = _batch_jaxpr_cache.setdefault(closed_jaxpr, {})
    key = (axis_data, in_axes, out_axes_dest)
    if key in per_jaxpr:
        return per_jaxpr[key]
    out_axes: list = []

    def batched(*args):
        trace = BatchTrace(core.trace_ctx.trace, object(), axis_data)
        tracers = [trace.wrap(x, d) for x, d in zip(args, in_axes)]
        with core.set_current_trace(trace), _axis_env(axis_data):
            outs = core.jaxpr_as_fun(closed_jaxpr)(*tracers)
        vals, srcs = core.unzip2(map(trace.to_batch_info, outs))
        if out_axes_dest is None:
            out_axes[:] = srcs
            return vals
        dests = [(not_mapped if s is not_mapped else 0) if d is zero_if_mapped else d
                 for s, d in zip(srcs, out_axes_dest)]
        out_axes[:] = dests
        return [matchaxis(axis_data, s, d, v) for s, d, v in zip(srcs, dests, vals)]

    in_avals = [unmapped_aval(a, axis_data.size, d)
                for a, d in zip(closed_jaxpr.in_avals, in_axes)]
    jaxpr, lifted = staging.trace_to_closed_jaxpr(batched, in_avals,
                                                  closed_jaxpr.jaxpr.debug_info)
    assert not lifted, "a closed jaxpr's constants are concrete"
    per_jaxpr[key] = result = (jaxpr, tuple(out_axes))
    return result
