# jaxprs of vmap of lax functions
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(12.0).reshape(3, 4)
print(jax.make_jaxpr(jax.vmap(lambda v: lax.cumsum(v, reverse=True)))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.top_k(v, 2)))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.pad(v, 0.0, [(1, 2, 0)])))(x))
print(jax.make_jaxpr(jax.vmap(lambda lo, v: lax.clamp(lo, v, 8.0)))(jnp.array([0.0, 5.0, 9.0]), x))
print(jax.make_jaxpr(jax.vmap(lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ())))))(x, x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.reduce_window(v, 0.0, lax.add, (2,), (1,), 'VALID')))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.argmax(v, 0, jnp.int32)))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.select(v > 5, v, -v)))(x))
print(jax.make_jaxpr(jax.vmap(lambda v, s: lax.select(s, v, -v), in_axes=(0, None)))(x, True))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.iota(jnp.int32, 3) + v))(jnp.arange(2)))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.conv_general_dilated(v[None, None], jnp.ones((1, 1, 2)), (1,), 'VALID')[0, 0]))(x))
