# jax.debug.callback
import jax
import jax.numpy as jnp
import numpy as np

def log_value(x):
    print("logged:", type(x).__name__, x)

@jax.jit
def f(x):
    jax.debug.callback(log_value, x)
    jax.debug.callback(lambda a, b: print("two:", a, b), x, x * 2)
    jax.debug.callback(lambda d: print("dict:", d['k']), {'k': x})
    return x + 1
print(f(jnp.arange(3)))
jax.effects_barrier()
print(jax.make_jaxpr(f)(jnp.arange(3)))
jax.vmap(lambda x: jax.debug.callback(log_value, x))(jnp.arange(2))
jax.effects_barrier()
print(jax.grad(lambda x: (jax.debug.callback(log_value, x), x * 3)[1])(2.0))
