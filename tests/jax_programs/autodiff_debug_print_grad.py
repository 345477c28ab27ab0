import jax
import jax.numpy as jnp

def f(x):
    jax.debug.print("x = {}", x)
    y = jnp.sin(x)
    jax.debug.print("y = {y}", y=y)
    return y * 2

print(jax.grad(f)(1.0))
print(jax.jit(jax.grad(f))(1.0))
print(jax.vmap(jax.grad(f))(jnp.arange(2.0)))
print(jax.jvp(f, (1.0,), (1.0,)))
print(jax.make_jaxpr(jax.grad(f))(1.0))

@jax.custom_vjp
def g(x):
    return x
def g_fwd(x):
    jax.debug.print("fwd {}", x)
    return x, x
def g_bwd(x, ct):
    jax.debug.print("bwd ct {}", ct)
    return (ct * 2,)
g.defvjp(g_fwd, g_bwd)
print(jax.grad(lambda x: g(x) ** 2)(3.0))
print(jax.jit(jax.grad(lambda x: g(x) ** 2))(3.0))
