# jaxprs of vmap of cond / while / scan
import jax
import jax.numpy as jnp
from jax import lax

xs = jnp.array([-1.0, 2.0, 3.0])
print(jax.make_jaxpr(jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)))(xs))
print(jax.make_jaxpr(jax.vmap(lambda p, x: lax.cond(p, lambda v: v * 2, lambda v: v - 1, x), in_axes=(None, 0)))(True, xs))
print(jax.make_jaxpr(jax.vmap(lambda n: lax.while_loop(lambda c: c < n, lambda c: c + 1, 0)))(jnp.array([1, 3, 5])))
print(jax.make_jaxpr(jax.vmap(lambda x: lax.scan(lambda c, y: (c + y, c * y), 0.0, x)))(jnp.arange(6.0).reshape(2, 3)))
print(jax.make_jaxpr(jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)))(xs))
