"""``jax.nn.initializers``: functions ``init(key, shape, dtype)`` that draw the initial
weights of a layer.

Most are ``variance_scaling`` with a particular scale, fan mode and distribution (Glorot,
He, LeCun); the fans come from the kernel shape, whose axes other than ``in_axis``,
``out_axis`` and ``batch_axis`` form the receptive field of a convolution.
"""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from glassjax import dtypes, random
from glassjax import numpy as jnp
from glassjax.lax.utils import canonicalize_shape


class Initializer(Protocol):
    """The type of an initializer: ``(key, shape, dtype=..., out_sharding=None) ->
    Array``."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError


def _default(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def _no_sharding(out_sharding):
    if out_sharding is not None:
        raise NotImplementedError("out_sharding is not supported by glassjax's initializers")


def zeros(key, shape, dtype=None, out_sharding=None):
    """An initializer of zeros (``key`` is unused)."""
    _no_sharding(out_sharding)
    return jnp.zeros(shape, _default(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    """An initializer of ones (``key`` is unused)."""
    _no_sharding(out_sharding)
    return jnp.ones(shape, _default(dtype))


def constant(value, dtype=None):
    """An initializer filling with ``value``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        return jnp.full(shape, value, dtype=_default(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer of uniform values in ``[0, scale)``."""
    return _scaled(random.uniform, scale, dtype)


def normal(stddev=1e-2, dtype=None):
    """An initializer of normal values with standard deviation ``stddev``."""
    return _scaled(random.normal, stddev, dtype)


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer of normal values truncated to ``[lower, upper]`` (before the
    scaling by ``stddev``)."""
    return _scaled(lambda key, shape, dtype: random.truncated_normal(key, lower, upper,
                                                                     shape, dtype),
                   stddev, dtype)


def _scaled(sample, scale, dtype):
    """An initializer of ``sample(key, shape, dtype)`` times ``scale``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        dtype = _default(dtype)
        return sample(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out): input/output sizes times the receptive field size."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional"
                         " weights tensor with default in_axis. Must be at least 2D or "
                         "specify in_axis explicitly.")
    size = lambda axes: shape[axes] if isinstance(axes, int) else math.prod(
        shape[i] for i in axes)
    in_size, out_size, batch_size = size(in_axis), size(out_axis), size(batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def _complex_uniform(key, shape, dtype):
    """Uniform on the unit-variance disk of the complex plane."""
    key_r, key_theta = random.split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real_dtype)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    """A centered complex normal (variance one before truncation) with modulus below
    ``upper``: the modulus by inverse-CDF sampling, a uniform phase."""
    key_r, key_theta = random.split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    t = ((1 - jnp.exp(jnp.array(-(upper ** 2), dtype)))
         * random.uniform(key_r, shape, real_dtype).astype(dtype))
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * jnp.exp(1j * theta)


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """An initializer with variance ``scale / n``, ``n`` the fan given by ``mode``
    (``fan_in``, ``fan_out``, ``fan_avg`` or ``fan_geo_avg``), drawn from
    ``distribution`` (``truncated_normal`` at two standard deviations, ``normal`` or
    ``uniform``; complex dtypes use a disk)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        shape = canonicalize_shape(shape)
        dtype = _default(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominators = {"fan_in": fan_in, "fan_out": fan_out,
                        "fan_avg": (fan_in + fan_out) / 2,
                        "fan_geo_avg": (fan_in * fan_out) ** 0.5}
        if mode not in denominators:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominators[mode], dtype=dtype)
        real = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            # The constants are the standard deviations of the truncated distributions.
            if real:
                stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(.95311164380491208, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if real:
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError("invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def _variance_scaling_family(name, title, scale, mode, distribution):
    """The named initializer builder ``name(in_axis, out_axis, batch_axis, dtype)`` of
    ``variance_scaling(scale, mode, distribution)``."""
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"{title}: ``variance_scaling({scale}, '{mode}', '{distribution}')``."
    return builder


glorot_uniform = xavier_uniform = _variance_scaling_family(
    "glorot_uniform", "Glorot (Xavier) uniform", 1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _variance_scaling_family(
    "glorot_normal", "Glorot (Xavier) normal", 1.0, "fan_avg", "truncated_normal")
lecun_uniform = _variance_scaling_family(
    "lecun_uniform", "LeCun uniform", 1.0, "fan_in", "uniform")
lecun_normal = _variance_scaling_family(
    "lecun_normal", "LeCun normal", 1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _variance_scaling_family(
    "he_uniform", "He (Kaiming) uniform", 2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _variance_scaling_family(
    "he_normal", "He (Kaiming) normal", 2.0, "fan_in", "truncated_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of (scaled) matrices with orthonormal columns along
    ``column_axis`` (rows, if there are fewer of them)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        dtype = _default(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(dim == 0 for dim in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
        Q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        Q = jnp.reshape(Q, tuple(np.delete(shape, column_axis)) + (shape[column_axis],))
        Q = jnp.moveaxis(Q, -1, column_axis)
        return jnp.array(scale, dtype) * Q
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer for convolution kernels (3-D to 5-D) that are an orthogonal
    matrix at the spatial center and zero elsewhere (Xiao et al. 2018)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        dtype = _default(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho_matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(
            key, shape[-2:])
        center = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[center + (Ellipsis,)].set(ortho_matrix)
    return init
