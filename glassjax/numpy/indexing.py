"""NumPy indexing (``x[idx]``, ``x.at[idx].set(y)``, ``jnp.take``) in terms of lax.

An index is parsed into one entry per indexing element (``None``, ``...``, an int, a
slice, an integer array, a boolean mask) and then lowered to the cheapest lax operation
that does the job, in the order JAX tries them:

1. **static slice**: ints and slices with static bounds -> ``slice`` (+ ``rev`` for
   negative steps, ``squeeze`` for ints, ``broadcast_in_dim`` for ``None``);
2. **dynamic slice**: scalar traced indices and unit-step slices -> ``dynamic_slice``
   (indices are clamped, so out-of-bounds reads return edge elements);
3. **gather**: everything else (integer arrays, boolean masks, strided slices mixed with
   arrays). Boolean masks must be concrete: the result's shape depends on them.

Updates (``.at[idx].set/add/...``) always go through the same gather description,
turned into a ``scatter``.
"""
from __future__ import annotations

import dataclasses
import enum
import operator
from typing import NamedTuple, Sequence

import numpy as np

from glassjax import core, dtypes, lax, shape_poly, tree_util
from glassjax.array import Array
from glassjax.lax.dim_as_value import dim_as_value
from glassjax.config import config
from glassjax.jit import jit
from glassjax.lax import slicing, utils as lax_utils
from glassjax.lax.sharding_constraint import reshard
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding, spec_to_sharding
from glassjax.numpy import util
from glassjax.numpy.util import canonicalize_axis, const, ensure_arraylike, is_array


class IndexType(enum.Enum):
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ARRAY = "array"
    DSLICE = "dslice"       # jax.ds(start, size, stride): a start that may be traced


class ParsedIndex(NamedTuple):
    index: object
    typ: IndexType
    consumed_axes: tuple      # the axes of the indexed array this element selects from


def _is_integer_index(idx) -> bool:
    return isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_))


def _is_scalar(x) -> bool:
    return np.isscalar(x) or ((isinstance(x, np.ndarray) or is_array(x)) and np.ndim(x) == 0)


def _is_boolean_index(i) -> bool:
    if (isinstance(i, (bool, np.bool_, np.ndarray)) or is_array(i)) and \
            dtypes.issubdtype(np.result_type(i) if not is_array(i) else i.dtype, np.bool_):
        return True
    return isinstance(i, list) and bool(i) and all(
        _is_scalar(e) and dtypes.issubdtype(dtypes.dtype(e), np.bool_) for e in i)


def _index_type(idx) -> IndexType:
    if idx is None:
        return IndexType.NONE
    if idx is Ellipsis:
        return IndexType.ELLIPSIS
    if isinstance(idx, slice):
        return IndexType.SLICE
    if isinstance(idx, slicing.Slice):
        return IndexType.DSLICE
    if _is_integer_index(idx):
        return IndexType.INTEGER
    if _is_boolean_index(idx):
        return IndexType.BOOLEAN
    if isinstance(idx, np.ndarray) or is_array(idx):
        if dtypes.issubdtype(idx.dtype, np.integer):
            return IndexType.ARRAY
        raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                        f"{idx.dtype}")
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got idx={idx!r}")
    if isinstance(idx, Sequence):
        if not idx:
            return IndexType.ARRAY
        dtype = np.result_type(*[np.asarray(e) if not is_array(e) else e.dtype
                                 for e in np.ravel(np.asarray(idx, dtype=object))])
        if dtype == np.bool_:
            return IndexType.BOOLEAN
        if dtypes.issubdtype(dtype, np.integer):
            return IndexType.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{dtypes.canonicalize_dtype(dtype)}")
    if isinstance(idx, (float, complex, np.generic)):
        raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                        f"{np.dtype(type(idx))}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {idx}")


