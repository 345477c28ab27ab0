"""Index helpers: ``r_``, ``c_``, ``s_``, ``index_exp``, ``mgrid``, ``ogrid``, ``ix_``,
``unravel_index``, ``ravel_multi_index``, ``mask_indices``.

``r_``/``c_``/``mgrid``/``ogrid`` are objects whose ``__getitem__`` builds arrays from
slice syntax (``jnp.r_[1:4, 0, 5]``); slices become ``arange`` (or ``linspace`` when the
step is imaginary, ``0:1:5j``), so their bounds must be concrete.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from glassjax import core, dtypes
from glassjax import lax
from glassjax.numpy import reductions, ufuncs
from glassjax.numpy.array_creation import arange, array, linspace, meshgrid, ones
from glassjax.numpy.lax_numpy import (clip, concatenate, expand_dims, nonzero, stack,
                                      transpose, where)
from glassjax.numpy.util import ensure_arraylike, ensure_arraylike_tuple, promote_dtypes


def _grid_from_slice(s, op_name):
    start = core.concrete_or_error(None, s.start, f"slice start of jnp.{op_name}") or 0
    stop = core.concrete_or_error(None, s.stop, f"slice stop of jnp.{op_name}")
    step = core.concrete_or_error(None, s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Mgrid:
    """``jnp.mgrid[0:2, 0:3]``: dense ``ij``-indexed coordinate arrays, stacked."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice(key, "mgrid")
        grids = meshgrid(*promote_dtypes(*(_grid_from_slice(k, "mgrid") for k in key)),
                         indexing="ij", sparse=False)
        return stack(grids, 0) if grids else arange(0)


class _Ogrid:
    """``jnp.ogrid[0:2, 0:3]``: the sparse (broadcastable) version of ``mgrid``."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice(key, "ogrid")
        return meshgrid(*promote_dtypes(*(_grid_from_slice(k, "ogrid") for k in key)),
                        indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """Concatenation by indexing. A leading string directive ``'axis,ndmin,trans1d'``
    (or ``'r'``/``'c'`` for a row/column matrix) overrides the class defaults."""
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if isinstance(key[0], str):
            directive, key = key[0], key[1:]
            if directive in ("r", "c"):
                params[-1] = 0 if directive == "r" else 1
            else:
                vec = directive.split(",")
                vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = list(map(int, vec))
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") \
                        from err
        axis, ndmin, trans1d, matrix = params
        output = []
        for item in key:
            if isinstance(item, slice):
                item, item_ndim = _grid_from_slice(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                item = array(item, copy=False)
                item_ndim = item.ndim
            item = array(item, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                # Where the original axes go among the new ones (NumPy's rule).
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                item = transpose(item, order[shift:] + order[:shift])
            output.append(item)
        res = concatenate(tuple(output), axis=axis)
        if matrix != -1 and res.ndim == 1:
            res = expand_dims(res, matrix)
        return res

    def __len__(self):
        return 0


class RClass(_AxisConcat):
    """``jnp.r_[...]``: concatenate along the first axis (rows)."""
    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """``jnp.c_[...]``: stack 1-D pieces as columns (along the last axis, 2-D at least)."""
    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


r_ = RClass()
c_ = CClass()
s_ = np.s_
index_exp = np.index_exp


def ix_(*args):
    """An open mesh from 1-D index arrays: ``a[ix_(rows, cols)]`` is the cross product."""
    args = ensure_arraylike_tuple("ix", args)
    output = []
    for i, a in enumerate(args):
        if a.ndim != 1:
            raise ValueError("Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{a.shape}")
        if a.dtype == bool:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not "
                                      "implemented")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        output.append(lax.full(shape, np.zeros((), np.intp)) if a.size == 0 else
                      lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(output)


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of the flat ``indices``; out-of-range
    indices are clipped to the first/last element (NumPy raises)."""
    indices_arr = ensure_arraylike("unravel_index", indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        indices_arr, out[i] = ufuncs.divmod(indices_arr, s)
    oob_pos = indices_arr > 0
    oob_neg = (array(False) if dtypes.issubdtype(indices_arr.dtype, np.unsignedinteger)
               else indices_arr < -1)
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """The flat indices of the coordinates ``multi_index`` in an array of shape ``dims``;
    ``mode`` says what out-of-range coordinates do (``'raise'`` needs concrete ones)."""
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(core.concrete_or_error(operator.index, d, "in `dims` argument of "
                                        "ravel_multi_index().") for d in dims)
    multi_index = list(ensure_arraylike_tuple("ravel_multi_index", multi_index))
    dtype = (dtypes.result_type(int, *multi_index) if dtype is None else
             dtypes.check_and_canonicalize_user_dtype(dtype, "ravel_multi_index"))
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"{dtype=} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dtype).max:
        raise ValueError(f"jnp.ravel_multi_index: {dtype=} not large enough to hold "
                         f"flattened index for {dims=}. Use the dtype argument to pass a "
                         "suitable dtype (e.g. dtype=np.min_scalar_type(prod(dims))).")
    for index in multi_index:
        if mode == "raise":
            core.concrete_or_error(array, index, "The error occurred because "
                                   "ravel_multi_index was jit-compiled with mode='raise'. "
                                   "Use mode='wrap' or mode='clip' instead.")
        if not dtypes.issubdtype(index.dtype, np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        if any(reductions.any((i < 0) | (i >= d)) for i, d in zip(multi_index, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        multi_index = [clip(i, 0, d - 1) for i, d in zip(multi_index, dims)]
    elif mode == "wrap":
        multi_index = [i % d for i, d in zip(multi_index, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or "
                         "'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=dtype)
    for i, s in zip(multi_index, strides):
        result = result + i.astype(dtype) * int(s)
    return result


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero (e.g. ``jnp.triu``)."""
    return tuple(nonzero(mask_func(ones((n, n)), k), size=size))
