# lax.optimization_barrier (docstring example; jaxprs under jit, grad and vmap)
import jax
import jax.numpy as jnp
from jax import lax
def f(x):
    return jax.lax.optimization_barrier(jax.lax.sin(x)) + jax.lax.sin(x)
print(repr(jax.jit(f)(0.)))
print(jax.make_jaxpr(f)(1.0))
print(jax.make_jaxpr(lambda x, y: lax.optimization_barrier((x, y)))(1.0, 2))
print(lax.optimization_barrier((1.0, jnp.ones(2))))
print(lax.optimization_barrier({"a": jnp.arange(3)}))
print(jax.grad(lambda x: lax.optimization_barrier(x) * 2)(1.0))
print(jax.make_jaxpr(jax.grad(lambda x: lax.optimization_barrier(jnp.sin(x)) * x))(1.0))
print(jax.vmap(lambda x: lax.optimization_barrier(x * 2))(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.vmap(lambda x, y: lax.optimization_barrier((x, y)), in_axes=(0, None)))(jnp.arange(3.0), 1.0))
print(jax.jvp(lambda x: lax.optimization_barrier(x) ** 2, (3.0,), (1.0,)))
print(jax.make_jaxpr(lambda x: jax.jvp(lambda x: lax.optimization_barrier((x, 2.0)), (x,), (1.0,)))(3.0))
