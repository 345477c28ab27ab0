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
    "sgd": ([[0.9494190216064453, -1.8659290075302124], [0.4705829918384552, 2.82354998588562]],
             [0.10837800055742264, -0.30001300573349]),
    "momentum": ([[0.9048910140991211, -1.7490659952163696], [0.4448319971561432, 2.6690878868103027]],
                  [0.11541499942541122, -0.30002400279045105]),
    "nesterov": ([[0.8695909976959229, -1.6389310359954834], [0.42221900820732117, 2.533493995666504]],
                  [0.125777006149292, -0.30004599690437317]),
    "adagrad": ([[0.9539480209350586, -1.9536919593811035], [0.4539940059185028, 2.9537410736083984]],
                 [0.14689099788665771, -0.347368985414505]),
    "rmsprop": ([[0.8117340207099915, -1.1861259937286377], [0.02102299965918064, 2.2912371158599854]],
                 [1.0254319906234741, -0.8165990114212036]),
    "rmsprop_momentum": ([[0.2601819932460785, -0.39271900057792664], [-0.4616749882698059, 1.5671900510787964]],
                          [1.8497389554977417, -1.0619499683380127]),
    "adam": ([[0.7812749743461609, -1.7792359590530396], [0.28153398633003235, 2.779478073120117]],
              [0.3195419907569885, -0.5140910148620605]),
    "adamax": ([[0.7289649844169617, -1.7022520303726196], [0.23082299530506134, 2.7049829959869385]],
                [0.358038991689682, -0.5336059927940369]),
    "sm3": ([[0.9539480209350586, -1.9536919593811035], [0.46005699038505554, 2.9537410736083984]],
             [0.14689099788665771, -0.347368985414505]),
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
