import jax
import jax.numpy as jnp
from jax import lax
def w(x, n):
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))[1]
print(jax.vmap(w)(jnp.array([2.0, 3.0]), jnp.array([2, 3])))
print(jax.make_jaxpr(jax.vmap(w))(jnp.array([2.0, 3.0]), jnp.array([2, 3])))
print(jax.make_jaxpr(jax.vmap(w, in_axes=(0, None)))(jnp.array([2.0, 3.0]), 3))
def s(init, xs):
    return lax.scan(lambda c, x: (c * x, c), init, xs)
print(jax.make_jaxpr(jax.vmap(s, in_axes=(0, None)))(jnp.ones(2), jnp.arange(3.0)))
print(jax.vmap(s, in_axes=(0, None))(jnp.array([1.0, 2.0]), jnp.arange(1.0, 4.0)))
def c(p, x):
    return lax.cond(p, lambda x: x + 1.0, lambda x: x * 3.0, x)
print(jax.make_jaxpr(jax.vmap(c, in_axes=(None, 0)))(True, jnp.ones(2)))
print(jax.make_jaxpr(jax.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], x)))(jnp.array([0, 2]), jnp.ones(2)))
def f(lo, hi):
    return lax.fori_loop(lo, hi, lambda i, c: c + i, 0)
print(jax.vmap(f)(jnp.array([0, 1]), jnp.array([3, 5])))
print(jax.make_jaxpr(jax.vmap(f))(jnp.array([0, 1]), jnp.array([3, 5])))
print(jax.make_jaxpr(jax.jvp, static_argnums=0)(lambda x: s(x, jnp.arange(3.0)), (1.0,), (1.0,)) if False else jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: s(x, jnp.arange(3.0)), (x,), (t,)))(1.0, 1.0))
try:
    jax.grad(lambda x: w(x, 3))(2.0)
except Exception as e:
    print(type(e).__name__, str(e))
print(jax.make_jaxpr(jax.vmap(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))))(jnp.ones(2)))
