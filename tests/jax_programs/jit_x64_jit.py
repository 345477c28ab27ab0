# x64 mode and jit: dtypes of results, canonicalization of inputs
import jax
import jax.numpy as jnp
import numpy as np

f = jax.jit(lambda x: x + 1)
print(repr(f(np.float64(1.5))), repr(f(np.int64(2))), repr(f(np.uint64(3))))
print(repr(jnp.array(np.arange(3, dtype=np.float64))))
print(jax.make_jaxpr(f)(np.float64(1.5)))
jax.config.update("jax_enable_x64", True)
print(repr(f(np.float64(1.5))), repr(f(1.5)), repr(f(np.float32(1.5))))
print(jax.make_jaxpr(f)(1.5))
print(repr(jnp.arange(3.0)), repr(jnp.array([1, 2])))
print(jax.dtypes.canonicalize_dtype(np.float64))
print(repr(jnp.sum(jnp.arange(3, dtype=jnp.int32))))
jax.config.update("jax_enable_x64", False)
print(repr(f(np.float64(1.5))))
print(jax.dtypes.canonicalize_dtype(np.float64))
try:
    jnp.array(2**40)
except Exception as e:
    print(type(e).__name__, e)
print(repr(jnp.array(2**31 - 1)))
