"""ravel_pytree: values, dtypes, the inverse, and its use under transformations,
against what JAX 0.10.2 prints."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.flatten_util import ravel_pytree


def test_ravel_and_unravel():
    tree = {"a": jnp.ones((2, 2)), "b": (jnp.arange(3.0), 4.0)}
    flat, unravel = ravel_pytree(tree)
    np.testing.assert_array_equal(flat, [1, 1, 1, 1, 0, 1, 2, 4])
    assert flat.dtype == jnp.float32
    back = unravel(flat * 2)
    assert jax.tree.structure(back) == jax.tree.structure(tree)
    np.testing.assert_array_equal(back["b"][0], [0, 2, 4])
    assert back["a"].shape == (2, 2)
    # One input dtype: the inverse keeps whatever dtype it is given.
    assert unravel(jnp.arange(8, dtype=jnp.int32))["a"].dtype == jnp.int32


def test_mixed_dtypes_are_promoted_and_restored():
    flat, unravel = ravel_pytree([jnp.arange(3), jnp.ones(2, jnp.float32), True])
    assert str(flat) == "[0. 1. 2. 1. 1. 1.]"
    ints, floats, flag = unravel(flat)
    assert (ints.dtype, floats.dtype, flag.dtype) == (jnp.int32, jnp.float32, jnp.bool_)
    with pytest.raises(TypeError, match="unravel function given array of dtype int32, "
                                        "but expected dtype float32"):
        unravel(jnp.arange(6))


def test_empty_tree():
    flat, unravel = ravel_pytree([])
    assert flat.shape == (0,) and flat.dtype == jnp.float32 and unravel(flat) == []


def test_under_transformations():
    tree = {"a": jnp.ones((2, 2)), "b": (jnp.arange(3.0), 4.0)}
    assert str(jax.make_jaxpr(lambda t: ravel_pytree(t)[0])(tree)) == """\
{ lambda ; a:f32[2,2] b:f32[3] c:f32[]. let
    d:f32[4] = reshape[dimensions=None new_sizes=(4,) sharding=None] a
    e:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] c
    f:f32[8] = concatenate[dimension=0] d b e
  in (f,) }"""
    grads = jax.grad(lambda t: jnp.sum(ravel_pytree(t)[0] ** 2))(tree)
    np.testing.assert_array_equal(grads["b"][0], [0, 2, 4])
    assert grads["b"][1] == 8.0
