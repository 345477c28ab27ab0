# source: jnp.apply_along_axis / apply_over_axes docstrings
import jax
import jax.numpy as jnp

x = jnp.array([[1, 2, 3],
               [4, 5, 6]])
print(jnp.apply_along_axis(jnp.sum, 0, x))
print(jnp.apply_along_axis(jnp.sum, 1, x))
print(jax.vmap(jnp.sum, in_axes=1)(x))
x3 = jnp.arange(24).reshape(2, 3, 4)
print(jnp.apply_along_axis(jnp.sum, 2, x3))
print(jax.vmap(jax.vmap(jnp.sum))(x3))
def func(x, exponent):
    return jnp.sum(x ** exponent)
print(jnp.apply_along_axis(func, 0, x, exponent=3))
print(jnp.apply_along_axis(lambda v: v * 2, 1, x3).shape)
print(jnp.apply_along_axis(jnp.diag, -1, x))
print(jnp.apply_along_axis(jnp.sort, 0, jnp.array([[3.0, 1.0], [2.0, 4.0]])))
print(jax.make_jaxpr(lambda a: jnp.apply_along_axis(jnp.cumsum, 0, a))(jnp.ones((2, 3))))
x = jnp.array([[1, 2, 3], [4, 5, 6]])
print(jnp.apply_over_axes(jnp.sum, x, [0]))
print(jnp.apply_over_axes(jnp.sum, x, [0, 1]))
print(jnp.apply_over_axes(jnp.prod, x, [0, 1]))
print(jnp.apply_over_axes(jnp.min, x3, [0, 2]))
try:
    jnp.apply_over_axes(lambda a, ax: jnp.sum(a), x, [0])
except Exception as e:
    print(type(e).__name__, e)
