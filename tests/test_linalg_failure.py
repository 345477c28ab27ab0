"""What LAPACK failures give, as in JAX 0.10.2: NaNs (``nan + nanj`` when complex) in
the matrices whose ``info`` is not zero; LU alone keeps an exactly singular factor."""
import numpy as np
import pytest
import scipy.linalg

import glassjax
import glassjax.numpy as jnp
from glassjax import lax


def _assert_all_nan(x):
    x = np.asarray(x)
    if np.iscomplexobj(x):
        assert np.isnan(x.real).all() and np.isnan(x.imag).all(), x
    else:
        assert np.isnan(x).all(), x


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_cholesky_of_an_indefinite_matrix_is_nan(dtype):
    a = np.array([[1., 2.], [2., 1.]], dtype)           # eigenvalues 3 and -1
    low = np.asarray(jnp.linalg.cholesky(a))
    _assert_all_nan(low[np.tril_indices(2)])
    assert (low[np.triu_indices(2, 1)] == 0).all()
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(a)
    # A batch: only the failing matrix becomes NaN.
    good = np.array([[4., 2.], [2., 3.]], dtype)
    both = np.asarray(jnp.linalg.cholesky(np.stack([good, a])))
    np.testing.assert_allclose(both[0], np.linalg.cholesky(good), rtol=1e-6)
    _assert_all_nan(both[1][np.tril_indices(2)])


@pytest.mark.parametrize("f", [jnp.linalg.eig, glassjax.jit(jnp.linalg.eig)])
def test_eig_of_a_non_finite_matrix_is_complex_nan(f):
    w, v = f(np.full((3, 3), np.inf, np.float32))
    _assert_all_nan(w)
    _assert_all_nan(v)


def test_lu_of_a_singular_matrix_stays_finite():
    a = np.array([[1., 2.], [2., 4.]], np.float32)       # getrf's info is 2 (U[1, 1] == 0)
    lu, pivots, _ = lax.linalg.lu(a)
    want_lu, want_pivots = scipy.linalg.lu_factor(a, check_finite=False)
    np.testing.assert_allclose(np.asarray(lu), want_lu, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(pivots), want_pivots)


def test_schur_and_hessenberg_return_lists():
    a = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    t, q = out = lax.linalg.schur(a)
    assert isinstance(out, list)
    np.testing.assert_allclose(np.asarray(q @ t @ q.T), a, atol=1e-5)
    assert isinstance(lax.linalg.hessenberg(a), list)
