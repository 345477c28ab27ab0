import jax
import jax.numpy as jnp
from jax import lax
# cond with pytree operands, vmapped predicate
def f(p, x):
    return lax.cond(p, lambda d: {"a": d["a"] + 1, "b": d["b"]}, lambda d: {"a": d["a"], "b": d["b"] * 2}, x)
print(jax.make_jaxpr(f)(True, {"a": 1.0, "b": jnp.ones(2)}))
print(jax.vmap(f, in_axes=(0, None))(jnp.array([True, False]), {"a": 1.0, "b": jnp.ones(2)}))
print(jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.array([True, False]), {"a": 1.0, "b": jnp.ones(2)}))
# while with batched predicate
def w(x):
    return lax.while_loop(lambda x: x < 10, lambda x: x * 2, x)
print(jax.vmap(w)(jnp.array([1, 3, 11])))
print(jax.make_jaxpr(jax.vmap(w))(jnp.array([1, 3, 11])))
# jvp of while
print(jax.jvp(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0), (2.0,), (1.0,)))
print(jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0), (x,), (t,)))(2.0, 1.0))
# scan with multiple carries and outputs
def s(xs, ys):
    def body(c, xy):
        a, b = c
        x, y = xy
        return (a + x, b * y), (a * b, x - y)
    return lax.scan(body, (0.0, 1.0), (xs, ys))
print(s(jnp.arange(3.0), jnp.arange(1.0, 4.0)))
print(jax.make_jaxpr(s)(jnp.arange(3.0), jnp.arange(1.0, 4.0)))
print(jax.make_jaxpr(jax.vmap(s))(jnp.ones((2, 3)), jnp.ones((2, 3))))
