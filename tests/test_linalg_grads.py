"""Derivatives of the matrix decompositions (``glassjax.lax.linalg``) and of the
``jnp.linalg`` functions built on them, checked against finite differences in float64 in
both modes (to second order for the primitives themselves), and vmap against a loop."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.config import enable_x64
from glassjax.test_util import check_grads

RNG = np.random.RandomState(0)
# Well-conditioned test matrices with distinct eigen- and singular values.
SQUARE = RNG.randn(4, 4) + 4 * np.eye(4)
SPD = SQUARE @ SQUARE.T + np.eye(4)
TALL = RNG.randn(5, 3)
WIDE = RNG.randn(3, 5)
VEC = RNG.randn(4)


def _sign_fixed(u):
    """Eigen/singular vectors are defined up to sign: fix it by the first row."""
    return u * jnp.sign(u[..., :1, :])


FUNCTIONS = {
    "lu": (lambda a: lax.linalg.lu(a)[0], [SQUARE]),
    "lu_tall": (lambda a: lax.linalg.lu(a)[0], [TALL]),
    "lu_wide": (lambda a: lax.linalg.lu(a)[0], [WIDE]),
    "cholesky": (jnp.linalg.cholesky, [SPD]),
    "eigh_values": (lambda a: jnp.linalg.eigh(a)[0], [SPD]),
    "eigh_vectors": (lambda a: _sign_fixed(jnp.linalg.eigh(a)[1]), [SPD]),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), [TALL]),
    "svd_values_wide": (lambda a: jnp.linalg.svd(a, compute_uv=False), [WIDE]),
    "svd_thin_u": (lambda a: _sign_fixed(jnp.linalg.svd(a, full_matrices=False)[0]),
                   [TALL]),
    "svd_square_vh": (lambda a: jnp.linalg.svd(a)[2] * jnp.sign(jnp.linalg.svd(a)[0][:1].T),
                      [SQUARE]),
    "triangular_solve_left": (lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True), [np.tril(SQUARE), TALL[:4]]),
    "triangular_solve_right_transposed": (lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=False, lower=False, transpose_a=True), [np.triu(SQUARE), WIDE[:, :4]]),
}
# Built on the primitives above: first order is enough to check how they compose.
COMPOSITE = {
    "solve": (jnp.linalg.solve, [SQUARE, VEC]),
    "solve_matrix": (jnp.linalg.solve, [SQUARE, TALL[:4]]),
    "inv": (jnp.linalg.inv, [SQUARE]),
    "det": (jnp.linalg.det, [RNG.randn(5, 5)]),
    "slogdet": (lambda a: jnp.linalg.slogdet(a)[1], [SQUARE]),
    "pinv": (jnp.linalg.pinv, [TALL]),
    "norm_2": (lambda a: jnp.linalg.norm(a, ord=2), [TALL]),
}
FUNCTIONS.update({
    "qr_r": (lambda a: jnp.linalg.qr(a)[1], [SQUARE]),
    "qr_thin_q": (lambda a: jnp.linalg.qr(a)[0], [TALL]),
    "qr_wide": (lambda a: jnp.linalg.qr(a)[1], [WIDE]),
})


@pytest.mark.parametrize("name,order", [(n, 2) for n in sorted(FUNCTIONS)] +
                         [(n, 1) for n in sorted(COMPOSITE)])
def test_grads_match_finite_differences(name, order):
    f, args = {**FUNCTIONS, **COMPOSITE}[name]
    with enable_x64():
        args = [jnp.asarray(a, jnp.float64) for a in args]
        check_grads(f, args, order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


def test_grad_of_solve_is_not_zero():
    """The solve's matrix gets its gradient through custom_linear_solve's matvec (the
    factorization itself sees a stopped gradient)."""
    a, b = jnp.asarray(SQUARE, jnp.float32), jnp.asarray(VEC, jnp.float32)
    g = glassjax.grad(lambda a: jnp.linalg.solve(a, b).sum())(a)
    x = np.linalg.solve(SQUARE, VEC)
    expected = -np.outer(np.linalg.solve(SQUARE.T, np.ones(4)), x)
    np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-5)


def test_full_svd_of_a_rectangular_matrix_has_no_derivative():
    with pytest.raises(NotImplementedError, match="full matrices"):
        glassjax.jvp(lambda a: jnp.linalg.svd(a)[0], (jnp.ones((3, 2)),),
                     (jnp.ones((3, 2)),))


@pytest.mark.parametrize("name", ["cholesky", "inv", "solve", "eigh_values", "lu"])
def test_vmap_of_grad_matches_a_loop(name):
    f, args = {**FUNCTIONS, **COMPOSITE}[name]
    g = glassjax.grad(lambda *a: f(*a).sum())
    stacked = [np.stack([a, a * 1.1 + 0.1 * np.eye(*a.shape[-2:]) if a.ndim == 2 else a])
               for a in args]
    stacked = [jnp.asarray(s, jnp.float32) for s in stacked]
    batched = glassjax.vmap(g)(*stacked)
    looped = np.stack([g(*[s[i] for s in stacked]) for i in range(2)])
    np.testing.assert_allclose(batched, looped, rtol=1e-4, atol=1e-5)


def test_lu_solve_transposed():
    a = jnp.asarray(SQUARE, jnp.float32)
    lu, _, perm = lax.linalg.lu(a)
    for trans, m in [(0, SQUARE), (1, SQUARE.T)]:
        x = lax.linalg.lu_solve(lu, perm, jnp.asarray(VEC, jnp.float32), trans)
        np.testing.assert_allclose(x, np.linalg.solve(m, VEC), rtol=1e-4, atol=1e-5)
