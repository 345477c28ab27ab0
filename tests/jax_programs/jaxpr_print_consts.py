import jax
import jax.numpy as jnp
import numpy as np
c = jnp.array([1.0, 2.0, 3.0])
print(jax.make_jaxpr(lambda x: x + c)(jnp.ones(3)))
n = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print(jax.make_jaxpr(lambda x: x * n)(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: x * np.float32(2))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: x * jnp.float32(2))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: x * jnp.array(2.0))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jnp.zeros(3) + x)(1.0))
print(jax.make_jaxpr(lambda x: jnp.ones((2, 2)) * x)(1.0))
print(jax.make_jaxpr(lambda x: jnp.arange(3) * x)(1.0))
print(jax.make_jaxpr(lambda x: jnp.full((2,), 3.0) - x)(1.0))
print(jax.make_jaxpr(lambda: jnp.arange(4))())
print(jax.make_jaxpr(lambda x: x == True)(True))
print(jax.make_jaxpr(lambda x: jnp.logical_not(x))(True))
