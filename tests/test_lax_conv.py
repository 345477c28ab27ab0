"""Convolutions (``lax.conv_general_dilated`` and its wrappers, ``jnp.convolve`` /
``jnp.correlate``): values against a NumPy loop implementation, printed jaxprs and
error messages (as printed by real JAX 0.10.2), derivatives against finite
differences, and ``vmap`` against a Python loop.
"""
import itertools

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.test_util import check_grads

RNG = np.random.default_rng(0)


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-4, 5, shape).astype(dtype)
    x = RNG.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(-1, 1, shape)
    return x.astype(dtype)


# ----------------------------------------------------------------------------------------
# A reference convolution: explicit loops over output positions (canonical NC.../OI...)
# ----------------------------------------------------------------------------------------

def dilate(x, dilation, axes):
    """Insert ``d - 1`` zeros between elements along each of ``axes``."""
    for axis, d in zip(axes, dilation):
        shape = list(x.shape)
        shape[axis] = max(0, (shape[axis] - 1) * d + 1)
        out = np.zeros(shape, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, d)
        out[tuple(index)] = x
        x = out
    return x


def pad_or_crop(x, padding, axes):
    for axis, (lo, hi) in zip(axes, padding):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(index)]
    return x


def reference_conv(lhs, rhs, strides, padding, lhs_dilation=None, rhs_dilation=None,
                   feature_group_count=1, batch_group_count=1, out_dtype=np.float32):
    nsp = lhs.ndim - 2
    spatial = range(2, 2 + nsp)
    acc = np.complex128 if lhs.dtype.kind == "c" else (
        np.int64 if lhs.dtype.kind in "iu" else np.float64)
    lhs = dilate(lhs.astype(acc), lhs_dilation or (1,) * nsp, spatial)
    lhs = pad_or_crop(lhs, padding, spatial)
    rhs = dilate(rhs.astype(acc), rhs_dilation or (1,) * nsp, spatial)
    n, c = lhs.shape[:2]
    o, i = rhs.shape[:2]
    out_space = [(lhs.shape[2 + k] - rhs.shape[2 + k]) // strides[k] + 1 for k in range(nsp)]
    out_n = n // batch_group_count
    out = np.zeros([out_n, o] + out_space, acc)
    for pos in itertools.product(*map(range, out_space)):
        window = (slice(None), slice(None)) + tuple(
            slice(p * s, p * s + k) for p, s, k in zip(pos, strides, rhs.shape[2:]))
        patch = lhs[window]                              # (n, c, *kernel)
        for oc in range(o):
            if feature_group_count > 1:
                g = oc // (o // feature_group_count)
                x = patch[:, g * i:(g + 1) * i]
            else:
                x = patch
            if batch_group_count > 1:
                g = oc // (o // batch_group_count)
                x = x[g * out_n:(g + 1) * out_n]
            out[(slice(None), oc) + pos] = np.sum(x * rhs[oc], axis=tuple(range(1, x.ndim)))
    return out.astype(out_dtype)


def check(actual, expected, rtol=1e-5):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

CONFIGS = [
    # lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, fgc, bgc
    ((2, 3, 9), (4, 3, 3), (1,), "VALID", None, None, 1, 1),
    ((2, 3, 9), (4, 3, 3), (2,), "SAME", None, None, 1, 1),
    ((1, 2, 8), (3, 2, 4), (3,), "SAME_LOWER", None, None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (1, 2), [(1, 2), (0, 1)], None, None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (1, 1), [(-1, 2), (2, -1)], None, None, 1, 1),
    ((1, 2, 5, 5), (3, 2, 2, 3), (1, 1), [(1, 1), (2, 2)], (2, 1), (1, 2), 1, 1),
    ((2, 6, 7, 7), (6, 2, 3, 3), (2, 1), "SAME", None, (2, 2), 3, 1),
    ((2, 6, 7, 7), (6, 1, 3, 3), (1, 1), "VALID", None, None, 6, 1),
    ((4, 3, 6), (6, 3, 2), (1,), "VALID", None, None, 1, 2),
    ((6, 2, 5, 4), (6, 2, 2, 2), (1, 1), [(1, 0), (0, 1)], None, None, 1, 3),
]


def conv(lhs, rhs, config, **kw):
    _, _, strides, padding, lhs_dil, rhs_dil, fgc, bgc = config
    return lax.conv_general_dilated(lhs, rhs, strides, padding, lhs_dil, rhs_dil,
                                    feature_group_count=fgc, batch_group_count=bgc, **kw)


def explicit_padding(config):
    lhs_shape, rhs_shape, strides, padding, _, rhs_dil, _, _ = config
    if not isinstance(padding, str):
        return padding
    kernel = [(k - 1) * d + 1 for k, d in zip(rhs_shape[2:], rhs_dil or (1,) * 9)]
    return lax.padtype_to_pads(lhs_shape[2:], kernel, strides, padding)


@pytest.mark.parametrize("config", CONFIGS)
def test_conv_general_dilated_values(config):
    lhs_shape, rhs_shape, strides, _, lhs_dil, rhs_dil, fgc, bgc = config
    lhs, rhs = rand(lhs_shape), rand(rhs_shape)
    expected = reference_conv(lhs, rhs, strides, explicit_padding(config), lhs_dil,
                              rhs_dil, fgc, bgc, np.float32)
    out = conv(lhs, rhs, config)
    assert out.dtype == np.float32
    check(out, expected)


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, np.float16])
def test_conv_dtypes(dtype):
    lhs, rhs = rand((2, 3, 6, 5), dtype), rand((4, 3, 2, 2), dtype)
    out = lax.conv(lhs, rhs, (1, 1), "SAME")
    assert out.dtype == dtype
    check(out, reference_conv(lhs, rhs, (1, 1), [(0, 1), (0, 1)], out_dtype=dtype),
          rtol=2e-2 if dtype == np.float16 else 1e-5)


