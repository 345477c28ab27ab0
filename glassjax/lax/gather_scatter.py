"""Gather and scatter: the general indexing operations that NumPy-style indexing and
``x.at[...]`` are built on (slicing.py batches its dynamic slices into them).

A ``gather`` picks one window of the operand per index vector; a ``scatter`` writes (or
adds, multiplies, takes the min/max with) one window of updates per index vector. The
two are each other's transposes: the transpose of a ``gather`` is a ``scatter-add`` of
the cotangent, and a scatter's transpose gathers. Out-of-bounds start indices are
*clamped* by XLA so that the whole window fits, unless the mode says to fill or drop. The
bounds check of a filling ``gather`` comes from reductions.py, above, through
``utils.above``. Read next: lax/reductions.py.
"""
from __future__ import annotations

import enum
import functools
import math
from typing import NamedTuple

import numpy as np

from glassjax import caches, core, dtypes, shape_poly
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.interpreters import ad, batching
from glassjax.lax import elementwise
from glassjax.lax.structural import (broadcast_in_dim, concatenate, expand_dims, full,
                                     full_like, iota, reshape, shape_as_value)
from glassjax.lax.utils import (above, canonicalize_shape, check_same_dtypes,
                                operand_memory_space, operand_weak_type, reduction_jaxpr,
                                spec_of, standard_primitive)
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir

_const = elementwise._const


# -- gather -------------------------------------------------------------------------------

