# float0 tangents for integer inputs
import jax
import jax.numpy as jnp
from jax import dtypes
import numpy as np

def f(x, n):
    return x * n
g = jax.grad(f, argnums=(0, 1), allow_int=True)(2.0, 3)
print(g)
print(g[1].dtype, g[1].shape, type(g[1]).__name__)
print(jax.jvp(lambda n: n * 2, (3,), (np.zeros((), dtype=dtypes.float0),)))
try:
    jax.grad(f, argnums=1)(2.0, 3)
except Exception as e:
    print(type(e).__name__)
    print(e)
print(jax.vjp(lambda a, b: a * b, 2.0, 3)[1](1.0))
print(np.zeros(2, dtype=dtypes.float0))
print(repr(dtypes.float0), dtypes.float0 == np.dtype([('float0', 'V')]))
