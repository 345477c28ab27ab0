# tracer errors under jit
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    if x > 0:
        return x
    return -x

try:
    f(1.0)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

@jax.jit
def g(x):
    return jnp.zeros(int(x))
try:
    g(3)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

@jax.jit
def h(x):
    import numpy as np
    return np.asarray(x)
try:
    h(jnp.arange(3))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

@jax.jit
def k(x):
    return list(range(x))
try:
    k(3)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
