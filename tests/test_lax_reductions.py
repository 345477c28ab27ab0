"""Reductions, cumulative reductions, sort/top_k and dot_general: values against NumPy,
printed jaxprs, errors, and the JVP, transpose (grad) and batching (vmap) rules.

Expected jaxpr texts and error messages were printed by real JAX 0.10.2 for the same
programs (``jax.make_jaxpr``), so these tests pin glassjax to JAX's exact behaviour.
"""
import ml_dtypes
import numpy as np
import pytest

import glassjax as jax
from glassjax import lax

RNG = np.random.default_rng(1)
NUMERIC = ["float32", "bfloat16", "int32", "uint8", "complex64"]


def rand(shape, dtype="float32"):
    """Random values of ``dtype`` (small integers, booleans, or floats in [-3, 3))."""
    dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return RNG.integers(0 if dtype.kind == "u" else -5, 5, shape).astype(dtype)
    values = RNG.uniform(-3, 3, shape)
    if dtype.kind == "c":
        values = values + 1j * RNG.uniform(-3, 3, shape)
    return values.astype(dtype)


def check(actual, expected, rtol=1e-5):
    """Same dtype and shape, and values equal (integers) or close (floats)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        upcast = np.complex128 if actual.dtype.kind == "c" else np.float64
        rtol = 2e-2 if actual.dtype == ml_dtypes.bfloat16 else rtol
        np.testing.assert_allclose(actual.astype(upcast), expected.astype(upcast),
                                   rtol=rtol, atol=rtol)


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("axes", [(), (0,), (1, 2), (0, 1, 2)])
def test_sum_and_product(dtype, axes):
    x = rand((2, 3, 4), dtype)
    wide = x.astype(np.float64 if x.dtype.kind != "c" else np.complex128)
    check(lax.reduce_sum(x, axes), np.sum(wide, axes).astype(x.dtype))
    small = rand((2, 3, 4), dtype) if x.dtype.kind in "iu" else x / 2
    check(lax.reduce_prod(small, axes),
          np.prod(small.astype(wide.dtype), axes).astype(x.dtype), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int32", "uint8", "bool"])
@pytest.mark.parametrize("axes", [(0,), (1, 2), (0, 1, 2)])
def test_max_and_min(dtype, axes):
    x = rand((2, 3, 4), dtype)
    check(lax.reduce_max(x, axes), np.max(x, axes))
    check(lax.reduce_min(x, axes), np.min(x, axes))


def test_max_propagates_nan_and_empty_reductions_give_the_identity():
    x = np.array([1, np.nan, 3], np.float32)
    assert np.isnan(lax.reduce_max(x, (0,)))
    check(lax.reduce_max(np.zeros((0, 2), np.float32), (0,)), np.full(2, -np.inf, np.float32))
    check(lax.reduce_min(np.zeros((0,), np.int8), (0,)), np.int8(127))
    check(lax.reduce_sum(np.zeros((0, 2), np.float32), (0,)), np.zeros(2, np.float32))


def test_complex_max_compares_lexicographically():
    x = np.array([1 + 5j, 2 - 1j, 2 + 0j], np.complex64)
    check(lax.reduce_max(x, (0,)), np.complex64(2 + 0j))
    check(lax.reduce_min(x, (0,)), np.complex64(1 + 5j))


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8"])
def test_logical_reductions(dtype):
    x = rand((3, 5), dtype)
    check(lax.reduce_and(x, (1,)), np.bitwise_and.reduce(x, 1))
    check(lax.reduce_or(x, (0, 1)), np.bitwise_or.reduce(x.ravel()))
    check(lax.reduce_xor(x, (0,)), np.bitwise_xor.reduce(x, 0))


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bfloat16"])
def test_argmax_argmin(dtype):
    x = rand((4, 6), dtype)
    check(lax.argmax(x, 1, np.int32), np.argmax(x, 1).astype(np.int32))
    check(lax.argmin(x, 0, np.uint8), np.argmin(x, 0).astype(np.uint8))


def test_argmax_picks_nans_and_first_ties():
    x = np.array([[1, 3, 3, 0], [1, np.nan, 5, np.nan]], np.float32)
    check(lax.argmax(x, 1, np.int32), np.array([1, 1], np.int32))
    check(lax.argmin(x, 1, np.int32), np.array([3, 1], np.int32))


def test_reduce_with_monoids_and_custom_computations():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    check(lax.reduce(x, 0.0, lax.add, (0,)), x.sum(0))
    check(lax.reduce(x, -np.inf, lax.max, (1,)), x.max(1))
    check(lax.reduce(x, np.float32(1), lambda a, b: lax.mul(a, b), (0,)), x.prod(0))
    total, product = lax.reduce((x, x + 1), (np.float32(0), np.float32(1)),
                                lambda a, b: (lax.add(a[0], b[0]), lax.mul(a[1], b[1])),
                                (0, 1))
    check(total, np.float32(66))
    check(product, np.prod(x + 1, dtype=np.float32), rtol=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_reductions(dtype, reverse):
    x = rand((3, 5), dtype)

    def ref(ufunc, axis):
        y = np.flip(x, axis) if reverse else x
        out = ufunc.accumulate(y.astype(np.float64), axis).astype(x.dtype)
        return np.flip(out, axis) if reverse else out

    for axis in (0, 1):
        check(lax.cumsum(x, axis, reverse), ref(np.add, axis))
        check(lax.cumprod(x, axis, reverse), ref(np.multiply, axis), rtol=1e-4)
        check(lax.cummax(x, axis, reverse), ref(np.maximum, axis))
        check(lax.cummin(x, axis, reverse), ref(np.minimum, axis))
    if dtype != "int32":
        check(lax.cumlogsumexp(x, 1, reverse), ref(np.logaddexp, 1), rtol=1e-4)


def test_associative_scan():
    x = np.arange(1, 8, dtype=np.int32)
    check(lax.associative_scan(lax.add, x), np.cumsum(x, dtype=np.int32))
    check(lax.associative_scan(lax.mul, x, reverse=True),
          np.cumprod(x[::-1], dtype=np.int32)[::-1])
    pairs = lax.associative_scan(lambda a, b: (lax.add(a[0], b[0]), lax.max(a[1], b[1])),
                                 (x, x[::-1].copy()))
    check(pairs[0], np.cumsum(x, dtype=np.int32))
    check(pairs[1], np.maximum.accumulate(x[::-1]))


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bfloat16", "bool"])
def test_sort(dtype):
    x = rand((4, 7), dtype)
    check(lax.sort(x), np.sort(x, 1))
    check(lax.sort(x, 0), np.sort(x, 0))
    keys, values = lax.sort_key_val(x, np.arange(28, dtype=np.int32).reshape(4, 7))
    check(keys, np.sort(x, 1, kind="stable"))
    check(values, np.argsort(x, 1, kind="stable").astype(np.int32) +
          7 * np.arange(4, dtype=np.int32)[:, None])


def test_sort_orders_floats_totally_and_complex_lexicographically():
    x = np.array([np.nan, 1, -0.0, -np.inf, 0.0, -1, np.inf], np.float32)
    out = np.asarray(lax.sort(x))
    np.testing.assert_array_equal(out[:-1], [-np.inf, -1, 0, 0, 1, np.inf])
    assert np.isnan(out[-1])
    z = np.array([1 + 2j, 1 - 1j, -1 + 5j], np.complex64)
    check(lax.sort(z), np.sort(z))


def test_sort_with_several_keys():
    a = np.array([1, 0, 1, 0], np.int32)
    b = np.array([4, 3, 2, 1], np.float32)
    c = np.arange(4, dtype=np.int32)
    sa, sb, sc = lax.sort((a, b, c), num_keys=2)
    order = np.lexsort((b, a))
    check(sa, a[order])
    check(sb, b[order])
    check(sc, c[order])


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
def test_top_k(dtype):
    x = rand((3, 8), dtype)
    values, indices = lax.top_k(x, 3)
    order = np.argsort(-x.astype(np.float64), 1, kind="stable")[:, :3]
    check(indices, order.astype(np.int32))
    check(values, np.take_along_axis(x, order, 1))
    values, indices = lax.top_k(x, 2, axis=0)
    order = np.argsort(-x.astype(np.float64), 0, kind="stable")[:2]
    check(indices, order.astype(np.int32))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16", "complex64"])
def test_dot_general(dtype):
    a, b = rand((2, 3, 4), dtype), rand((2, 4, 5), dtype)
    wide = np.complex128 if np.dtype(a.dtype).kind == "c" else np.float64
    ref = lambda s, *ops: np.einsum(s, *[o.astype(wide) for o in ops]).astype(a.dtype)
    check(lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), ref("bij,bjk->bik", a, b),
          rtol=1e-4)
    check(lax.dot_general(a, a, (((1, 2), (1, 2)), ((0,), (0,)))),
          ref("bij,bij->b", a, a), rtol=1e-4)
    check(lax.dot_general(a, b, (((0,), (0,)), ((), ()))), ref("bij,bkl->ijkl", a, b),
          rtol=1e-4)
    check(lax.dot(a[0], b[0, :, 1]), ref("ij,j->i", a[0], b[0, :, 1]), rtol=1e-4)
    check(lax.batch_matmul(a, b), ref("bij,bjk->bik", a, b), rtol=1e-4)


def test_dot_types():
    i8 = np.ones((2, 3), np.int8)
    check(lax.dot(i8, i8.T, preferred_element_type=np.int32), np.full((2, 2), 3, np.int32))
    check(lax.dot(i8, i8.T.astype(np.float32)), np.full((2, 2), 3, np.float32))
    check(lax.dot(np.ones((2, 3), np.float16), np.ones(3, np.float32)),
          np.full(2, 3, np.float32))
    check(lax.dot(np.ones((2, 3), np.float32), np.ones(3, np.float32),
                  precision=lax.Precision.HIGHEST), np.full(2, 3, np.float32))


# ----------------------------------------------------------------------------------------
# Printed jaxprs (texts printed by JAX 0.10.2 for the same programs)
# ----------------------------------------------------------------------------------------

f32 = lambda *shape: np.ones(shape, np.float32)
i32 = lambda *shape: np.ones(shape, np.int32)

PROGRAMS = {
    "rsum": (lambda x: lax.reduce_sum(x, (0,)), [f32(2, 3)]),
    "rmax": (lambda x: lax.reduce_max(x, (0, 1)), [f32(2, 3)]),
    "rmin": (lambda x: lax.reduce_min(x, (1,)), [f32(2, 3)]),
    "rprod": (lambda x: lax.reduce_prod(x, (1,)), [f32(2, 3)]),
    "ror": (lambda x: lax.reduce_or(x, (1,)), [np.ones((2, 3), bool)]),
    "rand": (lambda x: lax.reduce_and(x, (1,)), [i32(2, 3)]),
    "rxor": (lambda x: lax.reduce_xor(x, (0,)), [i32(2, 3)]),
    "argmax": (lambda x: lax.argmax(x, 1, np.int32), [f32(2, 3)]),
    "argmin": (lambda x: lax.argmin(x, 0, np.int32), [f32(2, 3)]),
    "reduce_add": (lambda x: lax.reduce(x, 0., lax.add, (0,)), [f32(2, 3)]),
    "reduce_max": (lambda x: lax.reduce(x, -np.inf, lax.max, (1,)), [f32(2, 3)]),
    "reduce_custom": (lambda x: lax.reduce(x, 1., lambda a, b: lax.mul(a, b), (0,)),
                      [f32(2, 3)]),
    "cumsum": (lambda x: lax.cumsum(x, 1, reverse=True), [f32(2, 3)]),
    "cumprod": (lambda x: lax.cumprod(x), [f32(2, 3)]),
    "cummax": (lambda x: lax.cummax(x, 1), [f32(2, 3)]),
    "cumlse": (lambda x: lax.cumlogsumexp(x, 1), [f32(2, 3)]),
    "sort": (lambda x: lax.sort(x, 0), [f32(2, 3)]),
    "sort2": (lambda x: lax.sort((x, x), num_keys=2, is_stable=False), [f32(2, 3)]),
    "sortkv": (lambda x: lax.sort_key_val(x, x), [f32(2, 3)]),
    "topk": (lambda x: lax.top_k(x, 2), [f32(2, 3)]),
    "dot": (lambda a, b: lax.dot(a, b), [f32(2, 3), f32(3, 4)]),
    "dot_prec": (lambda a, b: lax.dot(a, b, precision=lax.Precision.HIGHEST),
                 [f32(2, 3), f32(3, 4)]),
    "dot_pet": (lambda a, b: lax.dot(a, b, preferred_element_type=np.float32),
                [f32(2, 3), f32(3, 4)]),
    "dot_int": (lambda a, b: lax.dot(a, b, preferred_element_type=np.int32),
                [np.ones((2, 3), np.int8), np.ones((3, 4), np.int8)]),
    "dotg": (lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
             [f32(5, 2, 3), f32(5, 3, 4)]),
    "bmm": (lambda a, b: lax.batch_matmul(a, b), [f32(5, 2, 3), f32(5, 3, 4)]),
}

JAXPRS = {
    "rsum": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a
  in (b,) }""",
    "rmax": """\
{ lambda ; a:f32[2,3]. let b:f32[] = reduce_max[axes=(0, 1)] a in (b,) }""",
    "rmin": """\
{ lambda ; a:f32[2,3]. let b:f32[2] = reduce_min[axes=(1,)] a in (b,) }""",
    "rprod": """\
{ lambda ; a:f32[2,3]. let b:f32[2] = reduce_prod[axes=(1,)] a in (b,) }""",
    "ror": """\
{ lambda ; a:bool[2,3]. let b:bool[2] = reduce_or[axes=(1,)] a in (b,) }""",
    "rand": """\
{ lambda ; a:i32[2,3]. let b:i32[2] = reduce_and[axes=(1,)] a in (b,) }""",
    "rxor": """\
{ lambda ; a:i32[2,3]. let b:i32[3] = reduce_xor[axes=(0,)] a in (b,) }""",
    "argmax": """\
{ lambda ; a:f32[2,3]. let
    b:i32[2] = argmax[axes=(1,) index_dtype=int32] a
  in (b,) }""",
    "argmin": """\
{ lambda ; a:f32[2,3]. let
    b:i32[3] = argmin[axes=(0,) index_dtype=int32] a
  in (b,) }""",
    "reduce_add": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a
  in (b,) }""",
    "reduce_max": """\
{ lambda ; a:f32[2,3]. let b:f32[2] = reduce_max[axes=(1,)] a in (b,) }""",
    "reduce_custom": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3] = reduce[
      computation=<function <lambda>.<locals>.<lambda> at 0xXXXXXXXXXXXX>
      dimensions=(0,)
      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }
    ] a 1.0:f32[]
  in (b,) }""",
    "cumsum": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = cumsum[axis=1 reverse=True] a in (b,) }""",
    "cumprod": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = cumprod[axis=0 reverse=False] a
  in (b,) }""",
    "cummax": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = cummax[axis=1 reverse=False] a in (b,) }""",
    "cumlse": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = cumlogsumexp[axis=1 reverse=False] a
  in (b,) }""",
    "sort": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = sort[dimension=0 is_stable=True num_keys=1] a
  in (b,) }""",
    "sort2": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] c:f32[2,3] = sort[dimension=1 is_stable=False num_keys=2] a a
  in (b, c) }""",
    "sortkv": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] c:f32[2,3] = sort[dimension=1 is_stable=True num_keys=1] a a
  in (b, c) }""",
    "topk": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2] c:i32[2,2] = top_k[axis=1 k=2] a
  in (b, c) }""",
    "dot": """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
  in (c,) }""",
    "dot_prec": """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=(Precision.HIGHEST, Precision.HIGHEST)
    ] a b
  in (c,) }""",
    "dot_pet": """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "dot_int": """\
{ lambda ; a:i8[2,3] b:i8[3,4]. let
    c:i32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=int32
    ] a b
  in (c,) }""",
    "dotg": """\
{ lambda ; a:f32[5,2,3] b:f32[5,3,4]. let
    c:f32[5,2,4] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
  in (c,) }""",
    "bmm": """\
{ lambda ; a:f32[5,2,3] b:f32[5,3,4]. let
    c:f32[5,2,4] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
  in (c,) }""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printed_jaxpr(name):
    f, args = PROGRAMS[name]
    assert str(jax.make_jaxpr(f)(*args)) == JAXPRS[name]


