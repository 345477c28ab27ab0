import jax
import jax.numpy as jnp
@jax.jit
def inner(x):
    return jnp.sin(x) * 2
def my_outer(x):
    return inner(x) + inner(x * 3)
print(jax.make_jaxpr(my_outer)(1.0))
print(jax.make_jaxpr(jax.jit(my_outer))(1.0))
def named(x):
    return x + 1
print(jax.make_jaxpr(lambda x: jax.jit(named)(x) * 2)(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jax.jit(lambda y: y * y)(x))(2.0))
from functools import partial
@partial(jax.jit, static_argnums=1)
def pw(x, n):
    return x ** n
print(jax.make_jaxpr(lambda x: pw(x, 3))(2.0))
print(jax.make_jaxpr(lambda x: pw(x, 3) + pw(x, 3))(2.0))
