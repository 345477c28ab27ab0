import jax
import jax.numpy as jnp
from jax import lax
def f(x):
    return lax.cond(x > 0, jnp.sin, jnp.cos, x)
print(jax.make_jaxpr(jax.grad(f))(1.0))
print(jax.grad(f)(1.0), jax.grad(f)(-1.0))
print(jax.make_jaxpr(jax.vmap(f))(jnp.array([1.0, -1.0])))
print(jax.vmap(f)(jnp.array([1.0, -1.0])))
def s(xs):
    c, ys = lax.scan(lambda c, x: (c * x, c), 1.0, xs)
    return c + ys.sum()
print(jax.make_jaxpr(jax.grad(s))(jnp.arange(1.0, 4.0)))
print(jax.grad(s)(jnp.arange(1.0, 4.0)))
print(jax.make_jaxpr(jax.vmap(s))(jnp.ones((2, 3))))
print(jax.make_jaxpr(jax.jvp, static_argnums=())(f, (1.0,), (1.0,)) if False else jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0))
