"""``glassjax.numpy.linalg``: NumPy's linear algebra on ``glassjax.lax.linalg``.

Determinants and solves come from one LU factorization, ranks, pseudo-inverses and
least squares from the SVD, Hermitian eigenproblems from ``eigh``. Norms are plain
reductions, QR from ``lax.linalg.qr``. Everything is differentiable through the
factorizations' JVP rules. (Partial: ``eig``/``eigvals`` are not built yet.)
"""
from __future__ import annotations

import functools
import math
import operator
from typing import NamedTuple

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.lax import linalg as lax_linalg
from glassjax.numpy import (array_creation, indexing, lax_numpy, reductions, util,
                            tensor_contractions, ufuncs)
from glassjax.numpy.vectorize import vectorize
from glassjax.numpy.util import (ensure_arraylike, ensure_arraylike_tuple,
                                 promote_dtypes_inexact)


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


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

def _lu_parity(pivots, n):
    """How many row swaps the LU factorization made (odd ones flip the sign)."""
    return reductions.count_nonzero(pivots != array_creation.arange(n, dtype=pivots.dtype),
                                    axis=-1)


@custom_jvp
def _slogdet_lu(a):
    """Sign and log|det| from the LU factorization: the determinant is the product of
    U's diagonal, negated once per row swap."""
    n = a.shape[-1]
    lu, pivots, _ = lax_linalg.lu(a)
    diag = lax_numpy.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = reductions.any(diag == array_creation.array(0, dtype=a.dtype), axis=-1)
    parity = _lu_parity(pivots, n)
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        sign = reductions.prod(diag / ufuncs.abs(diag).astype(diag.dtype), axis=-1)
    else:
        sign = array_creation.array(1, dtype=a.dtype)
        parity = parity + reductions.count_nonzero(diag < 0, axis=-1)
    sign = lax_numpy.where(is_zero, array_creation.array(0, dtype=a.dtype),
                           sign * array_creation.array(-2 * (parity % 2) + 1, dtype=a.dtype))
    logdet = lax_numpy.where(is_zero, array_creation.array(-np.inf, dtype=a.dtype),
                             reductions.sum(ufuncs.log(ufuncs.abs(diag)).astype(a.dtype),
                                            axis=-1))
    return sign, ufuncs.real(logdet)


@custom_jvp
def _slogdet_small(a):
    """Sign and log|det| of 1x1 and 2x2 matrices by their closed forms."""
    if a.shape[-1] == 1:
        det_ = a[..., 0, 0]
    else:
        a00, a01, a10, a11 = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
        det_ = a00 * a11 - a01 * a10
    abs_det = ufuncs.abs(det_)
    return ufuncs.sign(det_), ufuncs.real(ufuncs.log(abs_det))


def _slogdet_tangents(sign, ans_dot):
    """A real determinant's sign has a zero derivative (it jumps only at 0); a complex
    one turns with the imaginary part of ``d log det``."""
    if dtypes.issubdtype(ans_dot.dtype, np.complexfloating):
        return (ans_dot - ufuncs.real(ans_dot).astype(ans_dot.dtype)) * sign, \
            ufuncs.real(ans_dot)
    return array_creation.zeros_like(sign), ans_dot


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals, tangents):
    """``d log|det A| = trace(A^-1 dA)``, by a solve (differentiating through the
    factorization would be undefined where det A = 0)."""
    x, = primals
    g, = tangents
    sign, ans = slogdet(x)
    sign_dot, ans_dot = _slogdet_tangents(sign, lax_numpy.trace(solve(x, g), axis1=-1,
                                                                 axis2=-2))
    return (sign, ans), (sign_dot, ans_dot)


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
    x, = primals
    g, = tangents
    sign, ans = _slogdet_small(x)
    if x.shape[-1] == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:      # trace(adj(x) g) / det(x)
        ans_dot = (g[..., 0, 0] * x[..., 1, 1] - g[..., 0, 1] * x[..., 1, 0]
                   - g[..., 1, 0] * x[..., 0, 1] + g[..., 1, 1] * x[..., 0, 0]) / _det_2x2(x)
    sign_dot, ans_dot = _slogdet_tangents(sign, ans_dot)
    return (sign, ans), (sign_dot, ans_dot)


