# vmap with lax.map, callbacks, debug.print, jacobians
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

xs = jnp.arange(6.0).reshape(3, 2)
print(lax.map(lambda r: r.sum(), xs))
print(lax.map(lambda r: r * 2, xs, batch_size=2))
print(jax.make_jaxpr(lambda a: lax.map(lambda r: r.sum(), a, batch_size=3))(xs))
def host(x):
    return np.sin(x)
cb = lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='sequential')
print(jax.vmap(cb)(xs))
cb2 = lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='broadcast_all')
print(jax.vmap(cb2)(xs))
print(jax.make_jaxpr(jax.vmap(cb2))(xs))
def dp(x):
    jax.debug.print("x={x}", x=x)
    return x + 1
print(jax.vmap(dp)(jnp.arange(3.0)))
print(jax.jacfwd(lambda v: jnp.sin(v) * v[0])(jnp.arange(3.0)))
print(jax.jacrev(lambda v: jnp.sin(v) * v[0])(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.jacfwd(lambda v: jnp.sin(v)))(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.jacrev(lambda v: jnp.sin(v)))(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.hessian(lambda v: jnp.sum(v ** 3)))(jnp.arange(3.0)))
