"""The structured matrices, ``expm_frechet`` and ``polar`` of ``jax.scipy.linalg``
against SciPy."""
import numpy as np
import pytest
import scipy.linalg as osp

import glassjax
import glassjax.numpy as jnp
from glassjax.scipy import linalg

rng = np.random.default_rng(7)


def _close(got, want, rtol=1e-5, atol=1e-5):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_vector_defined_matrices():
    c = rng.standard_normal(4).astype(np.float32)
    r = rng.standard_normal(6).astype(np.float32)
    _close(linalg.toeplitz(c), osp.toeplitz(c))
    _close(linalg.toeplitz(c, r), osp.toeplitz(c, r))
    cz = (c + 1j * c[::-1]).astype(np.complex64)
    _close(linalg.toeplitz(cz), osp.toeplitz(cz))
    _close(linalg.hankel(c), osp.hankel(c))
    _close(linalg.hankel(c, r), osp.hankel(c, r))
    _close(linalg.circulant(c), osp.circulant(c))
    f, s = np.array([0.1, 2., 1., 0.1], np.float32), np.array([0.2, 0.8, 0.7], np.float32)
    _close(linalg.leslie(f, s), osp.leslie(f, s))
    a = np.array([1., -10., 31., -30.], np.float32)
    _close(linalg.companion(a), osp.companion(a))
    _close(linalg.fiedler(c), osp.fiedler(c))
    for p in (np.array([2., -3.], np.float32), a, np.array([1., 2., 3., 4., 5., 6.],
                                                           np.float32)):
        _close(linalg.fiedler_companion(p), osp.fiedler_companion(p), rtol=1e-5)
    for mode in ("full", "same", "valid"):
        for n in (3, 6):
            _close(linalg.convolution_matrix(c, n, mode), osp.convolution_matrix(c, n, mode))
    # Batched: leading axes give batches of matrices.
    cs = rng.standard_normal((2, 3)).astype(np.float32)
    _close(linalg.toeplitz(cs), np.stack([osp.toeplitz(x) for x in cs]))
    _close(linalg.circulant(cs), np.stack([osp.circulant(x) for x in cs]))


def test_fixed_matrices():
    _close(linalg.hilbert(5), osp.hilbert(5))
    _close(linalg.invhilbert(4), osp.invhilbert(4), rtol=1e-4)
    for kind in ("symmetric", "lower", "upper"):
        _close(linalg.pascal(5, kind), osp.pascal(5, kind))
        _close(linalg.invpascal(5, kind), osp.invpascal(5, kind))
    _close(linalg.helmert(5), osp.helmert(5))
    _close(linalg.helmert(4, full=True), osp.helmert(4, full=True))
    _close(linalg.hadamard(8), osp.hadamard(8))
    for scale in (None, "sqrtn", "n"):
        _close(linalg.dft(6, scale), osp.dft(6, scale), atol=1e-5)
    blocks = [np.ones((2, 2), np.float32), np.array([[5.]], np.float32),
              np.arange(6, dtype=np.float32).reshape(2, 3)]
    _close(linalg.block_diag(*blocks), osp.block_diag(*blocks))
    with pytest.raises(ValueError, match="power of 2"):
        linalg.hadamard(6)


def test_expm_frechet_and_polar():
    A = rng.standard_normal((4, 4)).astype(np.float32) * 0.5
    E = rng.standard_normal((4, 4)).astype(np.float32)
    expm_A, frechet = linalg.expm_frechet(A, E)
    want_expm, want_frechet = osp.expm_frechet(A.astype(np.float64), E.astype(np.float64))
    _close(expm_A, want_expm, rtol=1e-4, atol=1e-5)
    _close(frechet, want_frechet, rtol=1e-4, atol=1e-4)
    _close(linalg.expm_frechet(A, E, compute_expm=False), want_frechet, rtol=1e-4, atol=1e-4)
    for shape, side in [((5, 3), "right"), ((3, 3), "left"), ((3, 5), "left")]:
        a = rng.standard_normal(shape).astype(np.float32)
        u, p = linalg.polar(a, side=side)
        wu, wp = osp.polar(a, side=side)
        _close(u, wu, atol=1e-4)
        _close(p, wp, atol=1e-4)


