# Narrow floats and sub-byte integers (ml_dtypes) compute eagerly and under jit.
import jax, jax.numpy as jnp, numpy as np
for t in (jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.bfloat16, jnp.int4, jnp.uint4, jnp.int2, jnp.float4_e2m1fn, jnp.float8_e8m0fnu):
    try:
        x = jnp.arange(4).astype(t)
        print(t.dtype, repr(x))
        print(repr(x + x), repr(jax.jit(lambda a: a * 2)(x)), repr(jnp.array([1, 2], t)))
        print(repr(jnp.ones(3, t)), repr(jnp.sum(x.astype(jnp.float32))))
    except Exception as e:
        print(t, "ERR", type(e).__name__, str(e)[:150])
