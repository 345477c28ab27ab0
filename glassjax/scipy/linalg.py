"""``glassjax.scipy.linalg``: SciPy's linear algebra API on ``glassjax.lax.linalg``.

SciPy exposes the factorizations themselves (``lu_factor`` + ``lu_solve``,
``cho_factor`` + ``cho_solve``) and triangular solves; each function here is a thin,
jitted layer over the same primitives ``jnp.linalg`` uses, so everything batches and
differentiates through their rules. SciPy's ``overwrite_*`` and ``check_finite``
arguments are accepted and ignored (JAX arrays are immutable and never checked).

The structured matrices (``toeplitz``, ``hankel``, ``pascal``, ...) live in
``special_matrices``, the Schur-based functions in ``schur_functions``,
``eigh_tridiagonal`` in ``tridiagonal``. (Partial: column pivoting, ``qr(pivoting=True)``
and ``qr_multiply(pivoting=True)``, is not built yet.)
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import lax
from glassjax.ad_api import jvp
from glassjax.jit import jit
from glassjax.lax import linalg as lax_linalg
from glassjax.numpy import (array_creation, lax_numpy, linalg as jnp_linalg,
                            setops, tensor_contractions, ufuncs)
from glassjax.numpy.util import ensure_arraylike, promote_dtypes_inexact
from glassjax.numpy.vectorize import vectorize
from glassjax.scipy.tridiagonal import eigh_tridiagonal
from glassjax.scipy.special_matrices import (block_diag, circulant, companion,
                                             convolution_matrix, dft, fiedler,
                                             fiedler_companion, hadamard, hankel, helmert,
                                             hilbert, invhilbert, invpascal, leslie, pascal,
                                             toeplitz)
from glassjax.scipy.schur_functions import (funm, hessenberg, rsf2csf, schur, solve_sylvester,
                                            sqrtm)
from glassjax.vmap_api import vmap

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler",
           "fiedler_companion", "hadamard", "hessenberg", "hankel", "helmert", "hilbert", "inv",
           "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal",
           "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester", "sqrtm", "funm", "solve_triangular", "svd", "toeplitz"]


def _inexact(name, *args):
    return promote_dtypes_inexact(*(ensure_arraylike(name, a) for a in args))


def _matrix_rhs_signature(a, b, square="(n,n)"):
    """vectorize's signature for solving with ``a`` against ``b``: a vector right-hand
    side, else a stack of matrices (as JAX reads ``b``)."""
    if b.ndim == 1 or (a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]):
        return f"{square},(n)->(n)"
    return f"{square},(n,k)->(n,k)"


# -- Cholesky --------------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("lower",))
def _cholesky(a, lower):
    a, = _inexact("jax.scipy.linalg.cholesky", a)
    l = lax_linalg.cholesky(a if lower else ufuncs.conj(lax_numpy.swapaxes(a, -1, -2)),
                            symmetrize_input=False)
    return l if lower else ufuncs.conj(lax_numpy.swapaxes(l, -1, -2))


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of ``a``: upper ``U`` with ``a = U^H U`` (SciPy's default), or
    lower ``L`` with ``a = L L^H``."""
    del overwrite_a, check_finite
    return _cholesky(a, lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)`` for ``cho_solve``."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


@functools.partial(jit, static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = _inexact("jax.scipy.linalg.cho_solve", c, b)
    signature = _matrix_rhs_signature(c, b)
    first = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                              transpose_a=not lower, conjugate_a=not lower)
    second = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                               transpose_a=lower, conjugate_a=lower)
    b = vectorize(first, signature=signature)(c, b)
    return vectorize(second, signature=signature)(c, b)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` from ``cho_factor(a)``: two triangular solves."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


# -- LU ------------------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, piv)`` for ``lu_solve``: L and U packed in one matrix, row ``i`` swapped
    with ``piv[i]``."""
    del overwrite_a, check_finite
    a, = _inexact("jax.scipy.linalg.lu_factor", a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


@functools.partial(jit, static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` (``trans=1``: ``a^T x = b``; 2: ``a^H x = b``) from
    ``lu_factor(a)``."""
    del overwrite_b, check_finite
    lu_, pivots = lu_and_piv
    lu_, b = _inexact("jax.scipy.linalg.lu_solve", lu_, b)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, lu_.shape[-2])
    signature = _matrix_rhs_signature(lu_, b, square="(n,n),(n)")
    return vectorize(functools.partial(lax_linalg.lu_solve, trans=trans),
                     signature=signature)(lu_, perm, b)


@functools.partial(jit, static_argnums=(1,))
def _lu(a, permute_l):
    a, = _inexact("jax.scipy.linalg.lu", a)
    lu_, _, permutation = lax_linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    p = (permutation[..., None, :] == array_creation.arange(m, dtype=permutation.dtype)
         [:, None]).astype(a.dtype)
    l = array_creation.tril(lu_, -1)[..., :, :k] + array_creation.eye(m, k, dtype=a.dtype)
    u = array_creation.triu(lu_)[..., :k, :]
    if permute_l:
        return tensor_contractions.matmul(p, l, precision=lax.Precision.HIGHEST), u
    return p, l, u


@functools.partial(jit, static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (``permute_l``: ``(p @ l, u)``)."""
    del overwrite_a, check_finite
    return _lu(a, permute_l)


