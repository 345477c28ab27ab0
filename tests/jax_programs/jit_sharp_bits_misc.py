# sharp bits: miscellaneous divergences from NumPy, conversions, precision
import jax
import jax.numpy as jnp
import numpy as np

print(np.arange(254.0, 258.0).astype('uint8'))
print(jnp.arange(254.0, 258.0).astype('uint8'))
print(jnp.array([np.inf, -np.inf, np.nan]).astype(int))
print(-jnp.uint32(1), jnp.uint8(250) + jnp.uint8(10))
print(jnp.array(0.1, dtype=jnp.float16) + jnp.array(0.2, dtype=jnp.float16))
print(jnp.int32(2**31 - 1) + 1)
print(jnp.float32(1e38) * 10)
print(jnp.divide(1, 0), jnp.floor_divide(7, 0), jnp.remainder(7, 0))
print(jnp.array([1, 2, 3]) / 2, jnp.array([1, 2, 3]) // 2)
print(jnp.sqrt(-1.0), jnp.log(0.0), jnp.arccos(2.0))
print(jnp.array(3) ** -1 if False else jnp.array(3.0) ** -1)
try:
    jnp.array(3) ** -1
except Exception as e:
    print(type(e).__name__, e)
print(jnp.round(2.5), jnp.round(3.5), np.round(2.5))
print(jnp.array([1.0, 2.0]).sum(dtype=jnp.int32), jnp.mean(jnp.array([1, 2])))
x = np.arange(3)
y = jnp.asarray(x)
x[0] = 100
print(y)
print(jnp.ones(3).at[jnp.array([0, 0])].add(1.0))
print(jnp.zeros(3).at[jnp.array([0, 0])].set(jnp.array([1.0, 2.0])))
print(jnp.arange(5)[jnp.array([True, False, True, False, True])])
