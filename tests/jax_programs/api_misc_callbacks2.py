# pure_callback vmap methods and io_callback
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

def host_fn(x):
    print("host got shape", x.shape)
    return (x * 2).astype(x.dtype)

def f(x, method):
    return jax.pure_callback(host_fn, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method=method)
xs = jnp.arange(6.0).reshape(3, 2)
for m in ['sequential', 'expand_dims', 'broadcast_all']:
    print(m, jax.vmap(lambda x: f(x, m))(xs))
print(jax.jit(lambda x: f(x, 'sequential'))(jnp.ones(2)))
print(jax.make_jaxpr(lambda x: f(x, 'expand_dims'))(jnp.ones(2)))
counter = []
def record(x):
    counter.append(int(x))
    return np.array(len(counter), np.int32)
@jax.jit
def g(x):
    return io_callback(record, jax.ShapeDtypeStruct((), jnp.int32), x, ordered=True)
print(g(5), g(6), counter)
print(jax.make_jaxpr(g)(1))
try:
    jax.vmap(g)(jnp.arange(2))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
