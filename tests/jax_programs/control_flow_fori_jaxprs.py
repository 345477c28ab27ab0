import jax
import jax.numpy as jnp
from jax import lax
def f(x):
    return lax.fori_loop(0, 5, lambda i, v: v + i, x)
print(jax.make_jaxpr(f)(1.0))
print(f(1.0))
def g(n, x):
    return lax.fori_loop(0, n, lambda i, v: v * 2.0, x)
print(jax.make_jaxpr(g)(3, 1.0))
print(g(3, 1.0))
def h(x):
    return lax.fori_loop(2, 6, lambda i, v: v + jnp.float32(i) * x, jnp.zeros_like(x))
print(jax.make_jaxpr(h)(jnp.ones(2)))
print(h(jnp.ones(2)))
print(jax.grad(f)(1.0))
print(jax.make_jaxpr(jax.grad(f))(1.0))
def k(x):
    return lax.fori_loop(0, 3, lambda i, v: v * x, 1.0, unroll=True)
print(jax.make_jaxpr(k)(2.0))
print(k(2.0))
