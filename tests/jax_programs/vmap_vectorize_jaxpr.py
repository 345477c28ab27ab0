# jnp.vectorize jaxprs and docstring examples
import jax
import jax.numpy as jnp
from functools import partial

@partial(jnp.vectorize, signature='(k),(k)->(k)')
def cross3(a, b):
    return jnp.array([a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]])
a = jnp.arange(6.0).reshape(2, 3)
b = jnp.ones(3)
print(cross3(a, b))
print(jax.make_jaxpr(cross3)(a, b))
vf = jnp.vectorize(lambda x, y: x * y + 1)
print(jax.make_jaxpr(vf)(a, b))
vm = jnp.vectorize(jnp.dot, signature='(n),(n)->()')
print(vm(a, a))
print(jax.make_jaxpr(vm)(a, a))
@jnp.vectorize
def f(x):
    return jnp.where(x > 2, x, 0.0)
print(f(a))
print(jnp.vectorize(jnp.linalg.det, signature='(n,n)->()')(jnp.arange(8.0).reshape(2, 2, 2)))
def mat_vec(m, v):
    return m @ v
print(jnp.vectorize(mat_vec, signature='(n,m),(m)->(n)')(jnp.ones((4, 2, 3)), jnp.ones((5, 1, 3))).shape)
print(jnp.vectorize(lambda x: x.sum(), signature='(n)->()')(jnp.arange(4.0)))
print(jnp.vectorize(lambda x: x)(3.0))
print(jnp.vectorize(lambda x: jnp.stack([x, x]), signature='()->(k)')(jnp.arange(3.0)))
print(jnp.vectorize(lambda x, n: x * n, excluded=frozenset({'n'}))(jnp.arange(3.0), n=2.0))
vf2 = jnp.vectorize(lambda x: x * 2)
print(vf2.__name__ if hasattr(vf2, '__name__') else None)
