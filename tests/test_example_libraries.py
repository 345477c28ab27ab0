"""``jax.example_libraries`` (optimizers, stax): three steps of every optimizer on a small
pytree and a stax network's init and output, against the numbers JAX 0.10.2's own
example libraries gave on the same program (recorded with the real JAX)."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.example_libraries import optimizers, stax

PARAMS = {"w": jnp.array([[1.0, -2.0], [0.5, 3.0]]), "b": jnp.array([0.1, -0.3])}


def loss(p):
    return (jnp.sum(jnp.tanh(p["w"] @ jnp.array([1.0, 2.0]) + p["b"]) ** 2)
            + jnp.sum(p["w"] ** 2) * 0.1)


OPTIMIZERS = {
    "sgd": lambda: optimizers.sgd(0.1),
    "momentum": lambda: optimizers.momentum(0.1, 0.9),
    "nesterov": lambda: optimizers.nesterov(0.1, 0.9),
    "adagrad": lambda: optimizers.adagrad(0.1),
    "rmsprop": lambda: optimizers.rmsprop(0.1),
    "rmsprop_momentum": lambda: optimizers.rmsprop_momentum(0.1),
    "adam": lambda: optimizers.adam(optimizers.exponential_decay(0.1, 2, 0.5)),
    "adamax": lambda: optimizers.adamax(0.1),
    "sm3": lambda: optimizers.sm3(0.1),
}
# (w, b) after three steps, as JAX 0.10.2 computed them
JAX_PARAMS = {
    "sgd": ([[0.949419, -1.86593], [0.470583, 2.82355]],
             [0.108378, -0.300013]),
    "momentum": ([[0.904891, -1.74907], [0.444832, 2.66909]],
                  [0.115415, -0.300024]),
    "nesterov": ([[0.869591, -1.63893], [0.422219, 2.53349]],
                  [0.125777, -0.300046]),
    "adagrad": ([[0.953948, -1.95369], [0.453994, 2.95374]],
                 [0.146891, -0.347369]),
    "rmsprop": ([[0.811734, -1.18613], [0.021023, 2.29124]],
                 [1.02543, -0.816599]),
    "rmsprop_momentum": ([[0.260182, -0.392719], [-0.461675, 1.56719]],
                          [1.84974, -1.06195]),
    "adam": ([[0.781275, -1.77924], [0.281534, 2.77948]],
              [0.319542, -0.514091]),
    "adamax": ([[0.728965, -1.70225], [0.230823, 2.70498]],
                [0.358039, -0.533606]),
    "sm3": ([[0.953948, -1.95369], [0.460057, 2.95374]],
             [0.146891, -0.347369]),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_three_steps_as_in_jax(name):
    init, update, get_params = OPTIMIZERS[name]()
    state = init(PARAMS)
    for i in range(3):
        state = jax.jit(update)(i, jax.grad(loss)(get_params(state)), state)
    params = get_params(state)
    w, b = JAX_PARAMS[name]
    np.testing.assert_allclose(params["w"], w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params["b"], b, rtol=1e-5, atol=1e-6)


def test_stax_network_as_in_jax():
    init, apply = stax.serial(stax.Dense(3), stax.Relu, stax.FanOut(2),
                              stax.parallel(stax.Dense(2), stax.Identity),
                              stax.FanInConcat(), stax.Elu)
    shape, params = init(jax.random.PRNGKey(0), (4, 2))
    assert shape == (4, 5)
    np.testing.assert_allclose(apply(params, jnp.ones((4, 2)) * 0.5)[0],
                               [-0.000835, 0.00138, 0.0, 0.0, 0.0], atol=2e-6)


def test_utilities_and_schedules():
    np.testing.assert_allclose(optimizers.l2_norm(PARAMS), 3.7881393, rtol=1e-6)
    np.testing.assert_allclose(optimizers.clip_grads(PARAMS, 1.0)["b"],
                               [0.02639819, -0.07919456], rtol=1e-6)
    assert optimizers.piecewise_constant([2, 4], [1.0, 0.5, 0.1])(3) == 0.5
    np.testing.assert_allclose(optimizers.polynomial_decay(1.0, 10, 0.1)(5), 0.55)
    np.testing.assert_allclose(
        optimizers.inverse_time_decay(1.0, 2, 0.5, staircase=True)(3), 2 / 3, rtol=1e-6)
    state = optimizers.adam(0.1)[0](PARAMS)
    packed = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    assert jax.tree_util.tree_structure(packed) == jax.tree_util.tree_structure(state)
    np.testing.assert_array_equal(packed.packed_state[1][0], state.packed_state[1][0])