def test_lowering_matches_jax():
    """dot_general's attributes and a reduction region, as JAX emits them."""
    text = jax.jit(lambda a, b: lax.dot(a, b)).lower(f32(2, 3), f32(3, 4)).as_text()
    assert ("stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = "
            "[DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>"
            in text)
    text = jax.jit(lambda x: lax.cumsum(x, reverse=True)).lower(f32(3)).as_text()
    assert ("padding = dense<[[0, 2]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>,"
            " window_dimensions = array<i64: 3>" in text)


# ----------------------------------------------------------------------------------------
# Errors (types and messages as JAX raises them)
# ----------------------------------------------------------------------------------------

x = f32(2, 3)
ERRORS = [
    ('lax.reduce_sum(x, (0, 0))', ValueError, "duplicate value in 'axes' of reduction: (0, 0)"),
    ('lax.reduce_sum(x, (2,))', ValueError, 'reduction axes (2,) contains out-of-bounds indices for float32[2,3].'),
    ('lax.reduce_sum(np.ones(3, bool), (0,))', TypeError, 'reduce_sum does not accept dtype bool. Accepted dtypes are subtypes of number.'),
    ('lax.reduce_prod(np.ones(3, bool), (0,))', TypeError, 'reduce_prod does not accept dtype bool. Accepted dtypes are subtypes of number.'),
    ('lax.reduce_max(x, (3,))', ValueError, 'reduction axes (3,) contains out-of-bounds indices for float32[2,3].'),
    ('lax.reduce_or(x, (0,))', TypeError, 'logical reduction requires operand dtype bool or int, got float32.'),
    ('lax.argmax(x, 2, np.int32)', ValueError, 'Invalid axis 2 for operand shape (2, 3)'),
    ('lax.argmax(f32(0, 3), 0, np.int32)', ValueError, 'argmin and argmax require non-empty reduced dimension. operand.shape=(0, 3) axis=0'),
    ('lax.argmax(x, 0, np.float32)', TypeError, 'index_dtype must be an integer type, but got float32'),
    ('lax.reduce((x, x), 0., lax.add, (0,))', ValueError, 'Operands must have the same tree structure as init_values: PyTreeDef((*, *)) vs. PyTreeDef(*)'),
    ('lax.reduce(x, f32(2), lambda a, b: lax.mul(a, b), (0,))', ValueError, 'reduce found non-scalar initial value: [(2,)]'),
    ('lax.reduce(x, np.int32(0), lambda a, b: lax.mul(a, b), (0,))', TypeError, 'reduce operand dtypes should match corresponding initial value dtypes, got operands=[ShapedArray(float32[2,3])] and initial_values=[ShapedArray(int32[])]'),
    ('lax.cumsum(x, 2)', ValueError, 'axis 2 is out of bounds for array of shape (2, 3)'),
    ('lax.cumsum(x, -1)', ValueError, 'XLA operations do not allow negative axes'),
    ('lax.cumsum(np.ones(3, bool))', TypeError, 'cumsum does not accept dtype bool. Accepted dtypes are subtypes of number.'),
    ('lax.sort((x, f32(3)), num_keys=1)', TypeError, 'Arguments to sort must have equal shapes, got: (2, 3) (3,)'),
    ('lax.sort(())', TypeError, 'Sort requires at least one operand'),
    ('lax.sort((x, x), num_keys=3)', ValueError, 'num_keys=3 must be between 1 and len(operand)=2'),
    ('lax.sort(x, num_keys=2)', ValueError, 'num_keys=2 must equal 1 for a single operand.'),
    ('lax.top_k(x, 4)', ValueError, 'k argument to top_k must be no larger than size along axis; got k=4 with shape=[2, 3] and axis=1'),
    ('lax.top_k(x, -1)', ValueError, 'k argument to top_k must be nonnegative, got -1'),
    ('lax.top_k(np.float32(1), 1)', ValueError, 'axis -1 is out of bounds for array of dimension 0'),
    ('lax.top_k(np.ones(3, np.complex64), 1)', ValueError, 'top_k is not compatible with complex inputs.'),
    ('lax.dot_general(x, f32(4, 2), (((1,), (0,)), ((), ())))', TypeError, 'dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).'),
    ('lax.dot_general(x, x, (((2,), (1,)), ((), ())))', TypeError, 'dot_general requires lhs dimension numbers to be nonnegative and less than the number of axes of the lhs value, got lhs_batch of () and lhs_contracting of (2,) for lhs of rank 2'),
    ('lax.dot_general(x, x, (((1,), (3,)), ((), ())))', TypeError, 'dot_general requires rhs dimension numbers to be nonnegative and less than the number of axes of the rhs value, got rhs_batch of () and rhs_contracting of (3,) for rhs of rank 2'),
    ('lax.dot_general(x, x, (((1,), (1,)), ((0,), ())))', TypeError, 'dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch (0,) and rhs_batch ().'),
    ('lax.dot_general(f32(2, 3), f32(4, 3), (((1,), (1,)), ((0,), (0,))))', TypeError, 'dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got (2,) and (4,).'),
    ('lax.dot_general(f32(3, 3), f32(3, 3), (((0, 0), (0, 1)), ((), ())))', TypeError, 'dot_general requires lhs contracting dimensions to be distinct, got lhs_contracting (0, 0).'),
    ('lax.dot_general(x, x, (((0,), (0,)), ((0,), (0,))))', TypeError, 'dot_general requires lhs batch dimensions to be disjoint from contracting dimensions, got lhs_batch (0,) and lhs_contracting (0,).'),
    ('lax.dot(i32(2, 3), i32(3, 2), preferred_element_type=np.int8)', TypeError, '`preferred_element_type` must not be narrower than the original type, got preferred_element_type of int8 for result type of int32.'),
    ('lax.dot(f32(2, 3, 4), f32(4))', ValueError, 'jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape=(2, 3, 4) rhs_shape=(4,)'),
    ('lax.batch_matmul(f32(3), f32(3))', ValueError, 'Arguments to batch_matmul must be at least 2D, got 1, 1'),
    ('lax.batch_matmul(f32(2, 3, 4), f32(4, 5))', ValueError, 'Arguments to batch_matmul must have same ndim, got 3, 2'),
]


