# jit of jit, jit in grad/vmap jaxprs
import jax
import jax.numpy as jnp

@jax.jit
def inner(x):
    return jnp.sin(x) * 2

def outer(x):
    return inner(x) + inner(x * 2)
print(jax.make_jaxpr(outer)(1.0))
print(jax.make_jaxpr(jax.jit(outer))(1.0))
print(jax.make_jaxpr(jax.grad(inner))(1.0))
print(jax.make_jaxpr(jax.vmap(inner))(jnp.ones(3)))
print(jax.jit(outer).lower(1.0).as_text())
print(jax.jit(jax.grad(outer))(1.0))