def test_preferred_element_type():
    lhs, rhs = rand((1, 2, 6), np.int8), rand((3, 2, 3), np.int8)
    out = lax.conv(lhs, rhs, (1,), "VALID", preferred_element_type=np.int32)
    assert out.dtype == np.int32
    check(out, reference_conv(lhs, rhs, (1,), [(0, 0)], out_dtype=np.int32))


def test_dimension_numbers_layouts():
    lhs, rhs = rand((2, 7, 6, 3)), rand((3, 2, 3, 4))          # NHWC, HWIO
    out = lax.conv_general_dilated(lhs, rhs, (2, 1), "SAME",
                                   dimension_numbers=("NHWC", "HWIO", "NHWC"))
    expected = reference_conv(lhs.transpose(0, 3, 1, 2), rhs.transpose(3, 2, 0, 1), (2, 1),
                              [(1, 1), (0, 1)], out_dtype=np.float32)
    check(out, expected.transpose(0, 2, 3, 1))
    # Spatial axes are matched by letter, in the order of the kernel's layout string.
    out2 = lax.conv_general_dilated(lhs.transpose(0, 2, 1, 3), rhs, (2, 1), "SAME",
                                    dimension_numbers=("NWHC", "HWIO", "NCWH"))
    check(out2, expected.transpose(0, 1, 3, 2))


def test_conv_dimension_numbers():
    assert lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 4),
                                      ("NHWC", "HWIO", "NHWC")) == \
        lax.ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1),
                                 out_spec=(0, 3, 1, 2))
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == \
        lax.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2))
    assert lax.conv_general_shape_tuple((1, 5, 5, 3), (3, 3, 3, 4), (1, 1), "SAME",
                                        ("NHWC", "HWIO", "NHWC")) == (1, 5, 5, 4)
    assert lax.conv_transpose_shape_tuple((1, 5, 5, 3), (3, 3, 3, 4), (2, 2), "SAME",
                                          ("NHWC", "HWIO", "NHWC")) == (1, 10, 10, 4)
    assert lax.conv_shape_tuple((1, 3, 5, 5), (4, 3, 3, 3), (2, 2), "VALID") == (1, 4, 2, 2)