def _tuple_index(idx) -> tuple:
    """``x[i]`` means ``x[(i,)]``; a list is an array index, never a tuple of indices."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str) and not (
            isinstance(idx, np.ndarray) or is_array(idx)):
        nested = any((isinstance(i, np.ndarray) or is_array(i)) and np.ndim(i) != 0 or
                     isinstance(i, (Sequence, slice)) or i is Ellipsis or i is None
                     for i in idx)
        fix = "arr[tuple(seq)]" if nested else "arr[array(seq)]"
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        f"allowed; use `{fix}` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def parse_indices(idx, shape) -> list[ParsedIndex]:
    """One ParsedIndex per element of ``idx``, with the axes each one consumes."""
    indices = _tuple_index(idx)
    types = [_index_type(i) for i in indices]
    consumed = [np.ndim(i) if t == IndexType.BOOLEAN else
                0 if t in (IndexType.NONE, IndexType.ELLIPSIS) else 1
                for i, t in zip(indices, types)]
    ellipses = [n for n, t in enumerate(types) if t == IndexType.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if sum(consumed) > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but "
                         f"{sum(consumed)} were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - sum(consumed)
    parsed, axis = [], 0
    for index, typ, n in zip(indices, types, consumed):
        parsed.append(ParsedIndex(index, typ, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipses(parsed, shape) -> list[ParsedIndex]:
    """Replace ``...`` (and the implicit trailing one) by full slices."""
    out = []
    for p in parsed:
        if p.typ == IndexType.ELLIPSIS:
            out += [ParsedIndex(slice(None), IndexType.SLICE, (a,)) for a in p.consumed_axes]
        else:
            out.append(p)
    consumed = sum(len(p.consumed_axes) for p in parsed)
    out += [ParsedIndex(slice(None), IndexType.SLICE, (a,))
            for a in range(consumed, len(shape))]
    return out


def _static_value(x):
    """Whether a slice bound is known while tracing."""
    return x is None or not isinstance(x, core.Tracer) or x.to_concrete_value() is not None


# ----------------------------------------------------------------------------------------
# Strategy 1 and 2: slices
# ----------------------------------------------------------------------------------------

def _static_slice(arr, parsed, mode, normalize_indices):
    """ints and static slices: ``slice``/``rev``/``squeeze``/``expand_dims``. Raises
    (caught by the caller) when the index needs something more."""
    if not shape_poly.is_constant_shape(arr.shape):
        raise ValueError("mode='slice' is not valid for polymorphic shapes.")
    if mode is not None and lax.GatherScatterMode.from_any(mode) not in (
            lax.GatherScatterMode.PROMISE_IN_BOUNDS, lax.GatherScatterMode.CLIP):
        raise ValueError("static_slice requires mode='promise_in_bounds' or mode='clip'")
    promise = mode is None or lax.GatherScatterMode.from_any(mode) == \
        lax.GatherScatterMode.PROMISE_IN_BOUNDS
    for pos, p in enumerate(parsed):
        if p.typ in (IndexType.ARRAY, IndexType.BOOLEAN, IndexType.DSLICE):
            raise TypeError("static_slice: indices must be static scalars or slices. Got "
                            f"index of type {type(p.index)} at position {pos}")
        if p.typ == IndexType.INTEGER and promise:
            axis, = p.consumed_axes
            i = operator.index(p.index)
            normed = i + arr.shape[axis] if normalize_indices and i < 0 else i
            if not 0 <= normed < arr.shape[axis]:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size "
                                 f"{arr.shape[axis]} (normalize_indices="
                                 f"{normalize_indices})")
        if p.typ == IndexType.SLICE and not all(
                _static_value(v) for v in (p.index.start, p.index.stop, p.index.step)):
            raise IndexError(f"Slice entries must be static integers. Got {p.index} at "
                             f"position {pos}")
    starts, limits, strides = [], [], []
    rev_axes, squeeze_axes, newaxis_dims = [], [], []
    for p in _expand_ellipses(parsed, arr.shape):
        if p.typ == IndexType.NONE:
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.typ == IndexType.INTEGER:
            axis, = p.consumed_axes
            if arr.shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            start = int(p.index)
            if normalize_indices and start < 0:
                start += arr.shape[axis]
            start = min(max(start, 0), arr.shape[axis] - 1)
            starts.append(start)
            limits.append(start + 1)
            strides.append(1)
            squeeze_axes.append(axis)
        else:
            axis, = p.consumed_axes
            size = arr.shape[axis]
            start, stop, step = slice(*(None if v is None else operator.index(v) for v in
                                        (p.index.start, p.index.stop, p.index.step))
                                      ).indices(size)
            if step < 0:
                # Slice the same elements in increasing order, then reverse.
                new_start = min(size, stop + 1 + abs(start - stop - 1) % abs(step))
                starts.append(new_start)
                limits.append(max(new_start, start + 1))
                strides.append(-step)
                rev_axes.append(axis)
            else:
                starts.append(start)
                limits.append(max(start, stop))
                strides.append(step)
    strides = None if all(s == 1 for s in strides) else strides
    trivial = strides is None and all((s, l) == (0, d) for s, l, d in
                                      zip(starts, limits, arr.shape))
    result = arr if trivial else lax.slice(arr, starts, limits, strides)
    return _reverse_squeeze_expand(result, rev_axes, squeeze_axes, newaxis_dims)


def _reverse_squeeze_expand(result, rev_axes, squeeze_axes, newaxis_dims):
    """What a basic index does after slicing: reverse the negative-step axes, drop the
    integer-indexed ones, insert the ``None`` ones."""
    if rev_axes:
        result = lax.rev(result, rev_axes)
    if squeeze_axes:
        result = lax.squeeze(result, squeeze_axes)
    if newaxis_dims:
        result = lax.expand_dims(result, newaxis_dims)
    return result


def _dynamic_slice(arr, parsed, mode, normalize_indices):
    """Scalar (possibly traced) indices and unit-step slices: ``dynamic_slice``."""
    if mode is not None and lax.GatherScatterMode.from_any(mode) not in (
            lax.GatherScatterMode.PROMISE_IN_BOUNDS, lax.GatherScatterMode.CLIP):
        raise ValueError("dynamic_slice requires mode='promise_in_bounds' or mode='clip'")
    for pos, p in enumerate(parsed):
        if p.typ == IndexType.SLICE and p.index.step not in (None, -1, 1):
            raise TypeError("dynamic_slice: only unit steps supported in slice. Got "
                            f"{p.index} at position {pos}")
        if p.typ == IndexType.ARRAY and (isinstance(p.index, Sequence) or
                                         np.shape(p.index) != ()):
            raise TypeError("dynamic_slice: only scalar indices allowed. Got index of type "
                            f"{type(p.index)} at position {pos}")
        if p.typ == IndexType.BOOLEAN:
            raise TypeError("dynamic_slice: indices must be scalars or slices. Got index of "
                            f"type {type(p.index)} at position {pos}")
    starts, sizes, rev_axes, squeeze_axes, newaxis_dims, strided = [], [], [], [], [], []
    trivial = True
    for p in _expand_ellipses(parsed, arr.shape):
        if p.typ == IndexType.NONE:
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.typ in (IndexType.INTEGER, IndexType.ARRAY):
            trivial = False
            axis, = p.consumed_axes
            if arr.shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(p.index)
            sizes.append(1)
            squeeze_axes.append(axis)
        elif p.typ == IndexType.DSLICE:      # its window, then every stride-th element
            trivial = False
            axis, = p.consumed_axes
            starts.append(p.index.start)
            sizes.append((p.index.size - 1) * p.index.stride + 1)
            if p.index.stride != 1:
                strided.append((axis, p.index.stride))
        else:
            if p.index != slice(None):
                trivial = False
            axis, = p.consumed_axes
            size = arr.shape[axis]
            start, stop, step = p.index.indices(size)   # (a symbolic size: TypeError)
            if step < 0:
                new_start = stop + 1 + abs(start - stop - 1) % abs(step)
                starts.append(new_start)
                sizes.append(max(0, start + 1 - new_start))
                rev_axes.append(axis)
            else:
                starts.append(start)
                sizes.append(max(0, stop - start))
    if len(starts) > 1:
        starts = [lax.convert_element_type(i, _index_dtype(arr.shape)) for i in starts]
    result = arr if trivial else lax.dynamic_slice(
        arr, starts, sizes, allow_negative_indices=normalize_indices)
    for axis, stride in strided:
        result = lax.slice_in_dim(result, 0, None, stride, axis)
    return _reverse_squeeze_expand(result, rev_axes, squeeze_axes, newaxis_dims)


def _index_dtype(shape):
    """int32 indices unless an axis is too long for them."""
    return np.dtype(np.int64) if any(shape_poly.is_constant_dim(d) and d > np.iinfo(np.int32).max
                                     for d in shape) \
        else np.dtype(np.int32)


# ----------------------------------------------------------------------------------------
# Strategy 3: gather
# ----------------------------------------------------------------------------------------

class GatherIndexer(NamedTuple):
    """An index as one gather: its indices array and dimension numbers, plus the
    reversals and new axes applied around it."""
    slice_shape: list             # shape of the result before newaxis_dims
    slice_sharding: object        # its split over Explicit mesh axes (or None)
    gather_slice_shape: list
    gather_indices: object
    dnums: object
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: list
    newaxis_dims: tuple
    scalar_bool_dims: list


def _expand_bool_indices(parsed, shape) -> list[ParsedIndex]:
    """A boolean mask becomes the integer arrays of its true positions (so it must be
    concrete); a scalar boolean stays, to add (or empty) a new axis."""
    out = []
    for pos, p in enumerate(parsed):
        if p.typ != IndexType.BOOLEAN:
            out.append(p)
            continue
        value = p.index
        if isinstance(value, core.Tracer):
            value = value.to_concrete_value()
            if value is None:
                from glassjax.errors import NonConcreteBooleanIndexError
                raise NonConcreteBooleanIndexError(p.index.aval)
        if np.ndim(value) == 0:
            out.append(ParsedIndex(bool(value), p.typ, ()))
            continue
        idx_shape = np.shape(value)
        expected = [shape[i] for i in p.consumed_axes]
        if not all(s1 in (0, s2) for s1, s2 in zip(idx_shape, expected)):
            raise IndexError(f"boolean index did not match shape of indexed array in index "
                             f"{pos}: got {idx_shape}, expected {expected}")
        out += [ParsedIndex(i, IndexType.ARRAY, (axis,))
                for i, axis in zip(np.where(np.asarray(value)), p.consumed_axes)]
    return out


def _expand_scalar_bool_indices(parsed, shape):
    """``x[True]`` is ``x[None]``-like: a new axis of size 1 indexed by ``arange(1)``
    (size 0 for ``False``)."""
    new_shape, new_parsed, axis = list(shape), [], 0
    for i, p in enumerate(parsed):
        if p.typ == IndexType.BOOLEAN and np.ndim(p.index) == 0:
            new_shape.insert(i, 1)
            new_parsed.append(ParsedIndex(np.arange(int(p.index)), IndexType.ARRAY, (axis,)))
            axis += 1
        else:
            n = len(p.consumed_axes)
            new_parsed.append(ParsedIndex(p.index, p.typ, tuple(range(axis, axis + n))))
            axis += n
    return new_parsed, tuple(new_shape)


def _normalize_array_indices(parsed, shape):
    """Negative indices count from the end (ints here; arrays with a ``select``)."""
    out = []
    for p in parsed:
        if p.typ == IndexType.INTEGER:
            size = shape[p.consumed_axes[0]]
            index = p.index if isinstance(p.index, np.unsignedinteger) or p.index >= 0 \
                else p.index + size
            out.append(p._replace(index=index))
        elif p.typ == IndexType.ARRAY:
            out.append(p._replace(index=_normalize_index(p.index,
                                                         shape[p.consumed_axes[0]])))
        else:
            out.append(p)
    return out


def index_to_gather(parsed, shape, normalize_indices=True, typed=None) -> GatherIndexer:
    """The gather that implements ``parsed`` on an array of ``shape`` (split as
    ``typed``, its type's ``(mesh, spec)``, says).

    Advanced (array) indices are broadcast together; their result axes go where the
    first of them was if they are adjacent, else to the front (NumPy's rule). Slices
    become offset (window) axes, or gathered index vectors when strided."""
    from glassjax.numpy.array_creation import asarray
    for position, p in enumerate(parsed):
        if p.typ == IndexType.SLICE and not all(
                v is None or not isinstance(v, core.Tracer) or
                v.to_concrete_value() is not None
                for v in (p.index.start, p.index.stop, p.index.step)):
            raise IndexError("Slice entries must be static integers. Got "
                             f"{p.index} at position {position}")
    parsed = [p._replace(index=asarray(p.index)) if isinstance(p.index, Sequence) else p
              for p in parsed]
    advanced = [n for n, p in enumerate(parsed)
                if p.typ in (IndexType.ARRAY, IndexType.INTEGER)]
    advanced_contiguous = bool(np.all(np.diff(advanced) == 1))
    parsed = _expand_ellipses(parsed, shape)
    scalar_bool_dims = [n for n, p in enumerate(parsed) if p.typ == IndexType.BOOLEAN]
    parsed, shape = _expand_scalar_bool_indices(parsed, shape)
    if normalize_indices:
        parsed = _normalize_array_indices(parsed, shape)

    advanced_indexes, idx_advanced_axes, x_advanced_axes = [], [], []
    if any(p.typ == IndexType.ARRAY and np.ndim(p.index) > 0 for p in parsed):
        without_none = [(i, p) for i, p in enumerate(parsed) if p.typ != IndexType.NONE]
        for j, (i, p) in enumerate(without_none):
            if p.typ in (IndexType.ARRAY, IndexType.INTEGER):
                advanced_indexes.append(asarray(p.index))
                idx_advanced_axes.append(i)
                x_advanced_axes.append(j)

    index_dtype = _index_dtype(shape)
    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed_slice_dims, start_index_map = [], [], []
    gather_indices, gather_indices_shape = [], []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []
    x_spec, slice_spec = (typed[1] if typed else (None,) * len(shape)), []
    for idx_pos, p in enumerate(parsed):
        if advanced_indexes and idx_pos == (idx_advanced_axes[0] if advanced_contiguous
                                            else 0):
            arrays = util.broadcast_arrays(*advanced_indexes)
            adv_shape = arrays[0].shape
            start_dim = len(gather_indices_shape)
            gather_indices += [(lax.convert_element_type(a, index_dtype), start_dim)
                               for a in arrays]
            gather_indices_shape += adv_shape
            start_index_map += x_advanced_axes
            collapsed_slice_dims += x_advanced_axes
            slice_shape += adv_shape
            slice_spec += lax_utils.spec_of(core.get_aval(arrays[0]))
            y_axis += len(adv_shape)
            collapsed_y_axis += len(adv_shape)
        if idx_pos in idx_advanced_axes:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.typ in (IndexType.INTEGER, IndexType.ARRAY) and np.ndim(p.index) == 0:
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((lax.convert_element_type(p.index, index_dtype),
                                   len(gather_indices_shape)))
            collapsed_slice_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.typ == IndexType.NONE:
            slice_shape.append(1)
            slice_spec.append(None)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif p.typ == IndexType.SLICE:
            start, stop, step = shape_poly.slice_indices(p.index, shape[x_axis])
            size = shape_poly.slice_size(start, stop, step)
            slice_shape.append(size)
            slice_spec.append(x_spec[x_axis])
            if step == 1:
                if size != shape[x_axis]:
                    gather_indices.append((lax.convert_element_type(start, index_dtype),
                                           len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                from glassjax.numpy.array_creation import array
                # A strided slice gathers the index vector start + step * iota (reversed
                # for negative steps so that indices increase; the result is reversed back).
                indices = array(start, dtype=index_dtype) + array(step, dtype=index_dtype) \
                    * lax.iota(index_dtype, size)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    indices = lax.rev(indices, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((indices, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed_slice_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
        else:
            raise IndexError(f"Got unsupported indexer at position {idx_pos}: {p!r}")

    if not gather_indices:
        indices_array = np.zeros((0,), dtype=index_dtype)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        indices_array = lax.expand_dims(g, (np.ndim(g),))
    else:
        last_dim = len(gather_indices_shape)
        gather_indices_shape.append(1)
        indices_array = lax.concatenate(
            [lax.broadcast_in_dim(g, gather_indices_shape, tuple(range(i, i + np.ndim(g))))
             for g, i in gather_indices], last_dim)
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                       collapsed_slice_dims=tuple(sorted(
                                           collapsed_slice_dims)),
                                       start_index_map=tuple(start_index_map))
    slice_sharding = (NamedSharding(typed[0], PartitionSpec(*slice_spec))
                      if typed and any(slice_spec) else None)
    return GatherIndexer(slice_shape, slice_sharding, gather_slice_shape, indices_array,
                         dnums,
                         unique_indices=not advanced_indexes,
                         indices_are_sorted=not advanced_indexes,
                         reversed_y_dims=reversed_y_dims, newaxis_dims=tuple(newaxis_dims),
                         scalar_bool_dims=scalar_bool_dims)


def _gather(arr, parsed, *, indices_are_sorted, unique_indices, mode, fill_value,
            normalize_indices):
    indexer = index_to_gather(parsed, arr.shape, normalize_indices)
    y = arr
    if fill_value is not None:
        core.concrete_or_error(None, fill_value, "fill_value argument to indexed get()")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
    if indexer.scalar_bool_dims:
        y = lax.expand_dims(y, indexer.scalar_bool_dims)
    if 0 in indexer.slice_shape:
        return lax.full_like(y, 0, shape=indexer.slice_shape)
    if 0 not in np.shape(indexer.gather_indices):
        y = lax.gather(y, indexer.gather_indices, indexer.dnums, indexer.gather_slice_shape,
                       unique_indices=unique_indices or indexer.unique_indices,
                       indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    return lax.expand_dims(y, indexer.newaxis_dims)


def _check_static_indices_in_bounds(parsed, shape, normalize_indices):
    """With ``jax_check_static_indices``, a static integer index out of range is an
    error (by default it is clamped, as every gather clamps)."""
    for p in parsed:
        if p.typ == IndexType.INTEGER and not (is_array(p.index) or
                                                isinstance(p.index, np.ndarray)):
            i = operator.index(p.index)
            axis, = p.consumed_axes
            normed = i + shape[axis] if normalize_indices and i < 0 else i
            if not 0 <= normed < shape[axis]:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size "
                                 f"{shape[axis]} ({normalize_indices=})")


def rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True):
    """``arr[idx]``: a static slice if possible, else a dynamic slice, else a gather."""
    parsed = parse_indices(idx, arr.shape)
    if config.jax_check_static_indices and (
            mode is None or lax.GatherScatterMode.from_any(mode) ==
            lax.GatherScatterMode.PROMISE_IN_BOUNDS):
        _check_static_indices_in_bounds(parsed, arr.shape, normalize_indices)
    for strategy in (_static_slice, _dynamic_slice):
        try:
            return strategy(arr, parsed, mode, normalize_indices)
        except (TypeError, ValueError, IndexError):
            pass
    parsed = _expand_bool_indices(parsed, arr.shape)
    return _gather(arr, parsed, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                   normalize_indices=normalize_indices)


# ----------------------------------------------------------------------------------------
# take and scatter updates
# ----------------------------------------------------------------------------------------

def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when
    ``axis`` is None). Out-of-bounds indices give ``fill_value`` (NaN for floats) by
    default, unlike ``a[indices]``, which clamps."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    return _take(a, indices, axis=axis, mode=mode, unique_indices=unique_indices,
                 indices_are_sorted=indices_are_sorted, fill_value=fill_value)


@jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"))
def _take(a, indices, axis=None, mode=None, unique_indices=False, indices_are_sorted=False,
          fill_value=None):
    a, indices = ensure_arraylike("take", a, indices)
    if axis is None:
        a, axis = a.ravel(), 0
    axis = canonicalize_axis(axis, a.ndim)
    if mode is None or mode == "fill":
        gather_mode = lax.GatherScatterMode.FILL_OR_DROP
        indices = util._where(indices < 0, indices + a.shape[axis], indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        from glassjax.numpy.ufuncs import mod
        indices = mod(indices, util.const(indices, a.shape[axis]))
        gather_mode = lax.GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = lax.GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    slice_sizes = list(a.shape)
    if slice_sizes[axis] == 0:
        if indices.size != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if indices.size == 0:
        return lax.full_like(a, 0, shape=slice_sizes[:axis] + list(indices.shape) +
                             slice_sizes[axis + 1:])
    slice_sizes[axis] = 1
    index_dims = indices.ndim
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(list(range(axis)) +
                          list(range(axis + index_dims, a.ndim + index_dims - 1))),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return lax.gather(a, indices[..., None], dimension_numbers=dnums,
                      slice_sizes=tuple(slice_sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


def _normalize_index(index, axis_size):
    """Negative indices counted from the end (unsigned indices never are)."""
    if dtypes.issubdtype(dtypes.dtype(index), np.unsignedinteger):
        return index
    if shape_poly.is_symbolic_dim(axis_size):       # known in the program only
        size = lax.convert_element_type(dim_as_value(axis_size), dtypes.dtype(index))
    else:
        size = const(index, axis_size)
    return lax.select(index < 0, lax.add(index, size), index)


@jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``arr`` picked along ``axis`` at ``indices`` (the shape of ``indices`` elsewhere
    broadcasts against ``arr``), as the output of ``argsort`` reorders an array.

    It is one ``gather`` whose other axes are *batching* dimensions: element ``i`` of
    the result reads the row of ``arr`` matching the row of ``indices``. Axes where
    ``indices`` has size 1 are taken whole; axes where ``arr`` has size 1 are
    squeezed."""
    a, indices = ensure_arraylike("take_along_axis", arr, indices)
    idx_shape = np.shape(indices)
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise TypeError(f"take_along_axis indices must be of integer type, got "
                        f"{indices.dtype}")
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got "
                             f"shape {idx_shape}")
        a, axis = a.ravel(), 0
    rank = a.ndim
    if rank != np.ndim(indices):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{np.ndim(indices)} vs. {a.ndim}")
    axis = canonicalize_axis(axis, rank)
    axis_size = a.shape[axis]
    arr_shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    out_shape = util.broadcast_shapes(idx_shape, arr_shape)
    if axis_size == 0:
        return lax.full(out_shape, 0, a.dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:     # (wide enough that index + axis_size cannot overflow)
        index_dtype = np.dtype(np.int64 if shape_poly.is_constant_dim(axis_size) and
                               axis_size > np.iinfo(np.int32).max else np.int32)
        indices = _normalize_index(lax.convert_element_type(indices, index_dtype),
                                   axis_size)
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    slice_sizes, offset_dims, start_index_map, collapsed = [], [], [], []
    operand_batching, indices_batching, squeezed = [], [], []
    new_i = j = 0          # positions in the squeezed operand and in the indices
    for i in range(rank):
        if i == axis:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed.append(new_i)
            new_i, j = new_i + 1, j + 1
        elif idx_shape[i] == 1:          # the whole axis of arr, no index needed
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:          # broadcast along indices: squeeze arr's axis
            squeezed.append(i)
            j += 1
        else:                            # matching rows: a batching dimension
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batching.append(new_i)
            indices_batching.append(j)
            new_i, j = new_i + 1, j + 1
    a = lax.squeeze(a, squeezed)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_index_map), operand_batching_dims=tuple(operand_batching),
        start_indices_batching_dims=tuple(indices_batching))
    return lax.gather(a, gather_indices, dnums, tuple(slice_sizes),
                      mode="fill" if mode is None else mode, fill_value=fill_value)


@jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """``arr`` with ``values`` written along ``axis`` at ``indices`` (the inverse of
    ``take_along_axis``). JAX arrays are immutable: ``inplace=False`` is required."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because "
                         "JAX arraysare immutable. Pass inplace=False to instead return "
                         "an updated array.")   # (JAX's text, missing space included)
    arr, indices, values = ensure_arraylike("put_along_axis", arr, indices, values)
    original_shape = arr.shape
    if axis is None:
        arr, axis_ = arr.ravel(), 0
    else:
        axis_ = axis
    if arr.ndim != indices.ndim:
        raise ValueError(f"put_along_axis arguments 'arr' and 'indices' must have same "
                         f"ndim. Got arr.ndim={arr.ndim} and indices.ndim={indices.ndim}.")
    try:
        values = util.broadcast_to(values, indices.shape)
    except ValueError:
        raise ValueError(f"put_along_axis argument 'values' must be broadcastable to "
                         f"'indices'. Got values.shape={values.shape} and "
                         f"indices.shape={indices.shape}.") from None
    from glassjax.numpy.array_creation import indices as grid
    axis_ = canonicalize_axis(axis_, arr.ndim)
    idx = list(grid(arr.shape, sparse=True))
    idx[axis_] = indices
    result = arr.at[tuple(idx)].set(values, mode=mode)
    return result.reshape(original_shape) if axis is None else result


def scatter_update(x, idx, y, scatter_op, indices_are_sorted=False, unique_indices=False,
                   mode=None, normalize_indices=True):
    """``x`` with the elements selected by ``idx`` combined with ``y`` by ``scatter_op``
    (``lax.scatter`` to set, ``lax.scatter_add`` to add, ...): the gather of
    ``x[idx]``, run backwards."""
    from glassjax.numpy.array_creation import asarray
    x = asarray(x)
    if isinstance(y, int) and dtypes.issubdtype(x.dtype, np.integer) and \
            np.iinfo(x.dtype).min <= y <= np.iinfo(x.dtype).max:
        y = asarray(y, dtype=x.dtype)
    else:
        y = asarray(y)
    parsed = _expand_bool_indices(parse_indices(idx, x.shape), x.shape)
    dtype, weak_type = x.dtype, x.weak_type
    indexer = index_to_gather(parsed, x.shape, normalize_indices,
                              getattr(core.get_aval(x), "_sharding", None))
    if 0 in indexer.slice_shape:
        return x
    x, y = util.promote_dtypes(x, y)
    y = util.broadcast_to(y, tuple(indexer.slice_shape), indexer.slice_sharding)
    y = lax.squeeze(y, tuple(indexer.newaxis_dims))
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    if indexer.scalar_bool_dims:
        x = lax.expand_dims(x, indexer.scalar_bool_dims)
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=indexer.dnums.offset_dims,
        inserted_window_dims=indexer.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=indexer.dnums.start_index_map)
    out = scatter_op(x, indexer.gather_indices, y, dnums,
                     indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
                     unique_indices=indexer.unique_indices or unique_indices, mode=mode)
    if indexer.scalar_bool_dims:
        out = lax.squeeze(out, indexer.scalar_bool_dims)
    return util.convert(out, dtype, weak_type)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx]`` names the elements an update (or a read) applies to.
    (Named as in JAX: ``x.at[0] = 1`` fails with a message naming this class.)"""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def _laid_out_as_asked(out_sharding, fun, array, index, *values):
    """``.at[...]``'s ``out_sharding=`` (JAX's ``auto_axes``): the operand, the values
    and the index arrays resharded whole onto the mesh, ``fun`` computed there (no split
    to refuse), and its result resharded as asked."""
    sharding = spec_to_sharding(out_sharding, "out_sharding")
    move = lambda v: reshard(v, sharding.with_spec(PartitionSpec()))
    array, values = move(array), [move(v) for v in values]
    index = tree_util.tree_map(
        lambda i: move(i) if isinstance(i, (core.Tracer, Array)) else i, index)
    return reshard(fun(array, index, *values), sharding)


