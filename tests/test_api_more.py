"""More of JAX 0.10.2's public API: ``jax.ffi`` (calling native handlers: jaxlib's own LAPACK
kernels, and one compiled here against ``include_dir()``), the scaled matmuls, ``einsum_path``,
the 1-bit dtypes and the small namespaces. Values against NumPy/SciPy, jaxprs against the text
JAX 0.10.2 prints."""
import ctypes
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest
import scipy.linalg
from jaxlib import lapack

import glassjax as jax
import glassjax.numpy as jnp

# ----------------------------------------------------------------------------------------
# jax.ffi on jaxlib's LAPACK handlers
# ----------------------------------------------------------------------------------------

def _getrf(a, vmap_method="broadcast_all", aliases=None):
    """LU with partial pivoting by LAPACK's ?getrf, called through the FFI: column-major
    matrices, 1-based pivots and an ``info`` status, as the handler defines them."""
    target = lapack.prepare_lapack_call("getrf_ffi", a.dtype)   # also loads LAPACK
    batch, k = a.shape[:-2], min(a.shape[-2:])
    return jax.ffi.ffi_call(
        target, (jax.ShapeDtypeStruct(a.shape, a.dtype),
                 jax.ShapeDtypeStruct(batch + (k,), jnp.int32),
                 jax.ShapeDtypeStruct(batch, jnp.int32)),
        input_layouts=[(1, 0)], output_layouts=[(1, 0), None, None],
        vmap_method=vmap_method, input_output_aliases=aliases)(a)


def _check_lu(a, lu, piv, info):
    lu_ref, piv_ref = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(np.asarray(lu), lu_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(piv) - 1, piv_ref)
    assert int(info) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ffi_call_lapack_getrf_eager_and_jit(dtype):
    a = np.random.RandomState(0).randn(4, 4).astype(dtype)
    with jax.enable_x64(dtype == np.float64):
        lu, piv, info = _getrf(a)
        assert isinstance(lu, jax.Array) and lu.dtype == dtype and piv.dtype == np.int32
        _check_lu(a, lu, piv, info)
        _check_lu(a, *jax.jit(_getrf)(a))
        # The LU factors may overwrite the input's buffer (same type and layout).
        _check_lu(a, *jax.jit(lambda a: _getrf(a, aliases={0: 0}))(a))


@pytest.mark.parametrize("vmap_method", ["broadcast_all", "expand_dims", "sequential",
                                         "sequential_unrolled", "legacy_vectorized"])
def test_ffi_call_vmap_methods_against_a_loop(vmap_method):
    a = np.random.RandomState(1).randn(3, 4, 4).astype(np.float32)
    lus, pivs, infos = jax.vmap(lambda m: _getrf(m, vmap_method))(a)
    for i in range(3):
        _check_lu(a[i], lus[i], pivs[i], infos[i])


def test_ffi_call_without_vmap_method_cannot_be_vmapped():
    a = np.zeros((2, 3, 3), np.float32)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        jax.vmap(lambda m: _getrf(m, None))(a)
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed"):
        jax.ffi.ffi_call("t", jax.ShapeDtypeStruct((), np.float32), vmap_method="loop")


_GETRF_JAXPR = """\
{ lambda ; a:f32[3,3]. let
    b:f32[3,3] c:i32[3] d:i32[] = ffi_call[
      attributes=()
      custom_call_api_version=4
      has_side_effect=False
      input_layouts=((0, 1),)
      input_output_aliases=()
      legacy_backend_config=None
      output_layouts=((0, 1), (0,), ())
      result_avals=(ShapedArray(float32[3,3]), ShapedArray(int32[3]), ShapedArray(int32[]))
      target_name=lapack_sgetrf_ffi
      vmap_method=broadcast_all
    ] a
  in (b, c, d) }"""

_GETRF_VMAP_JAXPR = """\
{ lambda ; a:f32[2,3,3]. let
    b:f32[2,3,3] c:i32[2,3] d:i32[2] = ffi_call[
      attributes=()
      custom_call_api_version=4
      has_side_effect=False
      input_layouts=((1, 2, 0),)
      input_output_aliases=()
      legacy_backend_config=None
      output_layouts=((1, 2, 0), (1, 0), (0,))
      result_avals=(ShapedArray(float32[2,3,3]), ShapedArray(int32[2,3]), ShapedArray(int32[2]))
      target_name=lapack_sgetrf_ffi
      vmap_method=broadcast_all
    ] a
  in (b, c, d) }"""

