# disable_jit
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    print("x is", x, type(x).__name__)
    return x * 2
with jax.disable_jit():
    print(f(jnp.float32(1.5)))
    print(jax.make_jaxpr(f)(1.0))
print(f(jnp.float32(1.5)))
print(jax.config.jax_disable_jit)
jax.config.update('jax_disable_jit', True)
print(f(2))
jax.config.update('jax_disable_jit', False)
print(f(2))
def g(x):
    if x > 0:
        return x
    return -x
with jax.disable_jit():
    print(jax.jit(g)(-3.0))
