"""More of linen: nn.vmap (an ensemble), nn.remat, nn.RNN with an LSTM cell, Conv,
SelfAttention, Embed, and flax.training.train_state."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn
from flax.training import train_state


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class Model(nn.Module):
    @nn.compact
    def __call__(self, tokens):
        h = nn.Embed(12, 6)(tokens)
        h = h + nn.SelfAttention(num_heads=2, qkv_features=6)(h)
        h = nn.remat(nn.Conv)(6, kernel_size=(2,))(h)
        h = nn.RNN(nn.OptimizedLSTMCell(5))(h)
        ensemble = nn.vmap(nn.Dense, variable_axes={"params": 0},
                           split_rngs={"params": True}, in_axes=None, out_axes=0,
                           axis_size=3)(1)
        return ensemble(h).mean(axis=0)[..., 0]


tokens = jnp.array([[1, 3, 5, 7], [2, 4, 6, 8]])
target = jnp.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], jnp.float32)
model = Model()
params = model.init(jax.random.key(0), tokens)["params"]
print(jax.tree.map(lambda a: a.shape, params))
state = train_state.TrainState.create(apply_fn=model.apply, params=params,
                                      tx=optax.adamw(1e-2))


@jax.jit
def step(state):
    def loss_fn(p):
        return jnp.mean((state.apply_fn({"params": p}, tokens) - target) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss


for i in range(8):
    state, loss = step(state)
    print(i, r(loss))
print("step", state.step)
print("out", r(model.apply({"params": state.params}, tokens)))