@functools.partial(jit, static_argnames=("method",))
def slogdet(a, *, method=None):
    """``(sign, log|det|)`` of each square matrix (closed forms up to 2x2, else LU)."""
    a, = _inexact("jnp.linalg.slogdet", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got "
                         f"{a.shape}")
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are "
                         "'lu' (`None`), and 'qr'.")
    if a.shape[-1] in (1, 2):
        return SlogdetResult(*_slogdet_small(a))
    return SlogdetResult(*_slogdet_lu(a))


def _cofactor_solve(a, b):
    """``(det(a), adj(a) @ b)``, where ``adj(a) = det(a) a^-1`` is well defined for
    singular ``a`` too: the determinant's gradient.

    With ``P a = L U``, ``adj(a) b = prod(diag U) U^-1 L^-1 P b``. The last diagonal
    entry of U is replaced by ``1 / prod(other diagonal entries)`` (times the swap
    sign), so for rank n-1 the division by a zero ``u_nn`` never happens; matrices of
    lower rank (where even that product is zero: the solve gives inf or NaN) have a zero
    adjugate and are filtered out."""
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    batch = lax.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    x = lax_numpy.broadcast_to(b, batch + b.shape[-2:])
    lu = lax_numpy.broadcast_to(lu, batch + lu.shape[-2:])
    diag = lax_numpy.diagonal(lu, axis1=-2, axis2=-1)
    sign = array_creation.asarray(-2 * (_lu_parity(pivots, n) % 2) + 1, dtype=a.dtype)
    partial_det = reductions.cumprod(diag, axis=-1) * sign[..., None]
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = lax_numpy.broadcast_to(permutation, (*batch, n))
    low_rank = lax_linalg.triangular_solve(
        lu, array_creation.ones(x.shape[:-1], x.dtype), left_side=True, lower=False)
    low_rank = reductions.any(ufuncs.isnan(low_rank) | ufuncs.isinf(low_rank), axis=-1)
    low_rank = low_rank[..., None, None]
    x = lax_numpy.where(low_rank, array_creation.zeros_like(x), x)
    x = indexing.take_along_axis(x, permutation[..., None], axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = lax_numpy.concatenate((x[..., :-1, :] * partial_det[..., -1, None, None],
                               x[..., -1:, :]), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    x = lax_numpy.where(low_rank, array_creation.zeros_like(x), x)
    return partial_det[..., -1], x


def _det_2x2(a):
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
    """Sarrus' rule, in JAX's order of terms."""
    return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
            + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
            + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
            - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
            - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
            - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


@custom_jvp
def _det(a):
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
    """``d det(A) = trace(adj(A) dA)`` (Jacobi's formula), finite also where A is
    singular."""
    x, = primals
    g, = tangents
    y, z = _cofactor_solve(x, g)
    return y, lax_numpy.trace(z, axis1=-1, axis2=-2)


@jit
def det(a):
    """The determinant of each square matrix (closed forms for 2x2 and 3x3)."""
    a, = _inexact("jnp.linalg.det", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a.shape}")
    if a.shape[-1] == 2:
        return _det_2x2(a)
    if a.shape[-1] == 3:
        return _det_3x3(a)
    return _det(a)


@jit
def solve(a, b):
    """``x`` with ``a @ x == b`` (``b`` a vector or a stack of matrices), differentiable
    in both (``lax.linalg._solve``)."""
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
    signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
    return vectorize(lax_linalg._solve, signature=signature)(a, b)


@jit
def inv(a):
    """The inverse of each square matrix (a solve against the identity)."""
    a, = _inexact("inv", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
    eye = lax.broadcast(array_creation.eye(a.shape[-1], dtype=a.dtype), a.shape[:-2])
    return solve(a, eye)


@functools.partial(jit, static_argnames=("mode",))
def qr(a, mode="reduced"):
    """``Q, R`` with ``a == Q @ R``: ``"reduced"`` (K = min(M, N) columns of Q),
    ``"complete"`` (all M), ``"r"`` (just R), ``"raw"`` (LAPACK's Householder form)."""
    a, = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        h, taus = lax_linalg.geqrf(a)
        return QRResult(lax_numpy.swapaxes(h, -1, -2), taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, pivoting=False, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


# -- eigh, Cholesky, SVD -------------------------------------------------------------------

@jit(static_argnames=("UPLO", "symmetrize_input"))
def eigh(a, UPLO=None, symmetrize_input=True):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices."""
    a, = _inexact("eigh", a)
    lower = UPLO is None or UPLO == "L"
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a):
    """Eigenvalues and right eigenvectors of a general square matrix (complex, in
    LAPACK ``geev``'s order and normalization)."""
    a = ensure_arraylike("jnp.linalg.eig", a)
    a, = promote_dtypes_inexact(a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jit
def eigvals(a):
    """The (complex) eigenvalues of a general square matrix."""
    a = ensure_arraylike("jnp.linalg.eigvals", a)
    a, = promote_dtypes_inexact(a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix from its first ``ind`` axes to the rest:
    ``tensordot(tensorinv(a), a, ind)`` is the identity."""
    arr = ensure_arraylike("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got {ind=}")
    contracting_shape, batch_shape = arr.shape[:ind], arr.shape[ind:]
    flatshape = (math.prod(contracting_shape), math.prod(batch_shape))
    if flatshape[0] != flatshape[1]:
        raise ValueError("tensorinv is only possible when the product of the first `ind` "
                         "dimensions equals that of the remaining dimensions. got "
                         f"arr.shape={arr.shape} with ind={ind}.")
    return inv(arr.reshape(flatshape)).reshape(*batch_shape, *contracting_shape)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (``axes`` of ``a`` moved to the end
    first)."""
    a_arr, b_arr = ensure_arraylike("tensorsolve", a, b)
    if axes is not None:
        a_arr = lax_numpy.moveaxis(a_arr, axes, len(axes) * (a_arr.ndim - 1,))
    out_shape = a_arr.shape[b_arr.ndim:]
    if a_arr.shape[:b_arr.ndim] != b_arr.shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of "
                         f"b. got a.shape={a_arr.shape}, b.shape={b_arr.shape}")
    if b_arr.size != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a_arr.shape}, "
                         f"b.ndim={b_arr.ndim}.")
    a_arr = a_arr.reshape(b_arr.size, math.prod(out_shape))
    return solve(a_arr, b_arr.ravel()).reshape(out_shape)


@jit(static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


@jit(static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper=False, symmetrize_input=True):
    """The lower (or ``upper``) triangular Cholesky factor."""
    a, = _inexact("cholesky", a)
    factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return ufuncs.conj(lax_numpy.matrix_transpose(factor)) if upper else factor


@jit(static_argnames=("full_matrices", "compute_uv", "hermitian",
                     "subset_by_index"))
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


@jit
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
    if ord == np.inf:      # initial=0, as JAX (the norm of no elements is 0)
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
    abs_x = ufuncs.abs(x)      # the exponents are host constants, as in JAX
    ord_arr = util.const(abs_x, ord)
    return ufuncs.power(reductions.sum(ufuncs.power(abs_x, ord_arr), axis=axis,
                                       keepdims=keepdims),
                        util.const(abs_x, 1. / ord_arr))


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
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


@jit(static_argnames=("n",))
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


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    x1, x2 = ensure_arraylike("jnp.linalg.vecdot", x1, x2)
    return tensor_contractions.vecdot(x1, x2, axis=axis, precision=precision,
                                      preferred_element_type=preferred_element_type)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (1-D ends treated as row / column vectors),
    multiplied in the cheapest order: an ``einsum`` chain ``ab,bc,cd->ad`` whose path
    search picks the order."""
    arrs = list(ensure_arraylike("multi_dot", *arrays))
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)="
                         f"{len(arrs)}")
    shapes = [a.shape for a in arrs]
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2) and
            all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for "
                         "the first and last array which may be 1 or 2 dimensional. Got "
                         f"array shapes {shapes}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first "
                         f"dimension of following array. Got array shapes {shapes}")
    axes = [(i, i + 1) for i in range(len(arrs))]
    axes[0] = axes[0][2 - arrs[0].ndim:]
    axes[-1] = axes[-1][:arrs[-1].ndim]
    return tensor_contractions.einsum(*[x for pair in zip(arrs, axes) for x in pair],
                                      optimize="auto", precision=precision)


@jit(static_argnames=("p",))
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
