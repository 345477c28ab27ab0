# jax.pure_callback
import jax
import jax.numpy as jnp
import numpy as np

def host_sin(x):
    return np.sin(x).astype(x.dtype)

@jax.jit
def f(x):
    return jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
print(f(jnp.arange(3.0)))
print(jax.make_jaxpr(f)(jnp.arange(3.0)))
try:
    jax.vmap(f)(jnp.ones((2, 2)))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
def g(x):
    return jax.pure_callback(lambda x: np.sin(x).astype(np.float32), jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method='sequential')
print(jax.vmap(g)(jnp.ones((2, 2))))
def h(x):
    return jax.pure_callback(lambda x: (x * 2, x.sum()), (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((), x.dtype)), x)
print(jax.jit(h)(jnp.arange(4.0)))
try:
    jax.grad(lambda x: f(x).sum())(jnp.ones(2))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
def bad(x):
    return jax.pure_callback(lambda x: np.ones(3, np.float64), jax.ShapeDtypeStruct((3,), jnp.float32), x)
try:
    jax.jit(bad)(1.0).block_until_ready()
except Exception as e:
    print(type(e).__name__)
