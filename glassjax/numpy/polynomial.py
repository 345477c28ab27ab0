"""Polynomials as coefficient arrays, highest power first: ``polyval``, ``polyfit``,
``polyadd``, ``polysub``, ``polymul``, ``polydiv``, ``polyder``, ``polyint``, ``poly``,
``roots``.

``polyval`` is Horner's rule as a ``scan`` over the coefficients; ``polyfit`` solves the
column-scaled Vandermonde least-squares problem with ``lstsq`` (as NumPy does);
``roots`` are the eigenvalues of the companion matrix (LAPACK ``geev``).
"""
from __future__ import annotations

import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.jit import jit
from glassjax.numpy import linalg, reductions, ufuncs
from glassjax.numpy.array_creation import arange, array, full, ones, zeros
from glassjax.numpy.convolve import convolve
from glassjax.numpy.editing import trim_zeros
from glassjax.numpy.lax_numpy import atleast_1d, concatenate, diag, roll
from glassjax.numpy.numerical import vander
from glassjax.numpy.tensor_contractions import dot, outer
from glassjax.numpy.util import (_where, ensure_arraylike, lax_asarray, promote_dtypes,
                                 promote_dtypes_inexact)


@jit
def _roots_no_zeros(p):
    """The eigenvalues of the companion matrix of ``p`` (leading coefficient nonzero)."""
    if p.size < 2:
        return array([], dtype=dtypes.to_complex_dtype(p.dtype))
    A = diag(ones((p.size - 2,), p.dtype), -1)
    A = A.at[0, :].set(-p[1:] / p[0])
    return linalg.eigvals(A)


@jit
def _roots_with_zeros(p, num_leading_zeros):
    """Traceable roots: the leading zeros rolled to the end give zero roots, which are
    sorted last and replaced by NaN."""
    p = _where(len(p) == num_leading_zeros, 1.0, p)    # all zeros: avoid LAPACK errors
    roots = _roots_no_zeros(roll(p, -num_leading_zeros))
    roots = lax.sort_key_val(roots == 0, roots)[1]
    return _where(arange(roots.size) < roots.size - num_leading_zeros, roots,
                  complex(np.nan, np.nan))


def roots(p, *, strip_zeros=True):
    """The (complex) roots of the polynomial ``p``. Leading zeros are stripped, which
    needs concrete ``p``; with ``strip_zeros=False`` they give NaN roots instead."""
    p = ensure_arraylike("roots", p)
    p, = promote_dtypes_inexact(p)
    p_arr = atleast_1d(p)
    if p_arr.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p_arr.size < 2:
        return array([], dtype=dtypes.to_complex_dtype(p_arr.dtype))
    num_leading_zeros = _where(reductions.all(p_arr == 0), len(p_arr),
                               reductions.argmin(p_arr == 0))
    if strip_zeros:
        num_leading_zeros = core.concrete_or_error(
            int, num_leading_zeros,
            "The error occurred in the jnp.roots() function. To use this within a "
            "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros "
            "will result in some returned roots being set to NaN.")
        return _roots_no_zeros(p_arr[num_leading_zeros:])
    return _roots_with_zeros(p_arr, num_leading_zeros)


@jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):  # noqa: A002
    """The degree-``deg`` least-squares fit to the points ``(x, y)`` (``y`` may hold
    several data sets as columns); ``full``/``cov`` add NumPy's diagnostics."""
    if w is None:
        x_arr, y_arr = ensure_arraylike("polyfit", x, y)
    else:
        x_arr, y_arr, w = ensure_arraylike("polyfit", x, y, w)
    deg = core.concrete_or_error(int, deg, "deg must be int")
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x_arr.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x_arr.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y_arr.ndim < 1 or y_arr.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x_arr.shape[0] != y_arr.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x_arr) * float(dtypes.finfo(x_arr.dtype).eps)
    rcond = core.concrete_or_error(float, rcond, "rcond must be float")
    lhs = vander(x_arr, order)
    rhs = y_arr
    if w is not None:
        w_arr, = promote_dtypes_inexact(w)
        if w_arr.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w_arr.shape[0] != y_arr.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs *= w_arr[:, np.newaxis]
        rhs = rhs * (w_arr[:, np.newaxis] if rhs.ndim == 2 else w_arr)
    # Scaling the columns to unit norm improves the conditioning (as NumPy does).
    scale = ufuncs.sqrt((lhs * lhs).sum(axis=0))
    lhs /= scale[np.newaxis, :]
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[np.newaxis, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, lax_asarray(rcond)
    if cov:
        vbase = linalg.inv(dot(lhs.T, lhs))
        vbase /= outer(scale, scale)
        if cov == "unscaled":
            fac = array(1.0)
        else:
            if len(x_arr) <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = resids / (len(x_arr) - order)
        if y_arr.ndim == 1:
            return c, vbase * atleast_1d(fac)[np.newaxis]
        return c, vbase[:, :, np.newaxis] * atleast_1d(fac)[np.newaxis, np.newaxis, :]
    return c


@jit
def poly(seq_of_zeros):
    """The monic polynomial with the given roots (or with a square matrix's
    eigenvalues as roots: its characteristic polynomial)."""
    seq_of_zeros = ensure_arraylike("poly", seq_of_zeros)
    seq_of_zeros, = promote_dtypes_inexact(seq_of_zeros)
    zeros_arr = atleast_1d(seq_of_zeros)
    sh = zeros_arr.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        zeros_arr = linalg.eigvals(zeros_arr)
    if zeros_arr.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = zeros_arr.dtype
    if len(zeros_arr) == 0:
        return ones((), dtype=dt)
    a = ones((1,), dtype=dt)
    for k in range(len(zeros_arr)):
        a = convolve(a, array([1, -zeros_arr[k]], dtype=dt), mode="full")
    return a


@jit(static_argnames=["unroll"])
def polyval(p, x, *, unroll=16):
    """``p`` evaluated at ``x`` by Horner's rule (a ``scan`` over the coefficients; ``p``
    may carry extra trailing axes that broadcast with ``x``)."""
    p, x = ensure_arraylike("polyval", p, x)
    p_arr, x_arr = promote_dtypes(p, x)
    shape = np.broadcast_shapes(p_arr.shape[1:], x_arr.shape)
    y = lax.full_like(x_arr, 0, shape=shape, dtype=x_arr.dtype)
    y, _ = lax.scan(lambda y, p: (y * x_arr + p, None), y, p_arr, unroll=unroll)
    return y


@jit
def polyadd(a1, a2):
    """The sum of two polynomials (aligned at the constant term)."""
    a1, a2 = ensure_arraylike("polyadd", a1, a2)
    a1_arr, a2_arr = promote_dtypes(a1, a2)
    if a2_arr.shape[0] <= a1_arr.shape[0]:
        return a1_arr.at[-a2_arr.shape[0]:].add(a2_arr)
    return a2_arr.at[-a1_arr.shape[0]:].add(a1_arr)


@jit
def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = ensure_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(a1, a2)
    return polyadd(a1, -a2)


@jit(static_argnames=("m",))
def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p``, with integration constants ``k``."""
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    p, k = ensure_arraylike("polyint", p, k)
    p_arr, k_arr = promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = atleast_1d(k_arr)
    if len(k_arr) == 1:
        k_arr = full((m,), k_arr[0])
    if k_arr.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p_arr
    # The divisor of each coefficient: the falling factorial of its new power.
    grid = (arange(len(p_arr) + m, dtype=p_arr.dtype)[np.newaxis]
            - arange(m, dtype=p_arr.dtype)[:, np.newaxis])
    coeff = ufuncs.maximum(1, grid).prod(0)[::-1]
    return ufuncs.true_divide(concatenate((p_arr, k_arr)), coeff)


@jit(static_argnames=("m",))
def polyder(p, m=1):
    """The ``m``-th derivative of ``p``."""
    p = ensure_arraylike("polyder", p)
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyder")
    p_arr, = promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p_arr
    coeff = (arange(m, len(p_arr), dtype=p_arr.dtype)[np.newaxis]
             - arange(m, dtype=p_arr.dtype)[:, np.newaxis]).prod(0)
    return p_arr[:-m] * coeff[::-1]


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials (a full convolution of the coefficients)."""
    a1, a2 = ensure_arraylike("polymul", a1, a2)
    a1_arr, a2_arr = promote_dtypes_inexact(a1, a2)
    if trim_leading_zeros and (len(a1_arr) > 1 or len(a2_arr) > 1):
        a1_arr, a2_arr = trim_zeros(a1_arr, trim="f"), trim_zeros(a2_arr, trim="f")
    if len(a1_arr) == 0:
        a1_arr = zeros(1, dtype=a2_arr.dtype)
    if len(a2_arr) == 0:
        a2_arr = zeros(1, dtype=a1_arr.dtype)
    return convolve(a1_arr, a2_arr, mode="full")


def _trim_leading_small(filt, tol):
    """``filt`` without its leading entries smaller than ``tol`` (needs concrete
    values)."""
    filt = core.concrete_or_error(np.asarray, filt, "Error arose in the `filt` argument of "
                                  "trim_zeros_tol()")
    nz = np.abs(filt) < tol
    if nz.all():
        return zeros(0, filt.dtype)
    return array(filt[int(np.argmin(nz)):])


def polydiv(u, v, *, trim_leading_zeros=False):
    """(quotient, remainder) of the polynomial long division ``u / v``."""
    u, v = ensure_arraylike("polydiv", u, v)
    u_arr, v_arr = promote_dtypes_inexact(u, v)
    m, n = len(u_arr) - 1, len(v_arr) - 1
    scale = 1. / v_arr[0]
    q = zeros(max(m - n + 1, 1), dtype=u_arr.dtype)
    for k in range(0, m - n + 1):
        d = scale * u_arr[k]
        q = q.at[k].set(d)
        u_arr = u_arr.at[k:k + n + 1].add(-d * v_arr)
    if trim_leading_zeros:
        u_arr = _trim_leading_small(u_arr, float(np.sqrt(dtypes.finfo(u_arr.dtype).eps)))
    return q, u_arr
