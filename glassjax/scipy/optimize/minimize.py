"""``minimize(fun, x0, method='BFGS')``: quasi-Newton minimization, as JAX's.

BFGS keeps an approximation ``H`` of the inverse Hessian, steps along ``-H g`` with a
Wolfe line search, and updates ``H`` from the change in position and gradient. The whole
iteration is one ``while_loop``, so ``minimize`` works under ``jit`` and ``vmap``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.ad_api import value_and_grad
from glassjax.scipy.optimize.line_search import _dot, line_search


class OptimizeResults(NamedTuple):
    """The result of ``minimize``: the solution ``x``, whether it converged
    (``success``, ``status``), the objective ``fun`` and gradient ``jac`` there, the
    inverse-Hessian estimate ``hess_inv``, and the numbers of function/gradient
    evaluations and iterations."""
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


class _BFGSResults(NamedTuple):
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS from ``x0`` until ``|grad|_norm < gtol`` or ``maxiter`` iterations (200 per
    dimension by default). Status: 0 converged, 1 max iterations, 2+ line search
    failed."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSResults(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0,
                         nfev=1, ngev=1, nhev=0, x_k=x0, f_k=f_0, g_k=g_0,
                         H_k=jnp.eye(d, dtype=x0.dtype),
                         old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0,
                         line_search_status=0)

    def cond_fun(state):
        return jnp.logical_not(state.converged) & jnp.logical_not(state.failed) & \
            (state.k < maxiter)

    def body_fun(state):
        p_k = -_dot(state.H_k, state.g_k)
        ls = line_search(fun, state.x_k, p_k, old_fval=state.f_k,
                         old_old_fval=state.old_old_fval, gfk=state.g_k,
                         maxiter=line_search_maxiter)
        state = state._replace(nfev=state.nfev + ls.nfev, ngev=state.ngev + ls.ngev,
                               failed=ls.failed, line_search_status=ls.status)
        s_k = ls.a_k * p_k
        y_k = ls.g_k - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        # H+ = (I - rho s y^T) H (I - rho y s^T) + rho s s^T
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * s_k[:, np.newaxis] * y_k[np.newaxis, :]
        H_kp1 = (jnp.einsum("ij,jk,lk", w, state.H_k, w, precision=lax.Precision.HIGHEST)
                 + rho_k * s_k[:, np.newaxis] * s_k[np.newaxis, :])
        H_kp1 = jnp.where(jnp.isfinite(rho_k), H_kp1, state.H_k)
        return state._replace(converged=jnp.linalg.norm(ls.g_k, ord=norm) < gtol,
                              k=state.k + 1, x_k=state.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k,
                              H_k=H_kp1, old_old_fval=state.f_k)

    state = lax.while_loop(cond_fun, body_fun, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize the scalar function ``fun(x, *args)`` of a 1-D array from ``x0``.
    ``method`` must be ``'BFGS'``; ``options`` go to it (``maxiter``, ``norm``,
    ``gtol``, ``line_search_maxiter``)."""
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError("args argument to jax.scipy.optimize.minimize must be a tuple, got "
                        f"{args}")
    if method.lower() != "bfgs":
        raise ValueError(f"Method {method} not recognized")
    results = minimize_bfgs(lambda x: fun(x, *args), x0, **options)
    return OptimizeResults(x=results.x_k,
                           success=results.converged & jnp.logical_not(results.failed),
                           status=results.status, fun=results.f_k, jac=results.g_k,
                           hess_inv=results.H_k, nfev=results.nfev, njev=results.ngev,
                           nit=results.k)
