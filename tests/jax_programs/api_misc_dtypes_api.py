# jax.dtypes helpers
import jax
import jax.numpy as jnp
import numpy as np
from jax import dtypes

print(dtypes.canonicalize_dtype(np.float64), dtypes.canonicalize_dtype(np.int64), dtypes.canonicalize_dtype(np.complex128))
print(dtypes.canonicalize_dtype(np.uint64), dtypes.canonicalize_dtype(np.float16), dtypes.canonicalize_dtype(bool))
print(repr(dtypes.float0), dtypes.float0)
print(dtypes.result_type(1, 2.0), dtypes.result_type(jnp.int8, 1), dtypes.result_type(jnp.int8, jnp.uint8))
print(dtypes.result_type(jnp.float16, 2.0), dtypes.result_type(jnp.bfloat16, jnp.float16))
print(dtypes.result_type(np.int32, np.float32, return_weak_type_flag=True))
print(dtypes.result_type(3.0, return_weak_type_flag=True))
print(dtypes.issubdtype(jnp.float32, jnp.floating), dtypes.issubdtype(jnp.int32, jnp.integer), dtypes.issubdtype(jnp.bfloat16, jnp.floating))
print(dtypes.issubdtype(jnp.bfloat16, np.floating), jnp.issubdtype(jnp.int8, jnp.signedinteger), jnp.issubdtype(jnp.uint8, jnp.signedinteger))
print(dtypes.bfloat16, dtypes.finfo(jnp.bfloat16).eps, dtypes.iinfo(jnp.int8).max)
print(jnp.finfo(jnp.float32).max, jnp.finfo(jnp.float16).tiny, jnp.iinfo(jnp.uint32).max)
print(jnp.dtype(1) if False else "")
print(jnp.promote_types(jnp.int8, jnp.uint8), jnp.promote_types(jnp.float16, jnp.bfloat16), jnp.promote_types('int32', 'float16'))
print(jnp.result_type(jnp.int32, jnp.float16), jnp.result_type(jnp.array(1, jnp.int8), 2), jnp.result_type(1, 2))
print(jnp.can_cast(jnp.int32, jnp.float32), jnp.can_cast(jnp.float32, jnp.int32))
g = jax.grad(lambda x: 1.0, allow_int=True)(3)
print(g.dtype, repr(g))
print(dtypes.float0.itemsize if hasattr(dtypes.float0, 'itemsize') else '')
print(jnp.dtype('int8'), jnp.float32.dtype, jnp.dtype(jnp.float32))
print(dtypes.scalar_type_of(3.0), dtypes.scalar_type_of(jnp.int8(1)))
print(dtypes.itemsize_bits(jnp.float32), dtypes.itemsize_bits(jnp.bfloat16), dtypes.itemsize_bits(bool), dtypes.scalar_type_of(jnp.ones(2, jnp.bfloat16)))
