# x.at[i] updates and x[i] with a traced weakly typed index
import jax, jax.numpy as jnp
x = jnp.arange(6).reshape(2, 3)
print(jax.make_jaxpr(lambda x, i: x.at[i].add(5))(x, 0))
print(jax.make_jaxpr(lambda x, i: x[i])(x, 0))
print(jax.make_jaxpr(lambda x, i: x.at[i].set(5))(x, jnp.int32(0)))