@pytest.mark.parametrize("expr, exc_type, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(expr, exc_type, message):
    with pytest.raises(exc_type) as info:
        jax.make_jaxpr(lambda: eval(expr))()
    assert str(info.value) == message


def test_precision_error_lists_the_accepted_values():
    with pytest.raises(ValueError, match="Precision argument must be one of:\n- None,\n"):
        lax.dot(x, f32(3), precision="bad")


# ----------------------------------------------------------------------------------------
# Transformations: JVP, transpose (grad) and batching (vmap) rules
# ----------------------------------------------------------------------------------------

def total(y):
    return lax.reduce_sum(y, tuple(range(np.ndim(y))))


def grad_of(f, argnums=0):
    return jax.grad(lambda *args: total(f(*args)), argnums=argnums)


# (Module level, so that the computation prints as ``<lambda>.<locals>.<lambda>``.)
product_over_rows = lambda x: lax.reduce(x, 1., lambda a, b: lax.mul(a, b), (0,))

TRANSFORMED_PROGRAMS = {
    "g_rmax": (lambda: grad_of(lambda x: lax.reduce_max(x, (1,))), [f32(2, 3)]),
    "g_rmin": (lambda: grad_of(lambda x: lax.reduce_min(x, (0, 1))), [f32(2, 3)]),
    "g_rprod": (lambda: grad_of(lambda x: lax.reduce_prod(x, (1,))), [f32(2, 3)]),
    "g_cumsum": (lambda: grad_of(lambda x: lax.cumsum(x, 1, reverse=True)), [f32(2, 3)]),
    "g_sort": (lambda: grad_of(lambda x: lax.sort(x, 1)), [f32(2, 3)]),
    "g_topk": (lambda: grad_of(lambda x: lax.top_k(x, 2)[0]), [f32(2, 3)]),
    "g_dot": (lambda: grad_of(lambda a, b: lax.dot(a, b), (0, 1)), [f32(2, 3), f32(3, 4)]),
    "g_dotg": (lambda: grad_of(lambda a, b: lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,)))), (0, 1)), [f32(5, 2, 3), f32(5, 3, 4)]),
    "g_dot_vec": (lambda: grad_of(lambda a, b: lax.dot_general(
        a, b, (((0,), (1,)), ((), ()))), (0, 1)), [f32(3, 2), f32(4, 3)]),
    "g_reduce": (lambda: grad_of(lambda x: lax.reduce(x, 1., lambda a, b: lax.mul(a, b),
                                                      (0,))), [f32(3, 2)]),
    "v_rsum": (lambda: jax.vmap(lambda x: lax.reduce_sum(x, (0,)), in_axes=1), [f32(3, 5)]),
    "v_argmax": (lambda: jax.vmap(lambda x: lax.argmax(x, 1, np.int32), in_axes=2),
                 [f32(2, 3, 5)]),
    "v_reduce": (lambda: jax.vmap(product_over_rows, in_axes=1), [f32(3, 5)]),
    "v_cumsum": (lambda: jax.vmap(lambda x: lax.cumsum(x, 0), in_axes=1), [f32(3, 5)]),
    "v_sort": (lambda: jax.vmap(lambda x, y: lax.sort((x, y), 0), in_axes=(1, None)),
               [f32(3, 5), f32(3)]),
    "v_topk": (lambda: jax.vmap(lambda x: lax.top_k(x, 2), in_axes=1), [f32(3, 5)]),
    "v_dot": (lambda: jax.vmap(lambda a, b: lax.dot(a, b), in_axes=(0, None)),
              [f32(5, 2, 3), f32(3, 4)]),
    "v_dot_r": (lambda: jax.vmap(lambda a, b: lax.dot(a, b), in_axes=(None, 2)),
                [f32(2, 3), f32(3, 4, 5)]),
    "v_dot_both": (lambda: jax.vmap(lambda a, b: lax.dot(a, b), in_axes=(1, 0)),
                   [f32(2, 5, 3), f32(5, 3)]),
    "j_sort": (lambda: lambda x, t: jax.jvp(lambda x: lax.sort(x, 0), (x,), (t,)),
               [f32(3, 2), f32(3, 2)]),
    "j_topk": (lambda: lambda x, t: jax.jvp(lambda x: lax.top_k(x, 2), (x,), (t,)),
               [f32(3, 4), f32(3, 4)]),
    "j_argmax": (lambda: lambda x, t: jax.jvp(lambda x: lax.argmax(x, 0, np.int32), (x,),
                                              (t,)), [f32(3), f32(3)]),
}

