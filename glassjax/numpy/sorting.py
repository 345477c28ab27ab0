"""Sorting, and the order statistics built on it (``quantile``, ``percentile``,
``median``).

``lax.sort`` sorts along one axis (NaNs last); ``argsort`` sorts an ``iota`` of indices
along with the keys. A quantile sorts, then gathers the two neighbours of the
fractional position ``q * (n - 1)`` and interpolates between them.
"""
from __future__ import annotations

import math

import numpy as np

from glassjax import core, dtypes, lax, shape_poly
from glassjax.jit import jit
from glassjax.named_sharding import typeof_sharding
from glassjax.numpy import reductions
from glassjax.numpy.indexing import take_along_axis
from glassjax.numpy.util import (_where, canonicalize_axis, canonicalize_axis_tuple, const,
                                 ensure_arraylike, promote_dtypes_inexact)
from glassjax.vmap_api import vmap


def _sort_args(name, a, axis, kind, order):
    """The array to sort and the axis (of the flattened array for ``axis=None``); NumPy's
    ``kind`` and ``order`` are not supported."""
    arr = ensure_arraylike(name, a)
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    if axis is None:
        arr, axis = arr.ravel(), 0
    return arr, canonicalize_axis(axis, arr.ndim)


@jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """The sorted copy of ``a`` along ``axis`` (of the flattened array for None)."""
    arr, dimension = _sort_args("sort", a, axis, kind, order)
    result = lax.sort(arr, dimension=dimension, is_stable=stable)
    return lax.rev(result, [dimension]) if descending else result


@jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False,
            dtype=None):
    """The indices that sort ``a`` along ``axis``."""
    arr, dimension = _sort_args("argsort", a, axis, kind, order)
    if dtype is not None:
        idx_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "argsort")
    else:
        size = arr.shape[dimension]
        idx_dtype = (np.dtype(np.int64) if shape_poly.is_constant_dim(size) and
                     size > np.iinfo(np.int32).max else dtypes.default_int_dtype())
    iota = lax.broadcasted_iota(idx_dtype, arr.shape, dimension,
                                out_sharding=typeof_sharding(core.get_aval(arr)))
    if descending and stable:
        # Reverse first so equal keys keep their order after the final reversal.
        arr, iota = lax.rev(arr, [dimension]), lax.rev(iota, [dimension])
    _, indices = lax.sort_key_val(arr, iota, dimension=dimension, is_stable=stable)
    return lax.rev(indices, [dimension]) if descending else indices


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _weights(name, weights):
    return None if weights is None else ensure_arraylike(name, weights)


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``) along ``axis``; ``method`` says how to
    pick between the two data points around the quantile. NaN if the data has NaNs.
    ``weights`` (one per value of ``a``, or per position along ``axis``) weigh the
    values; only ``method='inverted_cdf'`` takes them."""
    a, q = ensure_arraylike("quantile", a, q)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.quantile does not support overwrite_input=True or "
                         "out != None")
    return _quantile(a, q, axis, method, keepdims, False, _weights("quantile", weights))


def _quantile(a, q, axis, method, keepdims, squash_nans, weights=None):
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if weights is None:
        a, = promote_dtypes_inexact(a)
    else:
        if dtypes.issubdtype(weights.dtype, np.complexfloating):
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":
            raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                      "'inverted_cdf' supports weights.")
        a, weights = promote_dtypes_inexact(a, weights)
        if weights.shape != a.shape:
            if axis is None:
                raise ValueError("Weights shape must match 'a' shape when axis is None.")
            axes = canonicalize_axis_tuple(axis, a.ndim)
            if weights.shape != tuple(a.shape[ax] for ax in axes):
                raise ValueError(f"Weights shape {weights.shape} must match reduction axes "
                                 f"{tuple(a.shape[ax] for ax in axes)}")
            weights = lax.broadcast_in_dim(weights, a.shape, broadcast_dimensions=axes)
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    keepdim = []
    if axis is None:
        if keepdims:
            keepdim = [1] * a.ndim
        a, axis = a.ravel(), 0
        weights = None if weights is None else weights.ravel()
    elif isinstance(axis, tuple):
        # Move the reduced axes last and merge them into one.
        keepdim = list(a.shape)
        axis = tuple(canonicalize_axis(ax, a.ndim) for ax in axis)
        if len(set(axis)) != len(axis):
            raise ValueError("repeated axis")
        for ax in axis:
            keepdim[ax] = 1
        dimensions = list(range(a.ndim))
        for i, s in enumerate(sorted(set(range(a.ndim)) - set(axis))):
            dimensions[i], dimensions[s] = dimensions[s], dimensions[i]
        kept = tuple(d for i, d in enumerate(a.shape) if i not in axis)
        merged = math.prod(d for i, d in enumerate(a.shape) if i in axis)
        a = lax.reshape(a, kept + (merged,), dimensions)
        if weights is not None:
            weights = lax.reshape(weights, kept + (merged,), dimensions)
        axis = a.ndim - 1
    else:
        axis = canonicalize_axis(axis, a.ndim)
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    q_ndim = q.ndim
    if method == "inverted_cdf":
        result = _inverted_cdf(a, weights, q, axis, keepdims, squash_nans)
    else:
        points = _nan_quantile_points if squash_nans else _quantile_points
        low_value, high_value, low_weight, high_weight = points(a, q, axis, keepdims)
    if method == "linear":
        result = lax.add(lax.mul(low_value.astype(q.dtype), low_weight),
                         lax.mul(high_value.astype(q.dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select(lax.le(high_weight, const(high_weight, 0.5)), low_value,
                            high_value)
    elif method == "midpoint":
        result = lax.mul(lax.add(low_value, high_value), const(low_value, 0.5))
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [np.shape(q)[0], *keepdim]
        result = result.reshape(keepdim)
    return lax.convert_element_type(result, a.dtype)


def _inverted_cdf(a, weights, q, axis, keepdims, squash_nans):
    """NumPy's 'inverted_cdf' quantile: the first sorted value whose cumulative weight
    reaches ``q`` of the total weight (every weight 1 if none are given). NaN where a
    weight is negative or NaN, and where the data has a NaN (unless NaNs are skipped;
    then where all are NaN)."""
    q_ndim = q.ndim
    isnan = lambda x: lax.ne(x, x)
    if squash_nans:
        a = _where(isnan(a), np.nan, a)       # NaNs positive, so they sort to the end
    else:
        a = _where(reductions.any(isnan(a), axis=axis, keepdims=True), np.nan, a)
    if weights is None:
        a = lax.sort(a, dimension=axis)
        weights = lax.full_like(a, 1.0)
    else:
        a, weights = lax.sort_key_val(a, weights, dimension=axis)
    zeros = lax.full_like(weights, 0)
    bad_weights = lax.bitwise_or(lax.lt(weights, zeros), isnan(weights))
    nan_data = isnan(a)
    cumulative = reductions.cumsum(
        lax.select(lax.bitwise_or(bad_weights, nan_data), zeros, weights), axis=axis)
    total = lax.index_in_dim(cumulative, -1, axis=axis, keepdims=keepdims)
    target = lax.mul(lax.reshape(q, q.shape + (1,) * total.ndim),
                     lax.expand_dims(total, tuple(range(q_ndim))))
    if not keepdims:
        target = lax.expand_dims(target, (axis + q_ndim,))
    below = lax.lt(lax.expand_dims(cumulative, tuple(range(q_ndim))), target)
    int_dtype = dtypes.default_int_dtype()
    idx = reductions.sum(lax.convert_element_type(below, int_dtype), axis=axis + q_ndim,
                         keepdims=keepdims)
    if squash_nans:
        valid = reductions.sum(lax.bitwise_not(nan_data), axis=axis, dtype=q.dtype,
                               keepdims=keepdims)
    else:
        valid = lax.full_like(total, a.shape[axis], dtype=q.dtype)
    last = lax.convert_element_type(lax.sub(valid, const(valid, 1)), int_dtype)
    last = lax.convert_element_type(lax.expand_dims(last, tuple(range(q_ndim))), idx.dtype)
    idx = lax.max(const(idx, 0), lax.min(idx, last))
    if keepdims:
        idx = lax.squeeze(idx, (q_ndim + axis,))
    if q_ndim == 0:
        result = take_along_axis(a, lax.expand_dims(idx, (axis,)), axis=axis)
        result = lax.squeeze(result, (axis,))
    else:
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim),
                *range(q_ndim + axis, idx.ndim)]
        result = take_along_axis(a, lax.transpose(idx, perm), axis=axis)
        result = lax.transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = lax.expand_dims(result, (q_ndim + axis,))
    nan_anyway = (lax.eq(valid, lax.full_like(valid, 0)) if squash_nans else
                  reductions.any(nan_data, axis=axis, keepdims=keepdims))
    force_nan = lax.bitwise_or(reductions.any(bad_weights, axis=axis, keepdims=keepdims),
                               nan_anyway)
    force_nan = lax.expand_dims(force_nan, tuple(range(q_ndim)))
    return _where(force_nan, lax.full_like(result, np.nan), result)


def _quantile_points(a, q, axis, keepdims):
    """The sorted values around each quantile and their interpolation weights (the
    quantiles of a slice with a NaN are NaN)."""
    q_ndim = q.ndim
    a = _where(reductions.any(lax.ne(a, a), axis=axis, keepdims=True), np.nan, a)
    a = lax.sort(a, dimension=axis)
    n = lax.convert_element_type(a.shape[axis], q.dtype)
    q = lax.mul(q, n - 1)
    low, high = lax.floor(q), lax.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(const(high_weight, 1), high_weight)
    low = lax.clamp(const(low, 0), low, n - 1)
    high = lax.clamp(const(high, 0), high, n - 1)
    low, high = lax.convert_element_type(low, int), lax.convert_element_type(high, int)
    slice_sizes = list(a.shape)
    slice_sizes[axis] = 1
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(q_ndim, a.ndim + q_ndim - (0 if keepdims else 1))),
        collapsed_slice_dims=() if keepdims else (axis,), start_index_map=(axis,))
    low_value = lax.gather(a, low[..., None], dimension_numbers=dnums,
                           slice_sizes=slice_sizes)
    high_value = lax.gather(a, high[..., None], dimension_numbers=dnums,
                            slice_sizes=slice_sizes)
    if q_ndim == 1:
        low_weight = lax.broadcast_in_dim(low_weight, low_value.shape, (0,))
        high_weight = lax.broadcast_in_dim(high_weight, high_value.shape, (0,))
    return low_value, high_value, low_weight, high_weight


def _nan_quantile_points(a, q, axis, keepdims):
    """As ``_quantile_points`` over the non-NaN values only: NaNs sort last, and each
    slice interpolates between its own count of values."""
    q_ndim, q_shape = q.ndim, q.shape
    a = _where(lax.ne(a, a), np.nan, a)       # NaNs positive, so they sort to the end
    a = lax.sort(a, dimension=axis)
    counts = reductions.sum(lax.bitwise_not(lax.ne(a, a)), axis=axis, dtype=q.dtype,
                            keepdims=keepdims)
    shape_after_reduction = counts.shape
    q = lax.expand_dims(q, tuple(range(q_ndim, len(shape_after_reduction) + q_ndim)))
    counts = lax.expand_dims(counts, tuple(range(q_ndim)))
    q = lax.mul(q, lax.sub(counts, const(q, 1)))
    low, high = lax.floor(q), lax.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(const(high_weight, 1), high_weight)
    low = lax.max(const(low, 0), lax.min(low, counts - 1))
    high = lax.max(const(high, 0), lax.min(high, counts - 1))
    low, high = lax.convert_element_type(low, int), lax.convert_element_type(high, int)
    out_shape = q_shape + shape_after_reduction
    index = [lax.broadcasted_iota(int, out_shape, dim + q_ndim)
             for dim in range(len(shape_after_reduction))]
    if keepdims:
        index[axis] = low
    else:
        index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
    return low_value, high_value, low_weight, high_weight


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """``quantile`` with ``q`` in percent."""
    a, q = ensure_arraylike("percentile", a, q)
    q, = promote_dtypes_inexact(q)
    return quantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                    method=method, keepdims=keepdims, weights=weights)


@jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value (the mean of the two middle values for an even count)."""
    a = ensure_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")


