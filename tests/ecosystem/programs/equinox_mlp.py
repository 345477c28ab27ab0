"""An equinox MLP: filter_jit, filter_grad, filter_value_and_grad, optax adam, and the
jaxpr of the forward pass."""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


model = eqx.nn.MLP(2, 1, width_size=8, depth=2, key=jax.random.key(0))
x = jnp.linspace(-1.0, 1.0, 20, dtype=jnp.float32).reshape(10, 2)
y = jnp.cos(x[:, :1] * x[:, 1:])


def loss_fn(m, x, y):
    return jnp.mean((jax.vmap(m)(x) - y) ** 2)


tx = optax.adam(5e-3)
opt_state = tx.init(eqx.filter(model, eqx.is_array))


@eqx.filter_jit
def step(m, opt_state):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(m, x, y)
    updates, opt_state = tx.update(grads, opt_state, m)
    return eqx.apply_updates(m, updates), opt_state, loss


for i in range(20):
    model, opt_state, loss = step(model, opt_state)
    print(i, r(loss))
grads = eqx.filter_grad(loss_fn)(model, x, y)
print("grad last bias", r(grads.layers[-1].bias))
print("out", r(jax.vmap(model)(x)[:4, 0]))
print(eqx.filter_make_jaxpr(model)(x[0])[0])
print(jax.make_jaxpr(lambda x: model(x))(x[0]))
