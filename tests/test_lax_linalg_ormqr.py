"""``lax.linalg.ormqr`` (LAPACK ormqr/unmqr): multiplying by the Q of a QR factorization
from its Householder reflectors equals multiplying by the Q that ``qr`` forms."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax.lax.linalg import ormqr

rng = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_is_multiplying_by_q(dtype, left, transpose):
    a = rng.standard_normal((2, 5, 3)).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(a.shape).astype(np.float32)
    c = rng.standard_normal((2, 5, 4) if left else (2, 4, 5)).astype(dtype)
    h, taus = jnp.linalg.qr(a, mode="raw")
    q = np.linalg.qr(a, mode="complete")[0]
    q = np.conj(np.swapaxes(q, -1, -2)) if transpose else q
    want = q @ c if left else c @ q
    got = glassjax.jit(ormqr, static_argnames=("left", "transpose"))(
        h.mT, taus, c, left=left, transpose=transpose)
    assert got.dtype == dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def test_ormqr_checks_rows():
    with pytest.raises(ValueError, match="same number of rows"):
        ormqr(jnp.ones((5, 3)), jnp.ones(3), jnp.ones((4, 2)))
