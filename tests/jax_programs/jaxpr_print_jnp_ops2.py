import jax
import jax.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
i = jnp.array([0, 2])
print(jax.make_jaxpr(lambda x, i: jnp.take(x, i, axis=1))(x, i))
print(jax.make_jaxpr(lambda x: jnp.concatenate([x, x], axis=0))(x))
print(jax.make_jaxpr(lambda x: jnp.reshape(x, (3, 2)))(x))
print(jax.make_jaxpr(lambda x: x.reshape(-1))(x))
print(jax.make_jaxpr(lambda x: jnp.squeeze(x[None]))(x))
print(jax.make_jaxpr(lambda x: jnp.expand_dims(x, 1))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.norm(x))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.norm(x, axis=1))(x))
