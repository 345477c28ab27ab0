import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x), {'cos': jnp.cos(x), 'n': 3}
y, t, aux = jax.jvp(f, (1.0,), (2.0,), has_aux=True)
print(repr(y), repr(t), aux)
try:
    jax.jvp(lambda x: x, (1.0,), (1.0,), has_aux=True)
except Exception as e:
    print(type(e).__name__, str(e)[:80])
y, f_lin, aux = jax.linearize(f, 1.0, has_aux=True)
print(repr(y), repr(f_lin(2.0)), aux)
out, vjpfun, aux = jax.vjp(f, jnp.ones(2), has_aux=True)
print(out, vjpfun(jnp.ones(2)), aux)
print(jax.jacfwd(f, has_aux=True)(1.0))
print(jax.jacrev(f, has_aux=True)(jnp.ones(2)))
print(jax.hessian(lambda x: (jnp.sum(x ** 3), x), has_aux=True)(jnp.ones(2)))
