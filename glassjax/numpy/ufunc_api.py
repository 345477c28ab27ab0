"""``jnp.ufunc``: the elementwise functions NumPy calls universal functions.

In JAX, ``jnp.add``, ``jnp.multiply``, ``jnp.maximum``, ... (the functions NumPy gives
``reduce``/``accumulate``/``reduceat``/``outer``/``at`` methods) are instances of this class rather
than plain functions: they print as ``<jnp.ufunc 'add'>`` (also inside a treedef such as
``Partial[<jnp.ufunc 'add'>]``) and carry ``nin``/``nout``/``identity``. Calling one runs
the plain function from ``ufuncs``. A method uses the matching ``jnp`` function when there
is one (``add.reduce`` is ``sum``, ``multiply.accumulate`` is ``cumprod``) and otherwise
folds the ufunc over the axis with a ``scan``.
"""
from __future__ import annotations

import operator

import numpy as np

from glassjax import lax
from glassjax.jit import jit
from glassjax.numpy import reductions, ufuncs
from glassjax.numpy.indexing import take
from glassjax.numpy.lax_numpy import append, moveaxis
from glassjax.numpy.util import _where, canonicalize_axis, check_arraylike, lax_asarray
from glassjax.vmap_api import vmap

_AT_INPLACE_ERROR = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
    "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
    ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")


