# make_jaxpr of vmap of indexing, dynamic_slice, concatenate
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.ones((3, 5))
i = jnp.array([0, 1, 2])
print(jax.make_jaxpr(jax.vmap(lambda v, j: v[j]))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda v: v[1:3]))(x))
print(jax.make_jaxpr(jax.vmap(lambda v, j: lax.dynamic_slice(v, (j,), (2,))))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda v, j: lax.dynamic_update_slice(v, jnp.zeros(2), (j,))))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.concatenate([v, v])))(x))
print(jax.make_jaxpr(jax.vmap(lambda v, j: v.at[j].set(0.0)))(x, i))
print(jax.make_jaxpr(jax.vmap(lambda v, j: v.at[j].add(1.0), in_axes=(0, None)))(x, 2))
