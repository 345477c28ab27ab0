import jax
import jax.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
print(jax.make_jaxpr(lambda x: jnp.where(x > 1, x, 0.0))(x))
print(jax.make_jaxpr(lambda x: jnp.clip(x, 0.5, 2.0))(x))
print(jax.make_jaxpr(lambda x: jnp.argmax(x, axis=1))(x))
print(jax.make_jaxpr(lambda x: jnp.argmax(x))(x))
print(jax.make_jaxpr(lambda x: jnp.cumsum(x, axis=0))(x))
print(jax.make_jaxpr(lambda x: jnp.cumsum(x))(x))
print(jax.make_jaxpr(lambda x: jnp.sort(x))(x))
print(jax.make_jaxpr(lambda x: jnp.sort(x, axis=0))(x))
