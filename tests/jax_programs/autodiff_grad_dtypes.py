import jax
import jax.numpy as jnp
import numpy as np

for x in [1.0, jnp.float32(1.0), np.float32(1.0), jnp.array(1.0), jnp.array(1.0, dtype=jnp.bfloat16), jnp.array(1.0, dtype=jnp.float16)]:
    g = jax.grad(lambda x: x ** 2 * 3)(x)
    print(repr(g), g.dtype, g.weak_type)
v, g = jax.value_and_grad(lambda x: jnp.sin(x))(2.0)
print(repr(v), repr(g))
print(repr(jax.grad(lambda x, y: x * y, argnums=1)(2.0, jnp.float32(3.0))))
print(repr(jax.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, jnp.float32(3.0))))
print(jax.grad(lambda p: p['a'] * p['b'][0] + jnp.sum(p['b'][1]))({'a': 2.0, 'b': (3.0, jnp.ones(2))}))
print(jax.grad(lambda x: jnp.sum(x ** 2))(jnp.arange(4.0).reshape(2, 2)))