# -- solves ------------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact("jax.scipy.linalg.solve_triangular", a, b)
    solve = functools.partial(lax_linalg.triangular_solve, left_side=True, lower=lower,
                              transpose_a=transpose_a, conjugate_a=conjugate_a,
                              unit_diagonal=unit_diagonal)
    return vectorize(solve, signature=_matrix_rhs_signature(a, b))(a, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solve ``op(a) x = b`` for triangular ``a`` (``op`` from ``trans``: 0/'N' as is,
    1/'T' transposed, 2/'C' conjugate transposed)."""
    del overwrite_b, debug, check_finite
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


@functools.partial(jit, static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    """A general ``a`` is solved by LU (``jnp.linalg.solve``); a positive definite one by
    Cholesky, differentiated as the symmetric system it is."""
    from glassjax.lax.control_flow import custom_linear_solve
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    a, b = _inexact("jax.scipy.linalg.solve", a, b)
    lax_linalg._check_solve_shapes(a, b)
    factors = cho_factor(lax.stop_gradient(a), lower=lower)
    custom_solve = functools.partial(
        custom_linear_solve, lambda x: lax_linalg._broadcasted_matvec(a, x),
        solve=lambda _, x: cho_solve(factors, x), symmetric=True)
    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """``x`` with ``a @ x == b``; ``assume_a`` is one of 'gen', 'sym', 'her', 'pos'."""
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


# -- decompositions shared with jnp.linalg ---------------------------------------------------

def det(a, overwrite_a=False, check_finite=True):
    del overwrite_a, check_finite
    return jnp_linalg.det(a)


def inv(a, overwrite_a=False, check_finite=True):
    del overwrite_a, check_finite
    return jnp_linalg.inv(a)


@functools.partial(jit, static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    a, = _inexact("jax.scipy.linalg.svd", a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """``(u, s, vh)`` (just ``s`` without ``compute_uv``)."""
    del overwrite_a, check_finite, lapack_driver
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


@functools.partial(jit, static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = _inexact("jax.scipy.linalg.eigh", a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix."""
    del overwrite_a, overwrite_b, turbo, check_finite
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


@functools.partial(jit, static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = _inexact("jax.scipy.linalg.qr", a)
    q, r = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    return (r,) if mode == "r" else (q, r)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """``(q, r)`` (``mode='economic'``: reduced; ``mode='r'``: ``(r,)``)."""
    del overwrite_a, lwork, check_finite
    return _qr(a, mode, pivoting)


# -- the matrix exponential ---------------------------------------------------------------
# Scaling and squaring (Higham 2005, as SciPy and JAX): scale A by 2^-s until its 1-norm
# is small, approximate exp by a Padé fraction q(A)^-1 p(A) of a degree chosen from the
# norm, then square the result s times.

# Padé numerator coefficients b_0..b_m for each degree m.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# (largest 1-norm for 2^-s scaling, norm thresholds choosing the degree, the degrees)
_EXPM_PARAMS = {
    np.dtype(np.float64): (5.371920351148152, (1.495585217958292e-002, 2.539398330063230e-001,
                                               9.504178996162932e-001, 2.097847961257068e+000),
                           (3, 5, 7, 9, 13)),
    np.dtype(np.float32): (3.925724783138660, (4.258730016922831e-001, 1.880152677804762e+000),
                           (3, 5, 7)),
}


def _dot(a, b):
    return tensor_contractions.dot(a, b, precision=lax.Precision.HIGHEST)


def _pade(degree, a):
    """``(U, V)``: the odd and even parts of the degree-``degree`` Padé numerator
    ``p(A) = U + V`` (the denominator is ``q(A) = V - U``)."""
    b = _PADE[degree]
    a2 = _dot(a, a)
    powers = [array_creation.eye(*a.shape, dtype=a.dtype), a2]      # A^0, A^2, A^4, ...
    while len(powers) <= degree // 2:
        powers.append(_dot(powers[-1], a2))
    odd = sum(b[2 * j + 1] * powers[j] for j in reversed(range(len(powers))))
    even = sum(b[2 * j] * powers[j] for j in reversed(range(len(powers))))
    return _dot(a, odd), even


def _real_dtype(dtype):
    return np.dtype(np.finfo(dtype).dtype)


@functools.partial(jit, static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular=False, max_squarings=16):
    """The matrix exponential ``exp(A)`` (batched over leading axes); NaNs when ``A`` is
    so large that more than ``max_squarings`` squarings would be needed."""
    A, = _inexact("jax.scipy.linalg.expm", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape}.")
    if A.ndim > 2:
        return vectorize(functools.partial(expm, upper_triangular=upper_triangular,
                                           max_squarings=max_squarings),
                         signature="(n,n)->(n,n)")(A)
    if _real_dtype(A.dtype) not in _EXPM_PARAMS:
        raise TypeError(f"A.dtype={A.dtype} is not supported.")
    max_norm, thresholds, degrees = _EXPM_PARAMS[_real_dtype(A.dtype)]
    norm = jnp_linalg.norm(A, 1)
    n_squarings = ufuncs.maximum(0, ufuncs.floor(ufuncs.log2(norm / max_norm)))
    scaled = A / 2 ** n_squarings.astype(A.dtype)
    degree = setops.digitize(norm, array_creation.array(thresholds, dtype=norm.dtype))
    u, v = lax.switch(degree, [functools.partial(_pade, m) for m in degrees], scaled)

    def compute(_):
        p, q = u + v, v - u
        r = solve_triangular(q, p) if upper_triangular else jnp_linalg.solve(q, p)

        def square(r, i):
            return lax.cond(i < n_squarings, lambda r: _dot(r, r), lambda r: r, r), None
        return lax.scan(square, r, array_creation.arange(max_squarings,
                                                         dtype=n_squarings.dtype))[0]
    return lax.cond(n_squarings > max_squarings,
                    lambda _: array_creation.full_like(A, np.nan), compute, None)


@functools.partial(jit, static_argnames=("method", "compute_expm"))
def expm_frechet(A, E, *, method=None, compute_expm=True):
    """The Fréchet derivative of ``expm`` at ``A`` in the direction ``E``: the JVP of
    ``expm`` (with ``expm(A)`` too if ``compute_expm``)."""
    del method
    A_arr, E_arr = lax_numpy.asarray(A), lax_numpy.asarray(E)
    if A_arr.ndim < 2 or A_arr.shape[-2] != A_arr.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A_arr.shape}")
    if E_arr.ndim < 2 or E_arr.shape[-2] != E_arr.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E_arr.shape}")
    if A_arr.shape != E_arr.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={A_arr.shape} E.shape={E_arr.shape}")
    expm_A, frechet = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16),
                          (A_arr,), (E_arr,))
    return (expm_A, frechet) if compute_expm else frechet


