# source: jnp.vectorize docstring
from functools import partial
import jax
import jax.numpy as jnp

@partial(jnp.vectorize, signature='(k),(k)->(k)')
def cross_product(a, b):
    assert a.shape == b.shape and a.ndim == b.ndim == 1
    return jnp.array([a[1] * b[2] - a[2] * b[1],
                      a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])

@partial(jnp.vectorize, signature='(n,m),(m)->(n)')
def matrix_vector_product(matrix, vector):
    assert matrix.ndim == 2 and matrix.shape[1:] == vector.shape
    return matrix @ vector

print(cross_product(jnp.ones(3), jnp.ones(3)).shape)
print(cross_product(jnp.ones((2, 3)), jnp.ones(3)).shape)
print(cross_product(jnp.ones((1, 2, 3)), jnp.ones((2, 1, 3))).shape)
try:
    matrix_vector_product(jnp.ones(3), jnp.ones(3))
except Exception as e:
    print(type(e).__name__, e)
print(matrix_vector_product(jnp.ones((2, 3)), jnp.ones(3)).shape)
print(matrix_vector_product(jnp.ones((2, 3)), jnp.ones((4, 3))).shape)
try:
    jnp.matmul(jnp.ones((2, 3)), jnp.ones((4, 3)))
except Exception as e:
    print(type(e).__name__, e)
print(jax.make_jaxpr(matrix_vector_product)(jnp.ones((2, 3)), jnp.ones((4, 3))))
print(jax.make_jaxpr(cross_product)(jnp.ones((1, 2, 3)), jnp.ones((2, 1, 3))))
try:
    jnp.vectorize(lambda x, y: x, signature='(n)->()')(jnp.ones(3), jnp.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    jnp.vectorize(lambda x: x[0], signature='(n)->(n)')(jnp.ones((2, 3)))
except Exception as e:
    print(type(e).__name__, e)
try:
    jnp.vectorize(lambda x: (x, x), signature='(n)->(n),(n),(n)')(jnp.ones((2, 3)))
except Exception as e:
    print(type(e).__name__, e)
