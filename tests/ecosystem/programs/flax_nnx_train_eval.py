"""nnx.Rngs, Dropout and BatchNorm in train and eval mode, nnx.vmap over a batch of
models and nnx.scan over layers."""
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class Block(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(4, 4, rngs=rngs)
        self.bn = nnx.BatchNorm(4, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.drop(nnx.relu(self.bn(self.linear(x))))


model = Block(nnx.Rngs(params=0, dropout=1))
x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) / 7.0
model.train()
print("train", r(model(x)))
print("mean", r(model.bn.mean[...]))
model.eval()
print("eval", r(model(x)))


@nnx.jit
def fwd(m, x):
    return m(x)


print("jit eval", r(fwd(model, x)))

# A stack of 3 linear layers made by nnx.vmap, applied with nnx.scan.
@nnx.vmap(in_axes=0, out_axes=0)
def make(key):
    return nnx.Linear(4, 4, rngs=nnx.Rngs(key))


stack = make(jax.random.split(jax.random.key(3), 3))
print("stacked kernel", stack.kernel.shape)


@nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
def run(h, layer):
    return jnp.tanh(layer(h))


print("scan", r(run(x, stack)))
