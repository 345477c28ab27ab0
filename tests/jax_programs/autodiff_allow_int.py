import jax
import jax.numpy as jnp
import numpy as np

f = lambda x, y: x * 2.0 + y
g = jax.grad(f, argnums=(0, 1), allow_int=True)(3, 2.0)
print(g)
print(g[0].dtype, g[0].shape, type(g[0]).__name__)
print(repr(g[0]))
g = jax.grad(lambda x: jnp.sum(x * 1.0), allow_int=True)(jnp.arange(3))
print(repr(g), g.dtype)
print(jax.dtypes.float0)
x = np.zeros((), dtype=jax.dtypes.float0)
print(repr(x))
y, t = jax.jvp(lambda n, x: n * x, (3, 2.0), (np.zeros((), dtype=jax.dtypes.float0), 1.0))
print(repr(y), repr(t))
v, vjp = jax.vjp(lambda n, x: n * x, 3, 2.0)
print(vjp(1.0))
g = jax.grad(lambda b, x: jnp.where(b, x, 0.0), argnums=(0, 1), allow_int=True)(True, 2.0)
print(g)
