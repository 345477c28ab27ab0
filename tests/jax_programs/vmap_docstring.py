# source: jax.vmap docstring examples
import jax
import jax.numpy as jnp
from jax import vmap

def f(x):
    return x - jax.lax.psum(x, 'i')
print(vmap(f, axis_name='i')(jnp.arange(4.)))

def normalize(v):
    return v / v.sum()
print(vmap(normalize, axis_name='i')(jnp.arange(4.)))
print(vmap(normalize, in_axes=1)(jnp.arange(6.).reshape(2, 3)))

print(vmap(lambda x, y: (x + y, y * 2.), in_axes=(0, None), out_axes=(0, None))(jnp.arange(2.), 4.))
print(vmap(jnp.dot)(jnp.ones((5, 3)), jnp.ones((5, 3))))

def g(x):
    return x * jax.lax.axis_index('i')
print(vmap(g, axis_name='i')(jnp.ones(4)))

# nested with psum over both axes
def h(x):
    return jax.lax.psum(x, ('i', 'j'))
print(vmap(vmap(h, axis_name='j'), axis_name='i')(jnp.ones((2, 3))))

x = jnp.arange(3.)
print(vmap(lambda x, y: x * y, in_axes=(0, None))(x, 2.))
print(vmap(lambda x: jnp.array([x, 2 * x]), out_axes=1)(x))
