import jax
import jax.numpy as jnp
from jax import lax
def f(xs):
    return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)
print(jax.make_jaxpr(f)(jnp.arange(3.0)))
print(f(jnp.arange(3.0)))
def g(c):
    return lax.scan(lambda c, _: (c * 2, c), c, None, length=4)
print(jax.make_jaxpr(g)(1.0))
print(g(1.0))
def r(xs):
    return lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=True)
print(jax.make_jaxpr(r)(jnp.arange(4.0)))
print(r(jnp.arange(4.0)))
def u(xs):
    return lax.scan(lambda c, x: (c + x, c), 0.0, xs, unroll=2)
print(jax.make_jaxpr(u)(jnp.arange(4.0)))
print(u(jnp.arange(4.0)))
w = jnp.array([2.0, 3.0])
def k(xs):
    return lax.scan(lambda c, x: (c * w + x, None), jnp.zeros(2), xs)
print(jax.make_jaxpr(k)(jnp.ones((3, 2))))
print(k(jnp.ones((3, 2))))