TRANSFORMED = {
    "g_rmax": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2] = reduce_max[axes=(1,)] a
    c:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] b
    d:bool[2,3] = eq a c
    e:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] d
    f:f32[2] = reduce_sum[axes=(1,) out_sharding=None] e
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    g:f32[2] = broadcast_in_dim 1.0:f32[]
    h:f32[2] = div g f
    i:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(0),)] h
    j:f32[2,3] = mul i e
  in (j,) }""",
    "g_rmin": """\
{ lambda ; a:f32[2,3]. let
    b:f32[] = reduce_min[axes=(0, 1)] a
    c:f32[1,1] = reshape[dimensions=None new_sizes=(1, 1) sharding=None] b
    d:bool[2,3] = eq a c
    e:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] d
    f:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] e
    _:f32[] = reduce_sum[axes=() out_sharding=None] b
    g:f32[] = div 1.0:f32[] f
    h:f32[2,3] = broadcast_in_dim g
    i:f32[2,3] = mul h e
  in (i,) }""",
    "g_rprod": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = reshape[dimensions=(1, 0) new_sizes=(3, 2) sharding=None] a
    c:f32[2,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(1, 1)] b
    d:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(1, 1)] b
    e:f32[2,2] = pad[padding_config=((0, 1, 0), (0, 0, 0))] d 1.0:f32[]
    f:f32[2,2] = mul c e
    g:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] f
    h:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=(1, 1)] f
    i:f32[1,2] = mul g h
    j:f32[2] = squeeze[dimensions=(0,)] i
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] j
    k:f32[2] = broadcast_in_dim 1.0:f32[]
    l:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] k
    m:f32[1,2] = mul g l
    n:f32[1,2] = mul l h
    o:f32[2,2] = pad[padding_config=((1, np.int64(0), 0), (0, np.int64(0), 0))] m
      0.0:f32[]
    p:f32[2,2] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] n
      0.0:f32[]
    q:f32[2,2] = add_any o p
    r:f32[2,2] = mul c q
    s:f32[2,2] = mul q e
    t:f32[1,2] = pad[
      padding_config=((np.int64(0), np.int64(-1), np.int64(0)), (np.int64(0), np.int64(0), np.int64(0)))
    ] r 0.0:f32[]
    u:f32[1,2] = slice[
      limit_indices=(1, 2)
      start_indices=(np.int64(0), np.int64(0))
      strides=(np.int64(1), np.int64(1))
    ] t
    v:f32[3,2] = pad[padding_config=((2, np.int64(0), 0), (0, np.int64(0), 0))] u
      0.0:f32[]
    w:f32[3,2] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] s
      0.0:f32[]
    x:f32[3,2] = add_any v w
    y:f32[2,3] = transpose[permutation=(1, 0)] x
  in (y,) }""",
    "g_cumsum": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = cumsum[axis=1 reverse=True] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,3] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = cumsum[axis=1 reverse=False] c
  in (d,) }""",
    "g_sort": """\
{ lambda ; a:f32[2,3]. let
    b:u32[2,3] = iota[dimension=1 dtype=uint32 shape=(2, 3) sharding=None] 
    c:f32[2,3] d:u32[2,3] = sort[dimension=1 is_stable=True num_keys=1] a b
    e:u32[2,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] d
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    f:f32[2,3] = broadcast_in_dim 1.0:f32[]
    g:f32[2,3] = broadcast_in_dim 0.0:f32[]
    h:f32[2,3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(np.int64(0),), scatter_indices_batching_dims=(np.int64(0),))
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = add i j in (k,) }
    ] g e f
  in (h,) }""",
    "g_topk": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2] c:i32[2,2] = top_k[axis=1 k=2] a
    d:i32[2,2,1] = reshape[dimensions=None new_sizes=(2, 2, 1) sharding=None] c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    e:f32[2,2] = broadcast_in_dim 1.0:f32[]
    f:f32[2,3] = broadcast_in_dim 0.0:f32[]
    g:f32[2,3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; h:f32[] i:f32[]. let j:f32[] = add h i in (j,) }
    ] f d e
  in (g,) }""",
    "g_dot": """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,4] = broadcast_in_dim 1.0:f32[]
    e:f32[4,3] = dot_general[dimension_numbers=(([0], [0]), ([], []))] d a
    f:f32[3,4] = transpose[permutation=(1, 0)] e
    g:f32[2,3] = dot_general[dimension_numbers=(([1], [1]), ([], []))] d b
  in (g, f) }""",
    "g_dotg": """\
{ lambda ; a:f32[5,2,3] b:f32[5,3,4]. let
    c:f32[5,2,4] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] c
    d:f32[5,2,4] = broadcast_in_dim 1.0:f32[]
    e:f32[5,4,3] = dot_general[dimension_numbers=(([1], [1]), ([0], [0]))] d a
    f:f32[5,3,4] = transpose[permutation=(0, 2, 1)] e
    g:f32[5,2,3] = dot_general[dimension_numbers=(([2], [2]), ([0], [0]))] d b
  in (g, f) }""",
    "g_dot_vec": """\
{ lambda ; a:f32[3,2] b:f32[4,3]. let
    c:f32[2,4] = dot_general[dimension_numbers=(([0], [1]), ([], []))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,4] = broadcast_in_dim 1.0:f32[]
    e:f32[4,3] = dot_general[dimension_numbers=(([0], [1]), ([], []))] d a
    f:f32[2,3] = dot_general[dimension_numbers=(([1], [0]), ([], []))] d b
    g:f32[3,2] = transpose[permutation=(1, 0)] f
  in (g, e) }""",
    "g_reduce": """\
{ lambda ; a:f32[3,2]. let
    b:f32[2,2] = slice[limit_indices=(2, 2) start_indices=(0, 0) strides=(1, 1)] a
    c:f32[1,2] = slice[limit_indices=(3, 2) start_indices=(2, 0) strides=(1, 1)] a
    d:f32[2,2] = pad[padding_config=((0, 1, 0), (0, 0, 0))] c 1.0:f32[]
    e:f32[2,2] = mul b d
    f:f32[1,2] = slice[limit_indices=(1, 2) start_indices=(0, 0) strides=(1, 1)] e
    g:f32[1,2] = slice[limit_indices=(2, 2) start_indices=(1, 0) strides=(1, 1)] e
    h:f32[1,2] = mul f g
    i:f32[2] = squeeze[dimensions=(0,)] h
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
    j:f32[2] = broadcast_in_dim 1.0:f32[]
    k:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] j
    l:f32[1,2] = mul f k
    m:f32[1,2] = mul k g
    n:f32[2,2] = pad[padding_config=((1, np.int64(0), 0), (0, np.int64(0), 0))] l
      0.0:f32[]
    o:f32[2,2] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] m
      0.0:f32[]
    p:f32[2,2] = add_any n o
    q:f32[2,2] = mul b p
    r:f32[2,2] = mul p d
    s:f32[1,2] = pad[
      padding_config=((np.int64(0), np.int64(-1), np.int64(0)), (np.int64(0), np.int64(0), np.int64(0)))
    ] q 0.0:f32[]
    t:f32[1,2] = slice[
      limit_indices=(1, 2)
      start_indices=(np.int64(0), np.int64(0))
      strides=(np.int64(1), np.int64(1))
    ] s
    u:f32[3,2] = pad[padding_config=((2, np.int64(0), 0), (0, np.int64(0), 0))] t
      0.0:f32[]
    v:f32[3,2] = pad[padding_config=((0, np.int64(1), 0), (0, np.int64(0), 0))] r
      0.0:f32[]
    w:f32[3,2] = add_any u v
  in (w,) }""",
    "v_rsum": """\
{ lambda ; a:f32[3,5]. let
    b:f32[5] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a
  in (b,) }""",
    "v_argmax": """\
{ lambda ; a:f32[2,3,5]. let
    b:i32[2,5] = argmax[axes=(np.int64(1),) index_dtype=int32] a
    c:i32[5,2] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "v_reduce": """\
{ lambda ; a:f32[3,5]. let
    b:f32[5,3] = transpose[permutation=(1, 0)] a
    c:f32[5] = reduce[
      computation=<function <lambda>.<locals>.<lambda> at 0xXXXXXXXXXXXX>
      dimensions=(1,)
      jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = mul d e in (f,) }
    ] b 1.0:f32[]
  in (c,) }""",
    "v_cumsum": """\
{ lambda ; a:f32[3,5]. let
    b:f32[3,5] = cumsum[axis=0 reverse=False] a
    c:f32[5,3] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "v_sort": """\
{ lambda ; a:f32[3,5] b:f32[3]. let
    c:f32[3,5] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    d:f32[3,5] e:f32[3,5] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:f32[5,3] = transpose[permutation=(1, 0)] d
    g:f32[5,3] = transpose[permutation=(1, 0)] e
  in (f, g) }""",
    "v_topk": """\
{ lambda ; a:f32[3,5]. let
    b:f32[2,5] c:i32[2,5] = top_k[axis=0 k=2] a
    d:f32[5,2] = transpose[permutation=(1, 0)] b
    e:i32[5,2] = transpose[permutation=(1, 0)] c
  in (d, e) }""",
    "v_dot": """\
{ lambda ; a:f32[5,2,3] b:f32[3,4]. let
    c:f32[5,2,4] = dot_general[dimension_numbers=(([2], [0]), ([], []))] a b
  in (c,) }""",
    "v_dot_r": """\
{ lambda ; a:f32[2,3] b:f32[3,4,5]. let
    c:f32[2,4,5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
    d:f32[5,2,4] = transpose[permutation=(2, 0, 1)] c
  in (d,) }""",
    "v_dot_both": """\
{ lambda ; a:f32[2,5,3] b:f32[5,3]. let
    c:f32[5,2] = dot_general[dimension_numbers=(([2], [1]), ([1], [0]))] a b
  in (c,) }""",
    "j_sort": """\
{ lambda ; a:f32[3,2] b:f32[3,2]. let
    c:u32[3,2] = iota[dimension=0 dtype=uint32 shape=(3, 2) sharding=None] 
    d:f32[3,2] e:u32[3,2] = sort[dimension=0 is_stable=True num_keys=1] a c
    f:u32[3,2,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] e
    g:f32[3,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(np.int64(1),), start_indices_batching_dims=(np.int64(1),))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1)
      unique_indices=False
    ] b f
  in (d, g) }""",
    "j_topk": """\
{ lambda ; a:f32[3,4] b:f32[3,4]. let
    c:f32[3,2] d:i32[3,2] = top_k[axis=1 k=2] a
    e:i32[3,2,1] = reshape[dimensions=None new_sizes=(3, 2, 1) sharding=None] d
    f:f32[3,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1)
      unique_indices=False
    ] b e
    g:float0[3,2] = broadcast_in_dim (b'',):float0[]
  in (c, d, f, g) }""",
    "j_argmax": """\
{ lambda ; a:f32[3] b:f32[3]. let
    c:i32[] = argmax[axes=(0,) index_dtype=int32] a
  in (c, (b'',):float0[]) }""",
}


