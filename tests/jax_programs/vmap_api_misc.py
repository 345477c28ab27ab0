# source: tests/api_test.py vmap tests (docstrings, structured in_axes, unmapped last)
import collections
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np

def superfun(a):
    """Does things with stuff."""
print(jax.vmap(superfun).__doc__)
print(jax.vmap(superfun).__name__)
dictionary = {'a': 5., 'b': jnp.ones(2)}
x = jnp.zeros(3)
y = jnp.arange(3.)
def f(dct, x, y):
    return dct['a'] + dct['b'] + x + y
print(jax.vmap(f, [None, 0, 0])(dictionary, x, y))
A, B, C, D = 2, 3, 4, 5
K = 6
x = np.ones((K, A, B))
y = np.ones((B, K, C))
z = np.ones((C, D, K))
def foo(tree_arg):
    x, (y, z) = tree_arg
    return jnp.dot(x, jnp.dot(y, z))
Point = collections.namedtuple("Point", ["x", "y"])
print(jax.vmap(foo, in_axes=((0, Point(1, 2)),))((x, Point(y, z))).shape)
def foo2(tree_arg):
    x, dct = tree_arg
    return jnp.dot(x, jnp.dot(dct['a'], dct['b']))
print(jax.vmap(foo2, in_axes=((0, {'a': 1, 'b': 2}),))((x, {'a': y, 'b': z})).shape)
print(jax.vmap(foo2, in_axes=((0, collections.OrderedDict([('a', 1), ('b', 2)])),))((x, collections.OrderedDict([('a', y), ('b', z)]))).dtype)

@partial(jax.vmap, out_axes=-1)
def g(x):
    return np.zeros((2,))
print(g(np.zeros((5,))).shape)


print(jax.vmap(lambda x: x)(np.arange(3)))
print(jax.vmap(lambda x: x * 1.5)(np.arange(3)))
print(jax.vmap(lambda x: x + 1)(jnp.arange(3, dtype=jnp.int8)))
print(jax.vmap(lambda x, y: x + y, in_axes=(0, None))(jnp.arange(3.0), 1))
print(jax.vmap(lambda x: 2)(jnp.arange(3.0)))
print(jax.vmap(lambda x: (x, 2.0), out_axes=(0, None))(jnp.arange(3.0)))
print(jax.vmap(lambda x: (x, jnp.float32(2.0)))(jnp.arange(3.0)))
print(jax.vmap(lambda x: None)(jnp.arange(3.0)))
print(jax.vmap(lambda x: [x, {'k': x * 2}])(jnp.arange(3.0)))
