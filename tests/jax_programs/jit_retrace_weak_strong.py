# when jit retraces: weak vs strong types, python scalars, shapes, dtypes, pytrees
import jax
import jax.numpy as jnp
import numpy as np

def f(x):
    print("trace:", jax.typeof(x))
    return x
fj = jax.jit(f)
for v in [1, 2, 1.0, 2.5, True, jnp.int32(1), np.int32(1), np.float32(1), jnp.array(1.0),
          jnp.array([1.0]), jnp.array([2.0]), np.array([1.0]), np.array([1.0], np.float64),
          1j, jnp.float16(1)]:
    fj(v)
print(fj._cache_size())
g = jax.jit(lambda t: t[0] + t[1])
g((1.0, 2.0)); g([1.0, 2.0]); g((1.0, 2.0))
print(g._cache_size())
print(jax.typeof(1.0), jax.typeof(jnp.ones((2, 3), jnp.int8)), jax.typeof(True), jax.typeof(np.float64(1)))
try:
    jax.typeof("s")
except TypeError as e:
    print(e)