class GatherDimensionNumbers(NamedTuple):
    """How a gather's operand, indices and output axes relate (XLA's Gather).

    ``offset_dims``: output axes that index into a gathered slice; ``collapsed_slice_dims``:
    operand axes of slice size 1 dropped from the output; ``start_index_map``: which
    operand axis each entry of an index vector (the last axis of the indices) starts;
    ``operand_batching_dims`` / ``start_indices_batching_dims``: axes matched between
    operand and indices (like dot_general's batch dims)."""
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
    """Out-of-bounds indices: ``CLIP`` clamps them so the window fits; ``FILL_OR_DROP``
    fills gathered windows with a fill value and drops scattered ones;
    ``PROMISE_IN_BOUNDS`` leaves it to the implementation."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _is_sorted(dims, op_name, name):
    if any(dims[i] < dims[i - 1] for i in range(1, len(dims))):
        raise TypeError(f"{name} in {op_name} op must be sorted; got {dims}")


def _dims_in_range(dims, rank, op_name, name):
    for dim in dims:
        if dim < 0 or dim >= rank:
            raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                            f"[0, {rank}); got: {dim}.")


def _sorted_dims_in_range(dims, rank, op_name, name):
    if len(dims) == 0:
        return
    invalid = dims[0] if dims[0] < 0 else dims[-1] if dims[-1] >= rank else None
    if invalid:
        raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                        f"[0, {rank}); got: {invalid}.")


def _no_duplicate_dims(dims, op_name, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op_name} op must not repeat; got: {dims}.")


def _disjoint_dims(dims1, dims2, op_name, name1, name2):
    if not set(dims1).isdisjoint(set(dims2)):
        raise TypeError(f"{name1} and {name2} in {op_name} op must be disjoint; "
                        f"got: {dims1} and {dims2}.")


def _check_index_vector_dim(indices, op_name):
    """Gather and scatter read index vectors along the last axis of ``indices``."""
    if indices.ndim == 0:
        raise TypeError(f"{op_name.capitalize()} index leaf dimension must be within "
                        f"[0, rank(indices) + 1). rank(indices) is 0 and {op_name} index "
                        "leaf dimension is -1.")


def _check_index_map(index_map, operand, indices, op_name, name):
    """Entry ``i`` of an index vector addresses operand axis ``index_map[i]``: one
    distinct axis per entry. (JAX's gather and scatter messages differ a little: kept.)"""
    gather = op_name == "gather"
    if len(index_map) != indices.shape[-1]:
        raise TypeError(f"{op_name.capitalize()} op has {len(index_map)} elements in "
                        f"{name} and the bound of dimension index_vector_dim="
                        f"{indices.ndim - 1} of indices is {indices.shape[-1]}. These two "
                        "numbers must be equal" + ("." if gather else ""))
    for i, d in enumerate(index_map):
        if d < 0 or d >= operand.ndim:
            raise TypeError(f"Invalid {name}{'' if gather else ' mapping'}; domain is "
                            f"[0, {operand.ndim}), got: {i}->{d}.")
    _no_duplicate_dims(index_map, op_name, name)


def _check_batching_dims(operand, indices, operand_batching, indices_batching, op_name,
                         indices_batching_name, disjoint_from_operand_batching):
    """The batching-dimension checks gather and scatter share: operand and indices
    batching dims pair up (same count, same sizes) and are disjoint from the dims in
    ``disjoint_from_operand_batching`` (``(dims, name)`` pairs). Returns the batch shape."""
    _no_duplicate_dims(operand_batching, op_name, "operand_batching_dims")
    _is_sorted(operand_batching, op_name, "operand_batching_dims")
    _sorted_dims_in_range(operand_batching, operand.ndim, op_name, "operand_batching_dims")
    for dims, name in disjoint_from_operand_batching:
        _disjoint_dims(dims, operand_batching, op_name, name, "operand_batching_dims")
    _no_duplicate_dims(indices_batching, op_name, indices_batching_name)
    _dims_in_range(indices_batching, indices.ndim, op_name, indices_batching_name)
    op = op_name.capitalize()
    if indices.ndim - 1 in indices_batching:
        raise TypeError(f"{op} op cannot have the index vector dimension as a batching "
                        f"dimension; got {indices_batching}.")
    if len(operand_batching) != len(indices_batching):
        space = "" if op_name == "gather" else " "      # (as JAX's messages have it)
        raise TypeError(f"{op} op requires equal numbers of operand_batching_dims and "
                        f"{indices_batching_name}, got {operand_batching} and{space}"
                        f"{indices_batching}.")
    operand_batch_shape = tuple(operand.shape[i] for i in operand_batching)
    indices_batch_shape = tuple(indices.shape[i] for i in indices_batching)
    if operand_batch_shape != indices_batch_shape:
        raise TypeError(f"{op} op requires operand batching dimensions and indices "
                        "batching dimensions to have the same shape, got "
                        f"{operand_batch_shape} and {indices_batch_shape}.")
    return operand_batch_shape


def _gather_shape_rule(operand, indices, *, dimension_numbers, slice_sizes,
                       unique_indices, indices_are_sorted, mode, fill_value):
    """XLA's checks of a gather (ShapeInference::InferGatherShape), with its messages."""
    dn = dimension_numbers
    offset_dims, collapsed, start_index_map = (dn.offset_dims, dn.collapsed_slice_dims,
                                               dn.start_index_map)
    operand_batching = dn.operand_batching_dims
    _check_index_vector_dim(indices, "gather")
    _is_sorted(offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(offset_dims, "gather", "offset_dims")
    output_rank = len(offset_dims) + indices.ndim - 1
    for i, offset_dim in enumerate(offset_dims):
        if offset_dim < 0 or offset_dim >= output_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got "
                            f"{offset_dim}, but should have been in [0, {output_rank})")
    _check_index_map(start_index_map, operand, indices, "gather", "start_index_map")
    _is_sorted(collapsed, "gather", "collapsed_slice_dims")
    _sorted_dims_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(collapsed, "gather", "collapsed_slice_dims")
    _check_batching_dims(operand, indices, operand_batching,
                         dn.start_indices_batching_dims, "gather",
                         "start_indices_batching_dims",
                         [(collapsed, "collapsed_slice_dims"),
                          (start_index_map, "start_index_map")])
    if operand.ndim != len(slice_sizes):
        raise TypeError("Gather op must have one slice size for every input dimension; "
                        f"got: len(slice_sizes)={len(slice_sizes)}, "
                        f"input_shape.rank={operand.ndim}")
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(operand_batching):
        raise TypeError("All components of the offset index in a gather op must either "
                        "be a offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{offset_dims}, collapsed_slice_dims={collapsed}, "
                        f"operand_batching_dims={operand_batching}.")
    for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape)):
        if math.prod(indices.shape) != 0 and not 0 <= size <= bound:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must "
                            f"be within [0, {bound} + 1), got {size}.")
    for i, d in enumerate(collapsed):
        if slice_sizes[d] != 1:
            raise TypeError("Gather op can only collapse slice dims with bound 1, but "
                            f"bound is {slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(operand_batching):
        if slice_sizes[d] > 1:
            raise TypeError("Gather op can only have operand batching dims with bound "
                            f"0/1, but bound is {slice_sizes[d]} for index {d} at "
                            f"position {i}.")
    return _gather_shape(indices.shape, dimension_numbers, slice_sizes)


def _gather_shape(indices_shape, dimension_numbers, slice_sizes):
    """Output axes: offset dims take the kept slice sizes, the others the index
    array's batch axes (all but its last, the index vector)."""
    dn = dimension_numbers
    output_rank = len(dn.offset_dims) + len(indices_shape) - 1
    batch_sizes = iter(indices_shape[:-1])
    kept_sizes = iter(s for i, s in enumerate(slice_sizes)
                      if i not in dn.collapsed_slice_dims and
                      i not in dn.operand_batching_dims)
    return tuple(next(kept_sizes) if i in dn.offset_dims else next(batch_sizes)
                 for i in range(output_rank))


def _gather_dtype_rule(operand, indices, **params):
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")
    return operand.dtype


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                 indices_are_sorted, fill_value, output_shape):
    """FILL_OR_DROP: an in-bounds gather, then windows whose start was out of bounds
    are replaced by ``fill_value``."""
    dn = dimension_numbers
    too_big = any(shape_poly.is_constant_dim(d) and d > np.iinfo(np.int32).max
                  for d in np.shape(operand))
    index_dtype = np.dtype(np.int64 if too_big else np.int32)
    indices = elementwise.convert_element_type(indices, index_dtype)
    num_batch_dims = np.ndim(indices) - 1
    bounds = tuple(np.shape(operand)[i] - slice_sizes[i] for i in dn.start_index_map)
    upper_bound = np.array(bounds, index_dtype) if shape_poly.is_constant_shape(bounds) \
        else elementwise.convert_element_type(shape_as_value(bounds), index_dtype)
    mask = elementwise.bitwise_and(
        elementwise.ge(indices, index_dtype.type(0)),
        elementwise.le(indices, expand_dims(upper_bound, tuple(range(num_batch_dims)))))
    mask = above.reduce_and(mask, [num_batch_dims])
    batch_dims_in_output = np.delete(np.arange(num_batch_dims + len(dn.offset_dims)),
                                     dn.offset_dims).tolist()
    out = gather(operand, indices, dn, slice_sizes, indices_are_sorted=indices_are_sorted,
                 mode=GatherScatterMode.PROMISE_IN_BOUNDS)
    typed = out.aval._sharding          # (the mask is split as the result is)
    return elementwise.select(
        broadcast_in_dim(mask, output_shape, batch_dims_in_output,
                         out_sharding=typed and NamedSharding(typed[0], PartitionSpec(
                             *typed[1]))),
        out, full_like(out, fill_value=fill_value))


