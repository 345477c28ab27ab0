import jax
import jax.numpy as jnp
from jax import lax
def f(p, x, y):
    return lax.cond(p, lambda a, b: a + b, lambda a, b: a - b, x, y)
print(jax.make_jaxpr(f)(True, 1.0, 2.0))
def g(x):
    return lax.cond(x > 0, lambda x: (x, x * 2), lambda x: (-x, x), x)
print(jax.make_jaxpr(g)(1.0))
c = jnp.array([1.0, 2.0])
def h(x):
    return lax.cond(x.sum() > 0, lambda x: x * c, lambda x: x + 1.0, x)
print(jax.make_jaxpr(h)(jnp.ones(2)))
def k(i, x):
    return lax.cond(i, lambda x: x, lambda x: jnp.zeros_like(x), x)
print(jax.make_jaxpr(k)(1, jnp.ones(2)))
print(jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda: 1.0, lambda: 2.0))(1.0))
print(f(True, 1.0, 2.0), g(-1.0), h(jnp.ones(2)), k(0, jnp.ones(2)))
