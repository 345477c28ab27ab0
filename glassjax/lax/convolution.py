"""``conv_general_dilated``: the one convolution primitive behind ``conv``,
``conv_transpose`` and ``jnp.convolve``.

Ignoring space, a convolution is a matrix product over features: an input of shape
(batch N, in-features C) times a kernel (in-features I, out-features O) gives (N, O).
The spatial axes add a sliding window: each output position sums over the kernel taps
of a window of the (padded, dilated) input. ``ConvDimensionNumbers`` says which axis of
each operand is batch/feature/spatial, so any layout (NCHW, NHWC, ...) works.

Like ``dot_general`` the primitive is *bilinear*, and both its transposes are again
convolutions (with the roles of strides and dilations swapped):

* w.r.t. the input: convolve the cotangent with the spatially reversed kernel, whose
  in/out features are swapped; the forward strides become input dilation.
* w.r.t. the kernel: convolve the input with the cotangent, treating the batch axis
  as the contracted feature axis; the forward strides become kernel dilation.

Feature groups (``feature_group_count``: depthwise/grouped convolutions) and batch
groups (``batch_group_count``) turn into each other under transposition.
"""
from __future__ import annotations

import functools
import operator
from typing import NamedTuple, Sequence, Union

import numpy as np

from glassjax import core, dtypes
from glassjax.interpreters import ad, batching
from glassjax.lax import elementwise
from glassjax.lax.dot import Precision, canonicalize_precision
from glassjax.lax.structural import full, reshape, rev, transpose
from glassjax.lax.utils import (_any, _same, naryop_dtype_rule, resized_sharding, spec_of,
                                standard_primitive)
from glassjax.lax.windowed_reductions import (conv_general_vjp_lhs_padding, dilate_dim,
                                              dilate_shape, padtype_to_pads, stride_dim)
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir


class ConvDimensionNumbers(NamedTuple):
    """Where the axes of a convolution's operands are: ``lhs_spec`` is (batch,
    feature, spatial...), ``rhs_spec`` is (out feature, in feature, spatial...),
    ``out_spec`` is (batch, feature, spatial...)."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers,
                                           None]


# -- dimension numbers --------------------------------------------------------------------

def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, three layout strings such as ``('NHWC', 'HWIO',
    'NHWC')``, or ConvDimensionNumbers) as ConvDimensionNumbers. None means
    ``('NC...', 'OI...', 'NC...')``: the axes in order."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(spec, str) for spec in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to "
                            f"the ndim of lhs and rhs, got {len(spec)} for lhs and rhs "
                            f"shapes {lhs_shape} and {rhs_shape}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_permutations(dimension_numbers):
    """The axis permutations (one per layout string) that bring each operand into the
    canonical order: batch/out-feature, feature/in-feature, then the spatial axes in
    the order they appear in the kernel's layout string."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the "
                            f"characters '{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    if not (set(lhs_spec) - set(charpairs[0]) == set(rhs_spec) - set(charpairs[1]) ==
            set(out_spec) - set(charpairs[2])):
        raise TypeError("convolution dimension_numbers elements must each have the same "
                        f"set of spatial characters, got {dimension_numbers}.")

    def getperm(spec, charpair):
        spatial = sorted((i for i, c in enumerate(spec) if c not in charpair),
                         key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(charpair[0]), spec.index(charpair[1])) + tuple(spatial)

    return tuple(map(getperm, dimension_numbers, charpairs))


# -- shapes -------------------------------------------------------------------------------

def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution whose operands are in canonical order."""
    if not all(s > 0 for s in strides):
        raise ValueError(f"Convolution window strides must be positive, got {tuple(strides)}.")
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    lhs_padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(lhs_padded < 0):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    out_space = tuple(map(stride_dim, lhs_padded, rhs_shape[2:], strides))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + out_space


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """The output shape of a convolution with layout strings ``dimension_numbers``."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out_trans = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                                 window_strides, padding)
    return tuple(np.take(out_trans, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of ``conv_transpose``."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_trans = np.take(lhs_shape, lhs_perm)
    rhs_trans = np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_trans[2:], window_strides)]
    unpadded = [(i - 1) * s - k + 2
                for i, k, s in zip(lhs_trans[2:], rhs_trans[2:], window_strides)]
    out_space = np.sum([unpadded, list(map(np.sum, padding))], axis=0).tolist()
    out_trans = (lhs_trans[0], rhs_trans[0]) + tuple(out_space)
    return tuple(np.take(out_trans, np.argsort(out_perm)))


