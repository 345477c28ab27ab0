"""lax additions: ``bessel_i0e``/``bessel_i1e``, ``betainc``, ``rng_bit_generator``,
``rng_uniform``, ``conv_general_dilated_patches``/``_local``, ``lax.dtype``; and the
``jax.stages`` names. Values against SciPy/NumPy, jaxprs against JAX 0.10.2's text."""
import numpy as np
import pytest
import scipy.special as osp

import glassjax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.test_util import check_grads

rng = np.random.default_rng(17)


def test_bessel_i0e_i1e_values_grads_and_jaxpr():
    x = np.concatenate([np.linspace(-30, 30, 61), [1e-7, -1e-7, 0.]]).astype(np.float32)
    np.testing.assert_allclose(np.asarray(lax.bessel_i0e(x)), osp.i0e(x), rtol=2e-6,
                               atol=1e-7)
    np.testing.assert_allclose(np.asarray(lax.bessel_i1e(x)), osp.i1e(x), rtol=2e-6,
                               atol=1e-7)
    x16 = np.linspace(-20, 20, 9).astype(np.float16)     # computed in float32
    np.testing.assert_allclose(np.asarray(lax.bessel_i0e(x16)), osp.i0e(x16), rtol=2e-3)
    for f in (lax.bessel_i0e, lax.bessel_i1e):
        check_grads(f, (np.float32(1.7),), order=2, atol=1e-2, rtol=1e-2)
        check_grads(f, (np.float32(-0.3),), order=1, atol=1e-2, rtol=1e-2)
    assert glassjax.grad(lax.bessel_i1e)(0.0) == 0.5
    assert str(glassjax.make_jaxpr(lax.bessel_i0e)(1.0)) == \
        "{ lambda ; a:f32[]. let b:f32[] = bessel_i0e a in (b,) }"


def test_betainc_values_grad_edges_and_jaxpr():
    a = rng.uniform(0.1, 8, 40).astype(np.float32)
    b = rng.uniform(0.1, 8, 40).astype(np.float32)
    x = rng.uniform(0, 1, 40).astype(np.float32)
    np.testing.assert_allclose(np.asarray(lax.betainc(a, b, x)), osp.betainc(a, b, x),
                               rtol=5e-5, atol=1e-6)
    edges = lax.betainc(np.float32([1, 1, -1, 2, 0]), np.float32([2, 2, 2, 0, 3]),
                        np.float32([0, 1, .5, .5, .3]))
    np.testing.assert_allclose(np.asarray(edges), osp.betainc([1, 1, -1, 2, 0],
                                                              [2, 2, 2, 0, 3],
                                                              [0, 1, .5, .5, .3]))
    check_grads(lambda x: lax.betainc(2.5, 1.5, x), (np.float32(0.3),), order=1,
                atol=1e-2, rtol=1e-2)
    with pytest.raises(ValueError, match="a and b not supported"):
        glassjax.grad(lambda a: lax.betainc(a, 2., .5))(1.5)
    assert str(glassjax.make_jaxpr(lax.betainc)(1.0, 2., .5)) == """\
{ lambda ; a:f32[] b:f32[] c:f32[]. let
    d:f32[] = regularized_incomplete_beta a b c
  in (d,) }"""