_GETRF_MODULE = """\
module @jit__getrf attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32> {jax.result_info = "result[0]"}, tensor<3xi32> {jax.result_info = "result[1]"}, tensor<i32> {jax.result_info = "result[2]"}) {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
    return %0#0, %0#1, %0#2 : tensor<3x3xf32>, tensor<3xi32>, tensor<i32>
  }
}
"""

_SEQUENTIAL_JAXPR = """\
{ lambda ; a:f32[2,3,3]. let
    b:f32[2,3,3] = scan[
      jaxpr={ lambda ; c:f32[3,3]. let
          d:f32[3,3] = ffi_call[
            attributes=(('s', 'abc'), ('x', np.int32(3)), ('y', 1.5))
            custom_call_api_version=4
            has_side_effect=False
            input_layouts=((1, 0),)
            input_output_aliases=()
            legacy_backend_config=None
            output_layouts=((1, 0),)
            result_avals=(ShapedArray(float32[3,3]),)
            target_name=lapack_sgetrf_ffi
            vmap_method=sequential
          ] c
        in (d,) }
      length=2
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }"""


def test_ffi_call_jaxprs_and_stablehlo_as_jax_prints_them():
    a = np.zeros((3, 3), np.float32)
    assert str(jax.make_jaxpr(_getrf)(a)) == _GETRF_JAXPR
    assert str(jax.make_jaxpr(jax.vmap(_getrf))(np.stack([a, a]))) == _GETRF_VMAP_JAXPR
    assert jax.jit(_getrf).lower(a).as_text() == _GETRF_MODULE
    f = jax.ffi.ffi_call("lapack_sgetrf_ffi", jax.ShapeDtypeStruct((3, 3), jnp.float32),
                         vmap_method="sequential")
    g = jax.vmap(lambda a: f(a, x=np.int32(3), y=1.5, s="abc"))
    assert str(jax.make_jaxpr(g)(np.stack([a, a]))) == _SEQUENTIAL_JAXPR


