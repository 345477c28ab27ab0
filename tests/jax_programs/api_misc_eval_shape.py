# jax.eval_shape docstring and variants
import jax
import jax.numpy as jnp

f = lambda A, x: jnp.tanh(jnp.dot(A, x))
A = jax.ShapeDtypeStruct((2000, 3000), jnp.float32)
x = jax.ShapeDtypeStruct((3000, 1000), jnp.float32)
out = jax.eval_shape(f, A, x)
print(out.shape)
print(out.dtype)
print(out)
print(repr(out))
print(jax.eval_shape(lambda x: (x, x.sum(), {'a': x[0]}), jnp.ones((3, 2), jnp.int32)))
print(jax.eval_shape(lambda x: x * 2, 3.0))
print(jax.eval_shape(lambda x: x * 2, 3))
print(jax.eval_shape(jnp.sin, jax.ShapeDtypeStruct((2,), jnp.float16)))
print(jax.eval_shape(lambda x, n: x * n, jnp.ones(3), 2))
from functools import partial
print(jax.eval_shape(partial(jnp.reshape, shape=(3, 2)), jnp.ones(6)))
