# in-place updates (sharp bits)
import jax
import jax.numpy as jnp
import numpy as np

jax_array = jnp.zeros((3,3), dtype=jnp.float32)
try:
    jax_array[1, :] = 1.0
except Exception as e:
    print(type(e).__name__)
    print(e)
updated_array = jax_array.at[1, :].set(1.0)
print("original array unchanged:\n", jax_array)
print("updated array:\n", updated_array)
print("new array post-addition:\n", jax_array.at[::2, 1:].add(7.))
print(jnp.arange(10)[11])
print(jnp.arange(10.0).at[11].get())
print(jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan))
print(jnp.arange(10.0).at[11].add(5.0))
try:
    jnp.sum([1, 2, 3])
except TypeError as e:
    print(f"TypeError: {e}")
print(jnp.sum(jnp.array([1, 2, 3])))
try:
    jnp.arange(3)[1.5]
except Exception as e:
    print(type(e).__name__)
    print(e)
