import jax
import jax.numpy as jnp
from jax import custom_jvp, custom_vjp

def kind(t):
    return 'tracer' if isinstance(t, jax.core.Tracer) else type(t).__name__

@custom_jvp
def f(x, y):
    return x * y

@f.defjvp
def f_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    print("types:", kind(x_dot), kind(y_dot))
    return f(x, y), y * x_dot + x * y_dot

print(jax.grad(f)(2., 3.))
print(jax.jvp(f, (2., 3.), (1., 0.)))

@custom_jvp
def g(x, y):
    return x * y

def g_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    print("symbolic:", kind(x_dot), kind(y_dot))
    out = g(x, y)
    t = jnp.zeros_like(out)
    if type(x_dot) is not jax.custom_derivatives.SymbolicZero:
        t = t + y * x_dot
    if type(y_dot) is not jax.custom_derivatives.SymbolicZero:
        t = t + x * y_dot
    return out, t
g.defjvp(g_jvp, symbolic_zeros=True)

print(jax.grad(g)(2., 3.))
print(jax.grad(g, 1)(2., 3.))

@custom_vjp
def h(x, y):
    return x * y

def h_fwd(x, y):
    print("fwd perturbed:", type(x).__name__, x.perturbed, y.perturbed)
    return x.value * y.value, (x.value, y.value)

def h_bwd(res, g):
    x, y = res
    return g * y, g * x

h.defvjp(h_fwd, h_bwd, symbolic_zeros=True)
print(jax.grad(h)(2., 3.))
print(jax.grad(h, (0, 1))(2., 3.))