def _gather_lower(ctx, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
    """``stablehlo.gather`` (which clamps windows into bounds); FILL_OR_DROP masks."""
    aval_out = ctx.avals_out[0]
    if mode == GatherScatterMode.FILL_OR_DROP:
        return lowering.lower_fun(_gather_fill)(
            ctx, operand, indices, dimension_numbers=dimension_numbers,
            slice_sizes=slice_sizes, unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted, fill_value=fill_value,
            output_shape=aval_out.shape)
    if mode not in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise NotImplementedError(f"gather mode {mode} is not supported")
    dn = dimension_numbers
    dnums = hlo.GatherDimensionNumbers.get(
        collapsed_slice_dims=[int(d) for d in dn.collapsed_slice_dims],
        operand_batching_dims=[int(d) for d in dn.operand_batching_dims],
        start_indices_batching_dims=[int(d) for d in dn.start_indices_batching_dims],
        index_vector_dim=ctx.avals_in[1].ndim - 1,
        offset_dims=[int(d) for d in dn.offset_dims],
        start_index_map=[int(d) for d in dn.start_index_map])
    if math.prod(aval_out.shape) == 0:
        return lowering.full_like_aval(0, aval_out)
    if not shape_poly.is_constant_shape(slice_sizes):   # sizes computed in the program
        return hlo.dynamic_gather(operand, indices, lowering.shape_tensor(slice_sizes),
                                  dnums, indices_are_sorted=indices_are_sorted,
                                  results=[lowering.aval_to_ir_type(aval_out)])
    return hlo.gather(operand, indices, dnums, [int(s) for s in slice_sizes],
                      indices_are_sorted=ir.BoolAttr.get(indices_are_sorted))


def _gather_jvp(g, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    return gather(g, indices, dimension_numbers, slice_sizes,
                  unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                  mode=mode, fill_value=0)


def _gather_to_scatter_dnums(dn):
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      unique_indices, indices_are_sorted, mode, fill_value):
    """Scatter-add the cotangent into zeros: every gathered element sends its
    cotangent back to where it was read (repeated reads accumulate)."""
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval), None]
    zeros = _zeros_like(operand, dtypes.dtype(ct))
    return [scatter_add(zeros, indices, ct, _gather_to_scatter_dnums(dimension_numbers),
                        unique_indices=unique_indices,
                        indices_are_sorted=indices_are_sorted, mode=mode), None]


def _shifted(dims):
    """Dimension numbers after a batch dimension is put in front: each one more."""
    return tuple(np.add(1, dims))


# Gather's and scatter's dimension numbers list the same five roles in the same order
# (scatter being gather's transpose): the window dimensions of the output or updates
# (``offset_dims`` / ``update_window_dims``), three lists of operand dimensions, and the
# indices' batching dimensions. Their batching rules move the batch dimensions to the
# front, and renumber alike:

def _operand_batched(dn):
    """Only the operand (and updates) batched: the batch dimension is one more window
    dimension, in front."""
    window, *operand_dims, indices_batching = dn
    return type(dn)((0,) + _shifted(window), *map(_shifted, operand_dims), indices_batching)


def _both_batched(dn):
    """Operand and indices batched: a new pair of batching dimensions, in front."""
    window, collapsed, to_operand, operand_batching, indices_batching = dn
    return type(dn)(_shifted(window), _shifted(collapsed), _shifted(to_operand),
                    (0,) + _shifted(operand_batching), (0,) + _shifted(indices_batching))


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
    """Three cases: only the operand is batched (its batch axis becomes one more
    offset axis), only the indices are (one more index batch axis), or both (a new
    pair of batching dims, like dot_general's)."""
    operand, indices = args
    operand_d, indices_d = dims
    dn = dimension_numbers
    if operand_d is not None and indices_d is None:
        operand = batching.moveaxis(operand, operand_d, 0)
        return gather(operand, indices, dimension_numbers=_operand_batched(dn),
                      slice_sizes=(np.shape(operand)[0],) + tuple(slice_sizes),
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      mode=mode, fill_value=fill_value), 0
    if operand_d is None and indices_d is not None:
        indices = batching.moveaxis(indices, indices_d, 0)
        dnums = GatherDimensionNumbers(
            offset_dims=tuple(1 + d for d in dn.offset_dims),
            collapsed_slice_dims=dn.collapsed_slice_dims,
            start_index_map=dn.start_index_map,
            operand_batching_dims=dn.operand_batching_dims,
            start_indices_batching_dims=_shifted(dn.start_indices_batching_dims))
        # Batched accesses into one array may no longer be sorted or unique.
        return gather(operand, indices, dimension_numbers=dnums, slice_sizes=slice_sizes,
                      unique_indices=False, indices_are_sorted=False, mode=mode,
                      fill_value=fill_value), 0
    operand = batching.moveaxis(operand, operand_d, 0)
    indices = batching.moveaxis(indices, indices_d, 0)
    slice_sizes = ((0,) if np.shape(operand)[0] == 0 else (1,)) + tuple(slice_sizes)
    return gather(operand, indices, dimension_numbers=_both_batched(dn),
                  slice_sizes=slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=fill_value), 0