def test_conv_with_general_padding():
    lhs, rhs = rand((1, 3, 6, 6)), rand((2, 3, 2, 2))
    out = lax.conv_with_general_padding(lhs, rhs, (1, 1), "SAME_LOWER", None, (2, 2))
    check(out, reference_conv(lhs, rhs, (1, 1), [(1, 1), (1, 1)], None, (2, 2),
                              out_dtype=np.float32))


def test_documentation_example():
    x = jnp.array([1, 2, 1])
    y = jnp.ones(10)
    result = lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10),
                                      window_strides=(1,), padding=[(9, 9)])
    assert repr(result[0, 0]) == ("Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., 1.], "
                                  "dtype=float32)")


# Expected outputs printed by JAX 0.10.2 (x = [1, 2, 3, 4], kernel = [1, 10, 100]).
@pytest.mark.parametrize("args, kwargs, expected", [
    (((2,), "SAME"), {}, [100, 10, 201, 20, 302, 30, 403, 40]),
    (((2,), "VALID"), {}, [100, 10, 201, 20, 302, 30, 403, 40, 4]),
    (((3,), "SAME"), {}, [100, 10, 1, 200, 20, 2, 300, 30, 3, 400, 40, 4]),
    (((2,), [(1, 0)]), {}, [10, 201, 20, 302, 30, 403]),
    (((2,), [(1, 0)], (2,)), {}, [0, 321, 0, 432]),
    (((2,), [(1, 0)]), {"use_consistent_padding": True}, [10, 201, 20, 302, 30, 403, 40, 4]),
    (((2,), "SAME"), {"transpose_kernel": True}, [1, 10, 102, 20, 203, 30, 304, 40]),
])
def test_conv_transpose_values(args, kwargs, expected):
    x = jnp.arange(1., 5.).reshape(1, 4, 1)
    w = jnp.array([1., 10., 100.]).reshape(3, 1, 1)
    np.testing.assert_array_equal(lax.conv_transpose(x, w, *args, **kwargs)[0, :, 0],
                                  np.float32(expected))


@pytest.mark.parametrize("padding, height", [("SAME", 8), ("VALID", 9)])
def test_conv_transpose_is_the_gradient_of_conv(padding, height):
    dn = ("NHWC", "HWIO", "NHWC")
    x, w = rand((2, height, 6, 3)), rand((3, 2, 3, 5))
    forward = lambda x: lax.conv_general_dilated(x, w, (2, 2), padding,
                                                 dimension_numbers=dn)
    y, vjp = jax.vjp(forward, x)
    ct = rand(y.shape)
    check(lax.conv_transpose(ct, w, (2, 2), padding, dimension_numbers=dn,
                             transpose_kernel=True), np.asarray(vjp(ct)[0]), rtol=1e-4)


# ----------------------------------------------------------------------------------------
# Printed jaxprs (texts printed by JAX 0.10.2)
# ----------------------------------------------------------------------------------------

CONV_GRAD_JAXPR = """\
{ lambda ; a:f32[2,3,8] b:f32[4,3,3]. let
    c:f32[2,4,8] = conv_general_dilated[
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
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] c
    d:f32[2,4,8] = broadcast_in_dim 1.0:f32[]
    e:f32[4,3,3] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(1, 0, 2), rhs_spec=(1, 0, 2), out_spec=(1, 0, 2))
      feature_group_count=1
      lhs_dilation=(1,)
      out_sharding=None
      padding=((1, 1),)
      precision=None
      preferred_element_type=None
      rhs_dilation=(1,)
      window_strides=(1,)
    ] a d
    f:f32[4,3,3] = rev[dimensions=(2,)] b
    g:f32[2,3,8] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(1, 0, 2), out_spec=(0, 1, 2))
      feature_group_count=1
      lhs_dilation=(1,)
      out_sharding=None
      padding=((1, 1),)
      precision=None
      preferred_element_type=None
      rhs_dilation=(1,)
      window_strides=(1,)
    ] d f
  in (g, e) }"""

