# random with batched keys
import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.PRNGKey(0), 3)
print(jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys))
print(jax.vmap(lambda k: jax.random.uniform(k))(keys))
print(jax.vmap(jax.random.split)(keys).shape)
print(jax.vmap(lambda k: jax.random.randint(k, (3,), 0, 10))(keys))
tk = jax.random.split(jax.random.key(1), 2)
print(jax.vmap(lambda k: jax.random.bernoulli(k, 0.5, (4,)))(tk))
print(jax.vmap(lambda k, m: m + jax.random.normal(k), in_axes=(0, 0))(tk, jnp.array([10.0, 20.0])))
print(jax.vmap(jax.random.key_data)(tk))
print(jax.vmap(lambda k: jax.random.fold_in(k, 3))(tk))
print(jax.vmap(lambda k: jax.random.permutation(k, 5))(keys))
print(jax.vmap(lambda k: jax.random.choice(k, 5, (2,), replace=False))(keys))
