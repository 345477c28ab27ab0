# jnp.vecdot / matvec / vecmat (vectorize-based), docstring examples and vmap
import jax
import jax.numpy as jnp

x1 = jnp.array([[1, 2, 3], [4, 5, 6]])
x2 = jnp.array([[2, 3, 4]])
print(jnp.vecdot(jnp.array([1, 2, 3]), jnp.array([2, 3, 4])))
print(jnp.vecdot(x1, x2, axis=-1))
print(jnp.linalg.vecdot(x1, x2, axis=-1))
print(jnp.vecdot(x1.T, x2.T, axis=0))
print(jnp.vecdot(jnp.array([1j, 2]), jnp.array([3, 4j])))
m = jnp.array([[1, 2, 3], [4, 5, 6]])
v = jnp.array([7, 8, 9])
print(jnp.matvec(m, v))
print(jnp.matvec(m, jnp.array([[7, 8, 9], [5, 6, 7]])))
print(jnp.vecmat(jnp.array([7, 8]), m))
print(jnp.vecmat(jnp.array([[7, 8], [5, 6]]), m))
print(jax.make_jaxpr(jnp.matvec)(m, v))
print(jax.make_jaxpr(lambda a, b: jnp.vecdot(a, b))(x1, x2))
print(jax.vmap(jnp.vecdot)(x1, x1))
try:
    jnp.vecdot(x1, jnp.ones((2, 2)))
except ValueError as e:
    print(e)