def _polar_2d(a, side):
    u, s, vh = jnp_linalg.svd(a, full_matrices=False)
    unitary = tensor_contractions.matmul(u, vh)
    if side == "right":      # a = unitary @ p, p = V diag(s) V^H
        p = tensor_contractions.matmul(ufuncs.conj(vh).T * s, vh)
    else:                    # a = p @ unitary, p = U diag(s) U^H
        p = tensor_contractions.matmul(u * s, ufuncs.conj(u).T)
    return unitary, p


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """The polar decomposition ``a = u p`` (``side='right'``) or ``a = p u``, ``u`` with
    orthonormal columns and ``p`` Hermitian positive semi-definite. Computed from the SVD
    for every ``method`` (the factors are unique for full-rank ``a``, so they agree with
    JAX's QDWH iteration up to rounding)."""
    del eps, max_iterations
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    arr = lax_numpy.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return vectorize(functools.partial(_polar_2d, side=side), signature=sig)(arr)


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """``(c @ Q, R)`` (``mode='right'``) or ``(Q @ c, R)`` (``'left'``) for the QR
    decomposition of ``a``, ``Q`` with ``min(m, n)`` columns (conjugated if
    ``conjugate``). Q is formed from LAPACK's reflectors (JAX applies them with
    ``ormqr``: the same product)."""
    del overwrite_a, overwrite_c
    if pivoting:
        raise NotImplementedError("qr_multiply(pivoting=True) is not implemented in "
                                  "glassjax (no geqp3 primitive yet)")
    a, c = promote_dtypes_inexact(lax_numpy.asarray(a), lax_numpy.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} "
                         f"rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} "
                         f"columns (expected {m}).")
    r, taus = lax_linalg.geqrf(a)
    q = lax_linalg.householder_product(r[..., :, :k], taus)        # m x k
    if conjugate:
        q = ufuncs.conj(q)
    matmul = functools.partial(tensor_contractions.matmul, precision=lax.Precision.HIGHEST)
    cq = matmul(q, c) if mode == "left" else matmul(c, q)
    if onedim:
        cq = cq.ravel()
    return cq, array_creation.triu(r[..., :k, :])
