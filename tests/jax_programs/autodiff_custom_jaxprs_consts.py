import jax
import jax.numpy as jnp

c = jnp.array([1.0, 2.0, 3.0])

@jax.custom_jvp
def f(x):
    return jnp.sin(x) * c
@f.defjvp
def f_jvp(p, t):
    x, = p
    tx, = t
    return f(x), jnp.cos(x) * c * tx

print(jax.make_jaxpr(f)(jnp.ones(3)))
print(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(f(x))))(jnp.ones(3)))
print(jax.make_jaxpr(jax.jit(f))(jnp.ones(3)))

@jax.custom_vjp
def g(x, y):
    return x * y + c
g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda r, ct: (ct * r[1], jnp.sum(ct * r[0])))
print(jax.make_jaxpr(g)(jnp.ones(3), 2.0))
print(jax.make_jaxpr(jax.grad(lambda x, y: jnp.sum(g(x, y)), argnums=(0, 1)))(jnp.ones(3), 2.0))

def outer(scale):
    @jax.custom_jvp
    def h(x):
        return x * scale
    h.defjvps(lambda t, ans, x: t * scale)
    return h(3.0)
print(jax.make_jaxpr(outer)(2.0))
print(jax.make_jaxpr(jax.grad(outer))(2.0))

@jax.custom_jvp
def two_out(x):
    return jnp.sin(x), jnp.cos(x)
two_out.defjvp(lambda p, t: (two_out(p[0]), (jnp.cos(p[0]) * t[0], -jnp.sin(p[0]) * t[0])))
print(jax.make_jaxpr(lambda x: jax.jvp(two_out, (x,), (1.0,)))(0.5))
print(jax.make_jaxpr(jax.vmap(two_out))(jnp.ones(2)))
