import jax
import jax.numpy as jnp

def f(x, y):
    return jnp.sin(x), jnp.cos(y)
primals, f_vjp = jax.vjp(f, 0.5, 1.0)
xbar, ybar = f_vjp((-0.7, 0.3))
print(xbar)
print(ybar)
print(primals)
def g(x):
    return x ** 2, {'a': x.sum()}
y, g_vjp, = jax.vjp(g, jnp.arange(3.0))
print(y)
print(g_vjp((jnp.ones(3), {'a': 2.0})))
out, vfun, aux = jax.vjp(lambda x: (x * 2, x + 1), jnp.ones(2), has_aux=True)
print(out, aux, vfun(jnp.ones(2)))
try:
    f_vjp((1.0, 2.0), 3.0)
except Exception as e:
    print(type(e).__name__, e)
print(jax.vjp(lambda x: x.astype(jnp.int32), 2.5)[1](jnp.zeros((), jax.dtypes.float0)))
