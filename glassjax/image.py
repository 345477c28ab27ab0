"""``jax.image``: resizing by separable resampling kernels (``resize``,
``scale_and_translate``).

Each resized axis is a matrix product with a weight matrix whose entry ``(i, j)`` is the
kernel (triangle, Keys cubic, Lanczos, box-overlap for ``area``) at the distance between
input pixel ``i`` and output sample ``j``; when downsampling with ``antialias`` the
kernel is stretched by the scale, so it averages rather than skips pixels. All axes
contract in one ``einsum``. ``nearest`` gathers instead.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.jit import jit
from glassjax.lax.utils import canonicalize_shape
from glassjax.numpy.util import canonicalize_axis, promote_dtypes_inexact


def _lanczos_kernel(radius, x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
    return jnp.where(x > radius, 0., out)


def _keys_cubic_kernel(x):
    """Keys' cubic convolution kernel with a = -0.5."""
    out = ((1.5 * x - 2.5) * x) * x + 1.
    out = jnp.where(x >= 1., ((-0.5 * x + 2.5) * x - 4.) * x + 2., out)
    return jnp.where(x >= 2., 0., out)


def _opencv_cubic_kernel(x):
    """The cubic kernel with a = -0.75 (OpenCV's and PyTorch's)."""
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _triangle_kernel(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


_area_kernel = object()    # marks the box-overlap weights, computed separately


class ResizeMethod(enum.Enum):
    """The resampling kernels of ``resize``."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        names = {"nearest": "NEAREST", "linear": "LINEAR", "bilinear": "LINEAR",
                 "trilinear": "LINEAR", "triangle": "LINEAR", "lanczos3": "LANCZOS3",
                 "lanczos5": "LANCZOS5", "cubic": "CUBIC", "bicubic": "CUBIC",
                 "tricubic": "CUBIC", "cubic-pytorch": "CUBIC_PYTORCH",
                 "bicubic-pytorch": "CUBIC_PYTORCH", "area": "AREA"}
        if s not in names:
            raise ValueError(f'Unknown resize method "{s}"')
        return ResizeMethod[names[s]]


_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle_kernel),
    ResizeMethod.LANCZOS3: (3, lambda x: _lanczos_kernel(3., x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _lanczos_kernel(5., x)),
    ResizeMethod.CUBIC: (2, _keys_cubic_kernel),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic_kernel),
    ResizeMethod.AREA: (1, _area_kernel),
}


def _normalize_columns(weights):
    """Columns scaled to sum to one (columns summing to ~0 become 0)."""
    total = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > 1000. * float(np.finfo(np.float32).eps),
                     jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def compute_weight_mat(input_size, output_size, scale, translation, kernel, antialias,
                       edge_padding, radius):
    """The ``(input_size, output_size)`` resampling weights of one axis: output sample
    ``j`` sits at input coordinate ``(j + 0.5 - translation) / scale - 0.5``."""
    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1. / scale
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    sample_f = ((jnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale
                - translation * inv_scale - 0.5)
    if edge_padding:
        # The kernel also reaches pixels beyond the edges, clamped to the edge pixels.
        if antialias:
            concrete_scale = core.concrete_or_error(
                None, scale, "Antialiasing with edge padding requires a static scale.")
            k = math.ceil(radius * max(1.0 / float(concrete_scale), 1.0))
        else:
            k = radius
    else:
        k = 0
    expanded_indices = jnp.arange(-k, input_size + k, dtype=dtype)
    if kernel is _area_kernel:
        left_out = jnp.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right_out = left_out + inv_scale
        left_in = jnp.arange(input_size, dtype=dtype)
        right_in = left_in + 1.0
        weights = jnp.maximum(0.0, jnp.minimum(right_out[np.newaxis, :], right_in[:, np.newaxis])
                              - jnp.maximum(left_out[np.newaxis, :], left_in[:, np.newaxis]))
    else:
        x = jnp.abs(sample_f[np.newaxis, :] - expanded_indices[:, np.newaxis]) / kernel_scale
        weights = kernel(x)
    if edge_padding:
        clamped = jnp.clip(expanded_indices.astype(jnp.int32), 0, input_size - 1)
        output_indices = lax.broadcast_in_dim(jnp.arange(output_size),
                                              (expanded_indices.shape[0], output_size), (1,))
        weight_mat = jnp.zeros((input_size, output_size), dtype=dtype).at[
            clamped[:, np.newaxis], output_indices].add(weights)
        return _normalize_columns(weight_mat)
    weights = _normalize_columns(weights)
    # Samples outside the input get no weight.
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return jnp.where(inside[np.newaxis, :], weights, 0)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, kernel,
                         antialias, precision, edge_padding=False, radius=None):
    if len(spatial_dims) == 0:
        return x
    in_letters = list(_LETTERS[:x.ndim])
    out_letters = list(in_letters)
    operands, subscripts = [x], ["".join(in_letters)]
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, x.ndim)
        w = compute_weight_mat(x.shape[d], output_shape[d], scale[i], translation[i], kernel,
                               antialias, edge_padding=edge_padding,
                               radius=radius).astype(x.dtype)
        new = _LETTERS[x.ndim + i]
        operands.append(w)
        subscripts.append(in_letters[d] + new)
        out_letters[d] = new
    return jnp.einsum(",".join(subscripts) + "->" + "".join(out_letters), *operands,
                      precision=precision)


def _resize_method(image, shape, method):
    """Check the target shape has one size per axis; the method as a ``ResizeMethod``."""
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax.Precision.HIGHEST):
    """Resample ``image`` to ``shape`` along ``spatial_dims``, mapping output coordinate
    ``y`` to input coordinate ``(y - translation) / scale`` (pixel centers at +0.5)."""
    shape = canonicalize_shape(shape)
    method = _resize_method(image, shape, method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for "
                         "scale_and_translate.")
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel,
                                antialias, precision, edge_padding=edge_padding,
                                radius=radius)


def _resize_nearest(x, output_shape):
    """Each output pixel takes the input pixel its center falls in."""
    for d in [i for i in range(x.ndim) if x.shape[i] != output_shape[i]]:
        m, n = x.shape[d], output_shape[d]
        offsets = (jnp.arange(n, dtype=np.float32) + 0.5) * m / n
        offsets = jnp.floor(offsets.astype(np.float32)).astype(np.int32)
        index = [slice(None)] * x.ndim
        index[d] = offsets
        x = x[tuple(index)]
    return x


@jit(static_argnums=(1, 2, 3, 4))
def _resize(image, shape, method, antialias, precision):
    method = _resize_method(image, shape, method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    spatial_dims = tuple(i for i in range(len(shape)) if image.shape[i] != shape[i])
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.] * len(spatial_dims),
                                kernel, antialias, precision, edge_padding=edge_padding,
                                radius=radius)


def resize(image, shape, method, antialias=True, precision=lax.Precision.HIGHEST):
    """``image`` resampled to ``shape`` with ``method`` (``'nearest'``, ``'linear'``,
    ``'cubic'``, ``'lanczos3'``, ``'lanczos5'``, ``'area'``, ``'cubic-pytorch'``); every
    axis whose size changes is resized, with antialiasing when shrinking."""
    return _resize(image, canonicalize_shape(shape), method, antialias, precision)
