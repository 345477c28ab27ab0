"""What the Schur decomposition ``A = Z T Z^H`` gives ``jax.scipy.linalg``: ``schur``,
``rsf2csf`` (real to complex Schur form), ``sqrtm`` and ``funm`` (matrix functions
computed on the triangular ``T``), ``solve_sylvester`` (Bartels-Stewart); and the
Hessenberg form ``A = Q H Q^H`` (the first step of the Schur algorithm).

The triangular recurrences (Björck-Hammarling for ``sqrtm``, Parlett for ``funm``,
back substitution for Sylvester) run as ``fori_loop``/``scan`` over static sizes, with
masked row/column products, so they trace once and run under ``jit``.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.jit import jit
from glassjax.lax import linalg as lax_linalg
from glassjax.numpy.util import promote_args_inexact, promote_dtypes_complex


@jit(static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def schur(a, output="real"):
    """``(T, Z)`` with ``a = Z T Z^H``: real input gives the real Schur form (2x2 blocks
    for complex eigenvalue pairs) unless ``output='complex'``."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got "
                         f"output={output!r}.")
    return _schur(jnp.asarray(a), output)


def _rsf2csf_2d(T, Z):
    """Givens rotations that zero each nonzero subdiagonal entry of the real Schur
    form, from the bottom up (SciPy's algorithm)."""
    T, Z = promote_dtypes_complex(T, Z)
    eps = dtypes.finfo(T.dtype).eps
    N = T.shape[0]
    if N == 1:
        return T, Z

    def update(m, T, Z):
        mu = jnp.linalg.eigvals(lax.dynamic_slice(T, (m - 1, m - 1), (2, 2))) - T[m, m]
        r = jnp.linalg.norm(jnp.array([mu[0], T[m, m - 1]])).astype(T.dtype)
        c, s = mu[0] / r, T[m, m - 1] / r
        G = jnp.array([[c.conj(), s], [-s, c]], dtype=T.dtype)
        T_rows = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=0)
        col_mask = jnp.arange(N) >= m - 1
        T = lax.dynamic_update_slice_in_dim(
            T, jnp.where(~col_mask, T_rows, G @ jnp.where(col_mask, T_rows, 0)), m - 1, axis=0)
        T_cols = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=1)
        row_mask = jnp.arange(N)[:, np.newaxis] < m + 1
        T = lax.dynamic_update_slice_in_dim(
            T, jnp.where(~row_mask, T_cols, jnp.where(row_mask, T_cols, 0) @ G.conj().T),
            m - 1, axis=1)
        Z_cols = lax.dynamic_slice_in_dim(Z, m - 1, 2, axis=1)
        return T, lax.dynamic_update_slice_in_dim(Z, Z_cols @ G.conj().T, m - 1, axis=1)

    def step(i, TZ):
        m = N - i
        T, Z = TZ
        T, Z = lax.cond(jnp.abs(T[m, m - 1]) > eps * (jnp.abs(T[m - 1, m - 1])
                                                       + jnp.abs(T[m, m])),
                        update, lambda m, T, Z: (T, Z), m, T, Z)
        return T.at[m, m - 1].set(0.0), Z
    return lax.fori_loop(1, N, step, (T, Z))