_ATTRIBUTES_MODULE = """\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @some_target(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {d = {k = 1 : i8}, eps = 5.000000e-01 : f32, flag = true, n = 3 : i64, name = "abc", v = dense<[0, 1, 2]> : tensor<3xi32>}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""


def test_ffi_call_attributes_become_typed_backend_config():
    f = jax.ffi.ffi_call("some_target", jax.ShapeDtypeStruct((2,), jnp.float32),
                         has_side_effect=True)
    text = jax.jit(lambda x: f(x, n=3, eps=np.float32(0.5), flag=True, name="abc",
                               v=np.arange(3, dtype=np.int32), d={"k": np.int8(1)})
                   ).lower(np.zeros(2, np.float32)).as_text()
    assert text == _ATTRIBUTES_MODULE
    with pytest.raises(TypeError, match="Non-hashable keyword argument to ffi_call v"):
        f(np.zeros(2, np.float32), v=[1, 2])


_MORE_ATTRIBUTES = ('mhlo.backend_config = {a = dense<3> : tensor<i32>, b = 2.000000e+00 : '
                    'f16, c = dense<[[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf64>, '
                    'e = true, g = 2.500000e+00 : f64, h = f32, i = [1, 2], j = "xy"}')


def test_ffi_call_attribute_types_as_jax_converts_them():
    """0-d arrays stay dense, NumPy scalars keep their type, Python floats are f64,
    dtypes are types, tuples arrays, bytes strings (text printed by JAX 0.10.2)."""
    f = jax.ffi.ffi_call("t", jax.ShapeDtypeStruct((2,), jnp.float32))
    text = jax.jit(lambda x: f(x, a=np.array(3, np.int32), b=np.float16(2),
                               c=np.array([[1., 2.]]), e=np.bool_(True), g=2.5,
                               h=np.dtype(np.float32), i=(1, 2), j=b"xy")
                   ).lower(np.zeros(2, np.float32)).as_text()
    assert _MORE_ATTRIBUTES in text


def test_ffi_call_side_effect_survives_dce():
    f = jax.ffi.ffi_call("t", jax.ShapeDtypeStruct((), jnp.float32), has_side_effect=True)
    g = jax.ffi.ffi_call("t", jax.ShapeDtypeStruct((), jnp.float32))
    text = jax.jit(lambda x: (f(x), x)[1]).lower(1.0).as_text()
    assert "custom_call @t" in text
    assert "custom_call @t" not in jax.jit(lambda x: (g(x), x)[1]).lower(1.0).as_text()


def test_ffi_call_errors_as_jax():
    a = np.zeros((3, 3), np.float32)
    sds = jax.ShapeDtypeStruct((3, 3), jnp.float32)
    with pytest.raises(ValueError, match="cannot be differentiated"):
        jax.grad(lambda a: _getrf(a)[0].sum())(a)
    with pytest.raises(ValueError, match=r"mapping '0:0' referring to an input with "
                                         r"abstract value"):
        jax.ffi.ffi_call("t", sds, input_output_aliases={0: 0})(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"input index 1 outside the range \[0, 1\)"):
        jax.ffi.ffi_call("t", sds, input_output_aliases={1: 0})(a)
    with pytest.raises(ValueError, match=r"number of input layouts \(2\)"):
        jax.ffi.ffi_call("t", sds, input_layouts=[None, None])(a)
    with pytest.raises(ValueError, match="legacy_backend_config parameter requires"):
        jax.ffi.ffi_call("t", sds, legacy_backend_config="x")
    with pytest.raises(ValueError, match="must have 'shape' and 'dtype'"):
        jax.ffi.ffi_call("t", [sds, 3])
    with pytest.raises(ValueError, match="not supported after jaxlib"):
        jax.ffi.register_ffi_type_id("t", None)


def test_ffi_lowering_for_a_user_primitive():
    """JAX's "FFI" tutorial pattern: a primitive of one's own, lowered by ffi_lowering."""
    from glassjax.extend import core as jex_core
    from glassjax.interpreters import mlir
    target = lapack.prepare_lapack_call("getrf_ffi", np.float64)
    prim = jex_core.Primitive("my_getrf")
    prim.multiple_results = True
    prim.def_impl(lambda a: jax.jit(prim.bind)(a))
    prim.def_abstract_eval(lambda a: [a, jax.core.ShapedArray(a.shape[:-1], np.int32),
                                      jax.core.ShapedArray((), np.int32)])
    mlir.register_lowering(prim, jax.ffi.ffi_lowering(
        target, operand_layouts=[(0, 1)], result_layouts=[(0, 1), None, None]),
        platform="cpu")
    a = np.random.RandomState(2).randn(5, 5)
    with jax.enable_x64(True):
        _check_lu(a, *prim.bind(a))


def test_include_dir_and_pycapsule():
    assert (jax.ffi.include_dir().endswith("jaxlib/include"))
    import os
    assert os.path.exists(os.path.join(jax.ffi.include_dir(), "xla", "ffi", "api", "ffi.h"))
    capsule = jax.ffi.pycapsule(ctypes.pythonapi.Py_IncRef)
    assert type(capsule).__name__ == "PyCapsule"
    jax.ffi.register_ffi_target_as_batch_partitionable("glassjax_test_partitionable")


_AXPY_CC = """
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

// out = alpha * x + y elementwise; count = the number of elements.
static ffi::Error AxpyImpl(float alpha, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                           ffi::ResultBuffer<ffi::F32> out,
                           ffi::ResultBuffer<ffi::S32> count) {
  if (x.element_count() != y.element_count())
    return ffi::Error::InvalidArgument("axpy: x and y differ in size");
  for (size_t i = 0; i < x.element_count(); ++i)
    out->typed_data()[i] = alpha * x.typed_data()[i] + y.typed_data()[i];
  count->typed_data()[0] = static_cast<int32_t>(x.element_count());
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Axpy, AxpyImpl,
    ffi::Ffi::Bind().Attr<float>("alpha").Arg<ffi::Buffer<ffi::F32>>()
        .Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::S32>>());
"""


@pytest.fixture(scope="module")
def axpy_target(tmp_path_factory):
    """A typed-FFI handler compiled here against jaxlib's headers and registered."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    src = tmp_path_factory.mktemp("ffi") / "axpy.cc"
    src.write_text(_AXPY_CC)
    lib = src.with_suffix(".so")
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-std=c++17", "-w",
                    "-I", jax.ffi.include_dir(), str(src), "-o", str(lib)], check=True)
    handler = ctypes.cdll.LoadLibrary(str(lib)).Axpy
    jax.ffi.register_ffi_target("glassjax_test_axpy", jax.ffi.pycapsule(handler))
    return "glassjax_test_axpy"


def _axpy(target, alpha, x, y, vmap_method="broadcast_all"):
    return jax.ffi.ffi_call(target, (jax.ShapeDtypeStruct(x.shape, x.dtype),
                                     jax.ShapeDtypeStruct((), jnp.int32)),
                            vmap_method=vmap_method)(x, y, alpha=np.float32(alpha))


