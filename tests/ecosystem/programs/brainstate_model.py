"""A brainstate program, written against brainstate + JAX: its printed output under
glassjax must be JAX 0.10.2's (``brainstate_model.expected``, recorded with the real
JAX). It stages states into jaxprs (``make_jaxpr``, ``StatefulFunction``), compiles with
``jit``, differentiates with respect to ``ParamState``s and trains a small
``brainstate.nn`` model."""
import brainstate
import jax
import jax.numpy as jnp
import numpy as np


def show(label, value):
    """Floats rounded to 5 significant digits, so that the text is stable."""
    print(label, np.array2string(np.asarray(value), precision=5, floatmode="maxprec",
                                 suppress_small=True))


# -- make_jaxpr: the states a function reads and writes become inputs and outputs --------
counter = brainstate.ShortTermState(jnp.zeros(3))
weight = brainstate.ParamState(jnp.arange(3.0))


def step(x):
    counter.value = counter.value + x * weight.value
    return jnp.sum(counter.value)


jaxpr, states = brainstate.transform.make_jaxpr(step)(jnp.ones(3))
print(jaxpr)
print("states:", [type(s).__name__ for s in states])

# -- StatefulFunction: the same, kept, and called with the states' values ----------------
sf = brainstate.transform.StatefulFunction(step)
sf.make_jaxpr(jnp.ones(3))
print(sf.get_jaxpr(jnp.ones(3)))
print("reads:", len(sf.get_read_states(jnp.ones(3))),
      "writes:", len(sf.get_write_states(jnp.ones(3))))

# -- jit: the state is updated in place of the caller --------------------------------------
jitted = brainstate.transform.jit(step)
for _ in range(3):
    show("jit sum:", jitted(jnp.ones(3)))
show("counter:", counter.value)

# -- grad over ParamStates -----------------------------------------------------------------
w = brainstate.ParamState(jnp.array([[1.0, -2.0], [0.5, 3.0]]))
b = brainstate.ParamState(jnp.array([0.1, -0.1]))


def loss_fn(x):
    return jnp.sum(jnp.tanh(x @ w.value + b.value) ** 2)


grads = brainstate.transform.grad(loss_fn, grad_states={"w": w, "b": b})(jnp.ones(2))
show("grad w:", grads["w"])
show("grad b:", grads["b"])
grads, loss = brainstate.transform.grad(loss_fn, grad_states=[w, b], return_value=True)(
    jnp.array([0.5, -1.0]))
show("loss:", loss)
show("grads:", [g.sum() for g in grads])
print(brainstate.transform.make_jaxpr(
    brainstate.transform.grad(loss_fn, grad_states=[w, b]))(jnp.ones(2))[0])

# -- a small brainstate.nn model trained for a few steps -----------------------------------
brainstate.random.seed(0)


class MLP(brainstate.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = brainstate.nn.Linear(4, 8)
        self.l2 = brainstate.nn.Linear(8, 1)

    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))


model = MLP()
params = model.states(brainstate.ParamState)
xs = jnp.linspace(-1.0, 1.0, 32).reshape(8, 4)
ys = jnp.sin(xs.sum(axis=1, keepdims=True))


@brainstate.transform.jit
def train_step(x, y):
    def loss():
        return jnp.mean((model(x) - y) ** 2)
    g, value = brainstate.transform.grad(loss, grad_states=params, return_value=True)()
    for key, p in params.items():
        p.value = jax.tree.map(lambda v, d: v - 0.1 * d, p.value, g[key])
    return value


for i in range(5):
    show(f"step {i} loss:", train_step(xs, ys))
