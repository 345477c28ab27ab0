import jax
import jax.numpy as jnp
from jax import lax
c = jnp.array([1.0, 2.0])
def f(x):
    return lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * c), (0, x))
print(jax.make_jaxpr(f)(jnp.ones(2)))
print(f(jnp.ones(2)))
def g(n):
    return lax.while_loop(lambda i: i < n, lambda i: i + 1, 0)
print(jax.make_jaxpr(g)(5))
print(g(5))
def h(x):
    def cond(c):
        return c[0] < 4
    def body(c):
        i, v = c
        return i + 1, v + jnp.sin(v)
    return lax.while_loop(cond, body, (0, x))
print(jax.make_jaxpr(h)(0.5))
print(h(0.5))
print(jax.make_jaxpr(jax.vmap(g))(jnp.array([1, 3])))
print(jax.vmap(g)(jnp.array([1, 3])))
