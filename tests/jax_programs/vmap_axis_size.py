# axis_size and unmapped inputs
import jax
import jax.numpy as jnp

print(jax.vmap(lambda x: x * 2, in_axes=None, axis_size=3)(jnp.arange(2.0)))
print(jax.vmap(lambda: jnp.ones(2), axis_size=4)())
print(jax.vmap(lambda x: x + 1, in_axes=None, out_axes=1, axis_size=2)(jnp.arange(3)))
print(jax.vmap(lambda x, y: x * y, in_axes=(0, None), axis_size=3)(jnp.arange(3.0), 2.0))
print(jax.make_jaxpr(jax.vmap(lambda x: x * 2, in_axes=None, axis_size=3))(jnp.arange(2.0)))
print(jax.make_jaxpr(jax.vmap(lambda x, y: x + y, in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(2)))