def _gather_sharding(operand, indices, *, dimension_numbers, slice_sizes, **params):
    """Sharding in types (JAX's rule): an output dimension taken from the operand keeps
    its split if the operand is not sliced into along it (whole slices, or an unsplit
    operand dimension); the others come from the indices, which may be split only along
    batch dimensions (matched with the operand's). Anything else would need data moved
    between devices: JAX's error asks for ``out_sharding``."""
    dn = dimension_numbers
    operand_spec, indices_spec = spec_of(operand), list(spec_of(indices))
    whole_or_unsplit = all(slice_sizes[i] == operand.shape[i] or operand_spec[i] is None
                           for i in dn.start_index_map)
    batches_agree = all(_agree(operand_spec[o], indices_spec[i]) for o, i in
                        zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    queries_unsplit = all(s is None for i, s in enumerate(indices_spec)
                          if i not in dn.start_indices_batching_dims)
    if not (whole_or_unsplit and batches_agree and queries_unsplit):
        raise core.ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the "
            "gather indexing as out sharding could not be resolved unambiguously (or would "
            f"require collectives on inputs). Got operand={operand!r}, indices={indices!r}")
    for o, i in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        indices_spec[i] = indices_spec[i] or operand_spec[o]
    window = iter(operand_spec[i] for i in range(operand.ndim)
                  if i not in dn.collapsed_slice_dims and i not in dn.operand_batching_dims)
    queries = iter(indices_spec)
    return [next(window) if d in dn.offset_dims else next(queries)
            for d in range(len(dn.offset_dims) + indices.ndim - 1)]


def _agree(*entries) -> bool:
    """Splits of dimensions that must match: at most one axis name among them."""
    return len({e for e in entries if e is not None}) <= 1


gather_p = standard_primitive(_gather_shape_rule, _gather_dtype_rule, "gather",
                              weak_type_rule=operand_weak_type)
gather_p.sharding_rule = _gather_sharding
lowering.register_lowering(gather_p, _gather_lower)
ad.defjvp(gather_p, _gather_jvp, None)
ad.primitive_transposes[gather_p] = _gather_transpose
batching.primitive_batchers[gather_p] = _gather_batch


def _default_fill_value(dtype):
    """What out-of-bounds gathers return: NaN, the most negative / largest integer, or
    True, so that such values stand out."""
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if dtypes.issubdtype(dtype, np.signedinteger):
        return dtypes.iinfo(dtype).min
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return dtypes.iinfo(dtype).max
    if dtype == np.bool_:
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def gather(operand, start_indices, dimension_numbers, slice_sizes, *,
           unique_indices=False, indices_are_sorted=False, mode=None, fill_value=None):
    """Take slices of ``slice_sizes`` from ``operand`` at each index vector in
    ``start_indices`` (XLA's Gather; see ``GatherDimensionNumbers``)."""
    parsed_mode = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed_mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill_value(dtypes.dtype(operand, canonicalize=True))
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices, dimension_numbers=dimension_numbers,
                         slice_sizes=canonicalize_shape(slice_sizes),
                         unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=parsed_mode,
                         fill_value=fill_value)


def index_take(src, idxs, axes):
    """``src[idxs[0], idxs[1], ...]`` on ``axes`` (indices wrap around)."""
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    max_idx = expand_dims(np.array([src.shape[ax] for ax in axes]),
                          tuple(range(indices.ndim - 1)))
    indices = indices % max_idx
    slice_sizes = list(src.shape)
    for ax in axes:
        slice_sizes[ax] = 1
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, src.ndim -
                                                           indices.shape[1] + 1)),
                                   collapsed_slice_dims=tuple(axes),
                                   start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes))


# -- scatter ------------------------------------------------------------------------------

