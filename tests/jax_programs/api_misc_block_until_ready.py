# block_until_ready and Array methods
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(4.0)
y = x.block_until_ready()
print(y is x)
print(jax.block_until_ready([x, (x * 2, {'k': x + 1})]))
print(x.is_ready() if hasattr(x, 'is_ready') else '')
print(np.array(x), np.asarray(x, dtype=np.int32))
print(x.__array__(np.float64).dtype)
z = x.copy_to_host_async()
print(z)
print(jax.device_get([x, 1, 'a', None]))
print(type(jax.device_get(x)).__name__, jax.device_get(x).flags.writeable)
print(x.addressable_shards[0].data if hasattr(x, 'addressable_shards') else '')
print(len(x.addressable_shards), x.addressable_shards[0].device, x.addressable_shards[0].index)
print(x.global_shards[0].replica_id)
print(x.unsafe_buffer_pointer() > 0)
print(x.on_device_size_in_bytes())
print(x.delete() is None, x.is_deleted())
try:
    print(x)
except Exception as e:
    print(type(e).__name__, e)
