# jax.Array attributes
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(6.0).reshape(2, 3)
print(x.shape, x.dtype, x.ndim, x.size, x.weak_type, x.itemsize, x.nbytes)
print(isinstance(x, jax.Array), isinstance(x, np.ndarray))
print(x.is_fully_addressable, x.is_fully_replicated)
print(x.sharding)
print(x.devices())
print(x.T)
print(len(x))
print(x.item(1) if False else x[1, 2].item(), type(x[1, 2].item()).__name__)
print(x.tolist())
print(np.asarray(x), np.asarray(x).dtype)
print(x.astype(jnp.int32))
print(repr(x.astype(int)))
print(repr(jnp.array(3).astype(float)))
print(str(x))
print(format(x[0, 1], '.3f'))
print(f"{jnp.float32(2.5):.2f}")
print(f"{jnp.array(7)}")
print(x.__array__().shape)
print(repr(jnp.array(5)))
print(repr(jnp.array(5.0)))
print(repr(jnp.array([True, False])))
print(repr(jnp.array([1+2j])))
print(repr(jnp.zeros((2, 0))))
print(repr(jnp.ones((2, 2), jnp.bfloat16)))
print(jnp.array(3).item(), type(jnp.array(3).item()).__name__)
print(jnp.array(True).item(), type(jnp.array(True).item()).__name__)
print(int(jnp.array(3.7)), float(jnp.array(2)), complex(jnp.array(1.0)), bool(jnp.array(0)))
print(hash(1) if False else "")
try:
    hash(x)
except Exception as e:
    print(type(e).__name__, e)
try:
    bool(jnp.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    int(jnp.ones(2))
except Exception as e:
    print(type(e).__name__, e)
print(x.flatten(), x.ravel().shape, x.reshape(-1).shape, x.squeeze().shape)
print(x.sum(), x.mean(axis=0), x.max(), x.argmax())
print(x.copy())
print(list(jnp.arange(3)))
print([type(v).__name__ for v in jnp.arange(2)])
