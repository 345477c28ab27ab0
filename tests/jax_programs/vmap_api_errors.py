# source: tests/api_test.py vmap error tests
import collections
import jax
import jax.numpy as jnp
import numpy as np

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

show("non_tuple", lambda: jax.vmap(lambda x: x['a'], in_axes={'a': 0}))
show("wrong_len", lambda: jax.vmap(lambda x: x['a'], in_axes=(0, {'a': 0}))({'a': jnp.zeros((3, 3))}))
def f3(a, b, c):
    return a + b + c
show("kwargs_tuple", lambda: jax.vmap(f3, in_axes=(0, 0, None))(a=jnp.array([1, 2]), b=jnp.array([2, 4]), c=0.5))
def g(a, *, b):
    return a @ b
show("kwonly", lambda: jax.vmap(g, in_axes=(None, 0))(jnp.ones((2, 4)), b=jnp.ones((10, 4, 2))))
show("prefix", lambda: jax.vmap(lambda x: x, in_axes=([0],))(jnp.ones(3)))
show("leaf_in", lambda: jax.vmap(lambda x: x, in_axes=(jnp.array([1., 2.]),))(jnp.array([1., 2.])))
show("leaf_out", lambda: jax.vmap(lambda x: x, out_axes=(jnp.array([1., 2.]),))(jnp.array([1., 2.])))
show("bool", lambda: jax.vmap(lambda x: x, in_axes=False)(jnp.zeros(3)))
show("empty", lambda: jax.vmap(lambda x: x)({}))
show("scalar1", lambda: jax.vmap(lambda x: x, in_axes=None, axis_size=1)(1.))
show("scalar2", lambda: jax.vmap(lambda x: x, in_axes=0, axis_size=1)(1.))
show("scalar3", lambda: jax.vmap(lambda x: x, in_axes=1, axis_size=1)(1.))
show("axis_size", lambda: jax.vmap(lambda x: x, in_axes=0, axis_size=2)(jnp.arange(8, dtype=jnp.int32)))
@jax.vmap
def fk(x, y):
    return x + y
show("kw_mismatch", lambda: fk(jnp.array([1], 'int32'), y=jnp.array([1, 2], 'int32')))
def h(a, b):
    return jnp.sum(a) + jnp.sum(b)
X = np.ones((10, 4), np.float32)
U = np.ones((10, 2), np.float32)
show("705a", lambda: jax.vmap(h, in_axes=(0, 1))(X, U))
show("705b", lambda: jax.vmap(lambda x, y, z: None, in_axes=(0, 1, 0))(X, U, X))
show("705c", lambda: jax.vmap(h, in_axes=(0, 1))(X, [U, U]))
show("out_prefix", lambda: jax.vmap(lambda x: x, in_axes=0, out_axes=(2, 3))(jnp.array([1., 2.])))
show("named_none", lambda: jax.vmap(lambda x: x, out_axes=None, axis_name="foo")(jnp.array([1., 2.])))
def fkw(x1, x2, a3):
    return x1 + x2 + a3
show("kwargs_sizes", lambda: jax.vmap(fkw)(jnp.ones(2, dtype=jnp.float32), a3=jnp.ones(1, dtype=jnp.float32), x2=jnp.ones(2, dtype=jnp.float32)))
def fs(x, *args):
    return x - sum(args)
show("starargs", lambda: jax.vmap(fs)(jnp.ones(4), jnp.ones(2), jnp.ones(2)))
show("passthrough", lambda: jax.vmap(lambda f, x: f(x), (None, 0))(lambda x: x + 1, jnp.arange(3)))
show("in_axes_list", lambda: jax.vmap(lambda d, x, y: d['a'] + d['b'] + x + y, [None, 0, 0])({'a': 5., 'b': jnp.ones(2)}, jnp.zeros(3), jnp.arange(3.)) if False else "skip")
