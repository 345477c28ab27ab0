"""Collectives: operations across the elements of a *named* mapped axis.

Inside ``vmap(f, axis_name='i')`` (and, later, ``pmap``), ``f`` sees one element of the
batch, and ``psum(x, 'i')`` is the sum of ``x`` over all the elements. A collective names
axes; ``axes`` may also hold ints -- positional axes of the operand -- which is how the
batching rules express a collective over the vmapped axis: ``psum(x, 'i')`` under vmap
becomes ``psum[axes=(0,)]`` of the whole batch, an ordinary reduction.

Every collective's abstract evaluation checks that its axis names are in scope (bound by
vmap's ``axis_name``, by shard_map/pmap, or by ``make_jaxpr(..., axis_env=[('i', 4)])``).
Lowering: positional reductions lower to ordinary reductions; collectives over named
axes lower to XLA's cross-device ops (all_reduce, all_gather, reduce_scatter,
collective_permute, all_to_all) over groups of devices, see ``_device_groups``.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy, stablehlo as hlo

from glassjax import core, dtypes, tree_util
from glassjax.config import config
from glassjax.interpreters import ad, batching, staging
from glassjax.lax import elementwise, reductions, slicing, structural
from glassjax.lax.elementwise import _const
from glassjax.xla import dispatch, lowering


def _named(axes) -> tuple:
    return tuple(a for a in axes if not isinstance(a, int))


def _check_axis_names(axes, api_name):
    for name in _named(axes):
        if name not in core.trace_ctx.axis_env:
            raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                            f"{api_name} under `jax.shard_map`.")


def _as_tuple(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _canonicalize_axis_index_groups(axis_index_groups):
    if axis_index_groups is None:
        return None
    return tuple(map(tuple, axis_index_groups))


def _validate_reduce_axis_index_groups(axis_index_groups):
    if axis_index_groups is None:
        return
    axis_space = range(sum(len(group) for group in axis_index_groups))
    if {i for g in axis_index_groups for i in g} != set(axis_space):
        raise ValueError("axis_index_groups must cover all indices exactly once")


def _moveaxis(x, src, dst):
    """Move axes ``src`` to positions ``dst`` (ints or equally long tuples of ints)."""
    src, dst = (src, dst) if isinstance(src, tuple) else ((src,), (dst,))
    perm = [i for i in range(np.ndim(x)) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return structural.transpose(x, perm)


def _splitaxis(axis, factor, x):
    """Split axis ``axis`` into ``(factor, size // factor)``."""
    shape = list(np.shape(x))
    shape[axis:axis + 1] = [factor, shape[axis] // factor]
    return x.reshape(shape)


def _foldaxis(axis, x):
    """Merge axes ``axis`` and ``axis + 1``."""
    shape = list(np.shape(x))
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    return x.reshape(shape)


# ----------------------------------------------------------------------------------------
# Lowering: named axes become groups of devices
# ----------------------------------------------------------------------------------------
# The module context lays the program's copies on a grid of named axes (``axis_env``):
# the copy at grid position p is device (replica or partition) number p, row-major. A
# collective over axes ``('i',)`` works within each group of devices that differ only in
# their 'i' coordinate, e.g. {{0,2,4,6},{1,3,5,7}} for psum over 'i' of ('i': 4, 'j': 2).

def _device_groups(ctx, axes, axis_index_groups=None) -> list[list[int]]:
    env = ctx.module_context.axis_env
    names, sizes = list(env), list(env.values())
    missing = [a for a in axes if a not in env]
    if missing:
        raise NameError(f"unbound axis name: {missing[0]}")
    ids = np.arange(math.prod(sizes)).reshape(sizes)
    along = [names.index(a) for a in axes]
    rest = [i for i in range(len(names)) if i not in along]
    groups = ids.transpose(rest + along).reshape(-1, math.prod(sizes[i] for i in along))
    if axis_index_groups is None:
        return groups.tolist()
    return [[int(row[i]) for i in group] for row in groups for group in axis_index_groups]


def _groups_attr(groups) -> ir.DenseElementsAttr:
    return ir.DenseIntElementsAttr.get(np.asarray(groups, np.int64))


def _cross_device_kwargs(ctx) -> dict:
    """Inside a shard_map the copies are SPMD partitions: collectives must carry a
    channel and name global device ids, or XLA would read the groups as replicas."""
    if not ctx.module_context.spmd:
        return {}
    return dict(channel_handle=hlo.ChannelHandle.get(1, 1), use_global_device_ids=True)


def _with_reducer(op, scalar_type, combine):
    """Give a cross-device reduction its two-argument combining region."""
    block = op.regions[0].blocks.append(scalar_type, scalar_type)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([combine(*block.arguments)])
    return op


def _device_index(ctx, axis) -> ir.Value:
    """This copy's coordinate along the named ``axis`` (int32)."""
    env = ctx.module_context.axis_env
    names = list(env)
    stride = math.prod(list(env.values())[names.index(axis) + 1:])
    index = (hlo.PartitionIdOp() if ctx.module_context.spmd else hlo.ReplicaIdOp()).result
    if stride != 1:
        index = hlo.divide(index, lowering.ir_constant(np.uint32(stride)))
    index = hlo.remainder(index, lowering.ir_constant(np.uint32(env[axis])))
    return hlo.convert(ir.RankedTensorType.get((), ir.IntegerType.get_signless(32)), index)


# ----------------------------------------------------------------------------------------
# psum, pmax, pmin: all-reduce
# ----------------------------------------------------------------------------------------

def _allreduce_abstract_eval(aval, *, axes, axis_index_groups):
    _check_axis_names(axes, "psum")
    positional = [a for a in axes if isinstance(a, int)]
    if axis_index_groups is not None and positional:
        raise ValueError("axis_index_groups can only be used with reductions over named "
                         f"axes, but got: {axes}")
    shape = tuple(d for i, d in enumerate(aval.shape) if i not in positional)
    return core.ShapedArray(shape, aval.dtype)


def _allreduce_impl(primitive, positional_reducer, x, *, axes, axis_index_groups):
    """Eagerly, only reductions over positional axes (what vmap leaves) can run."""
    if all(isinstance(a, int) for a in axes):
        return positional_reducer(x, axes)
    return dispatch.apply_primitive(primitive, x, axes=axes,
                                    axis_index_groups=axis_index_groups)


def _allreduce_lowering(positional_reducer, combine, ctx, x, *, axes, axis_index_groups):
    """Positional axes are reduced on the device first; then one ``all_reduce`` combines
    the devices of each group."""
    positional = tuple(a for a in axes if isinstance(a, int))
    if positional:
        aval = ctx.avals_in[0]
        x = lowering.lower_fun(positional_reducer)(
            ctx._replace(avals_out=[_allreduce_abstract_eval(aval, axes=positional,
                                                             axis_index_groups=None)]),
            x, axes=positional)
    named = _named(axes)
    if not named:
        return x
    x_type = ir.RankedTensorType(x.type)
    op = hlo.AllReduceOp([x_type], [x], _groups_attr(_device_groups(ctx, named,
                                                                     axis_index_groups)),
                         **_cross_device_kwargs(ctx))
    scalar = ir.RankedTensorType.get((), x_type.element_type)
    return _with_reducer(op, scalar, combine).results[0]


def _linear_collective(name, abstract_eval, transpose, batcher):
    """A collective that is linear in its operand (gathers, scatters, permutations):
    run by compiling it like any primitive, transposed by ``transpose``, batched by
    ``batcher`` (the lowering is registered after it)."""
    prim = core.Primitive(name)
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    ad.deflinear2(prim, transpose)
    batching.fancy_primitive_batchers[prim] = batcher
    return prim


def _allreduce_primitive(name, positional_reducer, combine):
    prim = core.Primitive(name)
    prim.def_impl(functools.partial(_allreduce_impl, prim, positional_reducer))
    prim.def_abstract_eval(_allreduce_abstract_eval)
    lowering.register_lowering(prim, functools.partial(_allreduce_lowering,
                                                       positional_reducer, combine))
    return prim


psum_p = _allreduce_primitive("psum", reductions.reduce_sum, hlo.add)
pmax_p = _allreduce_primitive("pmax", reductions.reduce_max, hlo.maximum)
pmin_p = _allreduce_primitive("pmin", reductions.reduce_min, hlo.minimum)


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    """The cotangent of a sum is broadcast back over the positional axes, and -- psum
    being a sum followed by a broadcast to every element -- summed over the named ones."""
    positional = tuple(a for a in axes if isinstance(a, int))
    if positional:
        ct = ad.get_transpose_rule(reductions.reduce_sum_p)(
            ct, x, axes=positional, out_sharding=None)[0]
    return [psum_p.bind(ct, axes=_named(axes), axis_index_groups=axis_index_groups)]


ad.deflinear2(psum_p, _psum_transpose)


def _constant_reduction(prim, axis_data, x, axes, axis_index_groups):
    """A collective over the vmapped axis of a value that is the same for every element:
    ``size * x`` for a sum, ``x`` for a max or min."""
    if axis_index_groups:
        raise NotImplementedError
    rest = tuple(a for a in axes if a != axis_data.name)
    if rest:
        x = prim.bind(x, axes=rest, axis_index_groups=axis_index_groups)
    if prim is psum_p:
        return _const(x, axis_data.size) * x, None
    return x, None


def _reduce_positional(prim, x, d, axes, name=None):
    """Bind ``prim`` on a batch with its batch axis moved to the front, positional axes
    shifted past it, and the vmapped axis's ``name`` (if given) replaced by 0."""
    x = x if d == 0 else _moveaxis(x, d, 0)
    axes = tuple(a + 1 if isinstance(a, int) else 0 if a == name else a for a in axes)
    return prim.bind(x, axes=axes, axis_index_groups=None)


def _allreduce_batcher(prim, axis_data, vals, dims, *, axes, axis_index_groups):
    (x,), (d,) = vals, dims
    ours = axis_data.name in axes
    if d is None:
        if ours:
            return _constant_reduction(prim, axis_data, x, axes, axis_index_groups)
        return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), None
    if not ours:
        if not any(isinstance(a, int) for a in axes):
            return prim.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
        if axis_index_groups is not None:
            raise NotImplementedError("axis_index_groups not supported in vmap "
                                      "collectives. Please open a feature request!")
        return _reduce_positional(prim, x, d, axes), 0
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap collectives. "
                                  "Please open a feature request!")
    return _reduce_positional(prim, x, d, axes, axis_data.name), None