def _conv_general_dilated_shape_rule(lhs, rhs, *, window_strides, padding, lhs_dilation,
                                     rhs_dilation, dimension_numbers, feature_group_count,
                                     batch_group_count, **unused):
    dn = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    if not feature_group_count > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {feature_group_count}.")
    lhs_features = lhs.shape[dn.lhs_spec[1]]
    quot, rem = divmod(lhs_features, feature_group_count)
    if rem:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs "
                         f"feature dimension size, but {feature_group_count} does not "
                         f"divide {lhs_features}.")
    rhs_in_features = rhs.shape[dn.rhs_spec[1]]
    if quot != rhs_in_features:
        raise ValueError("conv_general_dilated lhs feature dimension size divided by "
                         "feature_group_count must equal the rhs input feature dimension "
                         f"size, but {lhs_features} // {feature_group_count} != "
                         f"{rhs_in_features}.")
    rhs_out_features = rhs.shape[dn.rhs_spec[0]]
    if rhs_out_features % feature_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be "
                         f"a multiple of feature_group_count, but {rhs_out_features} is "
                         f"not a multiple of {feature_group_count}.")
    if not batch_group_count > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {batch_group_count}.")
    lhs_batch = lhs.shape[dn.lhs_spec[0]]
    if batch_group_count > 1 and lhs_batch % batch_group_count:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {batch_group_count} does not divide "
                         f"{lhs_batch}.")
    if rhs_out_features % batch_group_count:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be "
                         f"a multiple of batch_group_count, but {rhs_out_features} is not "
                         f"a multiple of {batch_group_count}.")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be "
                         f"> 1, got batch_group_count={batch_group_count} and "
                         f"feature_group_count={feature_group_count}")
    if len(dn.rhs_spec) - 2 != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the "
                         f"same number of dimensions, but got {len(dn.rhs_spec) - 2} and "
                         f"{len(window_strides)}")
    lhs_trans = dilate_shape(np.take(lhs.shape, dn.lhs_spec), lhs_dilation)
    rhs_trans = dilate_shape(np.take(rhs.shape, dn.rhs_spec), rhs_dilation)
    out_trans = conv_shape_tuple(lhs_trans, rhs_trans, window_strides, padding,
                                 batch_group_count)
    return tuple(np.take(out_trans, np.argsort(dn.out_spec)))


def _validate_preferred_element_type(input_dtype, preferred_element_type):
    """Accumulating in ``preferred_element_type`` must not lose range or kind."""
    if not (dtypes.issubdtype(input_dtype, np.integer) and
            dtypes.issubdtype(preferred_element_type, np.floating)):
        if any(dtypes.issubdtype(input_dtype, t) and
               not dtypes.issubdtype(preferred_element_type, t)
               for t in (np.integer, np.floating, np.complexfloating)):
            raise TypeError("Input type is incompatible with `preferred_element_type`. "
                            "The compatible combinations of (input_type, "
                            "preferred_element_type) are (integral, integral), (integral, "
                            "floating), (floating, floating), (complex, complex.")
        if (dtypes.issubdtype(input_dtype, np.signedinteger) and
                not dtypes.issubdtype(preferred_element_type, np.signedinteger)):
            raise TypeError("`preferred_element_type` must have the same signedness as "
                            "the original type.")
    if np.dtype(preferred_element_type).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        "type.")


def _conv_general_dilated_dtype_rule(lhs, rhs, *, preferred_element_type, **unused):
    result = naryop_dtype_rule(_same, [_any, _any], "conv_general_dilated",
                               lhs, rhs)
    if preferred_element_type is None:
        return result
    _validate_preferred_element_type(result, preferred_element_type)
    return preferred_element_type


