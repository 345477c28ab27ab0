"""equinox state and structure: nn.State with BatchNorm, tree_at, partition/combine,
filter_eval_shape, nn.GRUCell over lax.scan, MultiheadAttention, internal.scan and
filter_closure_convert."""
import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class Net(eqx.Module):
    lin: eqx.nn.Linear
    bn: eqx.nn.BatchNorm

    def __init__(self, key):
        self.lin = eqx.nn.Linear(3, 4, key=key)
        self.bn = eqx.nn.BatchNorm(4, axis_name="batch")

    def __call__(self, x, state):
        x, state = self.bn(self.lin(x), state)
        return jax.nn.relu(x), state


net, state = eqx.nn.make_with_state(Net)(jax.random.key(0))
xs = jnp.linspace(-1.0, 1.0, 15, dtype=jnp.float32).reshape(5, 3)
batched = jax.vmap(net, axis_name="batch", in_axes=(0, None), out_axes=(0, None))
out, state = batched(xs, state)
print("bn train", r(out[:2]))
out, state = batched(xs * 2, state)
inference = eqx.nn.inference_mode(net)
print("bn eval", r(jax.vmap(inference, in_axes=(0, None), out_axes=(0, None))(xs, state)[0][:2]))

zeroed = eqx.tree_at(lambda m: m.lin.bias, net, jnp.zeros(4))
print("tree_at", r(zeroed.lin.bias))
params, static = eqx.partition(net, eqx.is_inexact_array)
print("leaves", len(jax.tree.leaves(params)), type(eqx.combine(params, static)).__name__)
print("eval_shape", eqx.filter_eval_shape(eqx.nn.Linear, 5, 2, key=jax.random.key(1)).weight.shape)

cell = eqx.nn.GRUCell(2, 3, key=jax.random.key(2))
seq = jnp.sin(jnp.arange(12, dtype=jnp.float32)).reshape(6, 2)
final, hs = jax.lax.scan(lambda h, x: (cell(x, h), cell(x, h)), jnp.zeros(3), seq)
print("gru", r(final))

mha = eqx.nn.MultiheadAttention(2, 4, key=jax.random.key(3))
q = jnp.cos(jnp.arange(12, dtype=jnp.float32)).reshape(3, 4)
print("mha", r(mha(q, q, q)))

carry, ys = eqxi.scan(lambda c, x: (c + x, c * x), jnp.float32(1.0),
                      jnp.arange(5.0, dtype=jnp.float32), kind="lax")
print("scan", r(carry), r(ys))
closed = eqx.filter_closure_convert(lambda x: net.lin(x) * 2, xs[0])
print("closure_convert", r(closed(xs[1])))
print(jax.make_jaxpr(lambda x: cell(x, jnp.zeros(3)))(seq[0]))