def test_ffi_call_a_handler_compiled_against_include_dir(axpy_target):
    rng = np.random.RandomState(3)
    x, y = rng.randn(2, 3).astype(np.float32), rng.randn(2, 3).astype(np.float32)
    out, count = _axpy(axpy_target, 2.5, x, y)
    np.testing.assert_allclose(out, 2.5 * x + y, rtol=1e-6)
    assert int(count) == 6
    out, count = jax.jit(_axpy, static_argnums=(0, 1))(axpy_target, -1.0, x, y)
    np.testing.assert_allclose(out, y - x, rtol=1e-6)
    # vmap over rows with y shared: broadcast_all gives y a full batch axis.
    out, _ = jax.vmap(lambda r: _axpy(axpy_target, 2.0, r, y[0]))(x)
    np.testing.assert_allclose(out, 2.0 * x + y[0], rtol=1e-6)
    out, counts = jax.vmap(lambda r: _axpy(axpy_target, 2.0, r, y[0], "sequential"))(x)
    np.testing.assert_allclose(out, 2.0 * x + y[0], rtol=1e-6)
    np.testing.assert_array_equal(counts, [3, 3])
    # The handler's own errors and XLA's checks of the typed signature reach the user.
    with pytest.raises(Exception, match="axpy: x and y differ in size"):
        _axpy(axpy_target, 1.0, x, y[0])
    with pytest.raises(Exception, match="Wrong number of results"):
        jax.ffi.ffi_call(axpy_target, jax.ShapeDtypeStruct(x.shape, x.dtype))(
            x, y, alpha=np.float32(1))


# ----------------------------------------------------------------------------------------
# Block-scaled matmuls (the jaxprs are compared with JAX's in
# tests/jax_programs/api_scaled_matmul.py; JAX 0.10.2 cannot run nn.scaled_matmul on CPU,
# so values are checked against NumPy here)
# ----------------------------------------------------------------------------------------

BF16 = ml_dtypes.bfloat16


def _np_dequantized(x, scale, axis):
    """NumPy: ``x * repeat(scale)`` along ``axis``, both factors rounded to bfloat16 as
    the decomposition converts them (XLA's CPU backend keeps the bf16 product in float32
    on its way into the dot, so the product is not rounded again)."""
    rep = np.repeat(scale.astype(np.float32), x.shape[axis] // scale.shape[axis], axis=axis)
    return x.astype(BF16).astype(np.float32) * rep.astype(BF16).astype(np.float32)


@pytest.mark.parametrize("seed", range(3))
def test_lax_scaled_dot_against_numpy(seed):
    rng = np.random.RandomState(seed)
    b, m, k, n, blocks = rng.randint(1, 4), rng.randint(1, 5), 8 * rng.randint(1, 4), \
        rng.randint(1, 5), 2
    lhs = rng.randn(b, m, k).astype(np.float32)
    rhs = rng.randn(b, k, n).astype(np.float32)
    ls = rng.uniform(.5, 2, (b, m, blocks)).astype(np.float32)
    rs = rng.uniform(.5, 2, (b, blocks, n)).astype(np.float32)
    out = jax.lax.scaled_dot(lhs, rhs, lhs_scale=ls, rhs_scale=rs,
                             preferred_element_type=jnp.float32)
    assert out.dtype == np.float32 and out.shape == (b, m, n)
    expected = np.einsum("bmk,bkn->bmn", _np_dequantized(lhs, ls, 2),
                         _np_dequantized(rhs, rs, 1))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    default = jax.lax.scaled_dot(lhs, rhs, lhs_scale=ls, rhs_scale=rs)
    assert default.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(default, np.float32), expected, rtol=2e-2,
                               atol=2e-2)
    # vmap (scales batched or not) against a loop.
    f = lambda a, c: jax.lax.scaled_dot(a, rhs[0], lhs_scale=c, rhs_scale=rs[0],
                                        preferred_element_type=jnp.float32)
    np.testing.assert_allclose(jax.vmap(f)(lhs, ls), np.stack([f(lhs[i], ls[i])
                                                                for i in range(b)]))


