# vmap of cond, while, scan, fori_loop, switch
import jax
import jax.numpy as jnp
from jax import lax

xs = jnp.array([-1.0, 2.0, 3.0])
print(jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(xs))
print(jax.vmap(lambda p, x: lax.cond(p, lambda v: v * 2, lambda v: v - 1, x), in_axes=(None, 0))(True, xs))
print(jax.vmap(lambda i, x: lax.switch(i, [lambda v: v, lambda v: v * 10, lambda v: -v], x))(jnp.array([0, 1, 2]), xs))
print(jax.vmap(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0)))(jnp.array([1, 3, 5])))
print(jax.vmap(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i * x, 0.0))(xs))
print(jax.vmap(lambda x: lax.scan(lambda c, y: (c + y, c * y), 0.0, x))(jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(lambda x: lax.fori_loop(0, x, lambda i, c: c + i, 0))(jnp.array([2, 4, 6])))
