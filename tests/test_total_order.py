"""``lax.eq_to_p`` / ``le_to_p`` / ``lt_to_p``: comparisons in IEEE's total order
(-NaN < -inf < ... < -0 < 0 < ... < inf < NaN), what sort and searchsorted compare by."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax

SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0., -0., 1., -1., 1e-45, -1e-45],
                   np.float32)


def _key(x):
    """A signed integer per float32 whose order is the total order."""
    bits = np.asarray(x, np.float32).view(np.int32)
    return np.where(bits >= 0, bits, bits ^ np.int32(0x7FFFFFFF))


@pytest.mark.parametrize("prim, op", [(lax.lt_to_p, np.less), (lax.le_to_p, np.less_equal),
                                      (lax.eq_to_p, np.equal)])
def test_against_integer_keys(prim, op):
    x, y = np.meshgrid(SPECIAL, SPECIAL)
    want = op(_key(x), _key(y))
    np.testing.assert_array_equal(np.asarray(prim.bind(x, y)), want)
    np.testing.assert_array_equal(np.asarray(glassjax.jit(prim.bind)(x, y)), want)
    # Batched: a vmap over rows is the loop over rows.
    np.testing.assert_array_equal(np.asarray(glassjax.vmap(prim.bind)(x, y)), want)
    np.testing.assert_array_equal(np.asarray(glassjax.vmap(prim.bind, (0, None))(x, y[0])),
                                  op(_key(x), _key(y[0])))


def test_integers_and_zero_derivative():
    a, b = np.array([-3, 0, 2], np.int32), np.array([0, 0, 0], np.int32)
    np.testing.assert_array_equal(np.asarray(lax.lt_to_p.bind(a, b)), a < b)
    f = lambda x: jnp.where(lax.lt_to_p.bind(x, 0.5), 3 * x, x)
    assert glassjax.grad(f)(0.25) == 3.0 and glassjax.grad(f)(0.75) == 1.0
    _, tangent = glassjax.jvp(lambda x: lax.le_to_p.bind(x, 0.5), (0.25,), (1.0,))
    assert tangent.dtype == glassjax.dtypes.float0
