import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
W = jnp.arange(6.0).reshape(2, 3)
b = np.ones(3, np.float32)
@jax.jit
def layer(x):
    return jnp.tanh(x @ W + b)
print(jax.make_jaxpr(layer)(jnp.ones((4, 2))))
print(jax.make_jaxpr(lambda x: layer(x) * 2)(jnp.ones((4, 2))))
print(jax.make_jaxpr(lambda x: lax.cond(x.sum() > 0, lambda x: x @ W, lambda x: x @ (W * 2), x))(jnp.ones(2)))
print(jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x @ W, None), jnp.zeros(3), xs))(jnp.ones((5, 2))))
print(jax.make_jaxpr(lambda x: W)(1.0))
print(jax.make_jaxpr(lambda x: (W, x, b))(1.0))
print(jax.make_jaxpr(lambda x: x + np.float32(2))(1.0))
print(jax.make_jaxpr(lambda x: x + np.array(2.0))(1.0))
print(jax.make_jaxpr(lambda x: x + np.array([2.0]))(1.0))
print(jax.make_jaxpr(lambda x: x + jnp.array(2.0) + jnp.array([3.0]))(1.0))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + W[0], x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c.sum() < b.sum(), lambda c: c + b, x))(jnp.zeros(3)))
cj = jax.make_jaxpr(lambda x: x @ W)(jnp.ones(2))
print(cj.consts)
print(len(cj.jaxpr.constvars))
