"""``jnp.linalg.eig``/``eigvals`` (LAPACK geev through jaxlib's CPU kernel), tensorinv,
tensorsolve, and the polynomial functions built on them, against NumPy."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax

rng = np.random.default_rng(2)


def _close(got, want, rtol=1e-4, atol=1e-5):
    want = np.asarray(want)
    assert np.asarray(got).shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def _same_multiset(got, want, atol):
    """Every eigenvalue has a partner in the other list (eigenvalues come unordered)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    dist = np.abs(got[:, None] - want[None, :])
    assert dist.min(0).max() < atol and dist.min(1).max() < atol, (got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_eig_values_and_vectors(dtype):
    a = rng.standard_normal((5, 5))
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal((5, 5))
    a = a.astype(dtype)
    w, v = jnp.linalg.eig(a)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    _same_multiset(w, np.linalg.eigvals(a.astype(np.complex128)), 1e-4)
    # A v = v diag(w), unit-norm columns.
    _close(a @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)
    _close(np.linalg.norm(np.asarray(v), axis=0), np.ones(5), atol=1e-5)
    _close(jnp.linalg.eigvals(a), w, atol=1e-5)


def test_eig_left_vectors_batching_and_nan_on_failure():
    a = rng.standard_normal((3, 4, 4)).astype(np.float32)
    w, vl, vr = lax.linalg.eig(a)
    for i in range(3):
        _close(np.conj(np.asarray(vl[i])).T @ a[i], np.asarray(w[i])[:, None]
               * np.conj(np.asarray(vl[i])).T, atol=1e-4)
    _close(glassjax.vmap(jnp.linalg.eigvals)(a), w, atol=1e-5)
    bad = np.full((2, 2), np.inf, np.float32)
    assert np.all(np.isnan(np.asarray(jnp.linalg.eigvals(bad))))


def test_eig_jaxprs_match_jax():
    a = np.eye(3, dtype=np.float32)
    assert str(glassjax.make_jaxpr(jnp.linalg.eig)(a)) == """\
{ lambda ; a:f32[3,3]. let
    b:c64[3] c:c64[3,3] = eig[
      compute_left_eigenvectors=False
      compute_right_eigenvectors=True
      enable_eigvec_derivs=False
      implementation=None
    ] a
  in (b, c) }"""


def test_eigvals_gradient_against_finite_differences():
    a = rng.standard_normal((4, 4)).astype(np.float64)

    def f(a):
        w = jnp.linalg.eigvals(a)
        return (w.real ** 2 + 3 * w.imag ** 2).sum()
    g = np.asarray(glassjax.grad(f)(a.astype(np.float32)))
    eps = 1e-4
    fd = np.zeros_like(a)
    for i in range(4):
        for j in range(4):
            d = np.zeros_like(a)
            d[i, j] = eps
            wp, wm = np.linalg.eigvals(a + d), np.linalg.eigvals(a - d)
            fd[i, j] = ((wp.real ** 2 + 3 * wp.imag ** 2).sum()
                        - (wm.real ** 2 + 3 * wm.imag ** 2).sum()) / (2 * eps)
    _close(g, fd, rtol=2e-2, atol=2e-2)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        glassjax.jvp(lambda a: jnp.linalg.eig(a)[1], (a,), (a,))
    # Eigenvector derivatives on request: A v = v w holds to first order.
    a32 = a.astype(np.float32)
    da = rng.standard_normal((4, 4)).astype(np.float32)
    eig = lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False,
                                   enable_eigvec_derivs=True)
    (w, v), (dw, dv) = glassjax.jvp(eig, (a32,), (da,))
    lhs = da @ np.asarray(v) + a32 @ np.asarray(dv)
    rhs = np.asarray(dv) * np.asarray(w) + np.asarray(v) * np.asarray(dw)
    _close(lhs, rhs, atol=1e-3)


