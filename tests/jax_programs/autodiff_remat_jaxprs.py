import jax
import jax.numpy as jnp
from functools import partial

c = jnp.arange(3.0)
def f(x):
    return jnp.sum(jnp.sin(x * c))
print(jax.make_jaxpr(jax.checkpoint(f))(jnp.ones(3)))
print(jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(jnp.ones(3)))
print(jax.make_jaxpr(jax.vmap(jax.checkpoint(f)))(jnp.ones((2, 3))))
print(jax.make_jaxpr(jax.jit(jax.checkpoint(f)))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jax.jvp(jax.checkpoint(f), (x,), (x,)))(jnp.ones(3)))
g = jax.checkpoint(lambda x, y: x * y, policy=jax.checkpoint_policies.everything_saveable)
print(jax.make_jaxpr(g)(1.0, 2.0))
print(jax.make_jaxpr(jax.checkpoint(lambda x: x, prevent_cse=False))(1.0))
print(jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: jnp.sin(x) ** 2, policy=jax.checkpoint_policies.nothing_saveable)))(1.0))
from jax.ad_checkpoint import checkpoint_name
print(jax.make_jaxpr(lambda x: checkpoint_name(x * 2, 'y'))(1.0))
print(jax.make_jaxpr(jax.grad(lambda x: checkpoint_name(x * 2, 'y') ** 2))(1.0))
