import jax
import jax.numpy as jnp
from jax import grad, vjp, jvp

def f(z):
    x, y = jnp.real(z), jnp.imag(z)
    return x**2 + y**2

z = 3. + 4j
print(grad(f)(z))

def f2(z):
    return jnp.abs(z) ** 2
print(grad(f2)(z))

def grad_f(z):
    _, vjp_fun = vjp(f2, z)
    return vjp_fun(1.)[0]
print(grad_f(z))

def f3(z):
    return jnp.sin(z)
z = 3. + 4j
print(grad(f3, holomorphic=True)(z))
print(jnp.cos(z))

def f4(z):
    return jnp.conjugate(z)
z = 3. + 4j
print(grad(f4, holomorphic=True)(z))

A = jnp.array([[5.,    2.+3j,    5j],
              [2.-3j,   7.,  1.+7j],
              [-5j,  1.-7j,    12.]])

def f5(X):
    return jnp.sum((X - jnp.sin(X))**2)

print(grad(f5, holomorphic=True)(A))
print(jvp(jnp.sin, (z,), (1.0 + 0j,)))
print(jax.jacfwd(f3, holomorphic=True)(jnp.array([1. + 1j, 2. + 0j])))
print(jax.jacrev(f3, holomorphic=True)(jnp.array([1. + 1j, 2. + 0j])))
