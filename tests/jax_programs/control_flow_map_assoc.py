import jax
import jax.numpy as jnp
from jax import lax
print(lax.map(lambda x: x ** 2, jnp.arange(4.0)))
print(jax.make_jaxpr(lambda xs: lax.map(jnp.sin, xs))(jnp.arange(4.0)))
print(lax.map(lambda x: x * 2, jnp.arange(6.0), batch_size=2))
print(jax.make_jaxpr(lambda xs: lax.map(lambda x: x * 2, xs, batch_size=2))(jnp.arange(6.0)))
print(lax.associative_scan(jnp.add, jnp.arange(5.0)))
print(lax.associative_scan(jnp.add, jnp.arange(5.0), reverse=True))
print(lax.associative_scan(jnp.maximum, jnp.array([1, 3, 2, 5, 4])))
print(jax.make_jaxpr(lambda x: lax.associative_scan(jnp.add, x))(jnp.arange(4.0)))
print(lax.select_n(jnp.array([0, 1, 2]), jnp.zeros(3), jnp.ones(3), jnp.full(3, 2.0)))
print(jax.make_jaxpr(lambda p, a, b: lax.select_n(p, a, b))(True, 1.0, 2.0))
print(lax.select(jnp.array([True, False]), jnp.ones(2), jnp.zeros(2)))
