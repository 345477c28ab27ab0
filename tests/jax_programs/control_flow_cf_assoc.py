import jax
import jax.numpy as jnp
from jax import lax
print(lax.associative_scan(jnp.multiply, jnp.arange(1.0, 6.0)))
print(lax.associative_scan(lambda a, b: a + b, jnp.arange(8).reshape(2, 4), axis=1))
def lin(a, b):
    return (a[0] * b[0], a[1] * b[0] + b[1])
print(lax.associative_scan(lin, (jnp.full(4, 0.5), jnp.arange(4.0))))
print(jax.make_jaxpr(lambda x: lax.associative_scan(jnp.maximum, x))(jnp.arange(5.0)))
print(lax.cummax(jnp.array([1, 3, 2, 5])), lax.cummin(jnp.array([4, 3, 5, 1])))
print(lax.cumprod(jnp.arange(1, 5)), lax.cumlogsumexp(jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x: lax.cummax(x, reverse=True))(jnp.arange(4.0)))
print(lax.map(lambda xy: xy[0] + xy[1], (jnp.arange(3), jnp.arange(3))))
print(jax.make_jaxpr(lambda x: lax.map(lambda v: {"s": v.sum()}, x))(jnp.ones((2, 3))))