class ScatterDimensionNumbers(NamedTuple):
    """How a scatter's operand, indices and updates axes relate (XLA's Scatter); the
    mirror image of ``GatherDimensionNumbers``: ``update_window_dims`` are the axes of
    ``updates`` that lie within a window, ``inserted_window_dims`` the size-1 operand
    axes the windows lack, ``scatter_dims_to_operand_dims`` the operand axis each
    entry of an index vector addresses."""
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def _scatter_shape_rule(operand, indices, updates, *, update_jaxpr, update_consts,
                        dimension_numbers, indices_are_sorted, unique_indices, mode):
    """XLA's checks of a scatter (ShapeInference::InferScatterShape), with its messages."""
    dn = dimension_numbers
    update_window_dims, inserted = dn.update_window_dims, dn.inserted_window_dims
    operand_batching, indices_batching = dn.operand_batching_dims, \
        dn.scatter_indices_batching_dims
    to_operand = dn.scatter_dims_to_operand_dims
    _check_index_vector_dim(indices, "scatter")
    index_vector_dim = indices.ndim - 1
    expected_updates_rank = indices.ndim - 1 + len(update_window_dims)
    if updates.ndim != expected_updates_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_updates_rank}; got "
                        f"{updates.ndim}.")
    for dims, rank, name in [(update_window_dims, updates.ndim, "update_window_dims"),
                             (inserted, operand.ndim, "inserted_window_dims")]:
        _is_sorted(dims, "scatter", name)
        _no_duplicate_dims(dims, "scatter", name)
        _sorted_dims_in_range(dims, rank, "scatter", name)
    operand_batch_shape = _check_batching_dims(
        operand, indices, operand_batching, indices_batching, "scatter",
        "scatter_indices_batching_dims",
        [(inserted, "inserted_window_dims"), (to_operand, "scatter_dims_to_operand_dims")])
    scatter_dim_in_updates = list(range(index_vector_dim))
    for i in update_window_dims:
        scatter_dim_in_updates.insert(i, None)
    updates_batch_shape = tuple(updates.shape[scatter_dim_in_updates.index(i)]
                                for i in indices_batching)
    if operand_batch_shape != updates_batch_shape:
        raise TypeError("Scatter op requires operand batching dimensions and updates "
                        "batching dimensions to have the same shape, got "
                        f"{operand_batch_shape} and {updates_batch_shape}.")
    window_size = len(update_window_dims) + len(inserted) + len(operand_batching)
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match "
                        f"operand of rank {operand.ndim}.")
    _check_index_map(to_operand, operand, indices, "scatter",
                     "scatter_dims_to_operand_dims")
    max_window_sizes = [operand.shape[i] for i in range(operand.ndim)
                        if i not in set(inserted) and i not in set(operand_batching)]
    for i, d in enumerate(update_window_dims):
        if max_window_sizes[i] < updates.shape[d]:
            raise TypeError("Bounds of the window dimensions of updates must not exceed "
                            "the bounds of the corresponding dimensions of operand. For "
                            f"dimension {d}, updates bound is {updates.shape[d]}, "
                            f"operand bound is {max_window_sizes[i]}.")
    seen = 0
    for i in (d for d in range(updates.ndim) if d not in set(update_window_dims)):
        if seen == index_vector_dim:
            seen += 1
        if updates.shape[i] != indices.shape[seen]:
            raise TypeError("Bounds of the scatter dimensions of updates must be the same "
                            "as the bounds of the corresponding dimensions of scatter "
                            f"indices. For scatter dimension {i}, updates bound is "
                            f"{updates.shape[i]}, indices bound is "
                            f"{indices.shape[seen]}.")
        seen += 1
    return operand.shape


def _scatter_dtype_rule(operand, indices, updates, **params):
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")
    return check_same_dtypes("scatter", operand, updates)


def _scatter_to_gather(dn, operand_shape, updates_shape):
    """The gather that reads exactly the windows a scatter writes (its inverse)."""
    gather_dnums = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)
    slice_sizes, pos = [], 0
    for i in range(len(operand_shape)):
        if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
            slice_sizes.append(1)
        else:
            slice_sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    return gather_dnums, slice_sizes


def _clamp_scatter_indices(operand, indices, updates, *, dnums):
    """CLIP mode: clamp each index vector so its whole window lies in the operand."""
    _, slice_sizes = _scatter_to_gather(dnums, np.shape(operand), np.shape(updates))
    index_dtype = dtypes.dtype(indices)
    upper_bound = np.array([np.shape(operand)[i] - slice_sizes[i]
                            for i in dnums.scatter_dims_to_operand_dims], index_dtype)
    upper_bound = broadcast_in_dim(upper_bound, np.shape(indices), (np.ndim(indices) - 1,))
    return elementwise.clamp(index_dtype.type(0), indices, upper_bound)


def _scatter_lower(ctx, operand, indices, updates, *, update_jaxpr, update_consts,
                   dimension_numbers, indices_are_sorted, unique_indices, mode):
    """``stablehlo.scatter`` whose update region combines old and new values (the
    lowered ``update_jaxpr``; plain ``scatter`` keeps the new one)."""
    aval_out = ctx.avals_out[0]
    if update_jaxpr is None:
        update_jaxpr, update_consts = reduction_jaxpr(_keep_update,
                                                      core.ShapedArray((), aval_out.dtype))
    if mode == GatherScatterMode.CLIP:
        indices = lowering.lower_fun(_clamp_scatter_indices)(
            ctx, operand, indices, updates, dnums=dimension_numbers)
    dn = dimension_numbers
    scatter_dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=[int(d) for d in dn.update_window_dims],
        inserted_window_dims=[int(d) for d in dn.inserted_window_dims],
        input_batching_dims=[int(d) for d in dn.operand_batching_dims],
        scatter_indices_batching_dims=[int(d) for d in dn.scatter_indices_batching_dims],
        scattered_dims_to_operand_dims=[int(d) for d in dn.scatter_dims_to_operand_dims],
        index_vector_dim=ctx.avals_in[1].ndim - 1)
    op = hlo.ScatterOp([lowering.aval_to_ir_type(aval_out)], [operand], indices, [updates],
                       scatter_dnums,
                       indices_are_sorted=ir.BoolAttr.get(indices_are_sorted),
                       unique_indices=ir.BoolAttr.get(unique_indices))
    scalar = lowering.aval_to_ir_type(core.ShapedArray((), aval_out.dtype))
    block = op.update_computation.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        consts = [lowering.ir_constant(np.asarray(c)) for c in update_consts]
        outs = lowering.lower_jaxpr(ctx.module_context, update_jaxpr, consts,
                                    list(block.arguments))
        hlo.return_(outs)
    return op.results[0]


