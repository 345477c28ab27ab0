"""Set operations and searching in sorted arrays: ``unique`` and its variants, ``isin``,
``intersect1d`` / ``union1d`` / ``setdiff1d`` / ``setxor1d``, ``searchsorted``,
``digitize``, ``interp``.

Most of these have a result whose size depends on the data (how many distinct values?).
Such functions need concrete inputs, or a static ``size=`` (with ``fill_value`` for the
unused slots) under ``jit`` -- otherwise JAX's ConcretizationTypeError, naming the
argument to make static. Everything is built on sorting: equal values become neighbours,
so "is this the first of its value" is a comparison with the previous element.
"""
from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.jit import jit
from glassjax.lax import reductions as lax_reductions
from glassjax.numpy import array_creation, lax_numpy, reductions, sorting, ufuncs
from glassjax.numpy.util import (canonicalize_axis, ensure_arraylike,
                                 promote_dtypes, promote_dtypes_inexact)
from glassjax.vmap_api import vmap


# ----------------------------------------------------------------------------------------
# searchsorted / digitize
# ----------------------------------------------------------------------------------------

@jit(static_argnames=("side", "method"))
def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where to insert ``v`` into the sorted 1-D ``a`` to keep it sorted: the first
    (``side="left"``) or last (``"right"``) such position, comparing as ``sort`` orders
    (-0.0 equals 0.0, NaNs last). ``method`` picks the algorithm: a binary search per
    query (``scan``, ``scan_unrolled``), one sort of everything (``sort``), or counting
    comparisons (``compare_all``)."""
    if sorter is None:
        a, v = ensure_arraylike("searchsorted", a, v)
    else:
        a, v, sorter = ensure_arraylike("searchsorted", a, v, sorter)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = a[sorter]
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    impls = {"compare_all": _searchsorted_compare_all_impl,
             "scan": functools.partial(_searchsorted_scan_impl, unrolled=False),
             "scan_unrolled": functools.partial(_searchsorted_scan_impl, unrolled=True),
             "sort": _searchsorted_sort_impl}
    if method not in impls:
        raise ValueError(f"invalid argument {method=}, expected one of {list(impls)}")
    dtype = np.dtype(np.int64 if a.shape[0] > np.iinfo(np.int32).max else np.int32)
    return impls[method](a, v, side=side, dtype=dtype)


@jit(static_argnames=("side", "dtype", "unrolled"))
def _searchsorted_scan_impl(sorted_arr, query, side, dtype, unrolled):
    """Binary search, written for one query and vmapped over the others:
    ``ceil(log2(n + 1))`` halvings of ``[low, high]``, keeping ``high`` at a position
    the query may be inserted."""
    n, = sorted_arr.shape
    if n == 0:
        return lax.full(query.shape, 0, dtype)
    if query.ndim > 0:
        return vmap(functools.partial(_searchsorted_scan_impl, side=side, dtype=dtype,
                                      unrolled=unrolled),
                    in_axes=(None, 0))(sorted_arr, query)
    goes_left = (lax_reductions.sort_le_comparator if side == "left"
                 else lax_reductions.sort_lt_comparator)
    unsigned = np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32

    def halve(carry, _):
        low, high = carry
        mid = low + (high - low) // 2      # never overflows, unlike (low + high) // 2
        left = goes_left(query, sorted_arr[mid])
        return (lax.select(left, low, mid), lax.select(left, mid, high)), ()
    steps = int(np.ceil(np.log2(n + 1)))
    (_, high), _ = lax.scan(halve, (unsigned(0), unsigned(n)), (), length=steps,
                            unroll=steps if unrolled else 1)
    return high.astype(dtype)


@jit(static_argnames=("side", "dtype"))
def _searchsorted_sort_impl(sorted_arr, query, side, dtype):
    """Sort ``sorted_arr`` and the queries together: a query's rank among both, minus
    its rank among the queries alone, is the number of elements before it."""
    working_dtype = (np.int32 if sorted_arr.size + query.size <= np.iinfo(np.int32).max
                     else np.int64)

    def rank(x):
        idx = lax.iota(working_dtype, len(x))
        return lax.full_like(idx, 0).at[lax.sort_key_val(x, idx)[1]].set(idx)
    if side == "left":       # queries first: they go before equal elements
        index = rank(lax.concatenate([query.ravel(), sorted_arr], 0))[:query.size]
    else:
        index = rank(lax.concatenate([sorted_arr, query.ravel()], 0))[sorted_arr.size:]
    return lax.reshape(lax.sub(index, rank(query.ravel())), np.shape(query)).astype(dtype)


@jit(static_argnames=("side", "dtype"))
def _searchsorted_compare_all_impl(sorted_arr, query, side, dtype):
    """How many elements of ``sorted_arr`` go before each query."""
    before = (lax_reductions.sort_lt_comparator if side == "left"
              else lax_reductions.sort_le_comparator)
    return vmap(before, in_axes=(0, None))(sorted_arr, query).sum(dtype=dtype, axis=0)


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin each value of ``x`` falls in (``bins`` increasing or
    decreasing; ``right`` says which edge a bin includes)."""
    x, bins = ensure_arraylike("digitize", x, bins)
    right = core.concrete_or_error(bool, right, "right argument of jnp.digitize()")
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got "
                         f"bins={bins}")
    if bins.shape[0] == 0:
        return array_creation.zeros_like(x, dtype=np.int32)
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    return lax_numpy.where(
        bins[-1] >= bins[0],
        searchsorted(bins, x, side=side, **kw),
        bins.shape[0] - searchsorted(bins[::-1], x, side=side, **kw))


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at
    ``x``; outside ``xp`` the end values (or ``left`` / ``right``, or ``'extrapolate'``).
    A ``jit`` whose static arguments are those that are strings or None, as in JAX."""
    static_argnames = [name for name, value in (("left", left), ("right", right))
                       if isinstance(value, str) or value is None]
    if period is None:
        static_argnames.append("period")
    return jit(_interp, static_argnames=static_argnames)(x, xp, fp, left, right, period)


def _extrapolates(name, value):
    if isinstance(value, str) and value != "extrapolate":
        raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                         f"but got: {value!r}")
    return isinstance(value, str)


def _interp(x, xp, fp, left, right, period):
    x, xp, fp = ensure_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = promote_dtypes_inexact(x, xp)
    fp, = promote_dtypes_inexact(fp)
    extrapolate_left = _extrapolates("left", left)
    extrapolate_right = _extrapolates("right", right)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:     # one period, wrapped around by a point at each end
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = ufuncs.abs(period)
        x, xp = x % period, xp % period
        xp, fp = lax.sort_key_val(xp, fp)
        xp = lax_numpy.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = lax_numpy.concatenate([fp[-1:], fp, fp[:1]])

    i = lax_numpy.clip(searchsorted(xp, x, side="right"), 1, len(xp) - 1)
    df = fp[i] - fp[i - 1]
    dx = xp[i] - xp[i - 1]
    delta = x - xp[i - 1]
    epsilon = np.spacing(np.finfo(xp.dtype).eps)
    dx0 = lax.abs(dx) <= epsilon  # no NaN gradients where two xp coincide
    f = lax_numpy.where(dx0, fp[i - 1],
                        fp[i - 1] + (delta / lax_numpy.where(dx0, 1, dx)) * df)
    if not extrapolate_left and period is None:
        f = lax_numpy.where(x < xp[0], fp[0] if left is None else left, f)
    if not extrapolate_right and period is None:
        f = lax_numpy.where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


# ----------------------------------------------------------------------------------------
# unique
# ----------------------------------------------------------------------------------------

_UNIQUE_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify a "
    "concrete value for the size argument, which will determine the output size.")


def _unique_sorted_mask(ar, axis, equal_nan):
    """Sort the slices of ``ar`` along ``axis`` (lexicographically); return them, the
    mask of the first of each run of equal slices, and the sorting permutation."""
    aux = lax_numpy.moveaxis(ar, axis, 0)
    if np.issubdtype(aux.dtype, np.complexfloating):   # one NaN for any NaN part
        aux = lax_numpy.where(ufuncs.isnan(aux), np.array(np.nan, aux.dtype), aux)
    size, *rest = aux.shape
    if int(np.prod(rest)) == 0:
        size, perm = 1, array_creation.zeros(1, dtype=int)
    else:
        perm = sorting.lexsort(aux.reshape(size, int(np.prod(rest))).T[::-1])
    aux = aux[perm]
    if not aux.size:
        return aux, array_creation.zeros(size, dtype=bool), perm
    if dtypes.issubdtype(aux.dtype, np.inexact) and equal_nan:    # NaNs are all equal
        neq = lambda x, y: lax.bitwise_and(
            lax.ne(x, y), lax.bitwise_not(lax.bitwise_and(ufuncs.isnan(x), ufuncs.isnan(y))))
    else:
        neq = lax.ne
    differs = reductions.any(neq(aux[1:], aux[:-1]), tuple(range(1, aux.ndim)))
    mask = array_creation.ones(size, dtype=bool).at[1:].set(differs)
    return aux, mask, perm


def _unique(ar, axis, return_index, return_inverse, return_counts, equal_nan, size,
            fill_value):
    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        ind = core.concrete_or_error(None, mask, "The error arose in jnp.unique(). " +
                                     _UNIQUE_SIZE_HINT)
    else:
        ind = lax_numpy.nonzero(mask, size=size)[0]
    result = aux[ind] if aux.size else aux
    if size is not None and fill_value is not None:
        fill = lax.convert_element_type(fill_value, result.dtype)
        if result.shape[0]:
            valid = lax.expand_dims(array_creation.arange(size) < mask.sum(),
                                    tuple(range(1, result.ndim)))
            result = lax_numpy.where(valid, result, fill)
        else:
            result = lax.full_like(result, fill, shape=(size, *result.shape[1:]))
    out = [lax_numpy.moveaxis(result, 0, axis)]
    if return_index:
        out.append(perm[ind] if aux.size else perm)
    if return_inverse:
        if aux.size:
            inverse = array_creation.zeros(mask.shape, dtype=int).at[perm].set(
                reductions.cumsum(mask) - 1)
        else:
            inverse = array_creation.zeros(ar.shape[axis], dtype=int)
        out.append(inverse)
    if return_counts:
        if aux.size:
            if size is None:
                starts = lax_numpy.append(lax_numpy.nonzero(mask)[0], mask.size)
            else:           # unused slots: an empty run at the end
                starts = lax_numpy.nonzero(mask, size=size + 1)[0]
                starts = starts.at[1:].set(lax_numpy.where(starts[1:], starts[1:],
                                                           mask.size))
            out.append(lax_numpy.diff(starts))
        elif ar.shape[axis]:
            out.append(array_creation.full((1,), ar.shape[axis], dtype=int))
        else:
            out.append(array_creation.empty(0, dtype=int))
    return out[0] if len(out) == 1 else tuple(out)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted distinct values of ``ar`` (or distinct slices along ``axis``), with
    optionally the index of each one's first occurrence, the inverse map and the
    counts. Under ``jit`` give ``size`` (and ``fill_value`` for unused slots)."""
    del sorted     # always sorted
    arr = ensure_arraylike("unique", ar)
    if size is None:
        arr = core.concrete_or_error(None, arr, "The error arose for the first argument "
                                     "of jnp.unique(). " + _UNIQUE_SIZE_HINT)
    else:
        size = core.concrete_or_error(operator.index, size, "The error arose for the size "
                                      "argument of jnp.unique(). " + _UNIQUE_SIZE_HINT)
    shape = arr.shape
    if axis is None:
        arr, axis_int = arr.flatten(), 0
    else:
        axis_int = canonicalize_axis(axis, arr.ndim)
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts,
                     equal_nan, size, fill_value)
    if return_inverse and axis is None:     # NumPy 2: the inverse has the input's shape
        i = 2 if return_index else 1
        result = (*result[:i], result[i].reshape(shape), *result[i + 1:])
    return result


