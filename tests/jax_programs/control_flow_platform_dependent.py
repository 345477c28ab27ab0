# lax.platform_dependent: eager, jitted, jaxprs, and under grad and vmap
import jax
import jax.numpy as jnp
from jax import lax
def f(x):
    return lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos)
print(f(1.0))
print(jax.jit(f)(1.0))
print(jax.make_jaxpr(f)(1.0))
print(jax.grad(f)(1.0))
print(jax.make_jaxpr(jax.grad(f))(1.0))
print(jax.vmap(f)(jnp.arange(3.0)))
print(jax.make_jaxpr(jax.vmap(f))(jnp.arange(3.0)))
g = lambda x: lax.platform_dependent(x, tpu=lambda x: x * 2, cuda=lambda x: x * 3, default=lambda x: x * 4)
print(jax.jit(g)(1.0))
print(jax.make_jaxpr(g)(1.0))
same = lambda x: x + 1
h = lambda x: lax.platform_dependent(x, cpu=same, tpu=same, default=jnp.negative)
print(jax.make_jaxpr(h)(1.0), jax.jit(h)(1.0))
try:
    lax.platform_dependent(1.0, gpu=jnp.sin)
except Exception as e:
    print(type(e).__name__, e)
try:
    lax.platform_dependent(1.0, cpu=3)
except Exception as e:
    print(type(e).__name__, e)