@pytest.mark.parametrize("name", sorted(TRANSFORMED_PROGRAMS))
def test_transformed_jaxpr(name):
    make, args = TRANSFORMED_PROGRAMS[name]
    assert str(jax.make_jaxpr(make())(*args)) == TRANSFORMED[name]


def numerical_grad(f, x, eps=1e-3):
    """Central differences of a scalar function of a float32 array, in float64."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (float(f((x + step).astype(np.float32))) -
                   float(f((x - step).astype(np.float32)))) / (2 * eps)
    return grad


@pytest.mark.parametrize("f", [
    lambda x: lax.reduce_max(x, (1,)),
    lambda x: lax.reduce_prod(x, (0, 1)),
    lambda x: lax.reduce(x, np.float32(1), lambda a, b: lax.mul(a, b), (1,)),
    lambda x: lax.cumsum(x, 1, reverse=True),
    lambda x: lax.cumprod(x, 0),
    lambda x: lax.cummax(x, 1),
    lambda x: lax.cumlogsumexp(x, 1, reverse=True),
    lambda x: lax.sort(x, 0),
    lambda x: lax.sort((x, lax.neg(x)), 1, num_keys=1)[1],
    lambda x: lax.top_k(x, 2)[0],
    lambda x: lax.dot_general(x, x, (((0,), (0,)), ((), ()))),
    lambda x: lax.batch_matmul(lax.reshape(x, (2, 2, 3)), lax.reshape(x, (2, 3, 2))),
])
def test_grad_matches_finite_differences(f):
    x = rand((4, 3))
    weights = rand(np.shape(f(x)))
    loss = lambda x: total(lax.mul(f(x), weights))
    np.testing.assert_allclose(np.asarray(jax.grad(loss)(x)),
                               numerical_grad(jax.jit(loss), x),
                               rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("f, in_axes, shapes", [
    (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), (0, None),
     [(5, 4, 3), (3, 2)]),
    (lambda x, y: lax.dot_general(x, y, (((0,), (0,)), ((), ()))), (None, 1),
     [(3, 4), (3, 5, 2)]),
    (lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), (2, 0),
     [(2, 3, 6, 4), (6, 2, 4, 5)]),
    (lambda x, y: lax.sort((x, y), 1, num_keys=2), (2, None), [(3, 4, 5), (3, 4)]),
    (lambda x, y: lax.top_k(x, 2, axis=0), (1, None), [(4, 5, 3), (1,)]),
    (lambda x, y: lax.argmin(x, 0, np.int32), (2, None), [(3, 4, 5), (1,)]),
    (lambda x, y: lax.cummax(x, 1, reverse=True), (0, None), [(5, 3, 4), (1,)]),
    (lambda x, y: lax.reduce((x, y), (np.float32(0), np.float32(1)),
                             lambda a, b: (lax.add(a[0], b[0]), lax.mul(a[1], b[1])),
                             (0,)), (1, None), [(3, 5, 4), (3, 4)]),
])
def test_vmap_matches_a_loop(f, in_axes, shapes):
    args = [rand(shape) for shape in shapes]
    size = shapes[0][in_axes[0]] if in_axes[0] is not None else shapes[1][in_axes[1]]
    outs = jax.tree_util.tree_leaves(jax.vmap(f, in_axes=in_axes)(*args))
    for b in range(size):
        pieces = [a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, in_axes)]
        for out, expected in zip(outs, jax.tree_util.tree_leaves(f(*pieces))):
            np.testing.assert_allclose(np.asarray(out)[b], np.asarray(expected), rtol=1e-5)
