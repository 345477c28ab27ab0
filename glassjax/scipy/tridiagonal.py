"""``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a symmetric (Hermitian)
tridiagonal matrix by bisection on Sturm sequence counts (as JAX and LAPACK's
``stebz``).

The number of eigenvalues below ``x`` is the number of negative pivots of the LDL^T
factorization of ``T - x I``; bisecting every target index at once (a ``while_loop``
over interval halvings) gives all the requested eigenvalues to ``tol``.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.jit import jit


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """For each shift in ``x``, the number of eigenvalues below it."""
    n = alpha.shape[0]
    ones = jnp.ones(x.shape, dtype=np.int32)
    q = alpha[0] - x
    count = jnp.where(q < 0, ones, jnp.zeros(x.shape, dtype=np.int32))
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, state):
        q, count = state
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        return jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q), count
    return lax.fori_loop(1, n, step, (q, count))[1]


@jit(static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """The eigenvalues (ascending) of the tridiagonal matrix with diagonal ``d`` and
    off-diagonal ``e``: all of them (``select='a'``) or those with indices in
    ``select_range`` (``'i'``). The eigenvectors, unless ``eigvals_only``, come from
    ``eigh`` of the dense matrix (JAX uses inverse iteration from a random start
    ``key``; eigenvectors are unique up to sign either way, so ``key`` is unused)."""
    del key
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    supported = (np.float32, np.float64, np.complex64, np.complex128)
    if alpha.dtype != beta.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in supported:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        "jax.scipy.linalg.eigh_tridiagonal, got "
                        f"{alpha.dtype} and {beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha),
                                                     jnp.eye(n, dtype=alpha.dtype))
    d_input, e_input = alpha, beta
    if dtypes.issubdtype(alpha.dtype, np.complexfloating):
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    # Gershgorin bounds, widened a little, bracket every eigenvalue.
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    lambda_max = jnp.amax(alpha + row_sums)
    lambda_min = jnp.amin(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(lambda_min), jnp.abs(lambda_max))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    if select == "a":
        target_counts = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        target_counts = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1
    norm_slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    shape = np.shape(target_counts)
    lower = jnp.broadcast_to(lambda_min - norm_slack - 2 * fudge * pivmin, shape)
    upper = jnp.broadcast_to(lambda_max + norm_slack + fudge * pivmin, shape)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def cond(args):
        i, lower, _, upper = args
        return jnp.logical_and(jnp.less(i, max_it), jnp.less(abs_tol, jnp.amax(upper - lower)))

    def body(args):
        i, lower, mid, upper = args
        counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= target_counts, mid, lower)
        upper = jnp.where(counts > target_counts, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper
    _, _, eigvals, _ = lax.while_loop(cond, body, (0, lower, 0.5 * (upper + lower), upper))
    if eigvals_only:
        return eigvals
    dense = (jnp.diag(d_input) + jnp.diag(e_input, -1) + jnp.diag(jnp.conj(e_input), 1))
    _, vectors = jnp.linalg.eigh(dense)
    return eigvals, vectors[:, target_counts]
