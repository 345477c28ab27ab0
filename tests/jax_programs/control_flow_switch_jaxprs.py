import jax
import jax.numpy as jnp
from jax import lax
branches = [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: jnp.sin(x)]
def f(i, x):
    return lax.switch(i, branches, x)
print(jax.make_jaxpr(f)(1, 2.0))
print([f(i, 2.0) for i in range(-1, 4)])
print(jax.make_jaxpr(lambda i, x, y: lax.switch(i, [lambda a, b: a, lambda a, b: b], x, y))(0, 1.0, 2.0))
print(jax.vmap(f)(jnp.array([0, 1, 2]), jnp.array([1.0, 2.0, 3.0])))
print(jax.make_jaxpr(jax.vmap(f))(jnp.array([0, 1, 2]), jnp.array([1.0, 2.0, 3.0])))
print(jax.grad(f, argnums=1)(2, 1.0))
print(jax.make_jaxpr(jax.grad(f, argnums=1))(2, 1.0))
