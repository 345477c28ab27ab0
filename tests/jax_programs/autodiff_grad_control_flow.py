import jax
import jax.numpy as jnp
from jax import lax

def f(x):
    if x < 3:
        return 3. * x ** 2
    else:
        return -4 * x
print(jax.grad(f)(2.))
print(jax.grad(f)(4.))
try:
    jax.jit(jax.grad(f))(2.)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])

def g(x):
    return lax.cond(x < 3, lambda x: 3. * x ** 2, lambda x: -4 * x, x)
print(jax.grad(g)(2.), jax.grad(g)(4.))
print(jax.make_jaxpr(jax.grad(g))(2.))

def h(x):
    return lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)
print(jax.grad(h)(2.0))
def s(xs):
    return lax.scan(lambda c, x: (c * x, c), 1.0, xs)[0]
print(jax.grad(s)(jnp.array([1., 2., 3.])))
print(jax.make_jaxpr(jax.grad(s))(jnp.array([1., 2., 3.])))
def w(x):
    return lax.while_loop(lambda c: c < 10, lambda c: c * 2, x)
print(jax.jvp(w, (1.0,), (1.0,)))
try:
    jax.grad(w)(1.0)
except Exception as e:
    print(type(e).__name__, str(e)[:300])
print(jax.grad(lambda x: jnp.where(x > 0, x, 0.0))(2.0))
print(jax.grad(lambda x: jnp.sqrt(jnp.where(x > 0, x, 1.0)))(0.0))
