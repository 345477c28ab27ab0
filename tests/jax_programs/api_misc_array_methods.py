# jax.Array methods and conversions
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.array([[1.5, -2.0], [3.25, 4.0]])
print(x.round(), x.clip(0, 3), x.conj(), x.real, x.imag)
print(x.argsort(), x.cumsum(), x.prod(), x.std(), x.var(), x.any(), x.all())
print(x.swapaxes(0, 1), x.transpose(), x.mT, x.diagonal(), x.trace())
print(x.view(jnp.int32) if hasattr(x, 'view') else '')
print(x.nonzero())
print(x.astype('float16').dtype, x.astype(np.int8))
print(x.tobytes()[:4])
print(x.ptp() if hasattr(x, 'ptp') else 'no ptp')
print(x.min(axis=1, keepdims=True), x.argmin(axis=0))
print(x.dot(x), x @ np.eye(2))
print(x[None].shape, x[..., 0], x[:, None, :].shape)
print(x.at[0, 0].multiply(2), x.at[:, 1].min(0.0))
print(x.sort(axis=0), jnp.ravel(x).searchsorted(2.0))
print(np.sum(x), np.mean(x), type(np.sum(x)).__name__)
print(jnp.asarray(x) is x, jnp.array(x) is x)
print(x.item(3), x.reshape(4).tolist())
print(x.__jax_array__() is x if hasattr(x, '__jax_array__') else 'no __jax_array__')
print(float(x[0, 0]), int(x[1, 1]), x[0, 0] == 1.5)
print(np.float32(2) * x)
print(type(np.float32(2) * x).__name__)
print(type(np.arange(2) + jnp.arange(2)).__name__)
print(x.size, x.nbytes, x.itemsize)
print(sorted(set(dir(x)) & {'at', 'block_until_ready', 'device', 'sharding', 'addressable_shards'}))