def test_tensorinv_tensorsolve():
    a = rng.standard_normal((4, 6, 8, 3)).astype(np.float32)
    _close(jnp.linalg.tensorinv(a, ind=2), np.linalg.tensorinv(a, ind=2), rtol=1e-3,
           atol=1e-3)
    a = rng.standard_normal((6, 4, 2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((6, 4)).astype(np.float32)
    _close(jnp.linalg.tensorsolve(a, b), np.linalg.tensorsolve(a, b), rtol=1e-3, atol=1e-3)
    a2 = np.moveaxis(a, 4, 0)
    _close(jnp.linalg.tensorsolve(a2, b, axes=(0,)), np.linalg.tensorsolve(a2, b, axes=(0,)),
           rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="tensorinv"):
        jnp.linalg.tensorinv(np.ones((2, 3), np.float32), 1)


# -- polynomials --------------------------------------------------------------------------

def test_polyval_and_jaxpr():
    p = rng.standard_normal(5).astype(np.float32)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    _close(jnp.polyval(p, x), np.polyval(p, x))
    _close(glassjax.grad(lambda x: jnp.polyval(p, x))(1.5), np.polyval(np.polyder(p), 1.5))
    assert str(glassjax.make_jaxpr(jnp.polyder)(p[:3])) == """\
{ lambda ; a:f32[3]. let
    b:f32[2] = jit[
      name=polyder
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[2] = iota[dimension=0 dtype=float32 shape=(2,) sharding=None] 
          d:f32[2] = add 1.0:f32[] c
          e:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] d
          f:f32[1] = iota[dimension=0 dtype=float32 shape=(1,) sharding=None] 
          g:f32[1,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f
          h:f32[1,2] = sub e g
          i:f32[2] = reduce_prod[axes=(0,)] h
          j:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] a
          k:f32[2] = rev[dimensions=(0,)] i
          b:f32[2] = mul j k
        in (b,) }
    ] a
  in (b,) }"""


def test_polyfit():
    x = np.linspace(-1, 1, 12).astype(np.float32)
    y = (3 * x ** 2 - x + 0.5 + 0.01 * rng.standard_normal(12)).astype(np.float32)
    _close(jnp.polyfit(x, y, 2), np.polyfit(x, y, 2), atol=1e-4)
    w = rng.random(12).astype(np.float32) + 0.5
    _close(jnp.polyfit(x, y, 3, w=w), np.polyfit(x, y, 3, w=w), atol=1e-3)
    y2 = np.stack([y, 2 * y], 1)
    c, cov = jnp.polyfit(x, y2, 2, cov=True)
    wc, wcov = np.polyfit(x, y2, 2, cov=True)
    _close(c, wc, atol=1e-4)
    _close(cov, wcov, rtol=1e-2, atol=1e-6)
    c, resid, rank, sv, rcond = jnp.polyfit(x, y, 2, full=True)
    wc, wresid, wrank, wsv, wrcond = np.polyfit(x, y, 2, full=True)
    _close(resid, wresid, rtol=1e-2, atol=1e-6)
    assert rank == wrank


def test_roots_poly():
    p = np.array([1., -6., 11., -6.], np.float32)            # roots 1, 2, 3
    _close(np.sort(np.asarray(jnp.roots(p)).real), [1., 2., 3.], atol=1e-4)
    p0 = np.array([0., 0., 1., -3., 2.], np.float32)
    _same_multiset(jnp.roots(p0), np.roots(p0), 1e-5)
    traced = glassjax.jit(lambda p: jnp.roots(p, strip_zeros=False))(p0)
    assert np.isnan(np.asarray(traced)).sum() == 2
    _same_multiset(np.asarray(traced)[:2], np.roots(p0), 1e-5)
    z = np.array([1., -2., 0.5], np.float32)
    _close(jnp.poly(z), np.poly(z))
    m = rng.standard_normal((3, 3)).astype(np.float32)
    _close(jnp.poly(m).real, np.poly(m), rtol=1e-3, atol=1e-3)


def test_poly_arithmetic():
    a = rng.standard_normal(4).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    _close(jnp.polyadd(a, b), np.polyadd(a, b))
    _close(jnp.polysub(b, a), np.polysub(b, a))
    _close(jnp.polymul(a, b), np.polymul(a, b))
    q, r = jnp.polydiv(a, b)
    wq, wr = np.polydiv(a, b)
    _close(q, wq, atol=1e-4)
    _close(r[-len(wr):], wr, atol=1e-4)
    _close(jnp.polyder(a, 2), np.polyder(a, 2))
    _close(jnp.polyint(a), np.polyint(a))
    _close(jnp.polyint(a, 2, k=np.array([1., 2.], np.float32)), np.polyint(a, 2, k=[1., 2.]))
    with pytest.raises(ValueError, match="positive"):
        jnp.polyder(a, -1)
