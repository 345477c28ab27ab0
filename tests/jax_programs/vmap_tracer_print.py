# printing tracers inside vmap
import jax
import jax.numpy as jnp

def f(x):
    print("shape", x.shape, x.dtype, x.ndim, x.size, len(x))
    print(type(x).__name__)
    return x
jax.vmap(f)(jnp.ones((3, 2)))
def g(x):
    print(x)
    return x
jax.vmap(g)(jnp.arange(3.0))
jax.vmap(g, in_axes=1)(jnp.arange(6.0).reshape(2, 3))
jax.jit(jax.vmap(g))(jnp.arange(3.0))
jax.vmap(jax.jit(g))(jnp.arange(3.0))
def h(x):
    print(repr(x))
    return x
jax.vmap(h)(jnp.arange(3))
