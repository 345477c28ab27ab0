"""A linen Dense model: init/apply, optax sgd with momentum, the jaxpr of apply."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(8)(x)
        x = nn.tanh(x)
        return nn.Dense(2)(x)


model = MLP()
x = jnp.linspace(-2.0, 2.0, 20, dtype=jnp.float32).reshape(5, 4)
y = jnp.stack([x.sum(1), x.prod(1)], axis=1)
params = model.init(jax.random.key(1), x)
print(jax.tree.map(lambda a: a.shape, params))
tx = optax.sgd(0.05, momentum=0.9)
opt_state = tx.init(params)


@jax.jit
def step(params, opt_state):
    loss, grads = jax.value_and_grad(
        lambda p: jnp.mean((model.apply(p, x) - y) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


for i in range(15):
    params, opt_state, loss = step(params, opt_state)
    print(i, r(loss))
print("out", r(model.apply(params, x)))
print(jax.make_jaxpr(model.apply)(params, x))
