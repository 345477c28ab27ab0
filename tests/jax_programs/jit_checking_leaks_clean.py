# checking_leaks raises nothing for functions that leak no tracer
import jax, jax.numpy as jnp
from jax import lax
with jax.checking_leaks():
    print(jax.jit(lambda x: jnp.sin(x) * 2)(1.0))
    print(jax.make_jaxpr(lambda x: lax.scan(lambda c, y: (c + y, c * y), x, jnp.arange(3.0)))(0.0))
    print(jax.grad(lambda x: jnp.sum(jnp.tanh(x)))(jnp.ones(2)))
    print(jax.jit(jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)))(jnp.arange(3.0)))
    print(jax.jit(lambda x: lax.while_loop(lambda c: c < 5, lambda c: c + 1, x))(0))
    print(jax.jit(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)))(2.0))
    print(jax.jit(lambda x: jax.nn.softmax(x))(jnp.arange(3.0)))
    print(jax.jit(lambda k: jax.random.normal(k, (2,)))(jax.random.key(0)))
    print(jax.jit(lambda x: jnp.linalg.norm(x))(jnp.ones(3)))