def test_schur_and_rsf2csf():
    a = rng.standard_normal((5, 5)).astype(np.float32)
    T, Z = linalg.schur(a)
    wT, wZ = osp.schur(a)
    _close(T, wT, atol=1e-4)                  # same LAPACK routine: same form
    _close(Z @ T @ Z.T, a, atol=1e-4)
    Tc, Zc = linalg.schur(a, output="complex")
    assert Tc.dtype == np.complex64
    _close(np.tril(np.asarray(Tc), -1), np.zeros((5, 5)), atol=1e-6)
    _close(np.asarray(Zc) @ np.asarray(Tc) @ np.asarray(Zc).conj().T, a, atol=1e-4)
    T2, Z2 = linalg.rsf2csf(T, Z)
    _close(np.tril(np.asarray(T2), -1), np.zeros((5, 5)), atol=1e-5)
    _close(np.asarray(Z2) @ np.asarray(T2) @ np.asarray(Z2).conj().T, a, atol=1e-4)
    with pytest.raises(ValueError, match="output"):
        linalg.schur(a, output="bogus")


def test_sqrtm_funm_solve_sylvester():
    b = rng.standard_normal((4, 4)).astype(np.float32)
    a = b @ b.T + 4 * np.eye(4, dtype=np.float32)
    s = np.asarray(linalg.sqrtm(a))
    _close(s @ s, a, atol=1e-3)
    _close(s, osp.sqrtm(a.astype(np.float64)), atol=1e-3)
    _close(linalg.funm(a * 0.1, jnp.exp), osp.expm(a.astype(np.float64) * 0.1), rtol=1e-3,
           atol=1e-3)
    F, err = linalg.funm(a * 0.1, jnp.sin, disp=False)
    _close(F, osp.funm(a.astype(np.float64) * 0.1, np.sin), rtol=1e-3, atol=1e-3)
    assert 0 <= float(err) <= 1
    A = rng.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    B = rng.standard_normal((2, 2)).astype(np.float32) + 3 * np.eye(2, dtype=np.float32)
    C = rng.standard_normal((3, 2)).astype(np.float32)
    for method in ("schur", "eigen"):
        X = np.asarray(linalg.solve_sylvester(A, B, C, method=method))
        _close(X, osp.solve_sylvester(A, B, C), rtol=1e-3, atol=1e-4)
        _close(A @ X + X @ B, C, atol=1e-4)
    assert np.all(np.isnan(np.asarray(linalg.solve_sylvester(np.eye(2), -np.eye(2),
                                                              np.ones((2, 2))))))


def test_hessenberg_and_qr_multiply():
    a = rng.standard_normal((5, 5)).astype(np.float32)
    h, q = linalg.hessenberg(a, calc_q=True)
    wh, wq = osp.hessenberg(a, calc_q=True)
    _close(h, wh, atol=1e-5)                       # the same LAPACK routine (gehrd)
    _close(q, wq, atol=1e-5)
    _close(np.asarray(q) @ np.asarray(h) @ np.asarray(q).T, a, atol=1e-4)
    ac = (a + 1j * a.T).astype(np.complex64)
    _close(linalg.hessenberg(ac), osp.hessenberg(ac), atol=1e-4)
    batch = rng.standard_normal((2, 4, 4)).astype(np.float32)
    _close(linalg.hessenberg(batch), np.stack([osp.hessenberg(b) for b in batch]), atol=1e-5)
    for m, n in [(5, 3), (3, 5), (4, 4)]:
        a = rng.standard_normal((m, n)).astype(np.float32)
        c = rng.standard_normal((2, m)).astype(np.float32)
        for got, want in zip(linalg.qr_multiply(a, c), osp.qr_multiply(a, c)):
            _close(got, want, atol=1e-5)
        c2 = rng.standard_normal((min(m, n), 3)).astype(np.float32)
        _close(linalg.qr_multiply(a, c2, mode="left")[0],
               osp.qr_multiply(a, c2, mode="left")[0], atol=1e-5)
        _close(linalg.qr_multiply(a, c[0], conjugate=True)[0],
               osp.qr_multiply(a, c[0], conjugate=True)[0], atol=1e-5)


def test_eigh_tridiagonal():
    d = rng.standard_normal(7).astype(np.float32)
    e = rng.standard_normal(6).astype(np.float32)
    _close(linalg.eigh_tridiagonal(d, e, eigvals_only=True),
           osp.eigh_tridiagonal(d, e, eigvals_only=True), atol=1e-5)
    w, v = linalg.eigh_tridiagonal(d, e, select="i", select_range=(2, 4))
    _close(w, osp.eigh_tridiagonal(d, e, select="i", select_range=(2, 4))[0], atol=1e-5)
    T = np.diag(d) + np.diag(e, -1) + np.diag(e, 1)
    _close(T @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)
    _close(np.asarray(v).T @ np.asarray(v), np.eye(3), atol=1e-5)
    with pytest.raises(NotImplementedError):
        linalg.eigh_tridiagonal(d, e, select="v", select_range=(0., 1.))
