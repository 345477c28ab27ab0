"""A program for tests/test_source_info.py: its jaxprs' source lines and name stacks
as JAX 0.10.2 prints them are in jvp_linearize.expected."""
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax


def f(x):
    with jax.named_scope("outer"):
        y = jax.jit(lambda a: jnp.sin(a))(x)
    return lax.cond(y > 0, lambda a: jnp.sin(a), lambda a: jnp.cos(a), y)


def lin(x):
    y, f_jvp = jax.linearize(jnp.sin, x)
    return f_jvp(x)


jvp_jaxpr = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(1.0)
vmap_jaxpr = jax.make_jaxpr(jax.vmap(f))(jnp.ones(2))
lin_jaxpr = jax.make_jaxpr(lin)(1.0)