CONV_VMAP_JAXPR = """\
{ lambda ; a:f32[5,2,3,8] b:f32[4,3,3]. let
    c:f32[10,3,8] = reshape[dimensions=None new_sizes=(10, 3, 8) sharding=None] a
    d:f32[10,4,8] = conv_general_dilated[
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
    ] c b
    e:f32[5,2,4,8] = reshape[
      dimensions=None
      new_sizes=(5, 2, 4, 8)
      sharding=None
    ] d
  in (e,) }"""

CONVOLVE_JAXPR = """\
{ lambda ; a:f32[5] b:f32[3]. let
    c:f32[7] = jit[
      name=convolve
      jaxpr={ lambda ; a:f32[5] b:f32[3]. let
          c:f32[7] = jit[
            name=_conv
            jaxpr={ lambda ; a:f32[5] b:f32[3]. let
                d:f32[3] = jit[
                  name=_flip
                  jaxpr={ lambda ; b:f32[3]. let
                      d:f32[3] = rev[dimensions=(0,)] b
                    in (d,) }
                ] b
                e:f32[1,1,5] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] d
                g:f32[1,1,7] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((2, 2),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] e f
                c:f32[7] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }"""


def test_conv_grad_jaxpr():
    f = lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME").sum()
    assert str(jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(
        jnp.ones((2, 3, 8)), jnp.ones((4, 3, 3)))) == CONV_GRAD_JAXPR


def test_conv_vmap_jaxpr():
    f = lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME")
    assert str(jax.make_jaxpr(jax.vmap(f, (0, None)))(
        jnp.ones((5, 2, 3, 8)), jnp.ones((4, 3, 3)))) == CONV_VMAP_JAXPR


def test_convolve_jaxpr():
    assert str(jax.make_jaxpr(jnp.convolve)(jnp.ones(5), jnp.ones(3))) == CONVOLVE_JAXPR


def test_conv_lowering():
    f = jax.jit(lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME"))
    text = f.lower(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2))).as_text()
    assert ("stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], "
            "window = {stride = [1], pad = [[0, 1]], lhs_dilate = [1], rhs_dilate = [1], "
            "reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, "
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision "
            "DEFAULT>]} : (tensor<1x2x5xf32>, tensor<3x2x2xf32>) -> tensor<1x3x5xf32>") in text


# ----------------------------------------------------------------------------------------
# Errors (messages printed by JAX 0.10.2)
# ----------------------------------------------------------------------------------------

