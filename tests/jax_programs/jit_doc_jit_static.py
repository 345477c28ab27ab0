# jax.jit docstring: static_argnames via decorator factory and partial
import jax
import jax.numpy as jnp
from functools import partial

@jax.jit(static_argnames=['n'])
def g(x, n):
    for i in range(n):
        x = x ** 2
    return x
print(repr(g(jnp.arange(4), 3)))

@partial(jax.jit, static_argnames=['n'])
def g2(x, n):
    for i in range(n):
        x = x ** 2
    return x
print(repr(g2(jnp.arange(4), 3)))
print(jax.make_jaxpr(g2, static_argnums=1)(jnp.arange(4), 2))
print(jax.make_jaxpr(lambda x: g2(x, 2))(jnp.arange(4)))
@jax.jit(donate_argnums=0, keep_unused=True)
def h(a, b):
    return a + 1
print(h(jnp.ones(2), jnp.ones(3)))
print(jax.jit(static_argnums=0)(lambda n, x: x * n)(3, 2.0))
