"""A program for tests/test_source_info.py: its jaxprs' source lines and name stacks
as JAX 0.10.2 prints them are in control_flow.expected."""
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax


def g(x):
    return lax.cond(x > 0, lambda a: jnp.sin(a), lambda a: jnp.cos(a), x)


def h(x):
    def body(c, a):
        with jax.named_scope("step"):
            return c + jnp.sin(a), c * 2
    return lax.scan(body, x, jnp.arange(3.0))


def w(x):
    return lax.while_loop(lambda c: c < 10.0, lambda c: c * jnp.cos(c), x)


jaxpr = jax.make_jaxpr(g)(1.0)
grad_jaxpr = jax.make_jaxpr(jax.grad(g))(1.0)
scan_jaxpr = jax.make_jaxpr(h)(1.0)
scan_grad_jaxpr = jax.make_jaxpr(jax.grad(lambda x: h(x)[0]))(1.0)
while_jaxpr = jax.make_jaxpr(w)(1.0)
