# per-example gradients (docs)
import jax
import jax.numpy as jnp

def predict(params, x):
    w, b = params
    return jnp.tanh(x @ w + b)

def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)

key = jax.random.PRNGKey(0)
w = jax.random.normal(key, (3, 2))
b = jnp.zeros(2)
xs = jnp.arange(12.0).reshape(4, 3) / 10.0
ys = jnp.ones((4, 2))
grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))((w, b), xs, ys)
print(jax.tree_util.tree_map(lambda g: g.shape, grads))
print(grads[1])
per_ex = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
print(jax.tree_util.tree_map(jnp.shape, per_ex((w, b), xs, ys)))
print(jax.vmap(jax.value_and_grad(loss, argnums=1), in_axes=(None, 0, 0))((w, b), xs, ys)[0])
