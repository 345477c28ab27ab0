import jax
import jax.numpy as jnp
from jax import lax
print(jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda: jnp.ones(3), lambda: jnp.zeros(3)))(1.0))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + jnp.arange(3.0), x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x, None), 0.0, xs)[0])(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] @ c[1]), (0, x)))(jnp.eye(2)))
print(jax.make_jaxpr(jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)))(jnp.ones(2)))
print(jax.make_jaxpr(jax.jacrev(lambda x: lax.fori_loop(0, 2, lambda i, c: jnp.sin(c), x)))(jnp.ones(2)))
print(jax.make_jaxpr(lambda x: lax.scan(lambda c, x: (c, x * c), x, jnp.arange(3.0), unroll=True))(1.0))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 4, lambda i, c: c + i, x, unroll=2))(1))
print(jax.make_jaxpr(lambda i, x: lax.switch(i, [lambda x: x, lambda x: x * 2]), )(0, 1.0) if False else "skip")
