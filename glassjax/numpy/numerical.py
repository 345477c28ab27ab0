"""Finite differences, integration and sample statistics: ``gradient``, ``ediff1d``,
``trapezoid``, ``unwrap``, ``vander``, ``cov``, ``corrcoef``.

All are short compositions of slicing and arithmetic, jitted as JAX's are (so they print
as ``jit[name=...]`` equations), and differentiable through the lax ops they use.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.jit import jit
from glassjax.numpy import reductions, tensor_contractions, ufuncs
from glassjax.numpy.array_creation import array, asarray, full
from glassjax.numpy.lax_numpy import (atleast_2d, clip, concatenate, diag, diff,
                                      expand_dims, iscomplexobj, moveaxis, ravel, where)
from glassjax.numpy.util import (broadcast_to_rank, canonicalize_axis, ensure_arraylike,
                                 promote_args_inexact, promote_dtypes,
                                 promote_dtypes_inexact)


@jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided differences at the edges, along each axis
    (one array per axis); ``varargs`` give the spacing (scalars or coordinates)."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not "
                                  "supported.")
    a, *spacing = promote_dtypes_inexact(f, *varargs)

    def along_axis(a, h, axis):
        sliced = functools.partial(lax.slice_in_dim, a, axis=axis)
        upper_edge = sliced(1, 2) - sliced(0, 1)
        lower_edge = sliced(-1, None) - sliced(-2, -1)
        if np.ndim(h) == 0:
            inner = (sliced(2, None) - sliced(None, -2)) * 0.5 / h
            lower_edge /= h
            upper_edge /= h
        elif np.ndim(h) == 1:
            if len(h) != a.shape[axis]:
                raise ValueError("Spacing arrays must have the same length as the dimension "
                                 "along which the gradient is calculated.")
            h_shape = [1] * a.ndim
            h_shape[axis] = len(h)
            sliced_x = functools.partial(lax.slice_in_dim, h.reshape(h_shape), axis=axis)
            upper_edge /= sliced_x(1, 2) - sliced_x(0, 1)
            lower_edge /= sliced_x(-1, None) - sliced_x(-2, -1)
            # Second-order differences on a non-uniform grid.
            dx1 = sliced_x(1, -1) - sliced_x(0, -2)
            dx2 = sliced_x(2, None) - sliced_x(1, -1)
            wa = -dx2 / (dx1 * (dx1 + dx2))
            wb = (dx2 - dx1) / (dx1 * dx2)
            wc = dx1 / (dx2 * (dx1 + dx2))
            inner = wa * sliced(0, -2) + wb * sliced(1, -1) + wc * sliced(2, None)
        else:
            raise ValueError("Spacing arrays must be 1D arrays or scalars.")
        return concatenate((upper_edge, inner, lower_edge), axis=axis)

    if axis is None:
        axis_tuple = tuple(range(a.ndim))
    else:
        axes = (axis,) if np.ndim(axis) == 0 else axis
        axis_tuple = tuple(canonicalize_axis(operator.index(i), a.ndim) for i in axes)
    if len(axis_tuple) == 0:
        return []
    if min(s for i, s in enumerate(a.shape) if i in axis_tuple) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least 2 elements are required.")
    if len(spacing) == 0:
        dx = [1.0] * len(axis_tuple)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axis_tuple)
    elif len(spacing) == len(axis_tuple):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for "
                        f"axis={axis}")
    grads = [along_axis(a, h, ax) for ax, h in zip(axis_tuple, dx)]
    return grads[0] if len(axis_tuple) == 1 else grads


@jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional values
    before and after."""
    arr = ensure_arraylike("ediff1d", ary).ravel()
    result = lax.sub(arr[1:], arr[:-1])
    if to_begin is not None:
        to_begin = ensure_arraylike("ediff1d", to_begin)
        result = concatenate((ravel(to_begin.astype(arr.dtype)), result))
    if to_end is not None:
        to_end = ensure_arraylike("ediff1d", to_end)
        result = concatenate((result, ravel(to_end.astype(arr.dtype))))
    return result


@jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (sample points ``x``,
    or a spacing ``dx``)."""
    if x is None:
        y = ensure_arraylike("trapezoid", y)
        y_arr, = promote_dtypes_inexact(y)
        dx_array = asarray(dx)
        if dx_array.ndim > 0:
            dx_array = lax.expand_dims(dx_array, tuple(range(y_arr.ndim - dx_array.ndim)))
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        y, x = ensure_arraylike("trapezoid", y, x)
        y_arr, x_arr = promote_dtypes_inexact(y, x)
        dx_array = diff(x_arr) if x_arr.ndim == 1 else moveaxis(diff(x_arr, axis=axis),
                                                                axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if dx_array.ndim == 0 or dx_array.shape[-1] == 1:
        dx_reduced = dx_array if dx_array.ndim == 0 else dx_array[..., 0]
        return dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)


@jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` replaced by their complement modulo
    ``period`` (phase unwrapping)."""
    p = ensure_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if dtypes.issubdtype(p.dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if dtypes.issubdtype(p.dtype, np.integer) else period / 2
    dd = diff(p, axis=axis)
    ddmod = ufuncs.mod(dd + interval, period) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    ph_correct = where(ufuncs.abs(dd) < discont, 0, ddmod - dd)
    return concatenate((lax.slice_in_dim(p, 0, 1, axis=axis),
                        lax.slice_in_dim(p, 1, None, axis=axis)
                        + reductions.cumsum(ph_correct, axis=axis)), axis=axis)


@jit(static_argnames=("N", "increasing"))
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix: columns ``x**(N-1), ..., x, 1`` (reversed if
    ``increasing``)."""
    x = ensure_arraylike("vander", x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else core.concrete_or_error(operator.index, N,
                                                            "'N' argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    iota = lax.iota(x.dtype, N)
    if not increasing:
        iota = lax.sub(lax.full_like(iota, N - 1), iota)
    return ufuncs.power(x[..., None], expand_dims(iota, tuple(range(x.ndim))))


def _check_weights(name, w, n):
    w = ensure_arraylike("cov", w)
    if np.ndim(w) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if np.shape(w)[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    return w


@jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows of ``m`` (columns if not
    ``rowvar``), with optional frequency and analytic weights."""
    if y is not None:
        m, y = promote_args_inexact("cov", m, y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = promote_args_inexact("cov", m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got {dtype=}")
    X = atleast_2d(m)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return array([]).reshape(0, 0)
    if y is not None:
        y_arr = atleast_2d(y)
        if not rowvar and y_arr.shape[0] != 1:
            y_arr = y_arr.T
        X = concatenate((X, y_arr), axis=0)
    if X.shape[1] == 0:
        return full(() if X.shape[0] == 1 else (X.shape[0], X.shape[0]), np.nan, X.dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights = _check_weights("fweights", fweights, X.shape[1])
        if not dtypes.issubdtype(fweights.dtype, np.integer):
            raise TypeError("fweights must be integer.")
        w = ufuncs.abs(fweights)
    if aweights is not None:
        aweights = ufuncs.abs(_check_weights("aweights", aweights, X.shape[1]))
        w = asarray(aweights if w is None else w * aweights)
    if dtype is not None:
        X = X.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = reductions.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = X.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * reductions.sum(w * aweights) / w_sum
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * broadcast_to_rank(w, X.ndim)).T
    return ufuncs.true_divide(tensor_contractions.dot(X, X_T.conj()), f).squeeze()


@jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients: ``cov`` normalized by the standard deviations
    (clipped to [-1, 1] against rounding)."""
    ensure_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                         f"{dtype=}")
    c = cov(x, y, rowvar, dtype=dtype)
    if len(np.shape(c)) == 0:
        return ufuncs.divide(c, c)
    stddev = ufuncs.sqrt(ufuncs.real(diag(c))).astype(c.dtype)
    c = c / stddev[:, None] / stddev[None, :]
    real_part = clip(ufuncs.real(c), -1, 1)
    if iscomplexobj(c):
        return lax.complex(real_part, clip(ufuncs.imag(c), -1, 1))
    return real_part
