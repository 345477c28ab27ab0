"""A program for tests/test_source_info.py: its jaxprs' source lines and name stacks
as JAX 0.10.2 prints them are in scopes_jit.expected."""
import glassjax as jax
import glassjax.numpy as jnp


def f(x):
    with jax.named_scope("outer"):
        y = jnp.sin(x)
        with jax.named_scope("inner"):
            z = y * 2.0
    return jnp.cos(z) + jax.jit(lambda a: a * 3.0)(z)


jaxpr = jax.make_jaxpr(f)(1.0)
grad_jaxpr = jax.make_jaxpr(jax.grad(f))(1.0)
vmap_jaxpr = jax.make_jaxpr(jax.vmap(f))(jnp.ones(3))
