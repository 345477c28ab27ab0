"""What optax 0.2.8's own tests found missing or wrong in glassjax, each checked here
directly against JAX 0.10.2's recorded behaviour (not only through optax)."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


def test_like_functions_accept_a_shape_dtype_struct():
    # optax's MultiSteps zeroes the result of an eval_shape: JAX reads only shape/dtype.
    s = jax.ShapeDtypeStruct((2,), jnp.bfloat16)
    z = jnp.zeros_like(s)
    assert z.dtype == jnp.bfloat16 and z.shape == (2,) and not np.any(np.asarray(z))
    assert jnp.ones_like(s, dtype=jnp.float32).dtype == jnp.float32
    assert str(jax.make_jaxpr(lambda: jnp.full_like(s, 3))()) == (
        "{ lambda ; . let a:bf16[2] = broadcast_in_dim 3.0:bf16[] in (a,) }")
    out = jax.jit(lambda x: jnp.zeros_like(jax.eval_shape(lambda y: y * 2, x)) + x)(
        jnp.ones(3))
    np.testing.assert_array_equal(out, np.ones(3, np.float32))


def test_lowered_compiler_ir_hlo_is_an_xla_computation():
    # optax's numerics tests compare `compiler_ir(dialect="hlo").as_hlo_text()`.
    lowered = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3))
    hlo = lowered.compiler_ir("hlo")
    assert type(hlo).__name__ == "XlaComputation"
    text = hlo.as_hlo_text()
    assert text == lowered.as_text("hlo")
    assert text.splitlines()[2:8] == [       # JAX 0.10.2's text
        "ENTRY main.1 {",
        "  x.1 = f32[3]{0} parameter(0)",
        "  sin.1 = f32[3]{0} sine(x.1)",
        "  constant.1 = f32[] constant(2)",
        "  broadcast.1 = f32[3]{0} broadcast(constant.1), dimensions={}",
        "  ROOT mul.1 = f32[3]{0} multiply(sin.1, broadcast.1)"]
    assert type(lowered.compiler_ir()).__name__ == "Module"
    with pytest.raises(ValueError, match="unknown dialect"):
        lowered.compiler_ir("tosa")


def test_samplers_take_a_sharding_over_the_empty_mesh_as_no_sharding():
    # Outside any mesh, an array's type has a sharding over the empty mesh; optax passes
    # it on as out_sharding=, which JAX's samplers take as no request at all.
    sharding = jax.typeof(jnp.ones(3)).sharding
    key = jax.random.key(0)
    for sampler in (jax.random.normal, jax.random.uniform):
        np.testing.assert_array_equal(sampler(key, (3,), out_sharding=sharding),
                                      sampler(key, (3,)))
    np.testing.assert_allclose(jax.random.normal(key, (3,), out_sharding=sharding),
                               [1.6226422, 2.0252647, -0.43359444], rtol=1e-6)
