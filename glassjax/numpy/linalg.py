"""``glassjax.numpy.linalg``: NumPy's linear algebra on ``glassjax.lax.linalg``.

Determinants and solves come from one LU factorization, ranks, pseudo-inverses and
least squares from the SVD, Hermitian eigenproblems from ``eigh``. Norms are plain
reductions. (Partial: ``qr``, ``eig``/``eigvals`` and the derivatives of the
factorizations are not built yet.)
"""
from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.jit import jit
from glassjax.lax import linalg as lax_linalg
from glassjax.numpy import (array_creation, indexing, lax_numpy, reductions,
                            tensor_contractions, ufuncs)
from glassjax.numpy.util import (ensure_arraylike, ensure_arraylike_tuple,
                                 promote_dtypes_inexact)


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: argument must have shape [..., n, n], got {a.shape}.")


def _inexact(name, *args):
    """The arguments as arrays of one inexact dtype (always a list)."""
    return list(promote_dtypes_inexact(*ensure_arraylike_tuple(name, args)))


# -- LU: determinants and solves -----------------------------------------------------------

@jit
def slogdet(a, *, method=None):
    """``(sign, log|det|)`` of each square matrix, from its LU factorization: the
    determinant is the product of U's diagonal, negated once per row swap."""
    a, = _inexact("slogdet", a)
    _square("slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are "
                         "'lu' (`None`), and 'qr'.")
    n = a.shape[-1]
    lu, pivots, _ = lax_linalg.lu(a)
    diag = lax_numpy.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = reductions.any(diag == 0, axis=-1)
    swaps = reductions.count_nonzero(pivots != array_creation.arange(n, dtype=pivots.dtype),
                                     axis=-1)
    sign = ufuncs.sign(diag)
    parity = lax.convert_element_type(swaps % 2, a.dtype)
    sign = reductions.prod(sign, axis=-1) * (1 - 2 * parity)
    logdet = reductions.sum(ufuncs.log(ufuncs.abs(diag)), axis=-1)
    sign = lax_numpy.where(is_zero, array_creation.zeros_like(sign), sign)
    logdet = lax_numpy.where(is_zero, np.array(-np.inf, logdet.dtype), logdet)
    return SlogdetResult(sign, logdet)


@jit
def det(a):
    """The determinant of each square matrix (closed forms for 2x2 and 3x3)."""
    a, = _inexact("det", a)
    _square("det", a)
    n = a.shape[-1]
    if n == 2:
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if n == 3:
        return (a[..., 0, 0] * (a[..., 1, 1] * a[..., 2, 2] - a[..., 1, 2] * a[..., 2, 1])
                - a[..., 0, 1] * (a[..., 1, 0] * a[..., 2, 2] - a[..., 1, 2] * a[..., 2, 0])
                + a[..., 0, 2] * (a[..., 1, 0] * a[..., 2, 1] - a[..., 1, 1] * a[..., 2, 0]))
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(sign.dtype)


def _lu_solve(lu, permutation, b):
    """Solve ``A x = b`` given ``P A = L U``: permute b's rows, then two triangular
    solves (unit lower, then upper)."""
    x = indexing.take_along_axis(b, permutation[..., None], axis=-2) if b.ndim > 1 \
        else b
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)


@jit
def solve(a, b):
    """``x`` with ``a @ x == b`` (``b`` a vector or a stack of matrices)."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got "
                         f"a.shape={a.shape}")
    if (b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]
            and a.shape[-1] != b.shape[-2]):
        raise ValueError(
            f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, this "
            "would have been treated as a batched 1-dimensional solve. To recover this "
            "behavior, use solve(a, b[..., None]).squeeze(-1).")
    _square("solve", a)
    vector = b.ndim == 1
    if vector:
        b = b[..., None]
    batch = lax_numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = lax_numpy.broadcast_to(a, batch + a.shape[-2:])
    b = lax_numpy.broadcast_to(b, batch + b.shape[-2:])
    lu, _, permutation = lax_linalg.lu(lax.stop_gradient(a))
    x = _lu_solve(lu, permutation, b)
    return x[..., 0] if vector else x


@jit
def inv(a):
    """The inverse of each square matrix (a solve against the identity)."""
    a, = _inexact("inv", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
    eye = lax_numpy.broadcast_to(array_creation.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return solve(a, eye)


# -- eigh, Cholesky, SVD -------------------------------------------------------------------

def eigh(a, UPLO=None, symmetrize_input=True):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices."""
    a, = _inexact("eigh", a)
    lower = UPLO is None or UPLO == "L"
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def cholesky(a, *, upper=False, symmetrize_input=True):
    """The lower (or ``upper``) triangular Cholesky factor."""
    a, = _inexact("cholesky", a)
    factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return ufuncs.conj(lax_numpy.matrix_transpose(factor)) if upper else factor


@jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``U, S, Vh`` with ``a == U @ diag(S) @ Vh``; ``S`` descending."""
    a, = _inexact("svd", a)
    if hermitian:
        w, v = lax_linalg.eigh(a)[::-1]
        s = ufuncs.abs(w)
        order = lax_numpy.flip(sorting_argsort(s), axis=-1)
        s = indexing.take_along_axis(s, order, axis=-1)
        if not compute_uv:
            return s
        sign = ufuncs.sign(indexing.take_along_axis(w, order, axis=-1))
        u = indexing.take_along_axis(v, order[..., None, :], axis=-1)
        vh = ufuncs.conj(lax_numpy.matrix_transpose(u * sign[..., None, :]))
        return SVDResult(u, s, vh)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                              subset_by_index=subset_by_index)
    return SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices,
                                     subset_by_index=subset_by_index))


def sorting_argsort(x):
    from glassjax.numpy.sorting import argsort
    return argsort(x, axis=-1)


def svdvals(x):
    return svd(x, compute_uv=False)


def matrix_rank(M, rtol=None, *, tol=None):
    """How many singular values exceed the tolerance (by default
    ``max(S) * max(m, n) * eps``)."""
    M, = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return (M != 0).any().astype(np.int32)
    s = svd(M, full_matrices=False, compute_uv=False)
    if tol is None:
        rtol = max(M.shape[-2:]) * np.finfo(M.dtype).eps if rtol is None else rtol
        tol = s.max(-1, keepdims=True) * rtol
    else:
        tol = lax_numpy.expand_dims(lax_numpy.asarray(tol), -1)
    return reductions.sum(s > tol, axis=-1)


def pinv(a, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse, from the SVD (singular values below
    ``rtol * max(S)`` are treated as zero)."""
    a, = _inexact("pinv", a)
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return array_creation.empty(a.shape[:-2] + (n, m), a.dtype)
    a = ufuncs.conj(a)
    if rtol is None:
        rtol = 10 * max(m, n) * np.finfo(a.dtype).eps
    rtol = lax_numpy.asarray(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = lax_numpy.expand_dims(rtol[..., None], -1) * s[..., 0:1, None]
    s = lax_numpy.where(s > cutoff[..., 0], s, np.inf).astype(u.dtype)
    res = tensor_contractions.matmul(lax_numpy.matrix_transpose(vh),
                                     ufuncs.divide(lax_numpy.matrix_transpose(u),
                                                   s[..., None]))
    return res


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """Least-squares ``x`` minimizing ``|a @ x - b|`` (from the SVD); also returns the
    residuals, the rank and the singular values, as NumPy does."""
    a, b = _inexact("lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    vector = b.ndim == 1
    if vector:             # a one-column system (the residual keeps its axis)
        b = b[:, None]
    m, n = a.shape
    dtype = a.dtype
    if a.size == 0:
        s = array_creation.empty(0, dtype=a.dtype)
        rank = lax_numpy.asarray(0, np.int32)
        x = array_creation.empty((n, *b.shape[1:]), dtype=a.dtype)
    else:
        if rcond is None:
            rcond = np.finfo(dtype).eps * max(n, m)
        else:
            rcond = lax_numpy.where(rcond < 0, np.finfo(dtype).eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = s >= rcond * s[0]
        rank = reductions.sum(mask).astype(np.int32)
        safe_s = lax_numpy.where(mask, s, 1).astype(a.dtype)
        s_inv = lax_numpy.where(mask, 1 / safe_s, 0)[:, None]
        uTb = tensor_contractions.matmul(ufuncs.conj(u.T), b,
                                         precision=lax.Precision.HIGHEST)
        x = tensor_contractions.matmul(ufuncs.conj(vt.T), s_inv * uTb,
                                       precision=lax.Precision.HIGHEST)
    b_estimate = tensor_contractions.matmul(a, x, precision=lax.Precision.HIGHEST)
    resid = norm(b - b_estimate, axis=0) ** 2
    if vector:
        x = x.ravel()
    if numpy_resid and (rank < n or m <= n):
        resid = lax_numpy.asarray([])
    return x, resid, rank, s


# -- norms and products --------------------------------------------------------------------

@jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms (``ord``: None/2, inf, -inf, 0, 1, -1, p) over one axis, matrix
    norms (None/'fro', 'nuc', inf, -inf, 1, -1, 2, -2) over two."""
    x, = _inexact("norm", x)
    x_shape = x.shape
    ndim = len(x_shape)
    if axis is None:
        if ord is None:         # the 2-norm of the flattened array
            result = ufuncs.sqrt(reductions.sum(ufuncs.real(x * ufuncs.conj(x)),
                                                keepdims=keepdims))
            return result
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(core.concrete_or_error(operator.index, a, "The axis argument to "
                                            "jnp.linalg.norm") for a in axis)
    else:
        axis = (core.concrete_or_error(operator.index, axis,
                                       "The axis argument to jnp.linalg.norm"),)
    num_axes = len(axis)
    if num_axes == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if num_axes == 2:
        return _matrix_norm(x, "fro" if ord is None else ord, axis, keepdims)
    raise ValueError(f"Invalid axis values ({axis}) for jnp.linalg.norm.")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The ``ord``-norm of vectors along ``axis`` (all axes when None)."""
    x, = _inexact("vector_norm", x)
    if ord is None or ord == 2:
        return ufuncs.sqrt(reductions.sum(ufuncs.real(x * ufuncs.conj(x)), axis=axis,
                                          keepdims=keepdims))
    if ord == np.inf:       # (initial 0, as JAX: the norm of no elements is 0)
        return reductions.max(ufuncs.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.min(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(x != 0, dtype=np.finfo(x.dtype).dtype, axis=axis,
                              keepdims=keepdims)
    if ord == 1:
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    abs_x = ufuncs.abs(x)
    ord_arr = lax_numpy.asarray(ord, abs_x.dtype)
    return ufuncs.power(reductions.sum(ufuncs.power(abs_x, ord_arr), axis=axis,
                                       keepdims=keepdims),
                        ufuncs.reciprocal(ord_arr))


def _matrix_norm(x, ord, axis, keepdims):
    row_axis, col_axis = (a % x.ndim for a in axis)
    if ord == "fro":
        return ufuncs.sqrt(reductions.sum(ufuncs.real(x * ufuncs.conj(x)), axis=axis,
                                          keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        sum_axis, reduce_axis = (row_axis, col_axis) if ord in (1, -1) else \
            (col_axis, row_axis)
        if not keepdims and sum_axis < reduce_axis:
            reduce_axis -= 1
        sums = reductions.sum(ufuncs.abs(x), axis=sum_axis, keepdims=keepdims)
        if ord in (1, np.inf):
            return reductions.max(sums, axis=reduce_axis, keepdims=keepdims, initial=0)
        return reductions.min(sums, axis=reduce_axis, keepdims=keepdims)
    if ord in (2, -2, "nuc"):
        moved = lax_numpy.moveaxis(x, (row_axis, col_axis), (-2, -1))
        s = svd(moved, compute_uv=False)
        out = reductions.max(s, axis=-1, initial=0) if ord == 2 else \
            reductions.min(s, axis=-1) if ord == -2 else reductions.sum(s, axis=-1)
        if keepdims:
            out = lax_numpy.expand_dims(out, sorted((row_axis, col_axis)))
        return out
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    x, = _inexact("matrix_norm", x)
    return _matrix_norm(x, ord, (-2, -1), keepdims)


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (by repeated squaring; a negative ``n``
    inverts first)."""
    arr = ensure_arraylike("matrix_power", a)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise TypeError(f"{arr.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional" if arr.ndim < 2 else
                        "Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return lax_numpy.broadcast_to(array_creation.eye(arr.shape[-2], dtype=arr.dtype),
                                      arr.shape)
    if n < 0:
        arr, n = inv(arr), -n
    if n == 1:
        return arr
    if n == 2:
        return arr @ arr
    if n == 3:
        return (arr @ arr) @ arr
    z = result = None
    while n > 0:
        z = arr if z is None else (z @ z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else (result @ z)
    return result


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (1-D ends treated as row / column vectors)."""
    arrs = list(ensure_arraylike("multi_dot", *arrays))
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)="
                         f"{len(arrs)}")
    result = arrs[0]
    for arr in arrs[1:]:
        result = tensor_contractions.matmul(result, arr, precision=precision)
    return result


def cond(x, p=None):
    """The condition number ``norm(x) * norm(inv(x))`` (for ``p`` None or +-2: the
    ratio of the extreme singular values)."""
    x, = _inexact("cond", x)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                         f"x.shape={x.shape}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        _square("cond", x)
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    return lax_numpy.where(ufuncs.isnan(r) & ~ufuncs.isnan(x).any(axis=(-2, -1)),
                           np.inf, r)


# NumPy's aliases in numpy.linalg.
outer = tensor_contractions.outer
matmul = tensor_contractions.matmul
tensordot = tensor_contractions.tensordot
matrix_transpose = lax_numpy.matrix_transpose
cross = lax_numpy.cross
diagonal = functools.partial(lax_numpy.diagonal, axis1=-2, axis2=-1)
trace = functools.partial(lax_numpy.trace, axis1=-2, axis2=-1)
