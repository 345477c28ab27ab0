"""approx_max_k / approx_min_k (exact on CPU, as XLA's fallback computes them) and
lax.broadcast_like, against NumPy and JAX 0.10.2's printed output."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax

X = np.array([[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]], np.float32)


def test_values_and_indices_are_the_exact_top_k():
    values, indices = lax.approx_max_k(X, 2)
    np.testing.assert_array_equal(values, [[5., 4.], [9., 6.]])
    np.testing.assert_array_equal(indices, [[4, 2], [0, 2]])
    values, indices = lax.approx_min_k(X, 1, reduction_dimension=0)
    np.testing.assert_array_equal(values, [[3., 1., 4., 1., 3.]])
    np.testing.assert_array_equal(indices, [[0, 0, 0, 0, 1]])
    batched = jax.vmap(lambda row: lax.approx_min_k(row, 2))(X)
    np.testing.assert_array_equal(batched[0], [[1., 1.], [2., 3.]])
    np.testing.assert_array_equal(jax.jit(lambda a: lax.approx_max_k(a, 3))(X)[1],
                                  [[4, 2, 0], [0, 2, 3]])
    big = np.random.RandomState(0).rand(4, 2048).astype(np.float32)
    values, indices = lax.approx_max_k(big, 5)
    np.testing.assert_array_equal(indices, np.argsort(-big, axis=1)[:, :5])
    # Without aggregation the candidate count is XLA's formula (JAX: 2048 -> 128 here).
    assert lax.approx_max_k(big, 5, aggregate_to_topk=False)[0].shape == (4, 128)


def test_jaxpr_and_errors_as_jax():
    assert str(jax.make_jaxpr(lambda a: lax.approx_max_k(a, 2))(X)) == """\
{ lambda ; a:f32[2,5]. let
    b:f32[2,2] c:i32[2,2] = approx_top_k[
      aggregate_to_topk=True
      is_max_k=True
      k=2
      recall_target=0.95
      reduction_dimension=-1
      reduction_input_size_override=-1
    ] a
  in (b, c) }"""
    with pytest.raises(ValueError, match="operand must be a floating type"):
        lax.approx_max_k(jnp.arange(5), 2)
    with pytest.raises(ValueError, match="k must be smaller than the size of "
                                         "reduction_dim 5, got 9"):
        lax.approx_max_k(X, 9)


def test_broadcast_like():
    out = lax.broadcast_like(jnp.array([1, 2, 3]), jnp.zeros((2, 3)))
    assert repr(out) == "Array([[1, 2, 3],\n       [1, 2, 3]], dtype=int32)"
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                                         r"type=float32\[2\] and requested "
                                         r"type=float32\[2,3\]"):
        lax.broadcast_like(jnp.ones(2), jnp.ones((2, 3)))
