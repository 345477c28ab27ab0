import jax
import jax.numpy as jnp
from jax import lax
print(repr(lax.fori_loop(0, 3, lambda i, x: x + i, 0)))
print(repr(lax.fori_loop(0, 3, lambda i, x: x + 1.0, 0.0)))
print(repr(lax.while_loop(lambda x: x < 5, lambda x: x + 1, 0)))
print(repr(lax.cond(True, lambda x: x * 2, lambda x: x, 1.0)))
print(repr(lax.cond(True, lambda: 1, lambda: 2)))
print(repr(lax.switch(1, [lambda x: x, lambda x: x + 1], 2)))
print(repr(lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))))
print(repr(lax.scan(lambda c, x: (c + 1, c), 0, None, length=3)))
print(repr(lax.map(lambda x: x * 2, jnp.arange(3))))
print(repr(lax.cond(True, lambda x: x, lambda x: x, jnp.float32(1))))
print(repr(lax.fori_loop(jnp.int32(0), 3, lambda i, x: x + i, 0)))
print(repr(jax.jit(lambda x: lax.cond(x > 0, lambda: x, lambda: 0.0))(2.0)))
print(jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda: x, lambda: 0.0))(2.0))
print(jax.make_jaxpr(lambda: lax.fori_loop(0, 3, lambda i, x: x + i, 0))())
print(jax.make_jaxpr(lambda x: lax.scan(lambda c, x: (c + 1, c), 0, None, length=3))(1.0))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < x, lambda c: c + 1.0, 0.0))(3.0))
