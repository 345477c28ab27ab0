"""A program for tests/test_source_info.py: its jaxprs' source lines and name stacks
as JAX 0.10.2 prints them are in named_call.expected."""
import glassjax as jax
import glassjax.numpy as jnp


@jax.named_call
def layer(x):
    return jnp.sin(x) * 2


def k(x):
    with jax.named_scope("a"):
        return layer(x) + jax.named_call(jnp.cos, name="mycos")(x)


def l(x):
    with jax.named_scope("s"):
        return jax.jit(k)(x)


jaxpr = jax.make_jaxpr(l)(1.0)
grad_jaxpr = jax.make_jaxpr(jax.grad(k))(1.0)
vmap_jaxpr = jax.make_jaxpr(jax.vmap(jax.grad(k)))(jnp.ones(2))
