"""Structured matrices of ``jax.scipy.linalg``: ``block_diag``, ``toeplitz``, ``hankel``,
``circulant``, ``leslie``, ``companion``, ``fiedler``, ``fiedler_companion``,
``convolution_matrix``, ``hilbert``, ``invhilbert``, ``pascal``, ``invpascal``,
``helmert``, ``hadamard``, ``dft``.

Each is a closed formula over index grids (or a gather from the defining vector); the
vector-defined ones are ``vectorize``d, so leading batch axes give batches of matrices.
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.jit import jit
from glassjax.numpy.util import check_arraylike, promote_args_inexact, promote_dtypes
from glassjax.scipy.special import comb


@jit
def block_diag(*arrs):
    """The arrays (at most 2-D) along the diagonal of one matrix, zeros elsewhere."""
    if len(arrs) == 0:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad_shapes = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad_shapes:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad_shapes[0]]} at argument {bad_shapes[0]}.")
    arrs = [jnp.atleast_2d(a) for a in arrs]
    dtype = arrs[0].dtype
    total_cols = sum(a.shape[1] for a in arrs)
    padded, current_col = [], 0
    for arr in arrs:
        cols = arr.shape[1]
        padded.append(lax.pad(arr, dtype.type(0),
                              ((0, 0, 0), (current_col, total_cols - cols - current_col, 0))))
        current_col += cols
    return jnp.concatenate(padded, axis=0)


def _diagonals_matrix(elems, nrows, ncols, reverse_rows):
    """``M[i, j] = elems[j - i + nrows - 1]`` (or ``elems[i + j]``): constant along the
    diagonals (anti-diagonals)."""
    i = jnp.arange(nrows)[:, None]
    j = jnp.arange(ncols)[None, :]
    return elems[i + j] if not reverse_rows else elems[nrows - 1 - i + j]


@partial(jnp.vectorize, signature="(m),(n)->(m,n)")
def _toeplitz(c, r):
    nrows, ncols = c.shape[0], r.shape[0]
    if nrows == 0 or ncols == 0:
        return jnp.empty((nrows, ncols), dtype=jnp.promote_types(c.dtype, r.dtype))
    return _diagonals_matrix(jnp.concatenate((c[::-1], r[1:])), nrows, ncols, True)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``conj(c)`` by
    default; ``r[0]`` is ignored)."""
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


@partial(jnp.vectorize, signature="(m),(n)->(m,n)")
def _hankel(c, r):
    nrows, ncols = c.shape[0], r.shape[0]
    if nrows == 0 or ncols == 0:
        return jnp.empty((nrows, ncols), dtype=jnp.result_type(c, r))
    return _diagonals_matrix(jnp.concatenate((c, r[1:])), nrows, ncols, False)


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros by
    default)."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, tuple(range(r.ndim - c.ndim)))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, tuple(range(c.ndim - r.ndim)))
    return _hankel(c, r)


