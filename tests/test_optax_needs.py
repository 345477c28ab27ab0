"""What optax 0.2.8's own tests found missing or wrong in glassjax, each checked here
directly against JAX 0.10.2's recorded behaviour (not only through optax)."""
import numpy as np

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
