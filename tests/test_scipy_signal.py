"""glassjax.scipy.signal against NumPy (1-D) and direct sums (2-D), plus the jaxpr JAX
0.10.2 prints for a convolution."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.scipy import signal

rng = np.random.default_rng(0)


# scipy.signal's correlate2d, convolve2d, correlate2d(k, img) (SciPy 1.17) for IMG, KERNEL.
IMG = np.arange(20.0, dtype=np.float32).reshape(4, 5)
KERNEL = np.array([[1., 0.], [0., -1.]], np.float32)
SCIPY_2D = {'full': ([[0.0, -1.0, -2.0, -3.0, -4.0, 0.0], [-5.0, -6.0, -6.0, -6.0, -6.0, 4.0], [-10.0, -6.0, -6.0, -6.0, -6.0, 9.0], [-15.0, -6.0, -6.0, -6.0, -6.0, 14.0], [0.0, 15.0, 16.0, 17.0, 18.0, 19.0]], [[0.0, 1.0, 2.0, 3.0, 4.0, 0.0], [5.0, 6.0, 6.0, 6.0, 6.0, -4.0], [10.0, 6.0, 6.0, 6.0, 6.0, -9.0], [15.0, 6.0, 6.0, 6.0, 6.0, -14.0], [0.0, -15.0, -16.0, -17.0, -18.0, -19.0]], [[19.0, 18.0, 17.0, 16.0, 15.0, 0.0], [14.0, -6.0, -6.0, -6.0, -6.0, -15.0], [9.0, -6.0, -6.0, -6.0, -6.0, -10.0], [4.0, -6.0, -6.0, -6.0, -6.0, -5.0], [0.0, -4.0, -3.0, -2.0, -1.0, 0.0]]), 'same': ([[-6.0, -6.0, -6.0, -6.0, 4.0], [-6.0, -6.0, -6.0, -6.0, 9.0], [-6.0, -6.0, -6.0, -6.0, 14.0], [15.0, 16.0, 17.0, 18.0, 19.0]], [[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 6.0, 6.0, 6.0], [10.0, 6.0, 6.0, 6.0, 6.0], [15.0, 6.0, 6.0, 6.0, 6.0]], [[-6.0, -6.0], [-6.0, -6.0]]), 'valid': ([[-6.0, -6.0, -6.0, -6.0], [-6.0, -6.0, -6.0, -6.0], [-6.0, -6.0, -6.0, -6.0]], [[6.0, 6.0, 6.0, 6.0], [6.0, 6.0, 6.0, 6.0], [6.0, 6.0, 6.0, 6.0]], [[-6.0, -6.0, -6.0, -6.0], [-6.0, -6.0, -6.0, -6.0], [-6.0, -6.0, -6.0, -6.0]])}


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_1d_matches_numpy(mode):
    x = rng.standard_normal(7).astype(np.float32)
    y = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(signal.convolve(x, y, mode=mode),
                               np.convolve(x, y, mode=mode), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(signal.correlate(x, y, mode=mode),
                               np.correlate(x, y, mode=mode), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(signal.convolve(x, y, mode=mode, method="direct"),
                               np.convolve(x, y, mode=mode), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_2d_matches_scipy(mode):
    corr, conv, corr_swapped = SCIPY_2D[mode]
    np.testing.assert_allclose(signal.correlate2d(IMG, KERNEL, mode=mode), corr, atol=1e-5)
    np.testing.assert_allclose(signal.convolve2d(IMG, KERNEL, mode=mode), conv, atol=1e-5)
    np.testing.assert_allclose(signal.correlate2d(KERNEL, IMG, mode=mode), corr_swapped,
                               atol=1e-5)


def test_types_grads_and_errors():
    assert signal.convolve(jnp.array([1, 2, 3]), jnp.array([0, 1])).dtype == jnp.float32
    np.testing.assert_allclose(signal.correlate(jnp.array([1 + 1j, 2]), jnp.array([1j, 1])),
                               [1 + 1j, 3 - 1j, -2j], atol=1e-6)
    y = jnp.array([1., 1., 1.])
    np.testing.assert_allclose(jax.grad(lambda a: signal.convolve(a, y).sum())(jnp.ones(5)),
                               [3., 3., 3., 3., 3.])
    with pytest.raises(ValueError, match="One input must be smaller than the other"):
        signal.convolve(jnp.ones((2, 3)), jnp.ones((3, 2)))
    with pytest.raises(ValueError, match="only supports 2-dimensional inputs"):
        signal.convolve2d(jnp.ones(3), jnp.ones(3))


def test_convolution_jaxpr_as_jax():
    y = jnp.array([1., 1., 1.])
    assert str(jax.make_jaxpr(lambda a: signal.convolve(a, y, mode="same"))(
        jnp.ones(5))) == """\
{ lambda a:f32[3]; b:f32[5]. let
    c:f32[3] = jit[
      name=_flip
      jaxpr={ lambda ; a:f32[3]. let c:f32[3] = rev[dimensions=(0,)] a in (c,) }
    ] a
    d:f32[1,1,5] = broadcast_in_dim[broadcast_dimensions=(2,)] b
    e:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] c
    f:f32[1,1,5] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
      feature_group_count=1
      lhs_dilation=(1,)
      out_sharding=None
      padding=((1, 1),)
      precision=None
      preferred_element_type=None
      rhs_dilation=(1,)
      window_strides=(1,)
    ] d e
    g:f32[5] = squeeze[dimensions=(0, 1)] f
  in (g,) }"""
