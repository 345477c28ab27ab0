import jax
import jax.numpy as jnp
from jax import jacfwd, jacrev, hessian

def f(d):
    return {'out1': d['x'] ** 2 + d['y'], 'out2': jnp.sum(d['x'] * d['y'])}

d = {'x': jnp.array([1.0, 2.0]), 'y': jnp.array([3.0, 4.0])}
Jf = jacfwd(f)(d)
Jr = jacrev(f)(d)
print(jax.tree_util.tree_structure(Jf))
print(jax.tree_util.tree_map(lambda a: a.shape, Jf))
print(Jf)
print(Jr)
H = hessian(lambda d: jnp.sum(d['x'] ** 2 * d['y']))(d)
print(H)
def g(x, y):
    return x * y, x + y
print(jacfwd(g, argnums=(0, 1))(2.0, 3.0))
print(jacrev(g, argnums=(0, 1))(2.0, 3.0))
print(jacrev(g, argnums=1)(jnp.ones(2), jnp.arange(2.0)))
print(jacfwd(lambda x: (x, x ** 2), has_aux=True)(3.0))
print(jacrev(lambda x: (x ** 2, {'aux': x}), has_aux=True)(jnp.ones(2)))
print(hessian(lambda x, y: jnp.sum(x * y ** 2), argnums=(0, 1))(jnp.ones(2), jnp.arange(2.0)))
