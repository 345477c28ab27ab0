import jax
import jax.numpy as jnp
from jax import grad, jvp, vjp, jacfwd, jacrev, jit, vmap

def f(x):
    return jnp.sum(jnp.tanh(x) ** 2 * jnp.arange(1.0, 4.0))

def hvp(f, x, v):
    return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)

def hvp_fwdrev(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]

def hvp_revrev(f, primals, tangents):
    x, = primals
    v, = tangents
    return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)

def hvp_revfwd(f, primals, tangents):
    g = lambda primals: jvp(f, primals, tangents)[1]
    return grad(g)(primals)

x = jnp.array([0.1, 0.2, 0.3])
v = jnp.array([1.0, -1.0, 0.5])
print(hvp(f, x, v))
print(hvp_fwdrev(f, (x,), (v,)))
print(hvp_revrev(f, (x,), (v,)))
print(hvp_revfwd(f, (x,), (v,)))
print(jnp.dot(jax.hessian(f)(x), v))
print(jax.make_jaxpr(lambda x, v: hvp_fwdrev(f, (x,), (v,)))(x, v))
