# more control flow jaxprs under vmap
import jax
import jax.numpy as jnp
from jax import lax

def cumsum_scan(xs):
    return lax.scan(lambda c, x: (c + x, c), 0.0, xs)[1]
print(jax.make_jaxpr(jax.vmap(cumsum_scan, in_axes=1))(jnp.ones((4, 3))))
def loop(x, n):
    return lax.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0))[0]
print(jax.vmap(loop)(jnp.arange(3.0), jnp.array([1, 2, 3])))
print(jax.vmap(loop, in_axes=(0, None))(jnp.arange(3.0), 2))
print(jax.make_jaxpr(jax.vmap(loop))(jnp.arange(3.0), jnp.array([1, 2, 3])))
print(jax.make_jaxpr(jax.vmap(loop, in_axes=(0, None)))(jnp.arange(3.0), 2))
def sw(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda v: v], x)
print(jax.make_jaxpr(jax.vmap(sw))(jnp.array([0, 1, 2]), jnp.arange(3.0)))
print(jax.make_jaxpr(jax.vmap(sw, in_axes=(None, 0)))(1, jnp.arange(3.0)))
def cond2(p, x, y):
    return lax.cond(p, lambda a, b: a + b, lambda a, b: a - b, x, y)
print(jax.make_jaxpr(jax.vmap(cond2, in_axes=(0, 0, None)))(jnp.array([True, False]), jnp.ones(2), 3.0))
print(jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c.at[i].set(x), jnp.zeros(3)))(jnp.arange(2.0)))
print(jax.make_jaxpr(jax.vmap(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + x, 0.0)))(jnp.arange(2.0), jnp.array([2, 3])))
