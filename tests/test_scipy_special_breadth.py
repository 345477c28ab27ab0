"""The ``jax.scipy.special`` functions beyond the basics against SciPy: Bessel J,
Spence, 1F1, Owen's T, the exponential integrals; gradients where JAX defines them."""
import numpy as np
import pytest
import scipy.special as osp

import glassjax
from glassjax.scipy import special
from glassjax.test_util import check_grads

rng = np.random.default_rng(19)
F32 = np.float32


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


def test_bessel_jn():
    z = np.linspace(5.0, 12, 8).astype(F32)   # (float32: the recurrence overflows for small z, in JAX too)
    _close(special.bessel_jn(z, v=4), np.stack([osp.jv(k, z) for k in range(5)]), atol=2e-5)
    z2 = z.reshape(2, 4)
    assert special.bessel_jn(z2, v=2).shape == (3, 2, 4)


def test_spence():
    x = np.concatenate([[0., 1.], rng.uniform(0, 5, 20)]).astype(F32)
    _close(special.spence(x), osp.spence(x.astype(np.float64)), rtol=2e-6)
    assert np.isnan(special.spence(np.float32(-1.)))
    with pytest.raises(TypeError):
        special.spence(np.arange(3))


def test_hyp1f1_values_and_grads():
    a = rng.uniform(-2, 3, 12).astype(F32)
    b = rng.uniform(0.5, 4, 12).astype(F32)
    x = rng.uniform(-5, 8, 12).astype(F32)
    _close(special.hyp1f1(a, b, x), osp.hyp1f1(a, b, x), rtol=5e-5, atol=1e-5)
    check_grads(lambda x: special.hyp1f1(0.5, 1.5, x), (F32(0.3),), order=1, atol=1e-2,
                rtol=1e-2)
    da = glassjax.grad(special.hyp1f1, argnums=0)(F32(0.5), F32(1.5), F32(0.8))
    fd = (osp.hyp1f1(0.5 + 1e-5, 1.5, 0.8) - osp.hyp1f1(0.5 - 1e-5, 1.5, 0.8)) / 2e-5
    _close(da, fd, rtol=1e-3)


def test_owens_t():
    h = rng.uniform(-3, 3, 20).astype(F32)
    a = rng.uniform(-3, 3, 20).astype(F32)
    _close(special.owens_t(h, a), osp.owens_t(h, a), atol=1e-6)
    check_grads(special.owens_t, (F32(0.7), F32(1.3)), order=1, atol=1e-2, rtol=1e-2)


def test_exponential_integrals():
    x = np.array([-3., -0.5, 0.1, 1.5, 3., 7., 20., 50.], F32)
    _close(special.expi(x), osp.expi(x), rtol=1e-6)
    xp = rng.uniform(0.01, 12, 15).astype(F32)
    _close(special.exp1(xp), osp.exp1(xp), rtol=1e-6)
    for n in (0, 1, 2, 5, 10):
        _close(special.expn(n, xp), osp.expn(n, xp), rtol=1e-5, atol=1e-30)
    assert np.isinf(special.expn(1, F32(0.)))
    _close(glassjax.grad(special.expi)(F32(1.5)), np.exp(1.5) / 1.5, rtol=1e-6)
    _close(glassjax.grad(lambda x: special.expn(2, x))(F32(1.5)), -osp.expn(1, 1.5),
           rtol=1e-5)


def test_faddeeva_family():
    x = np.array([-3., -0.5, 0., 0.1, 1.5, 3., 7., 20., 50.], F32)
    _close(special.erfcx(x), osp.erfcx(x), rtol=2e-6)
    _close(special.dawsn(x), osp.dawsn(x), rtol=2e-6, atol=1e-7)
    z = (rng.uniform(-3, 3, 10) + 1j * rng.uniform(-2, 2, 10)).astype(np.complex64)
    _close(special.wofz(z), osp.wofz(z), rtol=1e-5, atol=1e-6)
    _close(special.erfcx(z), osp.erfcx(z), rtol=1e-5, atol=1e-6)
    _close(glassjax.grad(special.dawsn)(F32(1.2)), 1 - 2 * 1.2 * osp.dawsn(1.2), rtol=1e-5)
    _close(glassjax.grad(special.erfcx)(F32(0.7)), 2 * 0.7 * osp.erfcx(0.7)
           - 2 / np.sqrt(np.pi), rtol=1e-5)
    with pytest.raises(ValueError, match="complex"):
        special.dawsn(z)