X = np.ones((2, 4, 6, 6), np.float32)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lax.conv(X, np.ones((6, 2, 3, 3), np.float32), (1, 1), "SAME"), ValueError,
     "conv_general_dilated lhs feature dimension size divided by feature_group_count must "
     "equal the rhs input feature dimension size, but 4 // 1 != 2."),
    (lambda: lax.conv_general_dilated(X, np.ones((6, 2, 3, 3), np.float32), (1, 1), "SAME",
                                      feature_group_count=3), ValueError,
     "conv_general_dilated feature_group_count must divide lhs feature dimension size, "
     "but 3 does not divide 4."),
    (lambda: lax.conv_general_dilated(X, np.ones((6, 4, 3, 3), np.float32), (1, 1), "SAME",
                                      batch_group_count=3), ValueError,
     "conv_general_dilated batch_group_count must divide lhs batch dimension size, but 3 "
     "does not divide 2."),
    (lambda: lax.conv(X, np.ones((6, 4, 3, 3), np.float32), (1,), "SAME"), ValueError,
     "conv_general_dilated window and window_strides must have the same number of "
     "dimensions, but got 2 and 1"),
    (lambda: lax.conv(X, np.ones((6, 4, 3, 3), np.float32), (1, 1), "FOO"), RuntimeError,
     "Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got FOO."),
    (lambda: lax.conv_with_general_padding(X, np.ones((6, 4, 3, 3), np.float32), (1, 1),
                                           [(-7, 0), (0, 0)], None, None), ValueError,
     "Negative padding is larger than the size of the corresponding dimension: got "
     "padding=((-7, 0), (0, 0)) for lhs_shape[2:]=(np.int64(6), np.int64(6))"),
    (lambda: lax.conv(X, np.ones((6, 4, 3, 3), np.int32), (1, 1), "SAME"), TypeError,
     "lax.conv_general_dilated requires arguments to have the same dtypes, got float32, "
     "int32."),
    (lambda: lax.conv(X, np.ones((6, 4, 3, 3), np.float32), (1, 1), "SAME",
                      preferred_element_type=np.int32), TypeError,
     "Input type is incompatible with `preferred_element_type`. The compatible combinations "
     "of (input_type, preferred_element_type) are (integral, integral), (integral, "
     "floating), (floating, floating), (complex, complex."),
    (lambda: lax.conv_general_dilated(X, np.ones((6, 4, 3, 3), np.float32), (1, 1), "SAME",
                                      dimension_numbers=("NCHW", "OIHX", "NCHW")), TypeError,
     "convolution dimension_numbers elements must each have the same set of spatial "
     "characters, got ('NCHW', 'OIHX', 'NCHW')."),
    (lambda: lax.conv_general_dilated(X, np.ones((6, 4, 3, 3), np.float32), (1, 1), "SAME",
                                      lhs_dilation=(2, 2)), ValueError,
     "String padding is not implemented for transposed convolution using this op. Please "
     "either exactly specify the required padding or use conv_transpose."),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


# ----------------------------------------------------------------------------------------
# Derivatives and batching
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("config", CONFIGS)
def test_conv_grads(config):
    lhs, rhs = rand(config[0], np.float64), rand(config[1], np.float64)
    with jax.enable_x64(True):
        check_grads(lambda x, w: conv(x, w, config), (lhs, rhs), order=2,
                    modes=("fwd", "rev"))


def test_conv_grads_complex_and_mixed_precision():
    lhs, rhs = rand((1, 2, 5), np.complex64), rand((2, 2, 2), np.complex64)
    check_grads(lambda x, w: lax.conv(x, w, (1,), "SAME"), (lhs, rhs), order=1,
                modes=("rev",), atol=1e-2, rtol=1e-2)
    x16, w16 = rand((1, 2, 6), np.float16), rand((3, 2, 3), np.float16)
    f = lambda x, w: lax.conv(x, w, (1,), "VALID", preferred_element_type=np.float32)
    gx, gw = jax.grad(lambda x, w: f(x, w).sum(), (0, 1))(x16, w16)
    assert (gx.dtype, gw.dtype) == (np.float16, np.float16)
    ones = np.ones((1, 3, 4), np.float32)
    check(gx, reference_conv(ones, w16.astype(np.float32)[:, :, ::-1].transpose(1, 0, 2),
                             (1,), [(2, 2)], out_dtype=np.float16), rtol=2e-2)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 2)])
def test_conv_vmap(config, in_axes):
    lhs_shape, rhs_shape = config[0], config[1]
    batched = lambda shape, axis: shape if axis is None else \
        shape[:axis] + (3,) + shape[axis:]
    lhs, rhs = rand(batched(lhs_shape, in_axes[0])), rand(batched(rhs_shape, in_axes[1]))
    take = lambda x, axis, i: x if axis is None else np.take(x, i, axis)
    expected = np.stack([np.asarray(conv(take(lhs, in_axes[0], i),
                                         take(rhs, in_axes[1], i), config))
                         for i in range(3)])
    check(jax.vmap(lambda x, w: conv(x, w, config), in_axes)(lhs, rhs), expected, 1e-4)


