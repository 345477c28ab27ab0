import jax, jax.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
print(jax.make_jaxpr(lambda x: jnp.linalg.svd(x, compute_uv=False))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.svd(x))(x))
