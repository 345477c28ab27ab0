# donate_argnums and keep_unused, inline in jaxprs
import warnings
import jax
import jax.numpy as jnp

def f(x, y):
    return x + y
fd = jax.jit(f, donate_argnums=0)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = fd(jnp.ones(3), jnp.ones(3))
    print(out)
    print([str(x.message) for x in w])
x = jnp.ones(3)
y = fd(x, jnp.ones(3))
print(y)
print(jax.make_jaxpr(lambda a, b: fd(a, b))(jnp.ones(2), jnp.ones(2)))
print(jax.make_jaxpr(lambda a, b: jax.jit(f, donate_argnames='y')(a, b))(jnp.ones(2), jnp.ones(2)))
g = jax.jit(lambda a, b: a * 2, keep_unused=True)
print(jax.make_jaxpr(lambda a, b: g(a, b))(1.0, 2.0))
print(jax.jit(lambda a, b: a * 2, keep_unused=True).lower(1.0, 2.0).as_text())
print(jax.jit(lambda a, b: a * 2).lower(1.0, 2.0).as_text())
h = jax.jit(lambda a: a + 1, inline=True)
print(jax.make_jaxpr(lambda a: h(a) * 2)(1.0))
print(jax.jit(f, donate_argnums=(0, 1)).lower(jnp.ones(2), jnp.ones(2)).as_text())
