# jnp.interp (docstring examples) and vmap of it
import jax
import jax.numpy as jnp

xp = jnp.arange(10)
fp = 2 * xp
x = jnp.array([0.5, 2.0, 3.5])
print(jnp.interp(x, xp, fp))
xp = jnp.array([1, 2, 3])
fp = jnp.array([10, 20, 30])
x = jnp.array([0, 1, 2, 3, 4])
print(jnp.interp(x, xp, fp))
print(jnp.interp(x, xp, fp, left=0, right=100))
print(jnp.interp(x, xp, fp, left='extrapolate', right='extrapolate'))
print(jnp.interp(jnp.array([0.25, 3.5]), jnp.array([0.0, 1.0, 2.0]), jnp.array([0.0, 1.0, 0.0]), period=3.0))
xs = jnp.linspace(0, 4, 6).reshape(2, 3)
print(jax.vmap(jnp.interp, in_axes=(0, None, None))(xs, jnp.array([0.0, 2.0, 4.0]), jnp.array([1.0, -1.0, 3.0])))
print(jax.vmap(lambda fpv: jnp.interp(1.5, jnp.array([0.0, 1.0, 2.0]), fpv))(jnp.arange(6.0).reshape(2, 3)))
print(jax.grad(lambda a: jnp.interp(a, jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 2.0, 3.0])))(2.0))
try:
    jnp.interp(x, jnp.ones((2, 2)), jnp.ones((2, 2)))
except ValueError as e:
    print(e)
try:
    jnp.interp(x, xp, fp, left='bad')
except ValueError as e:
    print(e)
