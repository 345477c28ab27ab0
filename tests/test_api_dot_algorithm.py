"""lax.DotAlgorithm / DotAlgorithmPreset as dot_general's ``precision``: jaxpr params and
StableHLO ``algorithm`` attributes as JAX 0.10.2 prints them, values against NumPy, and
the presets the CPU backend refuses."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax

P = lax.DotAlgorithmPreset
RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 3)).astype(np.float32)
Y = RNG.normal(size=(3, 4)).astype(np.float32)


def test_preset_and_algorithm_describe_themselves():
    assert list(P.__members__)[:2] == ["DEFAULT", "ANY_F8_ANY_F8_F32"] and len(P) == 16
    assert repr(P.F32_F32_F32) == "DotAlgorithmPreset.F32_F32_F32" and str(P.DEFAULT) == "DEFAULT"
    assert P.BF16_BF16_F32.supported_lhs_types == (jnp.bfloat16, np.float32)
    assert P.F16_F16_F16.accumulation_type is np.float16 and P.DEFAULT.accumulation_type is None
    a = lax.DotAlgorithm(np.float32, np.float32, np.float32)
    assert (a.lhs_component_count, a.num_primitive_operations,
            a.allow_imprecise_accumulation) == (1, 1, False)


def test_jaxpr_prints_the_algorithm_as_jax():
    f = lambda x, y: lax.dot(x, y, precision=P.F32_F32_F32)
    assert str(jax.make_jaxpr(f)(X, Y)) == """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=F32_F32_F32
    ] a b
  in (c,) }"""
    assert str(jax.make_jaxpr(lambda x, y: jnp.dot(x, y, precision="F32_F32_F32"))(X, Y)) \
        == """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=F32_F32_F32
      preferred_element_type=float32
    ] a b
  in (c,) }"""
    a = lax.DotAlgorithm(lhs_precision_type=np.float32, rhs_precision_type=np.float32,
                         accumulation_type=np.float32)
    text = str(jax.make_jaxpr(lambda x, y: lax.dot(x, y, precision=a))(X, Y))
    assert ("      precision=DotAlgorithm(lhs_precision_type=<class 'numpy.float32'>, "
            "rhs_precision_type=<class 'numpy.float32'>, accumulation_type=<class "
            "'numpy.float32'>, lhs_component_count=1, rhs_component_count=1, "
            "num_primitive_operations=1, allow_imprecise_accumulation=False)\n") in text
    grad_text = str(jax.make_jaxpr(jax.grad(lambda x: f(x, Y).sum()))(X))
    assert grad_text.count("precision=F32_F32_F32") == 2


def test_lowering_writes_the_algorithm_attribute():
    text = jax.jit(lambda x, y: lax.dot(x, y, precision=P.F32_F32_F32)).lower(X, Y).as_text()
    assert ("%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], "
            "precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = f32, "
            "rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, "
            "rhs_component_count = 1, num_primitive_operations = 1, "
            "allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) "
            "-> tensor<2x4xf32>") in text
    text = jax.jit(lambda x, y: lax.dot(x, y, precision=P.BF16_BF16_F32_X3)).lower(X, Y).as_text()
    assert "lhs_precision_type = bf16" in text and "num_primitive_operations = 3" in text


@pytest.mark.parametrize("preset", [P.DEFAULT, P.F32_F32_F32, P.BF16_BF16_F32_X3,
                                    P.BF16_BF16_F32_X6])
def test_values_match_numpy(preset):
    out = lax.dot(X, Y, precision=preset)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, X @ Y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jax.jit(lambda x, y: jnp.matmul(x, y, precision=preset))(X, Y),
                               X @ Y, rtol=1e-5, atol=1e-5)


def test_reduced_precision_presets():
    # float32 is a storage type BF16_BF16_F32 takes as it is (as in JAX: exact on CPU)
    np.testing.assert_allclose(lax.dot(X, Y, precision=P.BF16_BF16_F32), X @ Y, rtol=1e-6)
    b = X.astype(jnp.bfloat16), Y.astype(jnp.bfloat16)
    out = lax.dot(*b, precision=P.BF16_BF16_F32)
    assert out.dtype == jnp.bfloat16
    np.testing.assert_allclose(out.astype(np.float32), b[0].astype(np.float32) @
                               b[1].astype(np.float32), rtol=1e-2, atol=1e-2)
    h = X.astype(np.float16), Y.astype(np.float16)
    out = lax.dot(*h, precision=P.F16_F16_F16)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), h[0].astype(np.float32) @
                               h[1].astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("precision", [P.TF32_TF32_F32, P.BF16_BF16_BF16, P.F16_F16_F32,
                                       lax.DotAlgorithm(np.float32, np.float32, np.float32)])
def test_cpu_refuses_what_it_would_ignore(precision):
    with pytest.raises(ValueError, match="is not supported by dot_general on CPU"):
        lax.dot(X, Y, precision=precision)