def test_hyp2f1():
    a = rng.uniform(-1, 3, 15).astype(F32)
    b = rng.uniform(0.2, 3, 15).astype(F32)
    c = rng.uniform(0.5, 4, 15).astype(F32)
    x = rng.uniform(-0.9, 0.85, 15).astype(F32)
    _close(special.hyp2f1(a, b, c, x), osp.hyp2f1(a, b, c, x), rtol=1e-4, atol=1e-6)
    # Special cases: a non-positive integer (a polynomial), x near and at 1.
    for args in [(-2., 1., 2., 0.7), (0.3, 0.7, 1., 0.99), (1., 1., 3., 1.), (0.5, 1.5, 2., 0.)]:
        _close(special.hyp2f1(*map(F32, args)), osp.hyp2f1(*args), rtol=1e-4)
    check_grads(lambda x: special.hyp2f1(0.5, 1.5, 2., x), (F32(0.3),), order=1, atol=1e-2,
                rtol=1e-2)
    da = glassjax.grad(special.hyp2f1, argnums=2)(F32(0.5), F32(1.5), F32(2.), F32(0.3))
    fd = (osp.hyp2f1(0.5, 1.5, 2. + 1e-5, 0.3) - osp.hyp2f1(0.5, 1.5, 2. - 1e-5, 0.3)) / 2e-5
    _close(da, fd, rtol=1e-3)


def test_sici():
    x = np.array([-5., -0.5, 0., 0.3, 2., 4., 6., 9., 50.], F32)
    si, ci = special.sici(x)
    want_si, want_ci = osp.sici(x.astype(np.float64))
    _close(si, want_si, rtol=1e-6, atol=1e-7)
    _close(ci[x != 0], np.where(x < 0, want_ci.real, want_ci)[x != 0], rtol=2e-6, atol=1e-7)
    assert ci[2] == -np.inf
    _close(glassjax.grad(lambda x: special.sici(x)[0])(F32(1.3)), np.sin(1.3) / 1.3, rtol=1e-6)
    _close(glassjax.grad(lambda x: special.sici(x)[1])(F32(1.3)), np.cos(1.3) / 1.3, rtol=1e-6)


def test_fresnel():
    x = np.array([-3., -0.5, 0., 0.3, 1.2, 1.7, 4., 50., np.inf], F32)
    s, c = special.fresnel(x)
    ws, wc = osp.fresnel(x.astype(np.float64))
    _close(s, ws, rtol=2e-6, atol=1e-7)
    _close(c, wc, rtol=2e-6, atol=1e-7)
    _close(glassjax.grad(lambda x: special.fresnel(x)[0])(F32(1.3)), np.sin(np.pi * 1.69 / 2),
           rtol=1e-5)


def test_sph_harm_y():
    n = np.array([0, 1, 2, 3, 4, 4, 2])
    m = np.array([0, -1, 2, 1, -3, 4, 0])
    theta = rng.uniform(0, np.pi, 7).astype(F32)
    phi = rng.uniform(-np.pi, np.pi, 7).astype(F32)
    _close(special.sph_harm_y(n, m, theta, phi), osp.sph_harm_y(n, m, theta, phi),
           rtol=1e-5, atol=1e-6)
    f = glassjax.jit(lambda t: special.sph_harm_y(n, m, t, phi, n_max=4))
    _close(f(theta), osp.sph_harm_y(n, m, theta, phi), rtol=1e-5, atol=1e-6)
