import jax
import jax.numpy as jnp
from jax import lax
def f(x):
    return lax.fori_loop(0, 4, lambda i, c: c * x + i, 1.0)
print(jax.grad(f)(1.5))
print(jax.make_jaxpr(jax.grad(f))(1.5))
def g(x, y):
    return lax.cond(x > y, lambda a, b: a * b, lambda a, b: a + b, x, y)
print(jax.grad(g, argnums=(0, 1))(2.0, 1.0))
print(jax.make_jaxpr(jax.grad(g, argnums=(0, 1)))(2.0, 1.0))
def h(xs):
    return lax.scan(lambda c, x: (jnp.sin(c) * x, c), 1.0, xs)[0]
print(jax.grad(h)(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.grad(h))(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.linearize(h, jnp.arange(3.0))[1])(jnp.ones(3)))
print(jax.jacfwd(h)(jnp.arange(3.0)))
def sw(i, x):
    return lax.switch(i, [jnp.sin, jnp.cos, lambda x: x ** 2], x)
print(jax.grad(sw, argnums=1)(2, 3.0))
print(jax.make_jaxpr(jax.value_and_grad(sw, argnums=1))(2, 3.0))
