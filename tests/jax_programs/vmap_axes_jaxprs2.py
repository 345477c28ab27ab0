# jaxprs: batched and unbatched operand combinations
import jax
import jax.numpy as jnp
from jax import lax

m = jnp.arange(12.0).reshape(3, 4)
v = jnp.arange(3.0)
i = jnp.array([1, 0, 3])
print(jax.make_jaxpr(jax.vmap(lambda a, j: a[j], in_axes=(None, 0)))(v, jnp.array([0, 2])))
print(jax.make_jaxpr(jax.vmap(lambda a, j: a.at[j].add(1.0), in_axes=(None, 0)))(v, jnp.array([0, 2])))
print(jax.make_jaxpr(jax.vmap(lambda a, u: a.at[1].set(u), in_axes=(None, 0)))(v, jnp.arange(2.0)))
print(jax.make_jaxpr(jax.vmap(lambda a, j, u: a.at[j].set(u), in_axes=(0, 0, 0)))(m, i, v))
print(jax.make_jaxpr(jax.vmap(lambda a, j: jnp.take(a, j, axis=0), in_axes=(1, None)))(m, jnp.array([0, 2])))
print(jax.make_jaxpr(jax.vmap(lambda a, b: jnp.where(a > 1, a, b), in_axes=(0, None)))(m, jnp.zeros(4)))
print(jax.make_jaxpr(jax.vmap(lambda c, a: jnp.where(c, a, 0.0), in_axes=(0, None)))(jnp.array([True, False]), m))
print(jax.make_jaxpr(jax.vmap(lambda a, b: jnp.einsum('ij,j->i', a, b), in_axes=(None, 0)))(m, jnp.ones((2, 4))))
print(jax.make_jaxpr(jax.vmap(lambda a, b: jnp.einsum('ij,jk->ik', a, b), in_axes=(0, 0)))(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))))
print(jax.make_jaxpr(jax.vmap(lambda a, j: lax.dynamic_slice(a, (j, 0), (2, 2)), in_axes=(None, 0)))(m, jnp.array([0, 1])))
print(jax.make_jaxpr(jax.vmap(lambda a, j: lax.dynamic_update_slice(a, jnp.ones((1, 4)), (j, 0)), in_axes=(None, 0)))(m, jnp.array([0, 1])))
print(jax.make_jaxpr(jax.vmap(lambda a, b: jnp.concatenate([a, b]), in_axes=(0, None)))(m, v))
print(jax.make_jaxpr(jax.vmap(lambda a, b: jnp.stack([a, b]), in_axes=(0, None)))(m, jnp.ones(4)))
print(jax.make_jaxpr(jax.vmap(lambda a, b: a @ b, in_axes=(1, None)))(m, v))
