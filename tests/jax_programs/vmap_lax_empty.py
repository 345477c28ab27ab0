# source: tests/api_test.py test_lax_empty_vmap, test_lax_empty_batching_bug
import jax
import jax.numpy as jnp
import numpy as np

inp = np.arange(8, dtype=jnp.int32).reshape(4, 2)
f = jax.jit(jax.vmap(lambda x: jax.lax.empty(x.shape, x.dtype)))
r = f(inp)
print(r.shape, r.dtype)
print(jax.make_jaxpr(jax.vmap(lambda x: jax.lax.empty(x.shape, x.dtype)))(inp))
print(jax.make_jaxpr(lambda: jax.lax.empty((2,), np.dtype('float32')))())
def g(x):
    out = jax.lax.empty((2,), x.dtype)
    out = out.at[0].set(1)
    return out.at[1].set(out[0] * x[0])
try:
    print(jax.hessian(g)(jnp.arange(3.0)))
except ValueError as e:
    print(type(e).__name__, e)
print(jax.vmap(g)(jnp.arange(6.0).reshape(2, 3)))