def test_conv_vmap_of_grad():
    config = CONFIGS[6]
    lhs, rhs = rand((2,) + config[0]), rand(config[1])
    grad = jax.grad(lambda x, w: conv(x, w, config).sum(), (0, 1))
    gx, gw = jax.vmap(grad, (0, None))(lhs, rhs)
    for i in range(2):
        ex, ew = grad(lhs[i], rhs)
        check(gx[i], np.asarray(ex), 1e-4)
        check(gw[i], np.asarray(ew), 1e-4)


# ----------------------------------------------------------------------------------------
# jnp.convolve and jnp.correlate
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", [(7, 3), (3, 7), (4, 4), (1, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex64])
def test_convolve_and_correlate(mode, shapes, dtype):
    a, v = rand(shapes[0], dtype), rand(shapes[1], dtype)
    result = np.float32 if dtype == np.int32 else dtype
    for ours, theirs in [(jnp.convolve, np.convolve), (jnp.correlate, np.correlate)]:
        out = ours(a, v, mode=mode)
        assert out.dtype == result
        check(out, theirs(a, v, mode=mode).astype(result), 1e-5)


def test_convolve_documented_outputs():
    x = jnp.array([1, 2, 1])
    y = jnp.ones(10)
    assert repr(jnp.convolve(x, y)) == ("Array([1., 3., 4., 4., 4., 4., 4., 4., 4., 4., 3., "
                                        "1.], dtype=float32)")
    assert str(jnp.convolve(x, y, mode="same")) == "[3. 4. 4. 4. 4. 4. 4. 4. 4. 3.]"
    assert str(jnp.convolve(x, y, mode="valid")) == "[4. 4. 4. 4. 4. 4. 4. 4.]"
    assert repr(jnp.correlate(jnp.array([3 + 1j, 2, 2 - 3j]), jnp.array([4, 2 - 5j, 1]),
                              mode="full")) == \
        "Array([ 3. +1.j,  3.+17.j, 18.+11.j, 27. +4.j,  8.-12.j], dtype=complex64)"


def test_convolve_preferred_element_type_and_errors():
    out = jnp.convolve(np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32),
                       preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [3, 10, 13, 10])
    for args, message in [((np.ones((2, 2)), np.ones(2)),
                           "convolve() only support 1-dimensional inputs."),
                          ((np.ones(0), np.ones(2)),
                           "convolve: inputs cannot be empty, got shapes (0,) and (2,)."),
                          ((np.ones(3), np.ones(2), "bad"),
                           "mode must be one of ['full', 'same', 'valid']")]:
        with pytest.raises(ValueError) as info:
            jnp.convolve(*args)
        assert str(info.value) == message


def test_convolve_grad_and_vmap():
    check_grads(lambda a, v: jnp.convolve(a, v, mode="same"), (rand(5), rand(3)), order=1,
                atol=1e-2, rtol=1e-2)
    a, v = rand((2, 4)), rand((2, 3))
    out = jax.vmap(jnp.correlate)(a, v)
    check(out, np.stack([np.correlate(a[i], v[i]) for i in range(2)]))


def test_generic_and_variadic_reduce_window_match_numpy():
    x = jnp.arange(8.0).reshape(2, 4)
    prod = lax.reduce_window(x, 1.0, lax.mul, (1, 2), (1, 2), "VALID")
    np.testing.assert_array_equal(prod, [[0.0, 6.0], [20.0, 42.0]])
    sums = lax.reduce_window((x, 2 * x), (0.0, 0.0),
                             lambda a, b: (a[0] + b[0], a[1] + b[1]), (1, 2), (1, 2),
                             "VALID")
    np.testing.assert_array_equal(sums[0], [[1.0, 5.0], [9.0, 13.0]])
    np.testing.assert_array_equal(sums[1], [[2.0, 10.0], [18.0, 26.0]])
