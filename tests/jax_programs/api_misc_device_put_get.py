# device_put / device_get / block_until_ready
import jax
import jax.numpy as jnp
import numpy as np

x = np.arange(4.0)
y = jax.device_put(x)
print(type(y).__name__ if False else isinstance(y, jax.Array), y.dtype, y)
print(repr(jax.device_put(np.float64(1.5))))
print(repr(jax.device_put(1.5)))
print(repr(jax.device_put(3)))
print(repr(jax.device_put(True)))
print(jax.device_put({'a': np.ones(2), 'b': [1, 2]}))
z = jax.device_get(y)
print(type(z).__name__, z.dtype, z)
print(jax.device_get({'a': jnp.ones(2), 'b': 3}))
print(jax.device_get(2.5))
r = jax.block_until_ready(jnp.arange(3) * 2)
print(r)
print(jax.block_until_ready({'x': jnp.ones(2), 'y': (jnp.zeros(1),)}))
print(jax.block_until_ready(3))
print(y.devices() == {jax.devices()[0]})
a = jax.device_put(jnp.ones(3), jax.devices()[0])
print(a.sharding)
print(repr(jax.device_put(np.arange(3, dtype=np.int64))))
print(repr(jax.device_put(np.arange(3, dtype=np.uint8))))
