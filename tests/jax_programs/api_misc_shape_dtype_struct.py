# ShapeDtypeStruct attributes, equality, hashing
import jax
import jax.numpy as jnp
import numpy as np

s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
print(s)
print(repr(s))
print(s.shape, s.dtype, s.ndim, s.size)
print(s == jax.ShapeDtypeStruct((2, 3), np.float32))
print(s == jax.ShapeDtypeStruct((2, 3), np.int32))
print(hash(s) == hash(jax.ShapeDtypeStruct((2, 3), jnp.float32)))
print(len(jax.ShapeDtypeStruct((4,), 'int32').shape))
t = jax.ShapeDtypeStruct([5], jnp.int32)
print(t, type(t.shape).__name__)
w = jax.ShapeDtypeStruct((), jnp.float32, weak_type=True)
print(w, w.weak_type)
print(s.sharding)
print(jax.ShapeDtypeStruct((3,), jnp.bool_))
print(jax.ShapeDtypeStruct((3,), jnp.dtype('bfloat16')))
try:
    print(len(s))
except Exception as e:
    print(type(e).__name__, e)
print(jax.tree_util.tree_leaves({'a': s}))
