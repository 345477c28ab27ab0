"""``jax.experimental.random.stateful_rng``: each draw folds a ref-held counter into the
key, eagerly, under ``jit`` and for ``vmap`` over a split generator. Expected numbers are
those JAX 0.10.2 prints (its docstring examples), and each draw must equal the stateless
``jax.random`` call on the folded key."""
import numpy as np
import pytest

import glassjax as jax
from glassjax.experimental import random


def test_draws_move_the_counter_and_match_jax():
    rng = random.stateful_rng(42)
    np.testing.assert_allclose([rng.uniform(), rng.uniform()], [0.5302608, 0.72766423],
                               rtol=1e-6)
    jit_uniform = jax.jit(rng.uniform)
    np.testing.assert_allclose([jit_uniform(), jit_uniform()], [0.6672406, 0.3890121],
                               rtol=1e-6)
    assert int(rng._counter[...]) == 4
    expected = jax.random.normal(jax.random.fold_in(jax.random.key(42), 4), (2,))
    np.testing.assert_array_equal(rng.normal(size=2), expected)


def test_split_generators_map_under_vmap_and_spawn_gives_a_list():
    rng = random.stateful_rng(123)
    out = jax.vmap(lambda r, x: x + r.uniform())(rng.split(3), jax.numpy.zeros(3))
    np.testing.assert_allclose(out, [0.35525954, 0.21937883, 0.5336956], rtol=1e-6)
    rng = random.stateful_rng(123)
    draws = [r.integers(0, 10, 2) for r in rng.spawn(2)]
    assert [d.tolist() for d in draws] == [[4, 5], [2, 1]]
    assert rng.integers(5, size=3).dtype == np.int32


def test_bad_parts_are_refused():
    with pytest.raises(ValueError, match="Expected base_key to be a typed PRNG key"):
        random.StatefulPRNG(jax.numpy.zeros(2), jax.new_ref(0))
    with pytest.raises(ValueError, match="cannot operate on split stateful generator"):
        random.stateful_rng(0).split(2).uniform()
    with pytest.raises(TypeError, match="requires an explicit seed"):
        jax.jit(lambda: random.stateful_rng().uniform())()
