# eval_shape: docstring (conv) and pytrees, errors
import jax
from jax import lax
from functools import partial
import jax.numpy as jnp

x = jax.ShapeDtypeStruct((1, 1, 28, 28), jnp.float32)
kernel = jax.ShapeDtypeStruct((32, 1, 3, 3), jnp.float32)
conv_same = partial(lax.conv_general_dilated, window_strides=(1, 1), padding="SAME")
out = jax.eval_shape(conv_same, x, kernel)
print(out.shape)
print(out.dtype)
class MyArgArray:
    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = jnp.dtype(dtype)
        self.sharding = None
print(jax.eval_shape(lambda a: a.T, MyArgArray((2, 5), jnp.float32)))
print(jax.eval_shape(lambda d: {k: v.sum(0) for k, v in d.items()}, {'a': jnp.ones((3, 2)), 'b': jnp.ones((4, 1), jnp.int8)}))
try:
    jax.eval_shape(lambda a: a.reshape(7), jnp.ones(6))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
print(jax.eval_shape(lambda: jnp.zeros(3)))
print(jax.eval_shape(jax.jit(lambda x: x @ x.T), jnp.ones((4, 2))))
print(jax.eval_shape(jax.grad(lambda x: (x ** 2).sum()), jnp.ones(3)))
print(jax.eval_shape(jax.vmap(jnp.outer), jnp.ones((5, 2)), jnp.ones((5, 3))))
print(jax.eval_shape(lambda x: x.astype(jnp.float64), jnp.ones(2)))