# -- transpose rules ----------------------------------------------------------------------

_conv_spec_transpose = lambda spec: (spec[1], spec[0]) + tuple(spec[2:])
_conv_sdims = lambda spec: spec[2:]


def _reshape_axis_into(src, dst, x):
    """Merge axis ``src`` into axis ``dst`` (numbered after removing ``src``) as its
    major part."""
    perm = [i for i in range(np.ndim(x)) if i != src]
    perm.insert(dst, src)
    new_shape = list(np.delete(np.shape(x), src))
    new_shape[dst] *= np.shape(x)[src]
    return reshape(x, new_shape, perm)


def _reshape_axis_out_of(src, size1, x):
    """Split axis ``src`` into two axes (``size1``, the rest)."""
    shape = list(np.shape(x))
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return reshape(x, shape)


def _conv_general_vjp_rhs_padding(in_shape, window_dimensions, window_strides, out_shape,
                                  padding, lhs_dilation, rhs_dilation):
    """The padding of the kernel cotangent's convolution (input * output cotangent)."""
    if len(in_shape) == 0:
        return []
    lhs_dilated_shape = dilate_shape(in_shape, lhs_dilation)
    rhs_dilated_shape = dilate_shape(window_dimensions, rhs_dilation)
    out_dilated_shape = dilate_shape(out_shape, window_strides)
    pads_lo = [lo for lo, _ in padding]
    pads_from_lhs = map(operator.sub, out_dilated_shape, lhs_dilated_shape)
    pads_from_rhs = (rd - pd - 1 for rd, pd in zip(rhs_dilated_shape, pads_lo))
    return list(zip(pads_lo, map(operator.add, pads_from_lhs, pads_from_rhs)))


def _conv_general_dilated_transpose_lhs(g, lhs, rhs, *, window_strides, padding,
                                        lhs_dilation, rhs_dilation, dimension_numbers,
                                        feature_group_count, batch_group_count, precision,
                                        preferred_element_type, out_sharding):
    """[m, k] x [k, j] -> [m, j]: the cotangent convolved with the reversed kernel whose
    feature axes are swapped (groups move from in- to out-features)."""
    assert batch_group_count == 1 or feature_group_count == 1
    rhs_shape = np.shape(rhs)
    lhs_sdims, rhs_sdims, out_sdims = map(_conv_sdims, dimension_numbers)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if feature_group_count > 1 or batch_group_count > 1:
        groups = max(feature_group_count, batch_group_count)
        rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = groups
    trans_dimension_numbers = ConvDimensionNumbers(out_spec,
                                                   _conv_spec_transpose(rhs_spec),
                                                   lhs_spec)
    padding = conv_general_vjp_lhs_padding(
        np.take(lhs.aval.shape, lhs_sdims), np.take(rhs_shape, rhs_sdims), window_strides,
        np.take(np.shape(g), out_sdims), padding, lhs_dilation, rhs_dilation)
    revd_weights = rev(rhs, rhs_sdims)
    if dtypes.dtype(g) != dtypes.dtype(revd_weights):
        revd_weights = elementwise.convert_element_type(revd_weights, dtypes.dtype(g))
    out = conv_general_dilated(
        g, revd_weights, window_strides=lhs_dilation, padding=padding,
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=trans_dimension_numbers,
        feature_group_count=feature_group_count, batch_group_count=1,
        precision=precision, preferred_element_type=preferred_element_type)
    if dtypes.dtype(out) != lhs.aval.dtype:
        out = elementwise.convert_element_type(out, lhs.aval.dtype)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _conv_general_dilated_transpose_rhs(g, lhs, rhs, *, window_strides, padding,
                                        lhs_dilation, rhs_dilation, dimension_numbers,
                                        feature_group_count, batch_group_count, precision,
                                        preferred_element_type, out_sharding):
    """[j, m] x [m, k] -> [j, k]: the input convolved with the cotangent, batch and
    feature axes swapped (feature groups become batch groups and vice versa)."""
    if np.size(g) == 0:      # avoid a degenerate convolution with an empty kernel
        return ad.Zero(rhs.aval)
    lhs_sdims, rhs_sdims, out_sdims = map(_conv_sdims, dimension_numbers)
    lhs_trans, rhs_trans, out_trans = map(_conv_spec_transpose, dimension_numbers)
    assert batch_group_count == 1 or feature_group_count == 1
    feature_group_count, batch_group_count = batch_group_count, feature_group_count
    trans_dimension_numbers = ConvDimensionNumbers(lhs_trans, out_trans, rhs_trans)
    padding = _conv_general_vjp_rhs_padding(
        np.take(np.shape(lhs), lhs_sdims), np.take(rhs.aval.shape, rhs_sdims),
        window_strides, np.take(np.shape(g), out_sdims), padding, lhs_dilation,
        rhs_dilation)
    if dtypes.dtype(g) != dtypes.dtype(lhs):
        lhs = elementwise.convert_element_type(lhs, dtypes.dtype(g))
    out = conv_general_dilated(
        lhs, g, window_strides=rhs_dilation, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides, dimension_numbers=trans_dimension_numbers,
        feature_group_count=feature_group_count, batch_group_count=batch_group_count,
        precision=precision, preferred_element_type=preferred_element_type)
    if dtypes.dtype(out) != rhs.aval.dtype:
        out = elementwise.convert_element_type(out, rhs.aval.dtype)
    return out


