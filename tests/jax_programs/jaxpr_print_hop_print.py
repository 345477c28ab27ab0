import jax
import jax.numpy as jnp
from functools import partial
@jax.custom_jvp
def f(x):
    return jnp.sin(x)
f.defjvp(lambda p, t: (f(p[0]), jnp.cos(p[0]) * t[0]))
print(jax.make_jaxpr(f)(1.0))
print(jax.make_jaxpr(jax.grad(f))(1.0))
@jax.custom_vjp
def g(x):
    return x * 2
g.defvjp(lambda x: (g(x), x), lambda r, ct: (ct * r,))
print(jax.make_jaxpr(g)(1.0))
print(jax.make_jaxpr(jax.grad(g))(1.0))
print(jax.make_jaxpr(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0))
print(jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))))(1.0))
print(jax.make_jaxpr(lambda x: jax.named_call(jnp.cos, name="mycos")(x))(1.0))
print(jax.make_jaxpr(lambda x: jax.lax.stop_gradient(x) + x)(1.0))
print(jax.make_jaxpr(partial(jax.jit, donate_argnums=0)(lambda x: x + 1))(jnp.ones(2)))
print(jax.make_jaxpr(jax.jit(lambda x, y: x + y, static_argnames="y"), static_argnums=1)(1.0, 2.0))
print(jax.make_jaxpr(lambda x: jax.debug.print("x={}", x))(1.0))
print(jax.make_jaxpr(lambda x: jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0))
print(jax.make_jaxpr(lambda x: jax.lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7))(1.0))
print(jax.make_jaxpr(lambda x: jax.random.normal(jax.random.key(0), (2,)) * x)(1.0))
print(jax.make_jaxpr(lambda k: jax.random.uniform(k, (2,)))(jax.random.PRNGKey(0)))