@partial(jnp.vectorize, signature="(n)->(n,n)")
def _circulant(c):
    n = c.shape[0]
    return c[(jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


def circulant(c):
    """The circulant matrix ``A[i, j] = c[(i - j) mod n]``."""
    check_arraylike("circulant", c)
    return _circulant(jnp.atleast_1d(jnp.asarray(c)))


@partial(jnp.vectorize, signature="(n),(m)->(n,n)")
def _leslie(f, s):
    f, s = promote_dtypes(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survival rates ``s`` on
    the subdiagonal."""
    check_arraylike("leslie", f, s)
    f_arr, s_arr = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f_arr.shape[-1] < 2:
        raise ValueError("The length of f along the last axis must be at least 2; got shape "
                         f"{f_arr.shape}.")
    if s_arr.shape[-1] != f_arr.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         "must be one less than the length of f; got f shape "
                         f"{f_arr.shape} and s shape {s_arr.shape}.")
    return _leslie(f_arr, s_arr)


@partial(jnp.vectorize, signature="(n)->(m,m)")
def _companion(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return jnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def companion(a):
    """The companion matrix of the polynomial ``a`` (its eigenvalues are the roots)."""
    a, = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2; got "
                         f"shape {a.shape}.")
    return _companion(a)


def fiedler(a):
    """The symmetric matrix ``|a[i] - a[j]|``."""
    check_arraylike("fiedler", a)
    arr = jnp.atleast_1d(a)
    return jnp.abs(arr[..., None] - arr[..., None, :])


@partial(jnp.vectorize, signature="(n)->(m,m)")
def _fiedler_companion(a):
    """The pentadiagonal companion matrix of Fiedler (2003), built with masks over the
    full index grid so that its shape is static."""
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty((0, 0), a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    super_val = -a[jnp.minimum(i + 2, n)]
    sub_val = -a[jnp.minimum(i + 1, n)]
    i_even, i_odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & i_even,
                  (j == i + 2) & i_even, (j == i - 1) & i_even & (i >= 2),
                  (j == i - 2) & i_odd & (i >= 3)]
    return jnp.select(conditions, [-a[1], one, super_val, one, sub_val, one], default=zero)


def fiedler_companion(a):
    """Fiedler's companion matrix of the polynomial ``a`` (same eigenvalues as
    ``companion``, pentadiagonal)."""
    a, = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    return _fiedler_companion(a)


@jit(static_argnames=("n", "mode"))
def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``len(v) ==
    n``."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a_arr = jnp.asarray(a)
    if a_arr.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a "
                         "scalar.")
    m = a_arr.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a_arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad_widths = [(0, 0)] * (a_arr.ndim - 1) + [(0, n - 1)]
    az = jnp.pad(a_arr, pad_widths)
    raz = jnp.pad(jnp.flip(a_arr, axis=-1), pad_widths)
    L = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col0 = lax.slice_in_dim(az, tb, L - te, axis=a_arr.ndim - 1)
    row0 = lax.slice_in_dim(raz, L - n - tb, L - tb, axis=a_arr.ndim - 1)
    return toeplitz(col0, row0)


@jit(static_argnames=("n",))
def hilbert(n):
    """The Hilbert matrix ``1 / (i + j + 1)``."""
    a = lax.broadcasted_iota(dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + a.T + 1)


@jit(static_argnames=("n",))
def invhilbert(n):
    """The inverse of the Hilbert matrix, in closed form."""
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1)
            * comb(s, i) ** 2)


def _binom(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _check_kind(kind):
    kind = "symmetric" if kind is None else kind
    valid_kind = ["symmetric", "lower", "upper"]
    if kind not in valid_kind:
        raise ValueError(f"Expected kind to be one of: {valid_kind}; got {kind}")
    return kind


@jit(static_argnames=("n", "kind",))
def pascal(n, kind=None):
    """The Pascal matrix of binomial coefficients (``lower``/``upper`` triangular, or
    their ``symmetric`` product)."""
    kind = _check_kind(kind)
    a = jnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower, lower.T)


@jit(static_argnames=("n", "kind",))
def invpascal(n, kind=None):
    """The inverse of ``pascal(n, kind)``: signed binomial coefficients."""
    kind = _check_kind(kind)
    a = jnp.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    lower_inv = ((-1.0) ** (i - j)) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return jnp.dot(lower_inv.T, lower_inv)


@jit(static_argnames=("n", "full"))
def helmert(n, full=False):
    """The Helmert matrix: orthonormal rows orthogonal to the ones vector (which is
    the first row if ``full``)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
    k = (i + 1).astype(dtypes.default_float_dtype())
    denom = jnp.sqrt(k * (k + 1))
    H = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k / denom,
                                                   jnp.zeros_like(denom)))
    if full:
        H = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=H.dtype), H], axis=0)
    return H


@jit(static_argnames=("n", "dtype"))
def hadamard(n, dtype=int):
    """The Sylvester-construction Hadamard matrix of order ``n`` (a power of 2)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        H = jnp.block([[H, H], [H, -H]])
    return H


@jit(static_argnames=("n", "scale", "dtype"))
def dft(n, scale=None, *, dtype=None):
    """The discrete Fourier transform matrix ``exp(-2 pi i j k / n)`` (scaled by
    ``1/sqrt(n)`` or ``1/n`` on request)."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.default_complex_dtype()
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "dft")
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = jnp.arange(n, dtype=dtype)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        return omegas / jnp.sqrt(n)
    return omegas / n if scale == "n" else omegas