# -- batching -----------------------------------------------------------------------------

def _conv_general_dilated_batch(args, dims, *, window_strides, padding, lhs_dilation,
                                rhs_dilation, dimension_numbers, feature_group_count,
                                batch_group_count, precision, preferred_element_type,
                                out_sharding):
    """Fold the mapped axis into an axis the convolution already has: into the batch
    (mapped input), the out-features (mapped kernel) or, when both are mapped, into the
    features with one feature group per batch element."""
    lhs, rhs = args
    lhs_bdim, rhs_bdim = dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    assert batch_group_count == 1 or feature_group_count == 1
    conv = functools.partial(conv_general_dilated, window_strides=window_strides,
                             padding=padding, lhs_dilation=lhs_dilation,
                             rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
                             precision=precision,
                             preferred_element_type=preferred_element_type)
    if ((lhs_bdim is not None and np.shape(lhs)[lhs_bdim] == 0) or
            (rhs_bdim is not None and np.shape(rhs)[rhs_bdim] == 0)):
        return _empty_batch_result(lhs, rhs, lhs_bdim, rhs_bdim, window_strides, padding,
                                   lhs_dilation, rhs_dilation, dimension_numbers,
                                   feature_group_count, batch_group_count,
                                   preferred_element_type), 0

    if lhs_bdim is not None and rhs_bdim is not None:
        size = np.shape(lhs)[lhs_bdim]
        if batch_group_count > 1:
            new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
            batch_group_count *= size
        else:
            new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[1], lhs)
            feature_group_count *= size
        new_rhs = _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
        out = conv(new_lhs, new_rhs, feature_group_count=feature_group_count,
                   batch_group_count=batch_group_count)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]

    if lhs_bdim is not None:
        size = np.shape(lhs)[lhs_bdim]
        if batch_group_count == 1:
            new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
        else:   # the batch groups must stay outermost in the batch axis
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(lhs_bdim <= lhs_spec[0]),
                                           batch_group_count, lhs)
            new_lhs = _reshape_axis_into(lhs_bdim + int(lhs_spec[0] < lhs_bdim),
                                         lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = conv(new_lhs, rhs, feature_group_count=feature_group_count,
                   batch_group_count=batch_group_count)
        return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]

    size = np.shape(rhs)[rhs_bdim]
    if feature_group_count == 1 and batch_group_count == 1:
        new_rhs = _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs)
        out = conv(lhs, new_rhs, feature_group_count=feature_group_count,
                   batch_group_count=batch_group_count)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    # The groups must stay outermost in the out-features: factor them out, fold the
    # mapped axis into what is left, put them back (and undo this on the output).
    group_count = max(feature_group_count, batch_group_count)
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rhs_bdim <= rhs_spec[0]), group_count,
                                   rhs)
    new_rhs = _reshape_axis_into(rhs_bdim + int(rhs_spec[0] < rhs_bdim), rhs_spec[0] + 1,
                                 new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = conv(lhs, new_rhs, feature_group_count=feature_group_count,
               batch_group_count=batch_group_count)
    out = _reshape_axis_out_of(out_spec[1], group_count, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


def _empty_batch_result(lhs, rhs, lhs_bdim, rhs_bdim, window_strides, padding,
                        lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, preferred_element_type):
    """A batch of zero convolutions: zeros of the right shape (folding an empty axis
    into another one would lose that axis' size)."""
    unbatched = lambda x, d: core.ShapedArray(
        np.delete(np.shape(x), d) if d is not None else np.shape(x), dtypes.dtype(x))
    shape = _conv_general_dilated_shape_rule(
        unbatched(lhs, lhs_bdim), unbatched(rhs, rhs_bdim), window_strides=window_strides,
        padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count)
    dtype = dtypes.dtype(lhs) if preferred_element_type is None else preferred_element_type
    return full((0,) + shape, 0, dtype=dtype)


# -- lowering -----------------------------------------------------------------------------

def _complex_mul(mul, x, y):
    """``x * y`` for a bilinear ``mul`` on complex operands with three real products
    instead of four (Gauss's trick), as JAX does for complex convolutions on CPU."""
    x_re, x_im = elementwise.real(x), elementwise.imag(x)
    y_re, y_im = elementwise.real(y), elementwise.imag(y)
    k1 = mul(elementwise.add(x_re, x_im), y_re)
    k2 = mul(x_re, elementwise.sub(y_im, y_re))
    k3 = mul(x_im, elementwise.add(y_re, y_im))
    return elementwise.complex(elementwise.sub(k1, k3), elementwise.add(k1, k2))


def _complex_conv(lhs, rhs, *, preferred_element_type, **params):
    if preferred_element_type is not None:
        preferred_element_type = dtypes.complex_real_dtype(preferred_element_type)
    real_conv = functools.partial(conv_general_dilated_p.bind,
                                  preferred_element_type=preferred_element_type, **params)
    return _complex_mul(real_conv, lhs, rhs)


def _conv_general_dilated_lower(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation,
                                rhs_dilation, dimension_numbers, feature_group_count,
                                batch_group_count, precision, preferred_element_type,
                                out_sharding):
    """``stablehlo.convolution``. XLA's CPU backend convolves complex numbers with a
    slow loop, so complex convolutions become three real ones."""
    if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
        return lowering.lower_fun(_complex_conv)(
            ctx, lhs, rhs, window_strides=window_strides, padding=padding,
            lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
            dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
            batch_group_count=batch_group_count, precision=precision,
            preferred_element_type=preferred_element_type, out_sharding=out_sharding)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]))
    pair = (Precision.DEFAULT, Precision.DEFAULT) if precision is None else precision
    i64 = ir.IntegerType.get_signless(64)
    return hlo.convolution(
        lowering.aval_to_ir_type(ctx.avals_out[0]), lhs, rhs, dimension_numbers=dnums,
        feature_group_count=ir.IntegerAttr.get(i64, feature_group_count),
        batch_group_count=ir.IntegerAttr.get(i64, batch_group_count),
        window_strides=lowering.i64_array(window_strides),
        padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2)),
        lhs_dilation=lowering.i64_array(lhs_dilation),
        rhs_dilation=lowering.i64_array(rhs_dilation),
        window_reversal=ir.DenseBoolArrayAttr.get([False] * (len(rhs_spec) - 2)),
        precision_config=ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in pair]))


