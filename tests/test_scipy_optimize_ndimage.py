"""``jax.scipy.optimize.minimize`` (BFGS) and ``jax.scipy.ndimage.map_coordinates``
against SciPy."""
import numpy as np
import pytest
import scipy.ndimage as osp_ndimage
import scipy.optimize as osp_optimize

import glassjax
import glassjax.numpy as jnp
from glassjax.scipy import ndimage, optimize

rng = np.random.default_rng(11)


def smooth(x):
    """Convex, non-quadratic, minimum at x = 1 (float32 BFGS stalls on Rosenbrock's
    valley, in JAX as here)."""
    return jnp.sum(jnp.cosh(x - 1.0) + 0.5 * (x - 1.0) ** 2) + 0.3 * (x[0] - 1.) * (x[1] - 1.)


def test_minimize_quadratic_matches_scipy():
    A = rng.standard_normal((5, 5))
    A = (A @ A.T + 5 * np.eye(5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    fun = lambda x, A, b: 0.5 * x @ A @ x - b @ x
    res = optimize.minimize(fun, jnp.zeros(5), (A, b), method="BFGS")
    want = osp_optimize.minimize(lambda x: 0.5 * x @ A @ x - b @ x, np.zeros(5),
                                 method="BFGS")
    np.testing.assert_allclose(np.asarray(res.x), want.x, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(np.asarray(res.x), np.linalg.solve(A, b), rtol=1e-3,
                               atol=1e-4)
    assert res.success and res.status == 0
    np.testing.assert_allclose(np.asarray(res.jac), 0, atol=1e-4)
    # The inverse-Hessian estimate approaches A^-1.
    np.testing.assert_allclose(np.asarray(res.hess_inv), np.linalg.inv(A), atol=0.05)


def test_minimize_jit_and_vmap():
    x0 = np.array([-1.2, 3.0], np.float32)
    res = glassjax.jit(lambda x0: optimize.minimize(smooth, x0, method="BFGS"))(x0)
    np.testing.assert_allclose(np.asarray(res.x), [1., 1.], atol=1e-4)
    assert res.success and int(res.nit) > 2 and int(res.nfev) >= int(res.nit)
    starts = np.array([[0., 0.], [2., 2.], [-1., 1.5]], np.float32)
    xs = glassjax.vmap(lambda x0: optimize.minimize(smooth, x0, method="BFGS").x)(starts)
    np.testing.assert_allclose(np.asarray(xs), np.ones((3, 2)), atol=1e-4)


def test_minimize_errors_and_options():
    with pytest.raises(ValueError, match="not recognized"):
        optimize.minimize(smooth, jnp.zeros(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match="must be a tuple"):
        optimize.minimize(smooth, jnp.zeros(2), 1.0, method="BFGS")
    res = optimize.minimize(smooth, jnp.full(2, -4.), method="BFGS", options={"maxiter": 2})
    assert res.nit == 2 and res.status == 1 and not res.success
    assert isinstance(res, optimize.OptimizeResults)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode,scipy_mode", [("constant", "grid-constant"),
                                             ("nearest", "nearest"), ("wrap", "grid-wrap"),
                                             ("mirror", "mirror"), ("reflect", "reflect")])
def test_map_coordinates(order, mode, scipy_mode):
    img = rng.standard_normal((6, 7)).astype(np.float32)
    coords = [rng.uniform(-3, 9, (4, 5)).astype(np.float32),
              rng.uniform(-3, 10, (4, 5)).astype(np.float32)]
    # (Avoid exact .5 ties, where the two libraries round differently for order 0.)
    got = ndimage.map_coordinates(img, coords, order, mode=mode, cval=-2.)
    want = osp_ndimage.map_coordinates(img, coords, order=order, mode=scipy_mode, cval=-2.)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_map_coordinates_integer_grad_and_errors():
    img = np.arange(12, dtype=np.int32).reshape(3, 4)
    coords = [np.array([0.4, 1.6]), np.array([2.5, 0.2])]
    got = ndimage.map_coordinates(img, coords, 1, mode="nearest")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), np.round(osp_ndimage.map_coordinates(
        img.astype(float), coords, order=1, mode="nearest")).astype(int))
    f = lambda c: ndimage.map_coordinates(jnp.asarray(img, jnp.float32), [c, c], 1).sum()
    eps = 1e-3
    c = np.array([0.3, 1.2], np.float32)
    fd = (f(c + eps) - f(c - eps)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(glassjax.grad(f)(c)).sum(), fd, rtol=1e-2)
    with pytest.raises(NotImplementedError, match="order<=1"):
        ndimage.map_coordinates(img, coords, 3)
    with pytest.raises(ValueError, match="length input.ndim"):
        ndimage.map_coordinates(img, coords[:1], 1)
