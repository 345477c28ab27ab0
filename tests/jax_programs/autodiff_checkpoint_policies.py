import jax
import jax.numpy as jnp
from jax import checkpoint

def g(W, x):
    y = jnp.dot(W, x)
    return jnp.sin(y)

def f(W1, W2, W3, x):
    x = g(W1, x)
    x = g(W2, x)
    x = g(W3, x)
    return x

W1 = jnp.ones((5, 4))
W2 = jnp.ones((6, 5))
W3 = jnp.ones((7, 6))
x = jnp.ones(4)
print(jax.make_jaxpr(jax.grad(lambda *a: jnp.sum(f(*a))))(W1, W2, W3, x))
f2 = lambda W1, W2, W3, x: g(W3, jax.checkpoint(g)(W2, jax.checkpoint(g)(W1, x)))
print(jax.make_jaxpr(jax.grad(lambda *a: jnp.sum(f2(*a))))(W1, W2, W3, x))
f3 = jax.checkpoint(g, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
print(jax.make_jaxpr(jax.grad(lambda W, x: jnp.sum(f3(W, x))))(W1, x))
print(jax.make_jaxpr(f3)(W1, x))
from jax.ad_checkpoint import checkpoint_name
def g4(W, x):
    y = checkpoint_name(jnp.dot(W, x), 'y')
    return jnp.sin(y)
f4 = jax.checkpoint(g4, policy=jax.checkpoint_policies.save_only_these_names('y'))
print(jax.make_jaxpr(jax.grad(lambda W, x: jnp.sum(f4(W, x))))(W1, x))
print(jax.grad(lambda W, x: jnp.sum(f4(W, x)))(W1, x))
