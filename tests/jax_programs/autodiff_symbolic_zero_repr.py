import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

@jax.custom_jvp
def f(x, y):
    return x * y

def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    print("tangents:", tx, ty)
    print("types:", type(tx).__name__, type(ty).__name__)
    if isinstance(ty, SymbolicZero):
        print("zero aval:", ty.aval, ty.shape, ty.dtype)
        ty = jnp.zeros(ty.shape, ty.dtype)
    return f(x, y), tx * y + x * ty
f.defjvp(f_jvp, symbolic_zeros=True)
print(jax.jvp(f, (2.0, 3.0), (1.0, 0.0)))
print(jax.jvp(lambda x: f(x, 3.0), (2.0,), (1.0,)))
print(jax.grad(f)(2.0, jnp.ones(())))

@jax.custom_vjp
def g(x, y):
    return x * y, x + y
def g_fwd(x, y):
    print("perturbed:", x.perturbed, y.perturbed)
    return g(x.value, y.value), (x.value, y.value)
def g_bwd(res, cts):
    a, b = cts
    print("cts:", type(a).__name__, type(b).__name__)
    x, y = res
    if isinstance(b, SymbolicZero):
        b = jnp.zeros(b.shape, b.dtype)
    return (a * y + b, a * x + b)
g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
print(jax.grad(lambda x: g(x, 2.0)[0])(3.0))
print(jax.grad(lambda x: sum(g(x, 2.0)))(3.0))

from jax.custom_derivatives import zero_from_primal
print(repr(zero_from_primal(jnp.ones(2))))
print(zero_from_primal({'a': 1.0, 'b': jnp.arange(2)}, symbolic_zeros=True))
print(zero_from_primal((1.0, 2), symbolic_zeros=False))
