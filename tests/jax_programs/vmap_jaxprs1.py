# make_jaxpr of vmapped functions
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.ones((3, 4))
print(jax.make_jaxpr(jax.vmap(jnp.sum))(x))
print(jax.make_jaxpr(jax.vmap(jnp.sum, in_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: v @ v))(x))
print(jax.make_jaxpr(jax.vmap(lambda v, m: m @ v, in_axes=(0, None)))(x, jnp.ones((2, 4))))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.sin(v) * 2, out_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: v.reshape(2, 2)))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: v.T, in_axes=1))(jnp.ones((3, 4, 5))))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.cumsum(v)))(x))
print(jax.make_jaxpr(jax.vmap(jnp.sort))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.where(v > 0, v, 0.0)))(x))