class ufunc:
    """A universal function: ``func`` plus the NumPy ufunc methods built from it."""

    def __init__(self, func, /, nin, nout, *, identity=None, reduce=None, accumulate=None,
                 at=None):
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._func = func
        self.nin, self.nout, self.nargs = operator.index(nin), operator.index(nout), nin
        self.identity = identity
        self._reduce, self._accumulate, self._at = reduce, accumulate, at

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    # Methods are jits with ``self`` static, so ufuncs hash and compare by what they are.
    def __hash__(self):
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout) ==
            (other._func, other.__name__, other.identity, other.nin, other.nout))

    def __call__(self, *args, out=None, where=None):
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return self._func(*args)

    def _require_binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")

    @jit(static_argnames=("self", "axis", "dtype", "out", "keepdims"))
    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """Combine the elements along ``axis`` (``add.reduce`` is ``sum`` over axis 0)."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._require_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if self._reduce is not None:
            return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims,
                                initial=initial, where=where)
        if initial is not None or where is not None or keepdims or isinstance(axis, tuple):
            raise NotImplementedError(f"{self.__name__}.reduce with initial, where, "
                                      "keepdims or several axes")
        a = lax_asarray(a)
        if axis is None:
            a, axis = a.ravel(), 0
        result = _fold(self, moveaxis(a, axis, 0), dtype)[-1]
        return result

    @jit(static_argnames=("self", "axis", "dtype"))
    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running results of ``reduce`` along ``axis`` (``add.accumulate`` is
        ``cumsum``)."""
        self._require_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        check_arraylike(f"{self.__name__}.accumulate", a)
        a = lax_asarray(a)
        axis = canonicalize_axis(axis, np.ndim(a))
        return moveaxis(_fold(self, moveaxis(a, axis, 0), dtype), 0, axis)

    @jit(static_argnames=("self", "axis", "dtype"))
    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """``reduce`` over each slice ``indices[i]:indices[i + 1]`` along ``axis`` (the
        last up to the end): a loop over the axis folds element ``i`` into each slice
        that holds it."""
        self._require_binary("reduceat")
        if self.nout != 1:
            raise ValueError("reduceat only supported for functions returning a single value")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = lax_asarray(a), lax_asarray(indices)
        if a.ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got {a.shape=}")
        if indices.ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got "
                             f"{indices.shape=}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, a.ndim)
        result = take(a, indices, axis=axis)
        bounds = lax.expand_dims(append(indices, a.shape[axis]),
                                 [d for d in range(result.ndim) if d != axis])
        start = lax.slice_in_dim(bounds, 0, bounds.shape[axis] - 1, axis=axis)
        end = lax.slice_in_dim(bounds, 1, bounds.shape[axis], axis=axis)

        def fold_in(i, result):
            element = take(a, lax.expand_dims(i, (0,)), axis=axis)
            return _where((i > start) & (i < end), self(result, element), result)
        return lax.fori_loop(0, a.shape[axis], fold_in, result)

    @jit(static_argnums=(0,), static_argnames=("inplace",))
    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with ``a[indices] = ufunc(a[indices], b)``, returned as a new array (JAX
        arrays are immutable, hence the required ``inplace=False``)."""
        if inplace:
            raise NotImplementedError(_AT_INPLACE_ERROR)
        if self._at is not None:
            return self._at(a, indices, b)
        args = () if b is None else (b,)
        return lax_asarray(a).at[indices].set(self(lax_asarray(a)[indices], *args))

    @jit(static_argnums=(0,))
    def outer(self, A, B, /):
        """The ufunc of every pair: result shape ``A.shape + B.shape``."""
        self._require_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        ravel = lambda x: lax.reshape(x, (np.size(x),))
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(A), ravel(B))
        return result.reshape(*np.shape(A), *np.shape(B))


def _fold(uf, a, dtype):
    """The running ``uf`` over the leading axis of ``a``: a scan whose carry is the
    result so far."""
    a = a if dtype is None else a.astype(dtype)
    step = lambda carry, x: (uf(carry, x),) * 2
    _, rest = lax.scan(step, a[0], a[1:])
    return lax.concatenate([a[:1], rest.astype(a.dtype)], 0)


def _bitwise_reduction(name, op, identity):
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        return reductions._reduction(a, name, op, identity, axis=axis, dtype=dtype,
                                     keepdims=keepdims, initial=initial, where_=where)
    return reduce


def _without_dtype(reduction):
    """``max``/``min``/``all``/``any`` have no ``dtype`` argument."""
    def reduce(a, *, axis, dtype, keepdims, initial, where):
        out = reduction(a, axis=axis, keepdims=keepdims, where=where,
                        **({} if initial is None else {"initial": initial}))
        return out if dtype is None else out.astype(dtype)
    return reduce


def _scatter_at(update):
    """``ufunc.at`` as an ``.at[]`` update (``add.at`` is ``a.at[i].add(b)``); bools go
    through int32 as in NumPy."""
    def at(a, indices, b):
        a = lax_asarray(a)
        if a.dtype == np.bool_:
            b = lax.convert_element_type(b, np.bool_).astype(np.int32)
            return update(a.astype(np.int32).at[indices], b).astype(np.bool_)
        return update(a.at[indices], b)
    return at


def _cumulative(reduction):
    return lambda a, *, axis, dtype: reduction(a, axis=axis, dtype=dtype)


add = ufunc(ufuncs.add, 2, 1, identity=0, reduce=reductions.sum,
            accumulate=_cumulative(reductions.cumsum), at=_scatter_at(lambda r, b: r.add(b)))
multiply = ufunc(ufuncs.multiply, 2, 1, identity=1, reduce=reductions.prod,
                 accumulate=_cumulative(reductions.cumprod),
                 at=_scatter_at(lambda r, b: r.mul(b)))
subtract = ufunc(ufuncs.subtract, 2, 1, at=_scatter_at(lambda r, b: r.subtract(b)))
maximum = ufunc(ufuncs.maximum, 2, 1, reduce=_without_dtype(reductions.max))
minimum = ufunc(ufuncs.minimum, 2, 1, reduce=_without_dtype(reductions.min))
logical_and = ufunc(ufuncs.logical_and, 2, 1, identity=True,
                    reduce=_without_dtype(reductions.all))
logical_or = ufunc(ufuncs.logical_or, 2, 1, identity=False,
                   reduce=_without_dtype(reductions.any))
logical_xor = ufunc(ufuncs.logical_xor, 2, 1, identity=False)
bitwise_and = ufunc(ufuncs.bitwise_and, 2, 1, identity=-1,
                    reduce=_bitwise_reduction("reduce_bitwise_and", lax.bitwise_and, -1))
bitwise_or = ufunc(ufuncs.bitwise_or, 2, 1, identity=0,
                   reduce=_bitwise_reduction("reduce_bitwise_or", lax.bitwise_or, 0))
bitwise_xor = ufunc(ufuncs.bitwise_xor, 2, 1, identity=0,
                    reduce=_bitwise_reduction("reduce_bitwise_xor", lax.bitwise_xor, 0))
logaddexp = ufunc(ufuncs.logaddexp, 2, 1, identity=-np.inf)
logaddexp2 = ufunc(ufuncs.logaddexp2, 2, 1, identity=-np.inf)
negative = ufunc(ufuncs.negative, 1, 1)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ``ufunc`` from a scalar function of JAX arrays (its methods are built by
    vectorizing ``func``)."""
    return ufunc(func, nin, nout, identity=identity)
