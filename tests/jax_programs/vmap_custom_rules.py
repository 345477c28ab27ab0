# vmap of custom_jvp / custom_vjp / checkpoint
import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(x):
    return jnp.sin(x)
@f.defjvp
def f_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return f(x), 2.0 * t
xs = jnp.arange(3.0)
print(jax.vmap(f)(xs))
print(jax.vmap(jax.grad(f))(xs))
print(jax.make_jaxpr(jax.vmap(f))(xs))
print(jax.make_jaxpr(jax.vmap(jax.grad(f)))(xs))

@jax.custom_vjp
def g(x, y):
    return x * y
def g_fwd(x, y):
    return g(x, y), (x, y)
def g_bwd(res, ct):
    x, y = res
    return (ct * y * 10, ct * x)
g.defvjp(g_fwd, g_bwd)
print(jax.vmap(g)(xs, xs))
print(jax.vmap(jax.grad(g), in_axes=(0, None))(xs, 2.0))
print(jax.make_jaxpr(jax.vmap(g))(xs, xs))
print(jax.make_jaxpr(jax.vmap(jax.grad(g), in_axes=(0, None)))(xs, 2.0))

h = jax.checkpoint(lambda x: jnp.sin(jnp.cos(x)))
print(jax.vmap(jax.grad(h))(xs))
print(jax.make_jaxpr(jax.vmap(h))(xs))
print(jax.make_jaxpr(jax.vmap(jax.grad(h)))(xs))
