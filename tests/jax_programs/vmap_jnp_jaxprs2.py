# jaxprs of vmap with in_axes != 0 and unbatched operands
import jax
import jax.numpy as jnp

x = jnp.arange(12.0).reshape(3, 4)
m = jnp.ones((4, 4))
print(jax.make_jaxpr(jax.vmap(jnp.dot, in_axes=(1, None)))(x, jnp.ones(3)))
print(jax.make_jaxpr(jax.vmap(jnp.matmul, in_axes=(0, None)))(x, m))
print(jax.make_jaxpr(jax.vmap(jnp.matmul, in_axes=(None, 0)))(m, x))
print(jax.make_jaxpr(jax.vmap(lambda a, b: a * b, in_axes=(1, 0)))(x, jnp.ones((4, 3))))
print(jax.make_jaxpr(jax.vmap(lambda a, b: a + b, in_axes=(0, None), out_axes=1))(x, jnp.ones(4)))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.sum(a, axis=0), in_axes=1))(jnp.ones((2, 3, 4))))
print(jax.make_jaxpr(jax.vmap(lambda a: a.reshape(-1), in_axes=2))(jnp.ones((2, 3, 4))))
print(jax.make_jaxpr(jax.vmap(lambda a, j: a[j], in_axes=(1, 0)))(x, jnp.array([0, 1, 2, 0])))
print(jax.make_jaxpr(jax.vmap(lambda a, j: a[:, j], in_axes=(None, 0)))(x, jnp.array([0, 1])))
print(jax.make_jaxpr(jax.vmap(lambda a: jnp.where(a > 2, size=2, fill_value=0)[0] if False else jnp.argmax(a > 2)))(x))
print(jax.make_jaxpr(jax.vmap(jnp.linalg.det))(jnp.ones((2, 3, 3))))
