# jaxprs of jitted functions with pytrees, consts and multiple outputs
import jax
import jax.numpy as jnp
import numpy as np

c = np.arange(3.0, dtype=np.float32)
@jax.jit
def f(d, y):
    return {'s': d['a'] * y + c, 't': (d['b'], y)}
print(jax.make_jaxpr(f)({'a': jnp.ones(3), 'b': 2}, 1.0))
print(jax.make_jaxpr(lambda x: f({'a': x, 'b': x}, x))(jnp.ones(3)))
g = jax.jit(lambda x: (x, x, x + 1))
print(jax.make_jaxpr(g)(1.0))
h = jax.jit(lambda x: jnp.zeros(3) + jnp.array([1.0, 2.0, 3.0]))
print(jax.make_jaxpr(h)(1.0))
print(jax.make_jaxpr(lambda x: jax.jit(lambda: x)())(1.0))
print(jax.make_jaxpr(jax.jit(lambda x, y: x))(1.0, 2.0))
print(jax.make_jaxpr(jax.jit(lambda x, y: x, keep_unused=True))(1.0, 2.0))
