"""dm-haiku: an MLP transformed to init/apply, its loss and gradient, a few SGD steps,
and a stateful BatchNorm model (transform_with_state)."""
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


def forward(x):
    return hk.nets.MLP([8, 4, 1])(x)


model = hk.without_apply_rng(hk.transform(forward))
x = jnp.linspace(-1.0, 1.0, 12).reshape(6, 2)
y = jnp.sin(x[:, :1] * 2.0)
params = model.init(jax.random.PRNGKey(0), x)
print("shapes", jax.tree_util.tree_map(lambda p: p.shape, params))
print("out", r(model.apply(params, x)[:, 0]))


def loss(params):
    return jnp.mean((model.apply(params, x) - y) ** 2)


print("loss", r(loss(params)))
grads = jax.grad(loss)(params)
print("grad b", r(grads["mlp/~/linear_2"]["b"]))


@jax.jit
def step(params):
    l, g = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, d: p - 0.1 * d, params, g), l


for i in range(5):
    params, l = step(params)
    print("step", i, r(l))


def bn_forward(x, is_training):
    return hk.BatchNorm(True, True, 0.9)(hk.Linear(3)(x), is_training)


bn = hk.transform_with_state(bn_forward)
p, state = bn.init(jax.random.PRNGKey(1), x, True)
out, state = bn.apply(p, state, None, x, True)
print("bn out", r(out[0]))
print("bn mean ema", r(state["batch_norm/~/mean_ema"]["average"]))
