import jax
import jax.numpy as jnp

y, jvp_fun = jax.linearize(jnp.sin, 3.0)
print(repr(y), repr(jvp_fun(1.0)), repr(jvp_fun(2.0)))
def f(x, y):
    return jnp.sin(x) * y, {'z': x + y}
out, f_lin = jax.linearize(f, jnp.ones(2), 2.0)
print(out)
print(f_lin(jnp.ones(2), 1.0))
print(jax.make_jaxpr(f_lin)(jnp.ones(2), 1.0))
g = jax.linear_transpose(lambda x: 2.0 * x, 1.0)
print(g(3.0))
h = jax.linear_transpose(lambda x, y: x * 3.0 + jnp.sum(y), 1.0, jnp.ones(3))
print(h(2.0))
k = jax.linear_transpose(lambda x: {'a': x, 'b': jnp.stack([x, x])}, jnp.ones(2))
print(k({'a': jnp.ones(2), 'b': jnp.arange(4.0).reshape(2, 2)}))
try:
    jax.linear_transpose(lambda x: x * x, 1.0)(1.0)
except Exception as e:
    print(type(e).__name__)
try:
    jax.linear_transpose(lambda x: 2.0 * x, 1)(1.0)
except Exception as e:
    print(type(e).__name__, str(e)[:300])
print(jax.make_jaxpr(jax.linear_transpose(lambda x: jnp.cumsum(x) * 2.0, jnp.ones(3)))(jnp.ones(3)))