def test_lax_scaled_dot_errors_as_jax():
    x = np.ones((2, 8), np.float32)
    with pytest.raises(TypeError, match="scaled_dot does not support 0-rank and 1-rank"):
        jax.lax.scaled_dot(np.ones(8, np.float32), np.ones(8, np.float32))
    with pytest.raises(TypeError, match=r"ratio of LHS contracting dim 1 to its scale's "
                                        r"dim size \(1\) must be at least 2"):
        jax.lax.scaled_dot(x, x.T, lhs_scale=x)
    with pytest.raises(TypeError, match="LHS dim 0 of size 2 does not match scale"):
        jax.lax.scaled_dot(x, x.T, lhs_scale=np.ones((3, 2), np.float32))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'scaled_dot'"):
        jax.grad(lambda x: jax.lax.scaled_dot(x, x.T).astype(jnp.float32).sum())(x)


def test_scaled_matmul_docstring_example_and_float8_inputs():
    a = jnp.array([1, 2, 3]).reshape((1, 1, 3))
    b = jnp.array([4, 5, 6]).reshape((1, 1, 3))
    s = jnp.array([0.5]).reshape((1, 1, 1))
    out = jax.nn.scaled_matmul(a, b, s, s)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[[8.]]])
    # mxfp8 operands: float8_e4m3fn values, one power-of-two float8_e8m0fnu scale per 32.
    rng = np.random.RandomState(4)
    a = rng.randn(2, 3, 64).astype(ml_dtypes.float8_e4m3fn)
    b = rng.randn(2, 5, 64).astype(ml_dtypes.float8_e4m3fn)
    sa = (2.0 ** rng.randint(-3, 3, (2, 3, 2))).astype(ml_dtypes.float8_e8m0fnu)
    sb = (2.0 ** rng.randint(-3, 3, (2, 5, 2))).astype(ml_dtypes.float8_e8m0fnu)
    out = jax.nn.scaled_matmul(a, b, sa, sb)
    expected = np.einsum("bmk,bnk->bmn", _np_dequantized(a, sa, 2), _np_dequantized(b, sb, 2))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.nn.scaled_matmul)(a, b, sa, sb), out)
    # vmap of all four operands against a loop.
    stack = lambda x: np.stack([x, x[::-1]])
    outs = jax.vmap(jax.nn.scaled_matmul)(stack(a), stack(b), stack(sa), stack(sb))
    np.testing.assert_allclose(outs[1], jax.nn.scaled_matmul(a[::-1], b[::-1], sa[::-1],
                                                             sb[::-1]))
    with pytest.raises(ValueError, match="requires all inputs to be 3-dimensional"):
        jax.nn.scaled_matmul(a[0], b, sa, sb)
    with pytest.raises(ValueError, match="scales to match non-contract dimensions"):
        jax.nn.scaled_matmul(a, b, sb, sa)


def _np_quantize(x, mode, global_scale=1.0):
    """NumPy quantization of ``(B, M, K)``: per block, scale = max|x| / largest value of
    the format (mxfp8: rounded up to a power of two), values = x / scale cast down."""
    block = 32 if mode == "mxfp8" else 16
    data_type = ml_dtypes.float8_e4m3fn if mode == "mxfp8" else ml_dtypes.float4_e2m1fn
    largest = float(ml_dtypes.finfo(data_type).max)
    blocks = x.reshape(x.shape[:-1] + (x.shape[-1] // block, block)) / global_scale
    amax = np.abs(blocks).max(-1, keepdims=True) / largest
    if mode == "mxfp8":
        scale = (2.0 ** np.ceil(np.log2(amax))).astype(np.float32)
    else:
        scale = np.clip(amax, 0, 448).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
    q = np.clip(blocks / scale, -largest, largest).astype(data_type).astype(np.float32)
    return q.reshape(x.shape), scale[..., 0]


@pytest.mark.parametrize("mode", ["mxfp8", "nvfp4"])
def test_scaled_dot_general_against_numpy_quantization(mode):
    rng = np.random.RandomState(5)
    x, y = rng.randn(2, 4, 64).astype(np.float32), rng.randn(2, 3, 64).astype(np.float32)
    gs = np.float32(0.5)
    cfg = [jax.nn.get_scaled_dot_general_config(mode, jnp.array([gs]) if mode == "nvfp4"
                                                else None)] * 3
    out = jax.nn.scaled_dot_general(x, y, (((2,), (2,)), ((0,), (0,))), configs=cfg)
    assert out.dtype == np.float32 and out.shape == (2, 4, 3)
    g = gs if mode == "nvfp4" else 1.0
    (xq, xs), (yq, ys) = _np_quantize(x, mode, g), _np_quantize(y, mode, g)
    expected = np.einsum("bmk,bnk->bmn", _np_dequantized(xq, xs, 2),
                         _np_dequantized(yq, ys, 2)) * (g * g)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # Quantization error stays small against the exact product.
    exact = np.einsum("bmk,bnk->bmn", x, y)
    assert np.linalg.norm(out - exact) / np.linalg.norm(exact) < (0.1 if mode == "mxfp8"
                                                                  else 0.3)
    assert jax.nn.scaled_dot_general(x, y, (((2,), (2,)), ((0,), (0,)))).dtype == np.float32


def test_scaled_dot_general_gradient_is_straight_through():
    """The gradient is the (quantized) product of the cotangent with the other operand:
    close to the exact dot_general gradient, and computed, as JAX does, by a custom VJP."""
    rng = np.random.RandomState(6)
    x, y = rng.randn(64, 64).astype(np.float32), rng.randn(64, 32).astype(np.float32)
    cfg = [jax.nn.get_scaled_dot_general_config("mxfp8")] * 3
    dn = (((1,), (0,)), ((), ()))
    w = rng.randn(64, 32).astype(np.float32)
    loss = lambda x, y: (jax.nn.scaled_dot_general(x, y, dn, configs=cfg) * w).sum()
    exact = lambda x, y: (jax.lax.dot_general(x, y, dn) * w).sum()
    for got, want in zip(jax.grad(loss, (0, 1))(x, y), jax.grad(exact, (0, 1))(x, y)):
        assert got.shape == want.shape
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 0.1
    assert abs(loss(x, y) - exact(x, y)) / abs(exact(x, y)) < 0.1


# ----------------------------------------------------------------------------------------
# jnp.int1 / jnp.uint1 (ml_dtypes' 1-bit integers; JAX 0.10.2 knows them as dtypes, lowers
# them to i1/ui1 and can hardly compute with them on CPU)
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,lo,hi,signed", [("int1", -1, 0, True),
                                               ("uint1", 0, 1, False)])
