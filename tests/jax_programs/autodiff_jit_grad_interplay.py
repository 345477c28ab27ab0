import jax
import jax.numpy as jnp
from functools import partial

@jax.jit
def f(x, y):
    return jnp.sum(jnp.tanh(x) * y)

print(jax.grad(f)(jnp.ones(3), jnp.arange(3.0)))
print(jax.make_jaxpr(jax.grad(f))(jnp.ones(3), jnp.arange(3.0)))
print(jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones(3), jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x, t: jax.jvp(f, (x, x), (t, t)))(jnp.ones(3), jnp.ones(3)))
print(jax.make_jaxpr(jax.vmap(jax.grad(f), in_axes=(0, None)))(jnp.ones((2, 3)), jnp.arange(3.0)))

@partial(jax.jit, static_argnums=1)
def g(x, n):
    return x ** n
print(jax.grad(g)(2.0, 3))
print(jax.make_jaxpr(jax.grad(g), static_argnums=1)(2.0, 3))
print(jax.jacfwd(g)(jnp.arange(3.0), 2))
y, g_vjp = jax.vjp(f, jnp.ones(3), jnp.arange(3.0))
print(jax.make_jaxpr(g_vjp)(1.0))
print(jax.jit(g_vjp)(1.0))
y, f_lin = jax.linearize(f, jnp.ones(3), jnp.arange(3.0))
print(jax.make_jaxpr(f_lin)(jnp.ones(3), jnp.ones(3)))
