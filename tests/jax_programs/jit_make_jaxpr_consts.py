# make_jaxpr inside a trace: closed-over tracers and arrays become constvars
import jax
import jax.numpy as jnp

c = jnp.arange(3.0)
def outer(y):
    jp = jax.make_jaxpr(lambda x: x * y + c)(1.0)
    print(jp)
    print(len(jp.consts))
    return y
jax.jit(outer)(2.0)
jax.vmap(outer)(jnp.ones(2))
def f(x):
    print("tracing f")
    return x + 1
print(jax.make_jaxpr(f)(1.0))
print(jax.jit(f)(1.0))
print(jax.make_jaxpr(f, return_shape=True)(1.0)[1])
print(jax.eval_shape(f, 1.0))
print(jax.make_jaxpr(f).__name__)
g = jax.jit(lambda x, n: x * n, static_argnums=1)
print(jax.eval_shape(g, jnp.ones(2), 3))
print(jax.make_jaxpr(g, static_argnums=1)(jnp.ones(2), 3))