@dataclasses.dataclass(slots=True, eq=False)
class IndexUpdateRef:
    """``x.at[idx]``: functional updates. Each returns a new array; ``x`` is unchanged.
    Out-of-bounds updates are dropped; reads clamp unless ``mode='fill'``."""
    array: object
    index: object

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, wrap_negative_indices=True, out_sharding=None):
        take = lambda array, index: rewriting_take(
            array, index, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, mode=mode, fill_value=fill_value,
            normalize_indices=wrap_negative_indices)
        if out_sharding is not None:
            return _laid_out_as_asked(out_sharding, take, self.array, self.index)
        return take(self.array, self.index)

    def _update(self, values, scatter_op, indices_are_sorted, unique_indices, mode,
                wrap_negative_indices, base=None, out_sharding=None):
        update = lambda array, index, values: scatter_update(
            array, index, values, scatter_op, indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices, mode=mode,
            normalize_indices=wrap_negative_indices)
        array = self.array if base is None else base
        if out_sharding is not None:
            return _laid_out_as_asked(out_sharding, update, array, self.index, values)
        return update(array, self.index, values)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices,
                            out_sharding=out_sharding)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter_add, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices,
                            out_sharding=out_sharding)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter_sub, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices,
                            out_sharding=out_sharding)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter_mul, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices,
                            out_sharding=out_sharding)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               wrap_negative_indices=True):
        """``x / (ones with values at idx)``, as JAX computes it."""
        from glassjax.numpy import array_creation, ufuncs
        return ufuncs.divide(self.array, self._update(
            values, lax.scatter_mul, indices_are_sorted, unique_indices, mode,
            wrap_negative_indices, base=array_creation.ones_like(self.array)))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        from glassjax.numpy import array_creation, ufuncs
        return ufuncs.power(self.array, self._update(
            values, lax.scatter_mul, indices_are_sorted, unique_indices, mode,
            wrap_negative_indices, base=array_creation.ones_like(self.array)))

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,  # noqa: A003
            wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter_min, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices,
                            out_sharding=out_sharding)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,  # noqa: A003
            wrap_negative_indices=True, out_sharding=None):
        return self._update(values, lax.scatter_max, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices,
                            out_sharding=out_sharding)