def test_rng_bit_generator_and_uniform():
    k = np.array([1, 2, 3, 4], np.uint32)
    assert str(glassjax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2, 3)))(k)) == """\
{ lambda ; a:u32[4]. let
    b:u32[4] c:u32[2,3] = rng_bit_generator[
      algorithm=RNG_DEFAULT
      dtype=uint32
      out_sharding=None
      shape=(2, 3)
    ] a
  in (b, c) }"""
    new_key, bits = lax.rng_bit_generator(k, (2, 3))
    # The values XLA's default (Philox) generator gives on CPU, as printed by JAX 0.10.2.
    np.testing.assert_array_equal(np.asarray(new_key), [1, 2, 5, 4])
    np.testing.assert_array_equal(np.asarray(bits), [[512747620, 1298009047, 1267190206],
                                                     [761827841, 1383286907, 1639995030]])
    _, b8 = lax.rng_bit_generator(k, (1000,), dtype=np.uint8,
                                  algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    assert b8.dtype == np.uint8 and 100 < np.asarray(b8).mean() < 155
    keys = np.stack([k, k + 1])
    new_keys, vbits = glassjax.vmap(lambda k: lax.rng_bit_generator(k, (2,)))(keys)
    assert vbits.shape == (2, 2) and new_keys.shape == (2, 4)
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(k, (2,), dtype=np.int32)
    u = np.asarray(lax.rng_uniform(np.float32(2.), np.float32(3.), (1000,)))
    assert u.shape == (1000,) and np.all((2 <= u) & (u < 3))
    assert str(glassjax.make_jaxpr(lambda: lax.rng_uniform(0., 1., (3,)))()) == """\
{ lambda ; . let
    a:f32[3] = rng_uniform[shape=(3,)] 0.0:f32[] 1.0:f32[]
  in (a,) }"""


def _patches_reference(x, filter_shape, strides):
    """NCHW, VALID: out[n, c*k + i*fw + j, y, x] = x[n, c, y*s0 + i, x*s1 + j]."""
    n, c, h, w = x.shape
    fh, fw = filter_shape
    oh, ow = (h - fh) // strides[0] + 1, (w - fw) // strides[1] + 1
    out = np.zeros((n, c * fh * fw, oh, ow), x.dtype)
    for ci in range(c):
        for i in range(fh):
            for j in range(fw):
                out[:, ci * fh * fw + i * fw + j] = x[:, ci, i:i + strides[0] * oh:strides[0],
                                                      j:j + strides[1] * ow:strides[1]]
    return out


def test_conv_general_dilated_patches_and_local():
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    got = lax.conv_general_dilated_patches(x, (2, 3), (1, 2), "VALID")
    np.testing.assert_allclose(np.asarray(got), _patches_reference(x, (2, 3), (1, 2)),
                               rtol=1e-6)
    # A local convolution whose kernels are all equal is an ordinary convolution.
    kernel = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    out_hw = (5, 4)
    local_rhs = np.broadcast_to(kernel.reshape(4, 12, 1, 1), (4, 12) + out_hw)
    got = lax.conv_general_dilated_local(x, local_rhs, (1, 1), "VALID", (2, 2))
    want = lax.conv_general_dilated(x, kernel, (1, 1), "VALID")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_lax_dtype_and_stages():
    assert lax.dtype(1.0) == np.float32 and lax.dtype(np.int64(1)) == np.int32
    f = glassjax.jit(lambda x: x * 2)
    traced = f.trace(1.0)
    lowered = traced.lower()
    compiled = lowered.compile()
    assert isinstance(traced, glassjax.stages.Traced)
    assert isinstance(lowered, glassjax.stages.Lowered)
    assert isinstance(compiled, glassjax.stages.Compiled)
    assert isinstance(compiled.args_info[0][0], glassjax.stages.ArgInfo)
    assert compiled(3.0) == 6.0


@pytest.mark.parametrize("n", [0, 2, 8, 9, 17, 64])
def test_bool_array_constants_lower(n):
    """Non-splat boolean constants of any size embed in a jitted program (MLIR packs i1
    data in bits, and reads a one-byte buffer as a splat)."""
    mask = np.random.default_rng(n).random((n,)) > 0.5
    got = glassjax.jit(lambda x: jnp.where(mask, x, 0.))(jnp.arange(n, dtype=jnp.float32))
    np.testing.assert_array_equal(np.asarray(got), np.where(mask, np.arange(n), 0))
    m2 = np.random.default_rng(n + 1).random((3, n)) > 0.5
    np.testing.assert_array_equal(np.asarray(glassjax.jit(lambda: jnp.asarray(m2) | False)()),
                                  m2)


def _ragged_reference(lhs, rhs, group_sizes):
    out = np.zeros((lhs.shape[0], rhs.shape[-1]), np.float32)
    start = 0
    for g, size in enumerate(group_sizes):
        out[start:start + size] = lhs[start:start + size] @ rhs[g]
        start += size
    return out


def test_ragged_dot():
    lhs = rng.standard_normal((9, 3)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 4)).astype(np.float32)
    for sizes in ([2, 4, 3], [0, 5, 2], [9, 0, 0]):
        gs = np.array(sizes, np.int32)
        np.testing.assert_allclose(np.asarray(lax.ragged_dot(lhs, rhs, gs)),
                                   _ragged_reference(lhs, rhs, sizes), rtol=1e-5, atol=1e-6)
    gs = np.array([2, 4, 3], np.int32)
    check_grads(lambda l, r: lax.ragged_dot(l, r, gs), (lhs, rhs), order=1, modes=["rev"],
                atol=1e-2, rtol=1e-2)
    # Ragged contracting dimension: one product per group.
    dn = lax.RaggedDotDimensionNumbers(dot_dimension_numbers=(([0], [0]), ([], [])),
                                       lhs_ragged_dimensions=[0], rhs_group_dimensions=[])
    other = rng.standard_normal((9, 5)).astype(np.float32)
    out = lax.ragged_dot_general(lhs, other, gs, dn)
    np.testing.assert_allclose(np.asarray(out)[1], lhs[2:6].T @ other[2:6], rtol=1e-5,
                               atol=1e-5)


def test_composite_jaxpr_lowering_and_errors():
    my_tangent = lax.composite(lambda x: jnp.sin(x) / jnp.cos(x), name="my.tangent")
    assert str(glassjax.make_jaxpr(my_tangent)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = composite[
      attributes=()
      jaxpr={ lambda ; c:f32[]. let
          d:f32[] = sin c
          e:f32[] = cos c
          f:f32[] = div d e
        in (f,) }
      name=my.tangent
      version=0
    ] a
  in (b,) }"""
    np.testing.assert_allclose(np.asarray(glassjax.jit(my_tangent)(np.float32(0.5))),
                               np.tan(np.float32(0.5)), rtol=1e-6)
    scale = lax.composite(lambda x, *, scale, arr: x * scale + arr.sum(), name="my.scale",
                          version=2)
    g = lambda x: scale(x, scale=2.0, arr=np.array([1, 2], np.int32))
    text = glassjax.jit(g).lower(1.0).as_text()
    assert ('stablehlo.composite "my.scale" %arg0 {composite_attributes = {arr = dense<[1, 2]>'
            ' : tensor<2xi32>, scale = 2.000000e+00 : f64}, decomposition = @my.scale, '
            'version = 2 : i32}') in text
    assert glassjax.jit(g)(3.0) == 9.0
    with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
        glassjax.grad(my_tangent)(1.0)