def _keep_update(x, y):
    return y


def _scatter_batch(prim, args, dims, *, update_jaxpr, update_consts, dimension_numbers,
                   indices_are_sorted, unique_indices, mode):
    operand, indices, updates = args
    operand_d, indices_d, updates_d = dims
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                  mode=mode)
    dn = dimension_numbers
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    operand = batching.bdim_at_front(operand, operand_d, size)
    updates = batching.bdim_at_front(updates, updates_d, size)
    if indices_d is None:
        return prim.bind(operand, indices, updates, dimension_numbers=_operand_batched(dn),
                         **params), 0
    indices = batching.bdim_at_front(indices, indices_d, size)
    return prim.bind(operand, indices, updates, dimension_numbers=_both_batched(dn),
                     **params), 0


def _scatter_sharding(operand, indices, updates, *, dimension_numbers, **params):
    """Sharding in types (JAX's rule, the gather's read backwards): batch dimensions of
    operand, indices and updates must agree; a window dimension of the updates matches
    the operand's (whole) or both are unsplit; the operand is not split where windows
    are inserted; the updates' and indices' query dimensions and the index vector are
    unsplit. The result is split as the operand, filled in from the others."""
    dn = dimension_numbers
    operand_spec, indices_spec, updates_spec = map(spec_of, (operand, indices, updates))
    vector_dim = indices.ndim - 1
    query_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    updates_batching = tuple(query_dims[i] for i in dn.scatter_indices_batching_dims)
    window_dims = [i for i in range(operand.ndim) if i not in dn.inserted_window_dims
                   and i not in dn.operand_batching_dims]
    windows = list(zip(dn.update_window_dims, window_dims))
    resolvable = (
        all(_agree(operand_spec[o], indices_spec[i], updates_spec[u]) for o, i, u in
            zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims,
                updates_batching))
        and all((updates.shape[u] == operand.shape[o] and updates_spec[u] == operand_spec[o])
                or (updates_spec[u] is None and operand_spec[o] is None)
                for u, o in windows)
        and all(operand_spec[i] is None for i in dn.inserted_window_dims)
        and all(s is None for i, s in enumerate(updates_spec)
                if i not in updates_batching and i not in dn.update_window_dims)
        and all(s is None for i, s in enumerate(indices_spec[:vector_dim])
                if i not in dn.scatter_indices_batching_dims)
        and indices_spec[vector_dim] is None)
    if not resolvable:
        raise core.ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec "
            "for the scatter update as out sharding could not be resolved unambiguously "
            "(or would require collectives on inputs). Got "
            f"operand={operand!r}, indices={indices!r}, updates={updates!r}")
    out = list(operand_spec)
    for o, i, u in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims,
                       updates_batching):
        out[o] = out[o] or indices_spec[i] or updates_spec[u]
    for u, o in windows:
        out[o] = out[o] or updates_spec[u]
    return out


def _scatter_primitive(name):
    prim = standard_primitive(_scatter_shape_rule, _scatter_dtype_rule, name,
                              weak_type_rule=operand_weak_type)
    prim.memory_space_rule = operand_memory_space
    prim.sharding_rule = _scatter_sharding
    lowering.register_lowering(prim, _scatter_lower)
    batching.primitive_batchers[prim] = functools.partial(_scatter_batch, prim)
    return prim


def _scatter_addsub_jvp(prim, primals, tangents, *, update_jaxpr, update_consts,
                        dimension_numbers, indices_are_sorted, unique_indices, mode):
    """scatter-add and scatter-sub are linear in (operand, updates) together."""
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts,
                  dimension_numbers=dimension_numbers,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                  mode=mode)
    out = prim.bind(operand, indices, updates, **params)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, prim.bind(ad.instantiate_zeros(g_operand), indices,
                          ad.instantiate_zeros(g_updates), **params)


def _shape(x):
    """The shape of a transpose rule's argument, defined or not."""
    return x.aval.shape if ad.is_undefined_primal(x) else np.shape(x)


def _zeros_like(x, dtype):
    """Zeros of ``x``'s shape and split (``x`` a value, or an undefined primal of a
    transpose rule) in ``dtype``."""
    aval = x.aval if ad.is_undefined_primal(x) else core.get_aval(x)
    return full(aval.shape, 0, dtype, sharding=aval.sharding)


def _gather_updates(x, indices, updates, dimension_numbers, mode):
    """The windows of ``x`` a scatter of ``updates`` wrote to: how a scatter's transpose
    gathers the updates' cotangent back."""
    gather_dnums, slice_sizes = _scatter_to_gather(dimension_numbers, np.shape(x),
                                                   _shape(updates))
    return gather(x, indices, dimension_numbers=gather_dnums, slice_sizes=slice_sizes,
                  mode=mode, fill_value=0)


