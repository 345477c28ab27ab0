"""linen beyond Dense: nn.scan over an LSTM-like cell (flax traces its broadcast inputs
with partial evaluation), lazy_init, BatchNorm's mutable batch_stats and Dropout rngs."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import flax.linen as nn


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class Cell(nn.Module):
    @nn.compact
    def __call__(self, h, x):
        h = nn.tanh(nn.Dense(3, name="hh")(h) + nn.Dense(3, name="xh")(x))
        return h, h.sum()


class Scanned(nn.Module):
    @nn.compact
    def __call__(self, xs):
        scan = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False},
                       in_axes=0, out_axes=0)
        return scan()(jnp.zeros(3, jnp.float32), xs)


xs = jnp.linspace(-1.0, 1.0, 10, dtype=jnp.float32).reshape(5, 2)
model = Scanned()
params = model.init(jax.random.key(0), xs)
print(jax.tree.map(lambda a: a.shape, params))
h, ys = model.apply(params, xs)
print("h", r(h), "ys", r(ys))
print(jax.make_jaxpr(model.apply)(params, xs))

lazy = model.lazy_init(jax.random.key(0), jax.ShapeDtypeStruct((5, 2), jnp.float32))
print("lazy", jax.tree.map(lambda a: a.shape, lazy))


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.Dense(4)(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.5)(x)
        return nn.Dropout(0.5, deterministic=not train)(x)


net = Net()
x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) / 5
variables = net.init(jax.random.key(1), x, train=False)
out, updates = net.apply(variables, x, train=True, rngs={"dropout": jax.random.key(2)},
                         mutable=["batch_stats"])
print("train", r(out))
print("stats", r(updates["batch_stats"]["BatchNorm_0"]["mean"]))
print("eval", r(net.apply(variables, x, train=False)))
