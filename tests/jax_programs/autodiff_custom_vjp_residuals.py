import jax
import jax.numpy as jnp

@jax.custom_vjp
def f(x, y):
    return x * y

def f_fwd(x, y):
    return f(x, y), {'x': x, 'y': y, 'n': 3}

def f_bwd(res, g):
    print("res n:", res['n'])
    return (g * res['y'], g * res['x'])

f.defvjp(f_fwd, f_bwd)
print(jax.grad(f, (0, 1))(2.0, 3.0))
print(jax.make_jaxpr(jax.grad(f, (0, 1)))(2.0, 3.0))

@jax.custom_vjp
def g(x):
    return jnp.sum(x ** 2)
g.defvjp(lambda x: (g(x), x), lambda x, ct: (2 * x * ct,))
print(jax.grad(g)(jnp.arange(3.0)))
print(jax.hessian(lambda x: g(x) * 1.0)(jnp.arange(2.0)) if False else "skip")
print(jax.jit(jax.vmap(jax.grad(g)))(jnp.ones((2, 3))))

@jax.custom_vjp
def h(x):
    return x
h.defvjp(lambda x: (x, None), lambda _, g: (2.0 * g,))
print(jax.grad(lambda x: h(h(x)))(1.0))
print(jax.grad(lambda x: jnp.sum(h(x) ** 2))(jnp.ones(2)))
try:
    jax.jvp(h, (1.0,), (1.0,))
except Exception as e:
    print(type(e).__name__, str(e)[:400])
