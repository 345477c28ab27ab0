"""``conv_general_dilated_patches`` (the image patches a convolution would see, as
channels) and ``conv_general_dilated_local`` (a convolution with a different kernel at
every output position, built on the patches).

The patches are a grouped convolution with a one-hot kernel: output channel
``c * prod(filter_shape) + k`` copies input channel ``c`` at window offset ``k``.
"""
from __future__ import annotations

import math

import numpy as np

from glassjax import core
from glassjax.lax.convolution import conv_dimension_numbers, conv_general_dilated
from glassjax.lax.dot import dot_general
from glassjax.lax.elementwise import add, convert_element_type, eq
from glassjax.lax.structural import (broadcast_in_dim, broadcasted_iota, reshape,
                                     transpose)


def _moveaxes(x, sources, destinations):
    perm = [i for i in range(x.ndim) if i not in sources]
    for dst, src in sorted(zip(destinations, sources)):
        perm.insert(dst, src)
    return transpose(x, tuple(perm))


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches of ``lhs`` that a convolution with a ``filter_shape`` kernel would
    multiply, flattened into the feature dimension (``C * prod(filter_shape)``
    features, channel-major)."""
    lhs_aval = core.get_aval(lhs)
    filter_shape = tuple(filter_shape)
    dimension_numbers = conv_dimension_numbers(lhs_aval.shape, (1, 1) + filter_shape,
                                               dimension_numbers)
    lhs_spec, rhs_spec, _ = dimension_numbers
    spatial_size = math.prod(filter_shape)
    n_channels = lhs_aval.shape[lhs_spec[1]]
    eye = convert_element_type(     # (JAX's eye: row iota + diagonal offset 0 == column)
        eq(add(broadcasted_iota(np.int32, (spatial_size, spatial_size), 0), np.int32(0)),
           broadcasted_iota(np.int32, (spatial_size, spatial_size), 1)), lhs_aval.dtype)
    rhs = broadcast_in_dim(eye, (n_channels, spatial_size, spatial_size), (1, 2))
    rhs = reshape(rhs, (n_channels * spatial_size, 1, *filter_shape))
    rhs = _moveaxes(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=None if precision is None else (precision, "DEFAULT"),
        feature_group_count=n_channels, preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """An unshared convolution: ``rhs`` holds one kernel per output position (its
    spatial axes are the output's), contracted with the patches of ``lhs``."""
    if precision is not None and not isinstance(precision, tuple):
        lhs_precision = precision
    elif isinstance(precision, tuple) and len(precision) == 2:
        lhs_precision = precision[0]
    elif precision is None:
        lhs_precision = None
    else:
        raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=lhs_precision)
    _, rhs_spec, out_spec = conv_dimension_numbers(core.get_aval(lhs).shape,
                                                   (1, 1) + tuple(filter_shape),
                                                   dimension_numbers)
    lhs_b_dims = out_spec[2:]
    rhs_b_dims = [rhs_spec[2:][i] for i in sorted(range(len(lhs_b_dims)),
                                                  key=lambda k: lhs_b_dims[k])]
    dn = (([out_spec[1]], [rhs_spec[1]]), (sorted(lhs_b_dims), rhs_b_dims))
    out = dot_general(patches, rhs, dimension_numbers=dn, precision=precision)
    return _moveaxes(out, (out.ndim - 2, out.ndim - 1), (out_spec[0], out_spec[1]))