conv_general_dilated_p = standard_primitive(_conv_general_dilated_shape_rule,
                                            _conv_general_dilated_dtype_rule,
                                            "conv_general_dilated")


def _conv_general_dilated_sharding(lhs, rhs, *, out_sharding, **params):
    """Only a whole kernel over inputs whose feature dimension is whole gives an output
    split without asking: each output dimension keeps the input's split at its
    position (JAX's rule). Otherwise ``out_sharding`` must say."""
    if out_sharding is not None:
        return out_sharding.spec._normalized_spec_for_aval(lhs.ndim)
    if any(spec_of(rhs)) or spec_of(lhs)[params["dimension_numbers"].lhs_spec[1]]:
        raise core.ShardingTypeError("Please specify the output sharding via "
                                     "`out_sharding` parameter of `conv_general_dilated`")
    return resized_sharding("conv_general_dilated", lhs,
                            _conv_general_dilated_shape_rule(lhs, rhs, **params))


conv_general_dilated_p.sharding_rule = _conv_general_dilated_sharding
lowering.register_lowering(conv_general_dilated_p, _conv_general_dilated_lower)
ad.defbilinear(conv_general_dilated_p, _conv_general_dilated_transpose_lhs,
               _conv_general_dilated_transpose_rhs)
batching.primitive_batchers[conv_general_dilated_p] = _conv_general_dilated_batch


