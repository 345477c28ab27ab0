# dict in_axes, kwargs
import jax
import jax.numpy as jnp

def f(d):
    return d['a'] * d['b']
print(jax.vmap(f, in_axes=({'a': 0, 'b': None},))({'a': jnp.arange(3.0), 'b': 2.0}))
print(jax.vmap(f, in_axes=({'a': 1, 'b': 0},))({'a': jnp.ones((2, 3)), 'b': jnp.arange(3.0)}))

def g(x, y=1.0, *, scale):
    return (x + y) * scale
print(jax.vmap(g)(jnp.arange(3.0), jnp.ones(3), scale=jnp.arange(3.0)))
print(jax.vmap(g, in_axes=(0, None))(jnp.arange(3.0), 2.0, scale=jnp.arange(3.0)))
print(jax.vmap(lambda x, **kw: x + kw['z'])(jnp.arange(2.0), z=jnp.array([10.0, 20.0])))
out = jax.vmap(lambda x: {'s': x.sum(), 'p': x * 2})(jnp.arange(6.0).reshape(3, 2))
print(out)
out = jax.vmap(lambda x: (x, [x.sum(), x.max()]), out_axes=(1, [0, None]))(jnp.arange(6.0).reshape(3, 2)) if False else None
print(jax.vmap(lambda x: {'a': x, 'b': x.sum()}, out_axes={'a': 1, 'b': 0})(jnp.arange(6.0).reshape(3, 2)))
