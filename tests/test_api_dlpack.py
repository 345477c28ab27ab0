"""jax.dlpack.from_dlpack / jnp.from_dlpack: arrays from NumPy (through ``__dlpack__``)
share its buffer unless a copy is asked for or needed, as in JAX 0.10.2."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_, np.complex64,
                                   np.float16])
def test_values_dtypes_and_shapes_match_numpy(dtype):
    x = (np.random.default_rng(0).normal(size=(3, 4)) * 10).astype(dtype)
    for f in (jax.dlpack.from_dlpack, jnp.from_dlpack):
        y = f(x)
        assert isinstance(y, jax.Array) and y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_array_equal(np.asarray(y), x)
        np.testing.assert_allclose(jnp.sum(y, axis=0), x.sum(axis=0), rtol=2e-3)


def _at(alignment, offset, n):
    """``n`` float32 zeros whose data starts ``offset`` bytes past an ``alignment``."""
    raw = np.zeros(4 * n + 2 * alignment, np.uint8)
    start = (-raw.ctypes.data) % alignment + offset
    return raw[start:start + 4 * n].view(np.float32)


def test_an_aligned_buffer_is_shared_unless_copied():
    x = _at(64, 0, 6).reshape(2, 3)
    shared, copied = jax.dlpack.from_dlpack(x), jax.dlpack.from_dlpack(x, copy=True)
    x[0, 0] = 100
    assert shared[0, 0] == 100 and copied[0, 0] == 0
    assert shared.sharding == jax.sharding.SingleDeviceSharding(jax.devices()[0])


def test_a_misaligned_buffer_is_copied_and_copy_false_refuses():
    x = _at(64, 4, 6)
    y = jax.dlpack.from_dlpack(x)
    x[0] = 100
    assert y[0] == 0
    with pytest.raises(ValueError, match="requires a copy since the source data buffer "
                                         "is not aligned to 64 bytes"):
        jax.dlpack.from_dlpack(x, copy=False)


def test_64_bit_values_are_canonicalized_without_x64():
    y = jnp.from_dlpack(np.arange(3))
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, [0, 1, 2])


def test_round_trip_through_numpy():
    y = jnp.arange(5.0) * 2
    view = np.from_dlpack(y)          # read-only: legacy DLPack cannot say so (as in JAX)
    with pytest.raises(BufferError, match="Cannot export readonly array"):
        jnp.from_dlpack(view)
    np.testing.assert_array_equal(jnp.from_dlpack(view.copy()), np.arange(5.0) * 2)


def test_device_argument_and_errors():
    x = np.ones(4, np.float32)
    other = jax.devices()[1]
    y = jax.dlpack.from_dlpack(x, device=other)
    assert y.devices() == {other} and y._committed
    np.testing.assert_array_equal(y, x)
    with pytest.raises(ValueError, match="requires a copy since the source device"):
        jax.dlpack.from_dlpack(x, device=other, copy=False)
    with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
        jnp.from_dlpack([1, 2])
    assert jax.dlpack.is_supported_dtype(np.float32)
    assert jax.dlpack.is_supported_dtype(jnp.bfloat16)
    assert not jax.dlpack.is_supported_dtype(np.dtype("U3"))
    with pytest.raises(TypeError, match="Expected a string or dtype-like object"):
        jax.dlpack.is_supported_dtype(None)