def _scatter_addsub_transpose(prim, ct, operand, indices, updates, *, update_jaxpr,
                              update_consts, dimension_numbers, indices_are_sorted,
                              unique_indices, mode):
    """The operand's cotangent passes through; the updates' is gathered back (and
    negated for scatter-sub)."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, indices, updates])
    ct_operand = ct if ad.is_undefined_primal(operand) else None
    ct_updates = None
    if ad.is_undefined_primal(updates):
        ct_updates = _gather_updates(ct, indices, updates, dimension_numbers, mode)
        if prim is scatter_sub_p:
            ct_updates = elementwise.neg(ct_updates)
    return [ct_operand, None, ct_updates]


scatter_add_p = _scatter_primitive("scatter-add")
scatter_sub_p = _scatter_primitive("scatter-sub")
for _p in (scatter_add_p, scatter_sub_p):
    ad.primitive_jvps[_p] = functools.partial(_scatter_addsub_jvp, _p)
    ad.primitive_transposes[_p] = functools.partial(_scatter_addsub_transpose, _p)


def _scatter_mul_jvp_rhs(g, x, i, y, *, dimension_numbers, indices_are_sorted,
                         unique_indices, mode, **params):
    if not unique_indices:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`")
    return elementwise.mul(x, scatter_add(
        full_like(x, 0), i, g, dimension_numbers=dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode))


def _scatter_mul_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, indices, updates])
    ct_operand = ct_updates = None
    if ad.is_undefined_primal(operand):
        ct_operand = scatter_mul(ct, indices, updates, dimension_numbers=dimension_numbers,
                                 indices_are_sorted=indices_are_sorted,
                                 unique_indices=unique_indices, mode=mode)
    if ad.is_undefined_primal(updates):
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")
        ct_updates = _gather_updates(elementwise.mul(ct, operand), indices, updates,
                                     dimension_numbers, mode)
    return [ct_operand, None, ct_updates]


scatter_mul_p = _scatter_primitive("scatter-mul")
ad.defjvp(scatter_mul_p, lambda g, x, i, y, **params: scatter_mul_p.bind(g, i, y, **params),
          None, _scatter_mul_jvp_rhs)
ad.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose


def _scatter_extremal_jvp(prim, primals, tangents, *, update_jaxpr, update_consts,
                          dimension_numbers, indices_are_sorted, unique_indices, mode):
    """The tangent of scatter-min/max: where updates win, their tangents (averaged
    among ties, including the operand's own value when it is retained)."""
    ew = elementwise
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    dn = dimension_numbers
    out = prim.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                    update_consts=update_consts, dimension_numbers=dn,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    g_operand = ad.instantiate_zeros(g_operand)
    g_updates = ad.instantiate_zeros(g_updates)
    gather_dnums, slice_sizes = _scatter_to_gather(dn, np.shape(operand), np.shape(updates))
    initial_vals = gather(operand, indices, gather_dnums, slice_sizes)
    target_vals = gather(out, indices, gather_dnums, slice_sizes)
    # ``==``, not ``eq``, as in JAX: a literal ``updates`` (a NumPy scalar from a jaxpr)
    # defers to the tracer, so the comparison is staged ``eq target updates``.
    successful_updates = updates == target_vals
    retained_values = initial_vals == target_vals
    num_updates = gather(
        scatter_add(full_like(operand, 0), indices,
                    ew.select(successful_updates, full_like(updates, 1),
                              full_like(updates, 0)), dn),
        indices, gather_dnums, slice_sizes)
    num_refs = gather(scatter_add(full_like(operand, 0), indices, full_like(updates, 1),
                                  dn), indices, gather_dnums, slice_sizes)
    one = _const(num_updates, 1)
    updates_normalizer = ew.select(retained_values, ew.div(one, ew.add(num_updates, one)),
                                   ew.div(one, num_updates))
    updates_coef = ew.select(successful_updates, updates_normalizer, full_like(updates, 0))
    operand_normalizer = ew.select(retained_values, ew.div(one, ew.add(num_updates, one)),
                                   full_like(num_updates, 0))
    operand_coef = ew.div(ew.add(_const(num_updates, -1), operand_normalizer), num_refs)
    target_tangents = gather(g_operand, indices, gather_dnums, slice_sizes)
    tangent_updates = ew.add(ew.mul(target_tangents, operand_coef),
                             ew.mul(g_updates, updates_coef))
    t_out = scatter_add(g_operand, indices, tangent_updates, dn,
                        indices_are_sorted=indices_are_sorted,
                        unique_indices=unique_indices, mode=mode)
    return out, t_out


scatter_min_p = _scatter_primitive("scatter-min")
ad.primitive_jvps[scatter_min_p] = functools.partial(_scatter_extremal_jvp, scatter_min_p)
scatter_max_p = _scatter_primitive("scatter-max")
ad.primitive_jvps[scatter_max_p] = functools.partial(_scatter_extremal_jvp, scatter_max_p)


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
    """With overlapping indices it is unspecified which update wins, so: scatter an
    id per update, gather the ids back to see which won, mask the losers, and
    scatter-add the (now non-overlapping) primal and tangent values."""
    ew = elementwise
    if update_jaxpr is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    g_operand, _, g_updates = tangents
    dn = dimension_numbers
    params = dict(update_jaxpr=update_jaxpr, update_consts=update_consts,
                  dimension_numbers=dn, indices_are_sorted=indices_are_sorted, mode=mode)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        out = scatter_p.bind(operand, indices, updates, unique_indices=unique_indices,
                             **params)
        return out, ad.Zero.from_primal_value(out)
    g_operand = ad.instantiate_zeros(g_operand)
    g_updates = ad.instantiate_zeros(g_updates)
    if unique_indices:
        out = scatter_p.bind(operand, indices, updates, unique_indices=True, **params)
        return out, scatter_p.bind(g_operand, indices, g_updates, unique_indices=True,
                                   **params)
    ids_shape = list(np.shape(updates))
    for d in dn.update_window_dims:
        ids_shape[d] = 1
    num_ids = math.prod(ids_shape)
    id_dtype = np.dtype(np.uint64 if num_ids > np.iinfo(np.uint32).max else np.uint32)
    update_ids = ew.add(reshape(iota(id_dtype, num_ids), ids_shape),
                        full_like(updates, 1, dtype=id_dtype))
    scattered_ids = scatter(_zeros_like(operand, id_dtype), indices, update_ids, dn,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)
    gather_dnums, slice_sizes = _scatter_to_gather(dn, np.shape(scattered_ids),
                                                   np.shape(updates))
    gathered_update_ids = gather(scattered_ids, indices, dimension_numbers=gather_dnums,
                                 slice_sizes=slice_sizes)
    untouched = lambda: ew.eq(scattered_ids, full_like(scattered_ids, 0))
    won = lambda: ew.eq(update_ids, gathered_update_ids)
    masked_operand = ew.select(untouched(), operand, full_like(operand, 0))
    masked_updates = ew.select(won(), updates, full_like(updates, 0))
    masked_g_operand = ew.select(untouched(), g_operand, full_like(g_operand, 0))
    masked_g_updates = ew.select(won(), g_updates, full_like(g_updates, 0))
    kw = dict(dimension_numbers=dn, indices_are_sorted=indices_are_sorted,
              unique_indices=unique_indices, mode=mode)
    return (scatter_add(masked_operand, indices, masked_updates, **kw),
            scatter_add(masked_g_operand, indices, masked_g_updates, **kw))


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
    """Only with unique indices: the operand's cotangent is zero where it was
    overwritten; the updates' is gathered."""
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, indices, updates])
    ct_operand = ct_updates = None
    if ad.is_undefined_primal(operand):
        ct_operand = scatter(ct, indices, _zeros_like(updates, dtypes.dtype(ct)),
                             dimension_numbers=dimension_numbers,
                             indices_are_sorted=indices_are_sorted, unique_indices=True,
                             mode=mode)
    if ad.is_undefined_primal(updates):
        ct_updates = _gather_updates(ct, indices, updates, dimension_numbers, mode)
    return [ct_operand, None, ct_updates]


