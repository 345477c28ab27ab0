import jax
import jax.numpy as jnp
from jax import lax
@jax.jit
def g(x):
    return jnp.tanh(x) * 2 + 1
def f(x, y):
    return g(x) + g(y) + g(x[:2]).sum()
print(jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3)))
def long_body(c, x):
    for _ in range(6):
        c = jnp.sin(c) + x
    return c, c * 2
print(jax.make_jaxpr(lambda xs: lax.scan(long_body, 0.0, xs))(jnp.ones(4)))
def nested(xs):
    def outer(c, x):
        c2, ys = lax.scan(lambda a, b: (a + b * c, a), 0.0, jnp.arange(3.0))
        return c + c2, ys
    return lax.scan(outer, 1.0, xs)
print(jax.make_jaxpr(nested)(jnp.ones(2)))
def bigcond(p, x):
    def t(x):
        for _ in range(11):
            x = x * 2 + 1
        return x
    return lax.cond(p, t, t, x)
print(jax.make_jaxpr(bigcond)(True, 1.0))
h = jax.jit(lambda x: x + 1)
print(jax.make_jaxpr(lambda x: h(h(h(x))))(1.0))
print(jax.make_jaxpr(lambda x: (jax.jit(jnp.sin)(x), jax.jit(jnp.cos)(x)))(1.0))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 2, lambda i, c: g(c), x))(1.0))