class _UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class _UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class _UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def unique_all(x, /, *, size=None, fill_value=None):
    """``unique`` with indices, inverse and counts (the array API's version: NaNs are
    all distinct)."""
    x = ensure_arraylike("unique_all", x)
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                    return_counts=True, equal_nan=False, size=size,
                                    fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    x = ensure_arraylike("unique_counts", x)
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    x = ensure_arraylike("unique_inverse", x)
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False,
                                        size=size, fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    x = ensure_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ----------------------------------------------------------------------------------------
# Membership and set operations on 1-D arrays
# ----------------------------------------------------------------------------------------

@jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    """For each element of ``ar1`` (flattened): is it in ``ar2``?"""
    arr1, arr2 = promote_dtypes(*ensure_arraylike("in1d", ar1, ar2))
    arr1, arr2 = arr1.ravel(), arr2.ravel()
    if arr1.size == 0 or arr2.size == 0:
        return (array_creation.ones if invert else array_creation.zeros)(arr1.shape,
                                                                        dtype=bool)
    if method in ("auto", "compare_all"):      # every pair: simple, fine for small sets
        if invert:
            return (arr1[:, None] != arr2[None, :]).all(-1)
        return (arr1[:, None] == arr2[None, :]).any(-1)
    if method == "binary_search":
        arr2 = lax.sort(arr2)
        found = arr2[searchsorted(arr2, arr1)]
        return arr1 != found if invert else arr1 == found
    if method == "sort":      # in the sorted union, a member is followed by its equal
        if assume_unique:
            back = slice(None)
        else:
            arr1, back = unique(arr1, size=len(arr1), return_inverse=True,
                                fill_value=arr2.max())
        aux, ind = lax.sort_key_val(lax_numpy.concatenate([arr1, arr2]),
                                    array_creation.arange(arr1.size + arr2.size))
        if invert:
            return array_creation.ones(arr1.shape, bool).at[ind[:-1]].set(
                aux[1:] != aux[:-1], mode="drop")[back]
        return array_creation.zeros(arr1.shape, bool).at[ind[:-1]].set(
            aux[1:] == aux[:-1], mode="drop")[back]
    raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Which elements of ``element`` occur in ``test_elements`` (``invert``: which do
    not), with the shape of ``element``."""
    element, test_elements = ensure_arraylike("isin", element, test_elements)
    return _in1d(element, test_elements, invert, method=method,
                 assume_unique=assume_unique).reshape(np.shape(element))


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The distinct values of ``ar1`` that are not in ``ar2``, sorted."""
    arr1, arr2 = ensure_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = arr1.ravel(), arr2.ravel()
    if size is None:
        core.concrete_or_error(None, ar1, "The error arose in setdiff1d()")
    else:
        size = core.concrete_or_error(operator.index, size, "The error arose in setdiff1d()")
    fill = lax.full_like(arr1, 0 if fill_value is None else fill_value, shape=())
    if arr1.size == 0:
        return lax.full_like(arr1, fill, shape=(size or 0,))
    if not assume_unique:
        arr1 = unique(arr1, size=size and arr1.size)
    mask = _in1d(arr1, arr2, invert=True, assume_unique=assume_unique)
    if size is None:
        return arr1[mask]
    if not assume_unique:      # unique's padding repeats the first value: not results
        n_unique = arr1.size + 1 - (arr1 == arr1[0]).sum()
        mask = lax_numpy.where(array_creation.arange(arr1.size) < n_unique, mask, False)
    return lax_numpy.where(array_creation.arange(size) < mask.sum(),
                           arr1[lax_numpy.where(mask, size=size)], fill)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted distinct values of both arrays."""
    ar1, ar2 = ensure_arraylike("union1d", ar1, ar2)
    if size is None:
        ar1 = core.concrete_or_error(None, ar1, "The error arose in union1d()")
        ar2 = core.concrete_or_error(None, ar2, "The error arose in union1d()")
    else:
        size = core.concrete_or_error(operator.index, size, "The error arose in union1d()")
    return unique(lax_numpy.concatenate((ar1, ar2), axis=None), size=size,
                  fill_value=fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted values in exactly one of the arrays."""
    ar1, ar2 = ensure_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ar1.ravel(), ar2.ravel())
    if size is not None:
        raise NotImplementedError("glassjax: setxor1d(size=...) is not implemented yet")
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = lax_numpy.concatenate((arr1, arr2))
    if aux.size == 0:
        return aux
    aux = sorting.sort(aux)
    first = lax_numpy.concatenate((True, aux[1:] != aux[:-1], True), axis=None)
    return aux[first[1:] & first[:-1]]     # neither equal to the previous nor the next


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted values in both arrays (with ``return_indices``, where each first
    occurs in ``ar1`` and in ``ar2``)."""
    ar1, ar2 = ensure_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ar1.ravel(), ar2.ravel())
    if size is not None:
        raise NotImplementedError("glassjax: intersect1d(size=...) is not implemented yet")
    ind1 = ind2 = array_creation.arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    both = lax_numpy.concatenate((arr1, arr2))
    if return_indices:     # sort with the positions, to know where each came from
        aux, order = lax.sort_key_val(both, lax.iota(np.int32, both.shape[0]))
    else:
        aux, order = sorting.sort(both), None
    mask = aux[1:] == aux[:-1]       # a value present in both is followed by its twin
    common = aux[:-1][mask]
    if not return_indices:
        return common
    in1 = order[:-1][mask]
    in2 = order[1:][mask] - np.size(arr1)
    if not assume_unique:
        in1, in2 = ind1[in1], ind2[in2]
    return common, in1, in2
