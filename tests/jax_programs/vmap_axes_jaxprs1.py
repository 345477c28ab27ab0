# jaxprs with batch dims not at 0 for various primitives
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(24.0).reshape(2, 3, 4)
i = jnp.array([0, 2, 1])
print(jax.make_jaxpr(jax.vmap(jnp.sort, in_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(jnp.argsort, in_axes=2))(x))
print(jax.make_jaxpr(jax.vmap(jnp.cumsum, in_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.cumsum(a, axis=1), in_axes=2, out_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda a, j: a[j], in_axes=(1, 0)))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda a, j: a.at[j].set(0.0), in_axes=(1, 0)))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda a, j: lax.dynamic_slice_in_dim(a, j, 2, axis=1), in_axes=(1, 0)))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda a, j: lax.dynamic_update_slice_in_dim(a, jnp.zeros((2, 1)), j, axis=1), in_axes=(1, 0)))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.concatenate([a, a], axis=0), in_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: a.T @ a, in_axes=2))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.max(a, axis=0), in_axes=1, out_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.transpose(a), in_axes=1, out_axes=2))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.expand_dims(a, 0), in_axes=2))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: a[:, 1:3], in_axes=1))(x))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.pad(a, 1), in_axes=1))(x))