scatter_p = _scatter_primitive("scatter")
ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.primitive_transposes[scatter_p] = _scatter_transpose


def _combining_scatter(prim, combine, identity, what):
    """The public function of a scatter that combines old and new values with
    ``combine``; the scalar jaxpr of ``combine`` is the ``update_jaxpr`` param (printed,
    and lowered as the update region). ``what`` begins its docstring."""
    def scatter_fn(operand, scatter_indices, updates, dimension_numbers, *,
                   indices_are_sorted=False, unique_indices=False, mode=None):
        jaxpr, consts = reduction_jaxpr(combine, core.get_aval(_const(operand, identity)))
        return prim.bind(operand, scatter_indices, updates, update_jaxpr=jaxpr,
                         update_consts=consts, dimension_numbers=dimension_numbers,
                         indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=GatherScatterMode.from_any(mode))
    scatter_fn.__name__ = scatter_fn.__qualname__ = prim.name.replace("-", "_")
    scatter_fn.__doc__ = f"{what} at the windows ``scatter_indices``."
    return scatter_fn


scatter_add = _combining_scatter(scatter_add_p, elementwise.add, 0,
                                 "Add ``updates`` into ``operand``")
scatter_sub = _combining_scatter(scatter_sub_p, elementwise.sub, 0,
                                 "Subtract ``updates`` from ``operand``")
scatter_mul = _combining_scatter(scatter_mul_p, elementwise.mul, 1,
                                 "Multiply ``operand`` by ``updates``")
scatter_min = _combining_scatter(scatter_min_p, elementwise.min, 0,
                                 "Minimum of ``operand`` and ``updates``")
scatter_max = _combining_scatter(scatter_max_p, elementwise.max, 0,
                                 "Maximum of ``operand`` and ``updates``")


def scatter(operand, scatter_indices, updates, dimension_numbers, *,
            indices_are_sorted=False, unique_indices=False, mode=None):
    """Write ``updates`` into ``operand`` at the windows ``scatter_indices`` (with
    overlapping windows, which update wins is unspecified)."""
    return scatter_p.bind(operand, scatter_indices, updates, update_jaxpr=None,
                          update_consts=(), dimension_numbers=dimension_numbers,
                          indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices,
                          mode=GatherScatterMode.from_any(mode))


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """Replace the indexed elements of ``operand`` by ``func`` of them (applied once
    per occurrence of an index). Not differentiable, as in JAX."""
    unused = full(update_shape, 0, dtypes.dtype(operand))
    jaxpr, consts = reduction_jaxpr(_scatter_apply_computation(func),
                                    core.get_aval(_const(operand, 0)))
    return scatter_p.bind(operand, scatter_indices, unused, update_jaxpr=jaxpr,
                          update_consts=consts, dimension_numbers=dimension_numbers,
                          indices_are_sorted=indices_are_sorted,
                          unique_indices=unique_indices,
                          mode=GatherScatterMode.from_any(mode))


@caches.lru("lax.gather_scatter._scatter_apply_computation", 4096)
def _scatter_apply_computation(func):
    """``(x, _) -> func(x)``, one function per ``func`` so that its jaxpr is cached."""
    return lambda x, _: func(x)