@jit(static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form ``(T, Z)`` from a real one."""
    T_arr, Z_arr = jnp.asarray(T), jnp.asarray(Z)
    if T_arr.ndim < 2 or T_arr.shape[-1] != T_arr.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if Z_arr.ndim < 2 or Z_arr.shape[-1] != Z_arr.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if T_arr.shape[-1] != Z_arr.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z_arr.shape} vs. T: "
                         f"{T_arr.shape}")
    return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T_arr, Z_arr)


@jit
def _sqrtm_triu(T):
    """The upper triangular ``U`` with ``U @ U == T``, column by column
    (Björck-Hammarling)."""
    diag = jnp.sqrt(jnp.diag(T))
    n = diag.size
    U = jnp.diag(diag)

    def i_loop(l, data):
        j, U = data
        i = j - 1 - l
        s = lax.fori_loop(i + 1, j, lambda k, val: val + U[i, k] * U[k, j], 0.0)
        value = jnp.where(T[i, j] == s, 0.0, (T[i, j] - s) / (diag[i] + diag[j]))
        return j, U.at[i, j].set(value)

    def j_loop(j, U):
        return lax.fori_loop(0, j, i_loop, (j, U))[1]
    return lax.fori_loop(0, n, j_loop, U)


@jit
def _sqrtm(A):
    T, Z = schur(A, output="complex")
    sqrt_T = _sqrtm_triu(T)
    return jnp.matmul(jnp.matmul(Z, sqrt_T, precision=lax.Precision.HIGHEST), jnp.conj(Z.T),
                      precision=lax.Precision.HIGHEST)


def sqrtm(A, blocksize=1):
    """The principal matrix square root (complex), from the complex Schur form."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


@jit
def _parlett(F, T):
    """Parlett's recurrence (Golub & Van Loan 11.1.1): the off-diagonal of ``f(T)``
    from its diagonal, one superdiagonal at a time; also the smallest eigenvalue gap."""
    N = T.shape[0]
    minden = jnp.abs(T[0, 0])

    def inner(i, p_F_minden):
        p, F, minden = p_F_minden
        j = i + p
        s = T[i - 1, j - 1] * (F[j - 1, j - 1] - F[i - 1, i - 1])
        ind = (jnp.arange(N) >= i) & (jnp.arange(N) < j - 1)
        s = s + (jnp.where(ind, T[i - 1], 0) @ jnp.where(ind, F[:, j - 1], 0)
                 - jnp.where(ind, F[i - 1], 0) @ jnp.where(ind, T[:, j - 1], 0))
        den = T[j - 1, j - 1] - T[i - 1, i - 1]
        s = jnp.where(den != 0, s / den, s)
        return p, F.at[i - 1, j - 1].set(s), jnp.minimum(minden, jnp.abs(den))

    def outer(p, F_minden):
        _, F, minden = lax.fori_loop(1, N - p + 1, inner, (p, *F_minden))
        return F, minden
    return lax.fori_loop(1, N, outer, (F, minden))


def funm(A, func, disp=True):
    """The matrix function ``func(A)`` for a scalar function ``func`` (applied to the
    eigenvalues on the diagonal of the complex Schur form, extended by Parlett's
    recurrence). With ``disp=False`` also an estimate of the relative error."""
    A_arr = jnp.asarray(A)
    if A_arr.ndim != 2 or A_arr.shape[0] != A_arr.shape[1]:
        raise ValueError("expected square array_like input")
    T, Z = schur(A_arr)
    T, Z = rsf2csf(T, Z)
    F = jnp.diag(func(jnp.diag(T))).astype(T.dtype)
    F, minden = _parlett(F, T)
    F = Z @ F @ Z.conj().T
    if disp:
        return F
    tol = dtypes.finfo(np.float32 if F.dtype == np.complex64 else np.float64).eps
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(jnp.any(jnp.isinf(F)), np.inf, jnp.minimum(1, jnp.maximum(
        tol, (tol / minden) * jnp.linalg.norm(jnp.triu(T, 1), 1))))
    return F, err


def _solve_triangular_sylvester(R, S, F):
    """``Y`` with ``R Y + Y S^T = F`` for upper triangular ``R`` and ``S``: each entry
    from the bottom-right up, given the ones after it (a ``scan`` over entries)."""
    R, S, F = promote_args_inexact("_solve_sylvester_triangular_scan", R, S, F)
    m, n = F.shape

    def step(Y_flat, idx):
        i, j = idx // n, idx % n
        Y = Y_flat.reshape((m, n))
        row_term = jnp.sum(jnp.where(jnp.arange(m) > i, R[i, :] * Y[:, j], 0.0))
        col_term = jnp.sum(jnp.where(jnp.arange(n) > j, Y[i, :] * S[:, j], 0.0))
        val = (F[i, j] - (row_term + col_term)) / (R[i, i] + S[j, j])
        return Y_flat.at[i * n + j].set(val), None
    Y_flat, _ = lax.scan(step, jnp.zeros((m * n,), dtype=F.dtype),
                         jnp.arange(m * n - 1, -1, -1))
    return Y_flat.reshape((m, n))


def _solve_sylvester_2d(A, B, C, *, method, tol):
    m, n = C.shape[-2:]
    if method == "schur":
        R, U = schur(A, output="complex")
        S, V = schur(B.conj().T, output="complex")
        F = U.conj().T @ C.astype(R.dtype) @ V
        X = U @ _solve_triangular_sylvester(R, S.conj().T, F) @ V.conj().T
    elif method == "eigen":
        RA, UA = jnp.linalg.eig(A)
        RB, UB = jnp.linalg.eig(B)
        F = jnp.linalg.solve(UA, C.astype(RA.dtype) @ UB)
        Y = F / (RA[:, None] + RB[None, :])
        X = UA[:m, :m] @ Y[:m, :n] @ jnp.linalg.inv(UB)[:n, :n]
    else:
        raise ValueError(f"Unrecognized method {method}. The two valid methods are either "
                         '"schur" or "eigen".')
    if not dtypes.issubdtype(C.dtype, np.complexfloating):
        X = X.real
    # No unique solution when A and -B share an eigenvalue.
    singular = jnp.any(jnp.abs(jnp.linalg.eigvals(A)[:, None]
                               + jnp.linalg.eigvals(B)[None, :]) < tol)
    return lax.cond(singular, lambda: jnp.zeros_like(X) * np.nan, lambda: X)


@jit(static_argnames=["method"])
def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """``X`` with ``A X + X B = C`` (Bartels-Stewart on the Schur forms, or
    ``method='eigen'``); NaN if ``A`` and ``-B`` share an eigenvalue (within ``tol``)."""
    A, B, C = jnp.asarray(A), jnp.asarray(B), jnp.asarray(C)
    A, B, C = promote_args_inexact("solve_sylvester", A, B, C)
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                         f"B: {B.shape}\nC: {C.shape}")
    return jnp.vectorize(partial(_solve_sylvester_2d, method=method, tol=tol),
                         signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


@jit(static_argnames=("calc_q", "check_finite", "overwrite_a"))
def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """The Hessenberg form ``H`` of ``a`` (zero below the first subdiagonal) with
    ``a = Q H Q^H``; ``(H, Q)`` if ``calc_q``."""
    a = jnp.asarray(a)
    n = a.shape[-1]
    if n == 0:
        return (a, a) if calc_q else a
    a_out, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(a_out, -1)
    if not calc_q:
        return h
    # Q = diag(1, householder product of the reflectors below the subdiagonal).
    q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
    batch = a_out.shape[:-2]
    q = jnp.block([[jnp.ones(batch + (1, 1), dtype=a_out.dtype),
                    jnp.zeros(batch + (1, n - 1), dtype=a_out.dtype)],
                   [jnp.zeros(batch + (n - 1, 1), dtype=a_out.dtype), q]])
    return h, q