# -- public functions ---------------------------------------------------------------------

def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """General n-dimensional convolution of ``lhs`` (input) with ``rhs`` (kernel).

    ``padding`` is ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or ``(low, high)`` pairs per
    spatial axis; ``lhs_dilation`` inserts holes between input elements (a transposed
    convolution), ``rhs_dilation`` between kernel taps (an atrous convolution);
    ``dimension_numbers`` gives the layouts (see ``conv_dimension_numbers``)."""
    dnums = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    if lhs_dilation is None:
        lhs_dilation = (1,) * (np.ndim(lhs) - 2)
    elif isinstance(padding, str) and not len(lhs_dilation) == lhs_dilation.count(1):
        raise ValueError("String padding is not implemented for transposed convolution "
                         "using this op. Please either exactly specify the required "
                         "padding or use conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (np.ndim(rhs) - 2)
    if isinstance(padding, str):
        lhs_perm, rhs_perm, _ = dnums
        rhs_shape = np.take(np.shape(rhs), rhs_perm)[2:]
        effective_rhs_shape = [dilate_dim(k, r) for k, r in zip(rhs_shape, rhs_dilation)]
        padding = padtype_to_pads(np.take(np.shape(lhs), lhs_perm)[2:],
                                  effective_rhs_shape, window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as err:
            raise ValueError("padding argument to conv_general_dilated should be a string "
                             f"or a sequence of (low, high) pairs, got {padding}") from err
    if preferred_element_type is not None:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
            preferred_element_type, "conv_general_dilated")
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(window_strides), padding=tuple(padding),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=dnums, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in the NC... / OI... layout without dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation,
                              rhs_dilation, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in the NC... / OI... layout."""
    return conv_general_dilated(lhs, rhs, window_strides, padding,
                                lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of one axis of a transposed convolution whose forward
    convolution had kernel size ``k``, stride ``s`` and ``padding``."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a = pads[0]
        pad_len = sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """A fractionally strided convolution (the "deconvolution" of neural networks): the
    input is dilated by ``strides`` and convolved with unit stride. Layouts default to
    TensorFlow's (``NHWC``, ``HWIO``). ``transpose_kernel=True`` flips the kernel
    spatially and swaps its feature axes, giving exactly the gradient of ``conv``."""
    assert np.ndim(lhs) == np.ndim(rhs) and np.ndim(lhs) >= 2
    ndims = np.ndim(lhs)
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndims not in defaults:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    k_sdims = np.take(np.shape(rhs), dn.rhs_spec)[2:]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        effective_k_size = map(dilate_dim, k_sdims, rhs_dilation)
        replicated = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p)
                     for k, s, p in zip(effective_k_size, strides, replicated))
    else:
        pads = padding
    if transpose_kernel:
        for axis in dn.rhs_spec[2:]:
            rhs = rev(rhs, (axis,))
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides, rhs_dilation,
                                dn, precision=precision,
                                preferred_element_type=preferred_element_type)
