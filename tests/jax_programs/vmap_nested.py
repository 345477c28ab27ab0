# nested vmap
import jax
import jax.numpy as jnp

f = lambda x, y: jnp.dot(x, y)
x = jnp.arange(6.0).reshape(2, 3)
y = jnp.arange(12.0).reshape(4, 3)
print(jax.vmap(jax.vmap(f, (None, 0)), (0, None))(x, y))
print(jax.make_jaxpr(jax.vmap(jax.vmap(f, (None, 0)), (0, None)))(x, y))
print(jax.vmap(jax.vmap(lambda a: a ** 2))(x))
print(jax.vmap(jax.vmap(jnp.sum, in_axes=1), in_axes=2)(jnp.ones((2, 3, 4, 5))).shape)
print(jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))(jnp.arange(3.0), jnp.arange(2.0)))
print(jax.make_jaxpr(jax.vmap(jax.vmap(lambda a: jnp.sin(a) + 1.0)))(x))