for _prim in (psum_p, pmax_p, pmin_p):
    batching.fancy_primitive_batchers[_prim] = functools.partial(_allreduce_batcher, _prim)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` (a pytree) over the mapped axis (or axes) ``axis_name``. Booleans
    are summed as int32; values that are not traced (the same for every element) are
    just multiplied by the axis size."""
    axes = _skip_size_one_axes(_as_tuple(axis_name))
    if not axes:
        return x
    if any(isinstance(a, int) for a in axes) and axis_index_groups is not None:
        raise ValueError("axis_index_groups only supported for sums over just named axes")
    _validate_reduce_axis_index_groups(axis_index_groups)
    leaves, treedef = tree_util.tree_flatten(x)
    leaves = [elementwise.convert_element_type(leaf, np.int32)
              if dtypes.dtype(leaf) == np.bool_ else leaf for leaf in leaves]
    axis_index_groups = _canonicalize_axis_index_groups(axis_index_groups)
    if not any(isinstance(leaf, core.Tracer) for leaf in leaves):
        size = (len(axis_index_groups[0]) if axis_index_groups is not None else
                math.prod(core.axis_size(a) for a in _named(axes)))
        positional = [a for a in axes if isinstance(a, int)]

        def positional_sum(leaf):
            if not positional:
                return leaf
            return reductions.reduce_sum(leaf, [batching.canonicalize_axis(
                a, np.ndim(leaf)) for a in positional])
        outs = [_const(leaf, size) * positional_sum(leaf) for leaf in leaves]
    elif core.trace_ctx.vma_axes is not None and _named(axes):
        for leaf in leaves:
            _check_one_state("jax.lax.psum", leaf, axes)
        outs = [_psum_invariant(leaf, axes) for leaf in leaves]
    else:
        outs = [psum_p.bind(leaf, axes=axes, axis_index_groups=axis_index_groups)
                for leaf in leaves]
    return tree_util.tree_unflatten(treedef, outs)


# ----------------------------------------------------------------------------------------
# Varying manual axes (shard_map with check_vma=True): pvary and psum_invariant
# ----------------------------------------------------------------------------------------
# Inside such a body every value knows the mesh axes it varies over (core.ShapedArray).
# ``pvary`` casts a value that is the same along some axes to one that may vary along
# them (no data moves: it lowers to nothing); the sum of a value over an axis it varies
# over no longer varies over it, and is written ``psum_invariant``, as in JAX.

def _skip_size_one_axes(axes) -> tuple:
    """With ``jax_remove_size_one_mesh_axis_from_type``, named axes of size 1 are left out
    of types, so sums and casts over them are nothing."""
    if not config.jax_remove_size_one_mesh_axis_from_type:
        return axes
    return tuple(a for a in axes if isinstance(a, int) or a not in core.trace_ctx.axis_env
                 or core.axis_size(a) != 1)


def _check_one_state(name, x, axes):
    """A sum runs over axes ``x`` varies over, or over axes it is the same along (and is
    cast first), never over a mix of both, as JAX checks."""
    vma = _vma_of(x)
    states = {"varying" if a in vma else "invarying" for a in _named(axes)}
    if len(states) > 1:
        raise ValueError(
            f"{name} can only accept axis_name which corresponds to one of varying, "
            "unreduced, reduced or invarying state of the input. Got input type: "
            f"{core.get_aval(x).str_short(short_dtypes=False)}, axes: {tuple(axes)} and "
            f"input state: {states}")


def _vma_of(x) -> tuple:
    return getattr(core.get_aval(x), "vma", ())


def _pvary_abstract_eval(x, *, axes):
    order = core.trace_ctx.vma_axes or axes
    vma = set(getattr(x, "vma", ())) | set(axes)
    return x.update(vma=tuple(a for a in order if a in vma))


pvary_p = core.Primitive("pvary")
pvary_p.def_abstract_eval(_pvary_abstract_eval)
pvary_p.def_impl(lambda x, *, axes: x)
lowering.register_lowering(pvary_p, lambda ctx, x, *, axes: x)
ad.deflinear2(pvary_p, lambda ct, x, *, axes: [_psum_invariant(ct, axes)])
batching.primitive_batchers[pvary_p] = lambda args, dims, *, axes: (
    pvary_p.bind(args[0], axes=axes), dims[0])
staging.vma_rules[pvary_p] = lambda vmas, *, axes: tuple(
    a for a in core.trace_ctx.vma_axes or axes if a in set(vmas[0]) | set(axes))
staging.hooks.register(pvary=pvary_p)


def pvary(x, axes):
    """``x`` (a pytree) cast to vary over the manual axes ``axes`` (JAX's ``core.pvary``).
    Where variance is not tracked (pmap, ``check_vma=False``) it is ``x`` itself."""
    axes = _as_tuple(axes)
    if not axes:
        return x
    unbound = [a for a in axes if a not in core.trace_ctx.axis_env]
    if unbound:
        raise ValueError("pvary should be called under jax.shard_map.")
    order = core.trace_ctx.vma_axes
    axes = _skip_size_one_axes(axes)
    if order is None or not axes:
        return x
    axes = tuple(a for a in order if a in axes)
    return tree_util.tree_map(lambda leaf: pvary_p.bind(leaf, axes=axes), x)


def _collective_pvary(axis_name, x):
    """A collective's operand is first cast to vary over the axes it communicates over
    (where variance is tracked), as JAX does: e.g. gathering a value that is the same on
    every device gives a value typed as varying."""
    if core.trace_ctx.vma_axes is None:
        return x
    missing = tuple(a for a in _named(_as_tuple(axis_name)) if a not in _vma_of(x))
    return pvary(x, missing) if missing else x


def pcast(x, axis_name, *, to: str):
    """Change the type of ``x`` (a pytree) along the manual axes ``axis_name``: with
    ``to='varying'``, a value that is the same on every device along them is typed as
    varying over them (``pvary``; no data moves), e.g. the initial carry of a loop whose
    body makes it vary. (JAX's ``reduced``/``unreduced`` types are not modelled.)"""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in ("unreduced", "reduced", "varying"):
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         "{'unreduced', 'reduced', 'varying'}")

    def bind(leaf):
        aval = core.get_aval(leaf)
        states = {"varying" if a in getattr(aval, "vma", ()) else "invarying" for a in axes}
        if len(states) > 1:
            raise ValueError(
                "jax.lax.pcast can only accept axis_name which corresponds to one of "
                "varying, unreduced, reduced or invarying state of the input. Got input "
                f"type: {aval}, axes: {axes} and input state: {states}")
        from_, = states
        if (from_, to) == ("invarying", "varying"):
            return pvary(leaf, axes)
        if (from_, to) in (("invarying", "reduced"), ("varying", "unreduced")):
            raise NotImplementedError(f"pcast to {to!r}: glassjax does not type reduced "
                                      "or unreduced values")
        raise ValueError(f"Unsupported pcast from={from_}, {to=}")
    return tree_util.tree_map(bind, x)


def _psum_invariant(x, axes):
    """The sum over ``axes`` of a value made to vary over them first."""
    missing = tuple(a for a in _named(axes) if a not in _vma_of(x))
    if missing:
        x = pvary_p.bind(x, axes=missing)
    return psum_invariant_p.bind(x, axes=tuple(axes))


psum_invariant_p = core.Primitive("psum_invariant")
psum_invariant_p.def_abstract_eval(
    lambda x, *, axes: _allreduce_abstract_eval(x, axes=axes, axis_index_groups=None))
lowering.register_lowering(psum_invariant_p, lambda ctx, x, *, axes: _allreduce_lowering(
    reductions.reduce_sum, hlo.add, ctx, x, axes=axes, axis_index_groups=None))
ad.deflinear2(psum_invariant_p, lambda ct, x, *, axes: [pvary_p.bind(
    ct, axes=_named(axes))])


def _psum_invariant_batcher(axis_data, vals, dims, *, axes):
    """A sum over mesh axes is the same for every batch element; a sum that also runs
    over the vmapped axis is psum's."""
    if axis_data.name in axes:
        return _allreduce_batcher(psum_p, axis_data, vals, dims, axes=axes,
                                  axis_index_groups=None)
    return psum_invariant_p.bind(vals[0], axes=axes), dims[0]


batching.fancy_primitive_batchers[psum_invariant_p] = _psum_invariant_batcher


def _reduced_vma(vmas, *, axes, **_):
    """A reduction over named axes stops varying over them."""
    return tuple(a for a in vmas[0] if a not in axes)


staging.vma_rules[psum_invariant_p] = _reduced_vma
staging.vma_rules[pmax_p] = _reduced_vma
staging.vma_rules[pmin_p] = _reduced_vma


def axis_size(axis_name):
    """The size of the mapped axis ``axis_name`` (a weakly typed int)."""
    return psum(1, axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` (a pytree) over the mapped axis ``axis_name``."""
    x = psum(x, axis_name=axis_name, axis_index_groups=axis_index_groups)
    n = psum(1, axis_name, axis_index_groups=axis_index_groups)
    return tree_util.tree_map(lambda v: v / n, x)


def _pminmax(prim, x, axis_name, axis_index_groups):
    axes = _as_tuple(axis_name)
    if any(isinstance(a, int) for a in axes) and axis_index_groups is not None:
        raise ValueError("axis_index_groups only supported for sums over just named axes")
    _validate_reduce_axis_index_groups(axis_index_groups)
    groups = _canonicalize_axis_index_groups(axis_index_groups)
    return tree_util.tree_map(
        lambda leaf: prim.bind(_collective_pvary(axes, leaf), axes=axes,
                               axis_index_groups=groups), x)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of ``x`` (a pytree) over the mapped axis ``axis_name``."""
    return _pminmax(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` (a pytree) over the mapped axis ``axis_name``."""
    return _pminmax(pmin_p, x, axis_name, axis_index_groups)


# ----------------------------------------------------------------------------------------
# axis_index
# ----------------------------------------------------------------------------------------

def _axis_index_abstract_eval(*, axis_name):
    _check_axis_names(_as_tuple(axis_name), "axis_index")
    return core.ShapedArray((), np.int32)


def _axis_index_batcher(axis_data, vals, dims, *, axis_name):
    if axis_data.name not in _as_tuple(axis_name):
        return axis_index_p.bind(axis_name=axis_name), None
    return structural.iota(np.int32, axis_data.size), 0


axis_index_p = core.Primitive("axis_index")
axis_index_p.def_impl(functools.partial(dispatch.apply_primitive, axis_index_p))
axis_index_p.def_abstract_eval(_axis_index_abstract_eval)
batching.fancy_primitive_batchers[axis_index_p] = _axis_index_batcher
staging.vma_rules[axis_index_p] = lambda vmas, *, axis_name: tuple(
    a for a in core.trace_ctx.vma_axes if a in _as_tuple(axis_name))
def _axis_index_lowering(ctx, *, axis_name):
    """The partition id, divided down to the coordinate along ``axis_name``. Where some
    mesh axes are still Auto (a shard_map over part of the mesh), the partitioner cannot
    tell what a partition id means there: as JAX does, the index is computed in a nested
    region where the other axes are manual too, and comes out the same on every device
    along them."""
    mctx = ctx.module_context
    mesh, manual = mctx.manual_mesh, mctx.manual_axes
    if mesh is None or manual >= set(mesh.axis_names):
        return _device_index(ctx, axis_name)
    if mesh.shape[axis_name] == 1:
        return hlo.constant(ir.DenseElementsAttr.get(np.asarray(0, np.int32)))
    rest = [a for a in mesh.axis_names if a not in manual]
    scalar = ir.RankedTensorType.get((), ir.IntegerType.get_signless(32))
    symbol = mctx.mesh_symbol(mesh)
    op = sdy.ManualComputationOp(
        [scalar], [], ir.Attribute.parse("#sdy.sharding_per_value<[]>"),
        ir.Attribute.parse(f"#sdy.sharding_per_value<[<@{symbol}, []>]>"),
        sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in rest]))
    saved = mctx.manual_axes
    mctx.manual_axes = frozenset(mesh.axis_names)
    try:
        with ir.InsertionPoint(op.regions[0].blocks.append()):
            sdy.ReturnOp([_device_index(ctx, axis_name)])
    finally:
        mctx.manual_axes = saved
    return op.results[0]


lowering.register_lowering(axis_index_p, _axis_index_lowering)


def axis_index(axis_name):
    """The position of the current element along the mapped axis ``axis_name`` (an int32
    scalar). For a tuple of names, the position in the flattened product of the axes."""
    if not isinstance(axis_name, (tuple, list)):
        return axis_index_p.bind(axis_name=axis_name)
    inner_size = 1
    index = structural._asarray(0)
    for name in reversed(axis_name):
        index += axis_index(name) * inner_size
        inner_size *= axis_size(name)
    return index


# ----------------------------------------------------------------------------------------
# all_gather
# ----------------------------------------------------------------------------------------

def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
    _check_axis_names(_as_tuple(axis_name), "all_gather")
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return x.update(shape=tuple(shape))


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension,
                         axis_index_groups=axis_index_groups, tiled=tiled)]


def _check_over_vmapped_axis(axis_name, axis_index_groups):
    """all_gather and psum_scatter over the vmapped axis: one axis, no groups (as JAX)."""
    if axis_index_groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap")
    if len(axis_name) > 1:
        raise NotImplementedError("Please open a feature request!")


def _all_gather_batcher(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                        axis_index_groups, axis_size, tiled, prim=None):
    """(Also all_gather_invariant's, as ``prim``: it has no ``axis_index_groups``.)"""
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
    if prim is None:
        prim, params["axis_index_groups"] = all_gather_p, axis_index_groups
    if axis_data.name not in axis_name:
        if d is not None:
            if d <= all_gather_dimension:
                all_gather_dimension += 1
            elif not tiled:        # the gathered axis is new: it lands before the batch
                d += 1
        return prim.bind(x, all_gather_dimension=all_gather_dimension, **params), d
    _check_over_vmapped_axis(axis_name, axis_index_groups)
    # Gathering over the vmapped axis: every element gets the whole batch.
    if d is None:
        shape = list(np.shape(x))
        shape.insert(all_gather_dimension, axis_size)
        kept = [i for i in range(len(shape)) if i != all_gather_dimension]
        y = structural.broadcast_in_dim(x, shape, kept)
    else:
        y = _moveaxis(x, d, all_gather_dimension)
    if tiled:
        y = _foldaxis(all_gather_dimension, y)
    return y, None


all_gather_p = _linear_collective("all_gather", _all_gather_abstract_eval,
                                  _all_gather_transpose, _all_gather_batcher)


def _all_gather_lowering(ctx, x, *, all_gather_dimension, axis_name, axis_index_groups,
                         axis_size, tiled):
    """``all_gather`` concatenates along a dimension; the untiled form first gives
    each block a new length-1 dimension to be concatenated along."""
    aval = ctx.avals_in[0]
    if not tiled:
        shape = list(aval.shape)
        shape.insert(all_gather_dimension, 1)
        x = hlo.reshape(lowering.aval_to_ir_type(aval.update(shape=tuple(shape))), x)
    groups = _device_groups(ctx, _as_tuple(axis_name), axis_index_groups)
    return hlo.AllGatherOp([lowering.aval_to_ir_type(ctx.avals_out[0])], [x],
                           all_gather_dimension, _groups_attr(groups),
                           **_cross_device_kwargs(ctx)).results[0]


lowering.register_lowering(all_gather_p, _all_gather_lowering)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False,
               to: str = "varying"):
    """Every element's ``x`` (a pytree), stacked along a new axis ``axis`` (or, with
    ``tiled``, concatenated along the existing axis ``axis``). Inside a check_vma
    shard_map the result varies over ``axis_name`` (``to='varying'``) or, with
    ``to='invarying'``, is typed as the same on every device (``all_gather_invariant``)."""
    if to not in ("varying", "reduced", "invarying"):
        raise ValueError("Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                         "values are: {'varying', 'reduced', 'invarying'}")
    if to != "varying":
        if axis_index_groups is not None:
            raise NotImplementedError
        if to == "reduced":
            raise NotImplementedError("all_gather to='reduced': glassjax does not type "
                                      "reduced values")
        return all_gather_invariant(x, axis_name, axis=axis, tiled=tiled)
    axis_name = _as_tuple(axis_name)
    if not axis_name:
        return x
    groups = _canonicalize_axis_index_groups(axis_index_groups)
    size = psum(1, axis_name, axis_index_groups=groups)

    def bind(leaf):
        dim = batching.canonicalize_axis(axis, np.ndim(leaf) if tiled else
                                         np.ndim(leaf) + 1)
        return all_gather_p.bind(_collective_pvary(axis_name, leaf),
                                 all_gather_dimension=dim, axis_name=axis_name,
                                 axis_index_groups=groups, axis_size=size, tiled=tiled)
    return tree_util.tree_map(bind, x)


# ----------------------------------------------------------------------------------------
# all_gather_invariant: the gathered value, the same on every device
# ----------------------------------------------------------------------------------------
# all_gather's result is typed as varying over the gathered axes (its transpose,
# psum_scatter, gives each device its own block of the sum); all_gather_invariant's as
# invariant over them, so its transpose is each device taking its own slice back.

def _all_gather_invariant_abstract_eval(x, *, all_gather_dimension, axis_name, axis_size,
                                        tiled):
    _check_axis_names(axis_name, "all_gather_invariant")
    return _all_gather_abstract_eval(x, all_gather_dimension=all_gather_dimension,
                                     axis_name=axis_name, axis_index_groups=None,
                                     axis_size=axis_size, tiled=tiled)


def _all_gather_invariant_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size,
                                    tiled):
    size = ct.shape[all_gather_dimension] // axis_size
    out = slicing.dynamic_slice_in_dim(ct, axis_index(axis_name) * size, size,
                                       all_gather_dimension)
    return [out if tiled else structural.squeeze(out, (all_gather_dimension,))]


all_gather_invariant_p = _linear_collective(
    "all_gather_invariant", _all_gather_invariant_abstract_eval,
    _all_gather_invariant_transpose,
    lambda axis_data, vals, dims, **params: _all_gather_batcher(
        axis_data, vals, dims, axis_index_groups=None, prim=all_gather_invariant_p,
        **params))
staging.vma_rules[all_gather_invariant_p] = lambda vmas, *, axis_name, **_: tuple(
    a for a in vmas[0] if a not in axis_name)
lowering.register_lowering(all_gather_invariant_p, lambda ctx, x, **params: (
    _all_gather_lowering(ctx, x, axis_index_groups=None, **params)))


def all_gather_invariant(x, axis_name, *, axis: int = 0, tiled: bool = False):
    """``all_gather`` whose result is typed as the same on every device along
    ``axis_name`` (inside a check_vma shard_map; elsewhere it is all_gather)."""
    axis_name = _as_tuple(axis_name)
    if not axis_name:
        return x
    size = psum(1, axis_name)

    def bind(leaf):
        missing = tuple(a for a in axis_name if a not in _vma_of(leaf))
        if core.trace_ctx.vma_axes is not None and missing:
            leaf = pvary(leaf, missing)
        return all_gather_invariant_p.bind(
            leaf, all_gather_dimension=batching.canonicalize_axis(
                axis, np.ndim(leaf) if tiled else np.ndim(leaf) + 1),
            axis_name=axis_name, axis_size=size, tiled=tiled)
    return tree_util.tree_map(bind, x)


# ----------------------------------------------------------------------------------------
# psum_scatter (the reduce_scatter primitive)
# ----------------------------------------------------------------------------------------

def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_index_groups,
                                  axis_size, tiled):
    _check_axis_names(_as_tuple(axis_name), "reduce_scatter")
    shape = list(x.shape)
    size_in = x.shape[scatter_dimension]
    if tiled:
        if size_in % axis_size != 0:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size "
                             f"{size_in} must be divisible by shard_count {axis_size}")
        shape[scatter_dimension] = size_in // axis_size
    else:
        if size_in != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {size_in} "
                             f"must match shard count {axis_size}")
        del shape[scatter_dimension]
    return x.update(shape=tuple(shape))


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_index_groups,
                              axis_size, tiled):
    return [all_gather(ct, axis_name, axis_index_groups=axis_index_groups,
                       axis=scatter_dimension, tiled=tiled)]


def _reduce_scatter_batcher(axis_data, vals, dims, *, scatter_dimension, axis_name,
                            axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        if d is not None:
            if d <= scatter_dimension:
                scatter_dimension += 1
            elif not tiled:        # the scattered axis disappears before the batch axis
                d -= 1
        return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension,
                                     **params), d
    _check_over_vmapped_axis(axis_name, axis_index_groups)
    # Over the vmapped axis: sum the batch; element i keeps slice i of scatter_dimension,
    # i.e. the batch axis comes back at scatter_dimension.
    if d is None:
        y = x * axis_size
    else:
        y = reductions.reduce(x, 0., elementwise.add, (d,))
    if tiled:
        y = _splitaxis(scatter_dimension, axis_size, y)
    return y, scatter_dimension


reduce_scatter_p = _linear_collective("reduce_scatter", _reduce_scatter_abstract_eval,
                                      _reduce_scatter_transpose, _reduce_scatter_batcher)


def _reduce_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_index_groups,
                             axis_size, tiled):
    """``reduce_scatter`` sums over the group and keeps block i on device i; the
    untiled form then drops the length-1 block dimension."""
    aval, out = ctx.avals_in[0], ctx.avals_out[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    groups = _device_groups(ctx, _as_tuple(axis_name), axis_index_groups)
    x_type = ir.RankedTensorType(x.type)
    op = hlo.ReduceScatterOp(lowering.aval_to_ir_type(aval.update(shape=tuple(shape))), x,
                             scatter_dimension, _groups_attr(groups),
                             **_cross_device_kwargs(ctx))
    y = _with_reducer(op, ir.RankedTensorType.get((), x_type.element_type),
                      hlo.add).results[0]
    return y if tiled else hlo.reshape(lowering.aval_to_ir_type(out), y)


lowering.register_lowering(reduce_scatter_p, _reduce_scatter_lowering)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None,
                 tiled=False):
    """Like ``psum(x, axis_name)``, but element i keeps only slice i of the sum along
    ``scatter_dimension`` (with ``tiled``, block i of size ``n // axis_size``)."""
    axis_name = _as_tuple(axis_name)
    if not axis_name:
        return x
    size = psum(1, axis_name, axis_index_groups=axis_index_groups)
    groups = _canonicalize_axis_index_groups(axis_index_groups)
    return tree_util.tree_map(
        lambda leaf: reduce_scatter_p.bind(
            _collective_pvary(axis_name, leaf), axis_name=axis_name, scatter_dimension=scatter_dimension,
            axis_index_groups=groups, axis_size=size, tiled=tiled), x)


# ----------------------------------------------------------------------------------------
# ppermute
# ----------------------------------------------------------------------------------------

def _ppermute_abstract_eval(x, *, axis_name, perm):
    _check_axis_names(axis_name, "ppermute")
    return x


def _ppermute_transpose(ct, x, *, axis_name, perm):
    return [ppermute(ct, axis_name, [(dst, src) for src, dst in perm])]


def _ppermute_batcher(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    rest = tuple(a for a in axis_name if a != axis_data.name)
    if rest:
        return ppermute_p.bind(x, axis_name=rest, perm=perm), d
    if len(perm) != axis_data.size:
        raise AssertionError("Permutation doesn't match the axis size!")
    if d is None:
        return x, None
    sources = np.zeros(axis_data.size, dtype=int)   # element dst receives element src
    for src, dst in perm:
        sources[dst] = src
    return x.take(sources, d), d


ppermute_p = _linear_collective("ppermute", _ppermute_abstract_eval,
                                _ppermute_transpose, _ppermute_batcher)


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    """``collective_permute``: within each group, position ``src`` sends to ``dst``;
    a device nobody sends to receives zeros."""
    groups = _device_groups(ctx, _as_tuple(axis_name))
    pairs = np.array([(g[src], g[dst]) for g in groups for src, dst in perm],
                     np.int64).reshape(-1, 2)
    kwargs = _cross_device_kwargs(ctx)
    kwargs.pop("use_global_device_ids", None)
    return hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(pairs), **kwargs).result


lowering.register_lowering(ppermute_p, _ppermute_lowering)


def ppermute(x, axis_name, perm):
    """Send each element's ``x`` (a pytree) along the mapped axis: ``perm`` is a list of
    ``(source, destination)`` index pairs; destinations nobody sends to get zeros."""
    axis_name = _as_tuple(axis_name)
    perm = tuple(map(tuple, perm))
    return tree_util.tree_map(
        lambda leaf: ppermute_p.bind(_collective_pvary(axis_name, leaf),
                                     axis_name=axis_name, perm=perm), x)


# ----------------------------------------------------------------------------------------
# pbroadcast: every element gets the value of element ``source``
# ----------------------------------------------------------------------------------------

def _masked_sum(x, *, axis_name, source):
    """What pbroadcast computes: keep ``x`` at ``source``, zeros elsewhere, and sum."""
    here = elementwise.eq(axis_index(axis_name), _const(np.int32, source))
    return psum(elementwise.select(here, x, structural.full_like(x, 0)), axis_name)


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    here = elementwise.eq(axis_index(axis_name), _const(np.int32, source))
    total = psum(ct, axis_name)
    return [elementwise.select(here, total, structural.full_like(ct, 0))]


def _pbroadcast_batcher(axis_data, vals, dims, *, axis_name, source):
    (x,), (d,) = vals, dims
    names = _as_tuple(axis_name)
    if axis_data.name not in names:
        return pbroadcast_p.bind(x, axis_name=axis_name, source=source), d
    if len(names) > 1:
        raise NotImplementedError("pbroadcast batcher only supports a single axis")
    if d is None:
        return x, d
    return x.take(np.full(axis_data.size, source), d), d


pbroadcast_p = _linear_collective("pbroadcast", lambda x, *, axis_name, source: x,
                                  _pbroadcast_transpose, _pbroadcast_batcher)
# (JAX lowers it to collective_broadcast on GPU only; a masked all-reduce runs anywhere.)
lowering.register_lowering(pbroadcast_p, lowering.lower_fun(_masked_sum))


def pbroadcast(x, axis_name, source):
    """Every element along ``axis_name`` gets element ``source``'s ``x`` (a pytree)."""
    return tree_util.tree_map(
        lambda leaf: pbroadcast_p.bind(leaf, axis_name=axis_name, source=source), x)


def pshuffle(x, axis_name, perm):
    """``ppermute`` with ``perm`` given as the source index of each destination."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ----------------------------------------------------------------------------------------
# all_to_all
# ----------------------------------------------------------------------------------------

def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                              tiled):
    names = _as_tuple(axis_name)
    _check_axis_names(names, "all_to_all")
    size = (psum(1, names) if axis_index_groups is None else len(axis_index_groups[0]))
    shape = list(x.shape)
    assert shape[split_axis] % size == 0, (shape[split_axis], size)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return core.ShapedArray(shape, x.dtype)


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                          tiled):
    return [all_to_all(ct, axis_name, split_axis=concat_axis, concat_axis=split_axis,
                       axis_index_groups=axis_index_groups, tiled=tiled)]


def _all_to_all_batcher(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                        axis_index_groups, tiled):
    if axis_index_groups is not None:
        raise NotImplementedError("Please open a feature request!")
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled)
    if axis_data.name not in _as_tuple(axis_name):
        if d is not None:
            split_axis += d <= split_axis
            concat_axis += d <= concat_axis
        return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                 **params), d
    if len(_as_tuple(axis_name)) > 1:
        raise NotImplementedError("all_to_all over several axes including a vmapped one")
    size = axis_data.size
    if d is None:
        x, d = structural.broadcast(x, (size, *np.shape(x))), 0
    if split_axis == concat_axis:
        # Chunk c of the axis on element b becomes chunk b on element c: split the axis
        # into (size, chunk) and swap that size axis with the batch axis.
        axis = split_axis + (d <= split_axis)
        d_before = d
        x = _splitaxis(axis, size, x)
        d += axis <= d
        return _foldaxis(axis, _moveaxis(x, (d, axis), (axis, d))), d_before
    x = _foldaxis(concat_axis, _moveaxis(x, d, concat_axis))
    return _splitaxis(split_axis, size, x), split_axis


all_to_all_p = _linear_collective("all_to_all", _all_to_all_abstract_eval,
                                  _all_to_all_transpose, _all_to_all_batcher)


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups,
                         tiled):
    groups = _device_groups(ctx, _as_tuple(axis_name), axis_index_groups)
    kwargs = _cross_device_kwargs(ctx)
    kwargs.pop("use_global_device_ids", None)
    return hlo.AllToAllOp([x], split_axis, concat_axis, len(groups[0]), _groups_attr(groups),
                          results=[lowering.aval_to_ir_type(ctx.avals_out[0])],
                          **kwargs).results[0]


lowering.register_lowering(all_to_all_p, _all_to_all_lowering)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None,
               tiled=False):
    """Split axis ``split_axis`` of each element's ``x`` into ``axis_size`` chunks and send
    chunk j to element j, which stacks what it receives along ``concat_axis`` (with
    ``tiled``, concatenates along it)."""
    groups = _canonicalize_axis_index_groups(axis_index_groups)

    def bind(x, split_axis=split_axis, concat_axis=concat_axis):
        group_size = psum(1, axis_name, axis_index_groups=groups)
        if tiled:
            if np.shape(x)[split_axis] % group_size != 0:
                raise ValueError(f"The size of all_to_all split_axis "
                                 f"({np.shape(x)[split_axis]}) has to be divisible by the "
                                 f"size of the named axis {axis_name} ({group_size})")
        else:
            if group_size != np.shape(x)[split_axis]:
                raise ValueError("all_to_all requires the size of the mapped axis "
                                 "axis_name to equal x.shape[split_axis], but they are "
                                 f"{group_size} and {np.shape(x)[split_axis]} respectively.")
            if split_axis < concat_axis:
                concat_axis += 1   # concat_axis is a position after split_axis is removed
                x = structural.expand_dims(x, (concat_axis,))
            elif concat_axis < split_axis:
                x = structural.expand_dims(x, (concat_axis,))
                split_axis += 1
        out = all_to_all_p.bind(_collective_pvary(axis_name, x), split_axis=split_axis,
                                concat_axis=concat_axis,
                                axis_name=axis_name, axis_index_groups=groups, tiled=tiled)
        if not tiled and split_axis != concat_axis:
            out = structural.squeeze(out, (split_axis,))
        return out

    return tree_util.tree_map(bind, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the mapped axis ``axis_name`` with the positional axis ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
