"""``jnp.vectorize`` (``glassjax/numpy/vectorize.py``) against JAX 0.10.2.

Expected values and messages were printed by real JAX 0.10.2 for the same code.
"""
from functools import partial

import numpy as np
import pytest

import glassjax.numpy as jnp
from glassjax import make_jaxpr
from glassjax.numpy.vectorize import vectorize

r = np.arange(24.0, dtype=np.float32)


@partial(vectorize, signature='(k),(k)->(k)')
def cross_product(a, b):
    assert a.shape == b.shape and a.ndim == b.ndim == 1
    return jnp.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


@partial(vectorize, signature='(n,m),(m)->(n)')
def matrix_vector_product(matrix, vector):
    assert matrix.ndim == 2 and matrix.shape[1:] == vector.shape
    return matrix @ vector


def test_docstring_examples():
    assert cross_product(jnp.ones(3), jnp.ones(3)).shape == (3,)
    assert cross_product(jnp.ones((2, 3)), jnp.ones(3)).shape == (2, 3)
    assert cross_product(jnp.ones((1, 2, 3)), jnp.ones((2, 1, 3))).shape == (2, 2, 3)
    assert matrix_vector_product(jnp.ones((2, 3)), jnp.ones(3)).shape == (2,)
    assert matrix_vector_product(jnp.ones((2, 3)), jnp.ones((4, 3))).shape == (4, 2)


def test_values_against_numpy():
    a, b = r[:6].reshape(2, 3), r[6:9]
    np.testing.assert_allclose(cross_product(a, b), np.cross(a, b))
    a, b = r[:3].reshape(1, 1, 3), r[:6].reshape(2, 1, 3)
    np.testing.assert_allclose(cross_product(a, b), np.cross(a, b))
    m, v = r[:6].reshape(2, 3), r[:12].reshape(4, 3)
    np.testing.assert_allclose(matrix_vector_product(m, v), v @ m.T)
    f = vectorize(lambda a, b: a * 2 + b)
    np.testing.assert_allclose(f(r[:6].reshape(2, 3), r[:3]), r[:6].reshape(2, 3) * 2 + r[:3])
    np.testing.assert_allclose(f(r[:2].reshape(2, 1), r[:3].reshape(1, 3)),
                               r[:2].reshape(2, 1) * 2 + r[:3].reshape(1, 3))
    g = vectorize(lambda a, b: a * b)
    out = g(r[:3].reshape(1, 3, 1), r[:4].reshape(1, 1, 4))
    assert out.shape == (1, 3, 4)
    np.testing.assert_allclose(out, r[:3].reshape(1, 3, 1) * r[:4].reshape(1, 1, 4))
    assert str(vectorize(lambda a: a + 1)(r[:1].reshape(1, 1))) == "[[1.]]"


def test_excluded_none_and_multiple_outputs():
    assert vectorize(lambda a, n: a ** n, excluded={1})(r[:4], 2).tolist() == [0, 1, 4, 9]
    assert vectorize(lambda a, n=1: a ** n, excluded={'n'})(r[:4], n=3).tolist() == \
        [0, 1, 8, 27]
    assert vectorize(lambda a, b: a if b is None else a + b)(r[:3], None).tolist() == \
        [0, 1, 2]
    total, doubled = vectorize(lambda a: (a.sum(), a * 2), signature='(n)->(),(n)')(
        r[:8].reshape(2, 4))
    assert total.tolist() == [6, 22] and doubled.shape == (2, 4)


def test_jaxprs():
    assert str(make_jaxpr(vectorize(lambda a, b: a * 2 + b))(r[:6].reshape(2, 3), r[:3])) == """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[2,3] = mul a 2.0:f32[]
    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    e:f32[2,3] = add c d
  in (e,) }"""
    assert str(make_jaxpr(matrix_vector_product)(r[:6].reshape(2, 3),
                                                 r[:12].reshape(4, 3))) == """\
{ lambda ; a:f32[2,3] b:f32[4,3]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[4,2] = transpose[permutation=(1, 0)] c
  in (d,) }"""


def test_wraps():
    def f(a):
        """doc"""
        return a
    assert vectorize(f).__name__ == "f" and vectorize(f).__doc__ == "doc"


_ctx = "on vectorized function with excluded=frozenset() and signature='(n)->(n)'"

ERROR_CASES = [
    (lambda: matrix_vector_product(jnp.ones(3), jnp.ones(3)), ValueError,
     "input with shape (3,) does not have enough dimensions for all core dimensions "
     "('n', 'm') on vectorized function with excluded=frozenset() and "
     "signature='(n,m),(m)->(n)'"),
    (lambda: vectorize(lambda a: a, excluded={1.0})(r[:4]), TypeError,
     "jax.numpy.vectorize can only exclude integer or string arguments, but "
     "excluded={1.0}"),
    (lambda: vectorize(lambda a: a, excluded={-1})(r[:4]), ValueError,
     "excluded={-1} contains negative numbers"),
    (lambda: vectorize(lambda a: a, signature='(n)->n')(r[:4]), ValueError,
     "not a valid gufunc signature: (n)->n"),
    (lambda: vectorize(lambda a, b: a, signature='(n)->(n)')(r[:4], r[:4]), TypeError,
     f"wrong number of positional arguments: expected 1, got 2 {_ctx}"),
    (lambda: vectorize(lambda a, b: a + b, signature='(n),(n)->(n)')(r[:4], r[:3]),
     ValueError,
     "inconsistent size for core dimension 'n': 3 vs 4 on vectorized function with "
     "excluded=frozenset() and signature='(n),(n)->(n)'"),
    (lambda: vectorize(lambda a: a.sum(), signature='(n)->(n)')(r[:4]), ValueError,
     f"output shape () does not match core dimensions ('n',) {_ctx}"),
    (lambda: vectorize(lambda a: a, signature='(n)->(n),(n)')(r[:4]), TypeError,
     "output must be a tuple when multiple outputs are expected, got: "
     "Array([0., 1., 2., 3.], dtype=float32)\non vectorized function with "
     "excluded=frozenset() and signature='(n)->(n),(n)'"),
    (lambda: vectorize(lambda a: (a, a, a), signature='(n)->(n),(n)')(r[:4]), TypeError,
     "wrong number of output arguments: expected 2, got 3 on vectorized function with "
     "excluded=frozenset() and signature='(n)->(n),(n)'"),
    (lambda: vectorize(lambda a, b: a + b)(r[:3], r[:2]), ValueError,
     "Incompatible shapes for broadcasting: shapes=[(3,), (2,)]"),
]


@pytest.mark.parametrize("thunk,exc,msg", ERROR_CASES)
def test_errors(thunk, exc, msg):
    with pytest.raises(exc) as info:
        thunk()
    assert str(info.value) == msg