@jit(static_argnames=("axis",))
def lexsort(keys, axis=-1):
    """The indices that sort by the *last* key first, then by the others in reverse
    order (``keys[0]`` breaks the last ties), as NumPy's ``lexsort``."""
    from glassjax.numpy.util import ensure_arraylike_tuple
    key_arrays = ensure_arraylike_tuple("lexsort", tuple(keys))
    if len(key_arrays) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({np.shape(k) for k in key_arrays}) > 1:
        raise ValueError("all keys need to be the same shape")
    if np.ndim(key_arrays[0]) == 0:
        return lax.full((), 0, dtypes.default_int_dtype())
    axis = canonicalize_axis(axis, np.ndim(key_arrays[0]))
    iota = lax.broadcasted_iota(dtypes.default_int_dtype(), np.shape(key_arrays[0]), axis)
    return lax.sort((*key_arrays[::-1], iota), dimension=axis,
                    num_keys=len(key_arrays))[-1]


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """``quantile`` of the non-NaN values."""
    a, q = ensure_arraylike("nanquantile", a, q)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.nanquantile does not support overwrite_input=True or "
                         "out != None")
    return _quantile(a, q, axis, method, keepdims, True, _weights("nanquantile", weights))


@jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """``percentile`` of the non-NaN values."""
    a, q = ensure_arraylike("nanpercentile", a, q)
    q, = promote_dtypes_inexact(q)
    return nanquantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                       method=method, keepdims=keepdims, weights=weights)


@jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``median`` of the non-NaN values."""
    a = ensure_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


def _bottom_k(arr, k):
    """The ``k`` smallest values (and their indices): ``top_k`` of the negated values.
    Unsigned values are shifted by one first so that their negations keep the order."""
    if dtypes.issubdtype(arr.dtype, np.unsignedinteger):
        values, idx = lax.top_k(-(arr + 1), k)
        return -values - 1, idx
    values, idx = lax.top_k(-arr, k)
    return -values, idx


def _partition_args(name, a, kth, axis):
    """The array with the partitioned axis moved last, that axis, and ``kth`` (complex
    numbers have no order)."""
    arr = ensure_arraylike("partition", a)          # (JAX names argpartition so too)
    if dtypes.issubdtype(arr.dtype, np.complexfloating):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, arr.ndim)
    return arr.swapaxes(axis, -1), axis, canonicalize_axis(kth, arr.shape[axis])


@jit(static_argnames=["kth", "axis"])
def partition(a, kth, axis=-1):
    """``a`` with its ``kth`` smallest value at position ``kth`` along ``axis``, the
    smaller ones before it and the larger ones after (each side in no promised order)."""
    arr, axis, kth = _partition_args("partition", a, kth, axis)
    bottom = _bottom_k(arr, kth + 1)[0]
    top = lax.top_k(arr, arr.shape[-1] - kth - 1)[0]
    return lax.concatenate([bottom, top], dimension=arr.ndim - 1).swapaxes(-1, axis)


@jit(static_argnames=["kth", "axis"])
def argpartition(a, kth, axis=-1):
    """The indices that would ``partition`` ``a``."""
    arr, axis, kth = _partition_args("argpartition", a, kth, axis)
    bottom_ind = _bottom_k(arr, kth + 1)[1]
    # The other indices: top_k of a mask that is 0 at the bottom ones (ties keep order).
    set_to_zero = lambda m, i: m.at[i].set(0)
    for _ in range(arr.ndim - 1):
        set_to_zero = vmap(set_to_zero)
    proxy = set_to_zero(lax.full(arr.shape, 1.0), bottom_ind)
    top_ind = lax.top_k(proxy, arr.shape[-1] - kth - 1)[1]
    return lax.concatenate([bottom_ind, top_ind], dimension=arr.ndim - 1).swapaxes(-1, axis)


@jit
def sort_complex(a):
    """``a`` sorted (by real part, then imaginary), as a complex array."""
    a = ensure_arraylike("sort_complex", a)
    return lax.convert_element_type(lax.sort(a), dtypes.to_complex_dtype(a.dtype))