def test_one_bit_integer_dtypes_as_jax(name, lo, hi, signed):
    t = getattr(jnp, name)
    assert t.dtype == np.dtype(getattr(ml_dtypes, name)) and str(t.dtype) == name
    assert (jnp.iinfo(t).min, jnp.iinfo(t).max) == (lo, hi)
    assert jnp.issubdtype(t, jnp.signedinteger) == signed
    assert jnp.issubdtype(t, jnp.unsignedinteger) != signed
    assert jnp.isdtype(t, "integral") and jnp.isdtype(t, "signed integer") == signed
    assert jnp.result_type(t, t) == t and jnp.result_type(t, 1) == t
    assert jnp.result_type(t, True) == t
    with pytest.raises(jax.dtypes.TypePromotionError,
                       match="1-bit, 2-bit and 4-bit integers do not"):
        jnp.result_type(t, jnp.int8)
    sds = jax.ShapeDtypeStruct((3,), t)
    assert jax.eval_shape(lambda x: x, sds).dtype == t
    short = "i1" if signed else "u1"
    assert str(jax.make_jaxpr(lambda x: x.astype(jnp.int8))(sds)) == (
        f"{{ lambda ; a:{short}[3]. let\n"
        f"    b:i8[3] = convert_element_type[new_dtype=int8 weak_type=False] a\n"
        "  in (b,) }")
    values = np.array([lo, hi], getattr(ml_dtypes, name))
    x = jax.device_put(values)
    assert x.dtype == t and repr(x) == f"Array([{lo}, {hi}], dtype={name})"
    np.testing.assert_array_equal(np.asarray(x), values)


def test_ffi_call_differentiated_through_custom_vjp(axpy_target):
    """The FFI tutorial's pattern: the handler computes, ``custom_vjp`` says how it
    differentiates; grad, vmap and jit compose around it (against the closed form)."""
    @jax.custom_vjp
    def f(x, y):
        return _axpy(axpy_target, 3.0, x, y)[0]
    f.defvjp(lambda x, y: (f(x, y), None), lambda _, g: (3.0 * g, g))
    rng = np.random.RandomState(7)
    x, y = rng.randn(2, 4).astype(np.float32), rng.randn(2, 4).astype(np.float32)
    loss = lambda x, y: (f(x, y) ** 2).sum()
    gx, gy = jax.jit(jax.vmap(jax.grad(loss, (0, 1))))(x, y)
    np.testing.assert_allclose(gx, 6 * (3 * x + y), rtol=1e-5)
    np.testing.assert_allclose(gy, 2 * (3 * x + y), rtol=1e-5)
