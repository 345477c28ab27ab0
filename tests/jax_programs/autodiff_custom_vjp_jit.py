import jax
import jax.numpy as jnp

@jax.custom_vjp
def f(x):
    return jnp.sin(x)
def f_fwd(x):
    print("fwd called")
    return jnp.sin(x), jnp.cos(x)
def f_bwd(cos_x, y_bar):
    print("bwd called")
    return (cos_x * y_bar,)
f.defvjp(f_fwd, f_bwd)

print(f(3.))
print(jax.grad(f)(3.))
print(jax.jit(jax.grad(f))(3.))
print(jax.grad(jax.jit(f))(3.))
y, f_vjp = jax.vjp(f, 3.)
print(y)
print(f_vjp(1.))
print(jax.vmap(jax.grad(f))(jnp.arange(3.)))
print(jax.make_jaxpr(jax.jit(jax.grad(f)))(3.))

@jax.custom_vjp
def debug(x):
    return x
def debug_fwd(x):
    print(x)
    return x, x
def debug_bwd(x, g):
    import pdb
    return (g,)
debug.defvjp(debug_fwd, debug_bwd)
def foo(x):
    y = x ** 2
    y = debug(y)
    return jnp.sin(y)
print(jax.grad(foo)(3.))
