"""NumPy's editing functions, made functional: ``put``, ``place``, ``fill_diagonal``,
``delete``, ``insert``, ``compress``, ``extract``, ``choose``, ``piecewise``,
``resize``, ``trim_zeros``, ``block``, ``diagflat``, ``rollaxis``.

JAX arrays are immutable, so the NumPy functions that write into their argument
(``put``, ``place``, ``fill_diagonal``) need ``inplace=False`` and return the edited copy,
built with ``x.at[...].set``. Functions whose output size depends on values (``compress``,
``extract``, ``delete`` with a mask) need those values concrete, or a static ``size``.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.jit import jit
from glassjax.numpy import reductions
from glassjax.numpy.array_creation import arange, array, asarray, full, indices, ones, zeros
from glassjax.numpy.index_tricks import unravel_index
from glassjax.numpy.lax_numpy import (clip, diag_indices, concatenate, expand_dims, moveaxis,
                                      ravel, reshape, tile, where)
from glassjax.numpy.sorting import argsort, sort
from glassjax.numpy.util import (broadcast_arrays, canonicalize_axis,
                                 canonicalize_axis_tuple, check_arraylike,
                                 ensure_arraylike, ensure_arraylike_tuple, is_array)
from glassjax.numpy.vectorize import vectorize


def _tile_to_size(arr, size):
    """``arr`` (1-D) repeated and cut to ``size`` elements, as NumPy cycles values."""
    if arr.shape[0] != size:
        arr = tile(arr, -(-size // arr.shape[0]))[:size]
    return arr


def _inplace_error(name):
    return ValueError(
        f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
        "immutable. Pass inplace=False to instead return an updated array.")


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with ``a.flat[ind] = v`` (``v`` cycled); ``inplace=False`` is required."""
    if inplace:
        raise _inplace_error("put")
    arr, ind_arr, _ = ensure_arraylike("put", a, ind, v)
    ind_arr = ind_arr.ravel()
    v_arr = ravel(v)
    if not arr.size or not ind_arr.size or not v_arr.size:
        return arr
    v_arr = _tile_to_size(v_arr, len(ind_arr))
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind_arr, scatter_mode = clip(ind_arr, 0, arr.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind_arr, scatter_mode = ind_arr % arr.size, "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[unravel_index(ind_arr, arr.shape)].set(v_arr, mode=scatter_mode)


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the ``mask``ed elements replaced, in order, by ``vals`` (cycled)."""
    data, mask_arr, vals_arr = ensure_arraylike("place", arr, mask, vals)
    vals_arr = vals_arr.ravel()
    if inplace:
        raise _inplace_error("place")
    if data.size != mask_arr.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals_arr.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    positions = where(mask_arr.ravel(), size=mask_arr.size, fill_value=mask_arr.size)[0]
    vals_arr = _tile_to_size(vals_arr, len(positions))
    return data.ravel().at[positions].set(vals_arr, mode="drop").reshape(data.shape)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``a`` with its main diagonal (``a[i, i, ..., i]``) set to ``val`` (cycled)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = ensure_arraylike("fill_diagonal", a, val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    return a.at[diag_indices(n, a.ndim)].set(
        val if val.ndim == 0 else _tile_to_size(val.ravel(), n))


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an index, a slice, indices or a boolean mask)
    along ``axis``. Index arrays must be concrete unless ``assume_unique_indices``."""
    a = ensure_arraylike("delete", arr)
    if axis is None:
        a, axis = a.ravel(), 0
    axis = canonicalize_axis(axis, a.ndim)
    before = (slice(None),) * axis
    try:
        obj = canonicalize_axis(operator.index(obj), a.shape[axis])
    except TypeError:
        pass
    else:
        return concatenate([a[before + (slice(0, obj),)], a[before + (slice(obj + 1, None),)]],
                           axis=axis)
    if isinstance(obj, slice):
        obj = arange(a.shape[axis])[obj]
        assume_unique_indices = True
    check_arraylike("delete", a, obj)
    if dtypes.issubdtype(dtypes.dtype(obj), np.integer) and assume_unique_indices:
        # Traceable: shift each kept position past the deleted ones before it.
        obj_array = asarray(obj).ravel()
        obj_array = clip(where(obj_array < 0, obj_array + a.shape[axis], obj_array), 0,
                         a.shape[axis])
        obj_array = sort(obj_array)
        obj_array -= arange(len(obj_array), dtype=obj_array.dtype)
        i = arange(a.shape[axis] - obj_array.size, dtype=obj_array.dtype)
        i += (i[None, :] >= obj_array[:, None]).sum(0, dtype=i.dtype)
        return a[before + (i,)]
    obj_array = core.concrete_or_error(np.asarray, obj, "'obj' array argument of jnp.delete()")
    if np.issubdtype(obj_array.dtype, np.integer):
        mask = np.ones(a.shape[axis], dtype=bool)
        mask[obj_array] = False
    elif obj_array.dtype == bool:
        if obj_array.shape != (a.shape[axis],):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        mask = ~obj_array
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={obj_array.dtype}; must be "
                         "integer or bool.")
    return a[before + (mask,)]


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis``."""
    a, _, values_arr = ensure_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj,
                                        values)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(core.concrete_or_error(None, axis, "axis argument of "
                                                    "jnp.insert()"), a.ndim)
    positions = arange(*obj.indices(a.shape[axis])) if isinstance(obj, slice) else asarray(obj)
    if positions.ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if not np.issubdtype(positions.dtype, np.integer):
        if positions.size == 0 and not is_array(obj):
            positions = positions.astype(int)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values_arr = array(values_arr, ndmin=a.ndim, dtype=a.dtype, copy=False)
    if positions.size == 1:
        index = ravel(positions)[0]
        if positions.ndim == 0:
            values_arr = moveaxis(values_arr, 0, axis)
        positions = full(values_arr.shape[axis], index)
    n_input = a.shape[axis]
    n_insert = np.broadcast_shapes(positions.shape, (values_arr.shape[axis],))[0]
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    out = zeros(tuple(out_shape), a.dtype)
    positions = clip(where(positions < 0, positions + n_input, positions), 0, n_input)
    values_ind = positions.at[argsort(positions)].add(arange(n_insert, dtype=positions.dtype))
    arr_mask = ones(n_input + n_insert, dtype=bool).at[values_ind].set(False)
    arr_ind = where(arr_mask, size=n_input)[0]
    before = (slice(None),) * axis
    out = out.at[before + (values_ind,)].set(values_arr)
    return out.at[before + (arr_ind,)].set(a)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where ``condition`` is true; with a static
    ``size`` the result has that many (padded with ``fill_value``) and is traceable."""
    condition_arr, arr, fill_value = ensure_arraylike("compress", condition, a, fill_value)
    condition_arr = condition_arr.astype(bool)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if condition_arr.ndim != 1:
        raise ValueError("condition must be a 1D array")
    arr = ravel(arr) if axis is None else moveaxis(arr, axis, 0)
    axis = 0 if axis is None else axis
    condition_arr, extra = condition_arr[:arr.shape[0]], condition_arr[arr.shape[0]:]
    arr = arr[:condition_arr.shape[0]]
    if size is None:
        if reductions.any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[condition_arr]
    elif not 0 <= size <= arr.shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={arr.shape[0]}")
    else:
        mask = expand_dims(condition_arr, tuple(range(1, arr.ndim)))
        arr = where(mask, arr, array(fill_value, dtype=arr.dtype))
        result = arr[argsort(condition_arr, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is true (both flattened)."""
    check_arraylike("extract", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every position ``i`` (all broadcast together)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    a, *choices = ensure_arraylike_tuple("choose", (a, *choices))
    if not dtypes.issubdtype(a.dtype, np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        arr = core.concrete_or_error(asarray, a, "The error occurred because jnp.choose was "
                                     "jit-compiled with mode='raise'. Use mode='wrap' or "
                                     "mode='clip' instead.")
        if reductions.any((arr < 0) | (arr >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        arr = a % n
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    return array(choices)[(arr,) + indices(arr.shape, sparse=True)]


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` where ``condlist[i]`` is the first true condition (the extra
    last function, or 0, elsewhere). Each element runs only its branch: a ``switch``
    vectorized over ``x``."""
    x_arr = ensure_arraylike("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc+1} functions are "
                         f"expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = {i: f for i, f in enumerate(funclist) if callable(f)}
    return _piecewise(x_arr, asarray(condlist, dtype=bool), consts,
                      frozenset(funcs.items()), *args, **kw)


@jit(static_argnames=["funcs"])
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    funcdict = dict(funcs)
    funclist = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    # Branch 0 is the default; branch i+1 wins where condition i is the first true one.
    branch = reductions.argmax(reductions.cumsum(concatenate(
        [zeros(condlist[:1].shape, condlist.dtype), condlist], 0), 0), 0)
    dtype = x.dtype

    def call(f):
        return lambda x: f(x, *args, **kw).astype(dtype)

    def constant(v):
        return lambda x: array(v, dtype=dtype)
    funclist = [call(f) if callable(f) else constant(f) for f in funclist]
    return vectorize(lax.switch, excluded=(1,))(branch, funclist, x)


@jit(static_argnames=("new_shape",))
def resize(a, new_shape):
    """``a``'s elements, repeated in order, filling an array of ``new_shape``."""
    check_arraylike("resize", a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if arr.size == 0 or new_size == 0:
        return zeros(new_shape, arr.dtype)
    return reshape(tile(arr, -(-new_size // arr.size))[:new_size], new_shape)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``'f'``) and trailing (``'b'``) all-zero slices."""
    filt = ensure_arraylike("trim_zeros", filt)
    core.concrete_or_error(None, filt, "Error arose in the `filt` argument of trim_zeros()")
    axis_set = set(canonicalize_axis_tuple(axis, filt.ndim))
    trim = trim.lower()
    if not axis_set or ("f" not in trim and "b" not in trim):
        return filt

    def axis_slice(ax):
        if ax not in axis_set:
            return slice(None)
        mask = filt.any(axis=tuple(i for i in range(filt.ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if "f" in trim else None
        stop = filt.shape[ax] - int(mask[::-1].argmax()) if "b" in trim else None
        return slice(start, stop)
    return filt[tuple(axis_slice(ax) for ax in range(filt.ndim))]


def _block(xs):
    """(the joined array, the nesting depth) of a nested list of arrays."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if isinstance(xs, list):
        if len(xs) == 0:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts, depths = zip(*[_block(x) for x in xs])
        if any(d != depths[0] for d in depths[1:]):
            raise ValueError("Mismatched list depths in jax.numpy.block")
        rank = max(depths[0], max(np.ndim(x) for x in parts))
        parts = tuple(lax.expand_dims(x, tuple(range(rank - x.ndim))) if x.ndim < rank
                      else x for x in parts)
        return concatenate(parts, axis=-depths[0]), depths[0] + 1
    return asarray(xs), 1


@jit
def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists join along
    the last axis, the next ones along the one before, ..."""
    return _block(arrays)[0]


def diagflat(v, k=0):
    """A 2-D array with ``v`` (flattened) on its ``k``-th diagonal."""
    check_arraylike("diagflat", v)
    v_ravel = ravel(v)
    n = len(v_ravel) + abs(k)
    i = arange(0, n - abs(k))
    flat_index = i + k + i * n if k >= 0 else i + (i - k) * n
    return zeros(n * n, dtype=v_ravel.dtype).at[flat_index].set(v_ravel).reshape(n, n)


@jit(static_argnames=("axis", "start"))
def rollaxis(a, axis, start=0):
    """Move ``axis`` to before position ``start`` (NumPy's older ``moveaxis``)."""
    a = ensure_arraylike("rollaxis", a)
    start = core.concrete_or_error(operator.index, start, "'start' argument of "
                                   "jnp.rollaxis()")
    axis = canonicalize_axis(axis, a.ndim)
    if not (-a.ndim <= start <= a.ndim):
        raise ValueError(f"{start=} must satisfy {-a.ndim}<=start<={a.ndim}")
    if start < 0:
        start += a.ndim
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)
