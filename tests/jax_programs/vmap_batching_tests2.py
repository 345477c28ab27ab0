# source: tests/batching_test.py (transpose, empty tuples, index add, dynamic slices, negative axes, kwargs)
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, vmap

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

x = np.arange(4 * 3 * 3).reshape((4, 3, 3))
print(vmap(lambda x: x + x.T)(x)[1])
x = np.arange(6 * 3 * 4 * 5).reshape((3, 4, 6, 5))
print(vmap(lambda x: jnp.transpose(x, (1, 2, 0)), in_axes=2)(x).shape)
print(vmap(lambda x, _: x + 1)(np.array([0, 1]), ()))
print(vmap(lambda x: (x + 1, ()))(np.array([0, 1])))
print(vmap(lambda x, idx, y: jnp.asarray(x).at[idx].add(y), (None, 0, None))(np.zeros((4,)), np.arange(4,), 1.))
print(vmap(lambda x: lax.dynamic_slice(x, [], []))(jnp.array([1, 2, 3, 4])))
print(vmap(lambda x: lax.dynamic_update_slice(x, 7, []))(jnp.array([1, 2, 3, 4])))
x = np.arange(3*4*5).reshape(3, 4, 5)
print(jax.vmap(jnp.sum, in_axes=-3)(x), jax.vmap(jnp.sum, in_axes=-2)(x))
show("neg4", lambda: jax.vmap(jnp.sum, in_axes=-4)(x))
show("out_neg4", lambda: jax.vmap(lambda y: y, in_axes=0, out_axes=-4)(x))
print(jax.vmap(lambda *xs: xs, in_axes=(0, None), out_axes=(0, -1))(np.arange(5), 7))
show("out_neg2", lambda: jax.vmap(lambda *xs: xs, in_axes=(0, None), out_axes=(0, -2))(np.arange(5), 7))
print(vmap(lambda x: x - lax.axis_index('i'), axis_name='i')(np.arange(10, dtype='int32')))
def f(a, b):
    return (2*a, 3*b)
print(vmap(f)(a=jnp.array([1]), b=jnp.array([2])))
show("non_jax_out", lambda: vmap(lambda x: "hello")(np.arange(5)))
show("non_jax_in", lambda: vmap(lambda x: x)("hello"))
xw = jnp.ravel(1)
print(xw, vmap(lambda v: v)(xw), vmap(lambda v: v * 2)(xw).dtype)
@vmap
def fw(v):
    print(v.aval if hasattr(v, "aval") else None)
    return v
fw(xw)
print(vmap(lambda v: v + 1.0)(jnp.arange(3)))
print(jax.make_jaxpr(vmap(lambda v: v + 1.0))(xw))
