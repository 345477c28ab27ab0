"""An nnx MLP trained with optax adam: nnx.jit, nnx.grad, nnx.split/merge, and the
jaxpr of the forward pass."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(3, 8, rngs=rngs)
        self.l2 = nnx.Linear(8, 1, rngs=rngs)

    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))


model = MLP(nnx.Rngs(0))
x = jnp.linspace(-1.0, 1.0, 24, dtype=jnp.float32).reshape(8, 3)
y = jnp.sin(x.sum(axis=1, keepdims=True))
optimizer = nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)


def loss_fn(m):
    return jnp.mean((m(x) - y) ** 2)


@nnx.jit
def step(m, opt):
    loss, grads = nnx.value_and_grad(loss_fn)(m)
    opt.update(m, grads)
    return loss


for i in range(20):
    loss = step(model, optimizer)
    print(i, r(loss))

grads = nnx.grad(loss_fn)(model)
print("grad l2 bias", r(grads.l2.bias[...]))
graphdef, state = nnx.split(model)
print(jax.tree.map(lambda a: (a.shape, str(a.dtype)), state))
same = nnx.merge(graphdef, state)
print("merged", r(same(x)[:3, 0]))
print(jax.make_jaxpr(lambda s, x: nnx.merge(graphdef, s)(x))(state, x))
