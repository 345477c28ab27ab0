"""Elementwise lax primitives: values against NumPy/SciPy for every accepted dtype, dtype
and shape errors with JAX's messages, printed jaxprs, and the JVP/transpose/batching rules.

Expected jaxpr texts and error messages were printed by real JAX 0.10.2 for the same
programs (``jax.make_jaxpr``), so these tests pin glassjax to JAX's exact behaviour.
"""
import re
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import glassjax as jax
from glassjax import lax

special = pytest.importorskip("scipy.special")

RNG = np.random.default_rng(0)
DTYPES = ["float32", "bfloat16", "float16", "int32", "uint32", "int8", "uint8", "bool",
          "complex64"]


def dtype_of(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def random_array(dtype, shape=(7,), low=-3.0, high=3.0):
    """Random values of ``dtype``: uniform in [low, high) for inexact types (both parts
    for complex), small integers, or random booleans."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -10
        return RNG.integers(lo, 10, shape).astype(dtype)
    values = RNG.uniform(low, high, shape)
    if dtype.kind == "c":
        values = values + 1j * RNG.uniform(low, high, shape)
    return values.astype(dtype)


def tolerance(dtype):
    return {"bfloat16": 2e-2, "float16": 2e-3}.get(np.dtype(dtype).name, 2e-5)


def assert_close(actual, expected, dtype):
    actual = np.asarray(actual)
    assert actual.dtype == np.asarray(expected).dtype, (actual.dtype, expected.dtype)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        upcast = np.complex128 if actual.dtype.kind == "c" else np.float64
        tol = tolerance(dtype)
        np.testing.assert_allclose(actual.astype(upcast), np.asarray(expected).astype(upcast),
                                   rtol=tol, atol=tol)


# ----------------------------------------------------------------------------------------
# Which dtypes each primitive accepts, and JAX's message for the others
# ----------------------------------------------------------------------------------------

FLOATS = ["float32", "bfloat16", "float16"]
INTS = ["int32", "uint32", "int8", "uint8"]
NUM = FLOATS + INTS + ["complex64"]
INEXACT = FLOATS + ["complex64"]
ORDERED = FLOATS + INTS + ["bool"]
ANY = NUM + ["bool"]

NUM_KINDS = "integer, floating, complexfloating"
INEXACT_KINDS = "floating, complexfloating"

# name -> (prim name in messages, accepted dtypes, "Accepted dtypes are subtypes of ...")
UNARY_DTYPES = {
    "neg": ("neg", NUM, NUM_KINDS), "sign": ("sign", NUM, NUM_KINDS),
    "floor": ("floor", FLOATS, "floating"), "ceil": ("ceil", FLOATS, "floating"),
    "round": ("round", FLOATS, "floating"), "is_finite": ("is_finite", FLOATS, "floating"),
    "cbrt": ("cbrt", FLOATS, "floating"), "square": ("square", NUM, NUM_KINDS),
    "abs": ("abs", FLOATS + ["int32", "int8", "complex64"],
            "floating, complexfloating, signedinteger"),
    "real": ("real", ["complex64"], "complexfloating"),
    "imag": ("imag", ["complex64"], "complexfloating"),
    "conj": ("conj", ["float32", "complex64"], "float32, complexfloating, float64"),
    "bitwise_not": ("not", INTS + ["bool"], "integer, bool"),
    "population_count": ("population_count", INTS, "integer"),
    "clz": ("clz", INTS, "integer"),
    **{name: (name, INEXACT, INEXACT_KINDS) for name in [
        "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan",
        "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "sqrt",
        "rsqrt"]},
    **{name: (name, FLOATS, "floating") for name in [
        "erf", "erfc", "erf_inv", "lgamma", "digamma"]},
}

BINARY_DTYPES = {
    "add": ("add", NUM, NUM_KINDS), "sub": ("sub", NUM, NUM_KINDS),
    "mul": ("mul", NUM, NUM_KINDS), "div": ("div", NUM, NUM_KINDS),
    "rem": ("rem", FLOATS + INTS, "integer, floating"),
    "pow": ("pow", INEXACT, INEXACT_KINDS), "atan2": ("atan2", INEXACT, INEXACT_KINDS),
    "max": ("max", ANY, None), "min": ("min", ANY, None),
    "nextafter": ("nextafter", FLOATS, "floating"),
    "complex": ("complex", ["float32"], "float32, float64"),
    "bitwise_and": ("and", INTS + ["bool"], "integer, bool"),
    "bitwise_or": ("or", INTS + ["bool"], "integer, bool"),
    "bitwise_xor": ("xor", INTS + ["bool"], "integer, bool"),
    "shift_left": ("shift_left", INTS, "integer"),
    "shift_right_logical": ("shift_right_logical", INTS, "integer"),
    "shift_right_arithmetic": ("shift_right_arithmetic", INTS, "integer"),
    "eq": ("eq", ANY, None), "ne": ("ne", ANY, None),
    "lt": ("lt", ORDERED, "integer, floating, bool"),
    "le": ("le", ORDERED, "integer, floating, bool"),
    "gt": ("gt", ORDERED, "integer, floating, bool"),
    "ge": ("ge", ORDERED, "integer, floating, bool"),
    "polygamma": ("polygamma", FLOATS, "floating"),
}

# The jnp function JAX's mixed-dtype message recommends, where it recommends one.
JNP_TIPS = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
            "max": "maximum", "min": "minimum", "atan2": "arctan2",
            "nextafter": "nextafter", "eq": "equal", "ne": "not_equal",
            "shift_left": "left_shift", "shift_right_logical": "right_shift",
            "shift_right_arithmetic": "right_shift"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY_DTYPES))
def test_unary_dtype_acceptance(name, dtype):
    prim_name, accepted, kinds = UNARY_DTYPES[name]
    x = np.ones(2, dtype_of(dtype))
    if dtype in accepted:
        jax.make_jaxpr(getattr(lax, name))(x)
    else:
        with pytest.raises(TypeError) as e:
            jax.make_jaxpr(getattr(lax, name))(x)
        assert str(e.value) == (f"{prim_name} does not accept dtype {dtype}. Accepted dtypes "
                                f"are subtypes of {kinds}.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY_DTYPES))
def test_binary_dtype_acceptance(name, dtype):
    prim_name, accepted, kinds = BINARY_DTYPES[name]
    x = np.ones(2, dtype_of(dtype))
    if dtype in accepted:
        jax.make_jaxpr(getattr(lax, name))(x, x)
    else:
        with pytest.raises(TypeError) as e:
            jax.make_jaxpr(getattr(lax, name))(x, x)
        assert str(e.value) == (f"{prim_name} does not accept dtype {dtype} at position 0. "
                                f"Accepted dtypes at position 0 are subtypes of {kinds}.")


@pytest.mark.parametrize("name", sorted(BINARY_DTYPES))
def test_binary_mixed_dtypes(name):
    prim_name, accepted, _ = BINARY_DTYPES[name]
    x, y = (np.ones(3, np.int32), np.ones(3, np.int8)) if "int32" in accepted else \
        (np.ones(3, np.float32), np.ones(3, np.float16))
    with pytest.raises(TypeError) as e:
        jax.make_jaxpr(getattr(lax, name))(x, y)
    if name == "pow":
        assert str(e.value) == (
            "the first argument to pow must have an inexact dtype (float or complex), and "
            "the second argument must have an inexact or integer dtype, and two inexact "
            "dtypes must match, but got float32 and float16 respectively.")
    elif name == "complex":
        assert str(e.value) == ("complex does not accept dtype float16 at position 1. "
                                "Accepted dtypes at position 1 are subtypes of float32, "
                                "float64.")
    else:
        msg = (f"lax.{prim_name} requires arguments to have the same dtypes, got "
               f"{x.dtype}, {y.dtype}.")
        if name in JNP_TIPS:
            msg += (f" (Tip: jnp.{JNP_TIPS[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
        assert str(e.value) == msg


def test_python_scalars_take_the_default_dtypes():
    # An int is int32 and a float float32 (weakly typed), as in JAX.
    with pytest.raises(TypeError, match="got int32, float32"):
        lax.add(1, 1.0)
    with pytest.raises(TypeError, match="got float32, int32"):
        jax.make_jaxpr(lambda x: lax.add(x, 2))(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="got int8, int32"):
        jax.make_jaxpr(lambda x: lax.mul(x, 2))(np.ones(3, np.int8))


@pytest.mark.parametrize("name", sorted(BINARY_DTYPES))
def test_binary_shape_errors(name):
    prim_name, accepted, _ = BINARY_DTYPES[name]
    dtype = dtype_of(accepted[0])
    f = getattr(lax, name)
    with pytest.raises(TypeError) as e:
        jax.make_jaxpr(f)(np.ones(3, dtype), np.ones(2, dtype))
    assert str(e.value) == f"{prim_name} got incompatible shapes for broadcasting: (3,), (2,)."
    with pytest.raises(TypeError) as e:
        jax.make_jaxpr(f)(np.ones(3, dtype), np.ones((1, 3), dtype))
    assert str(e.value) == (f"{prim_name}: arrays must have the same number of dimensions, "
                            "got {1, 2}")


def test_float0_errors():
    z = np.zeros(3, jax.dtypes.float0)
    advice = ("float0s do not support any operations by design, because they are not "
              "compatible with non-trivial vector spaces. No implicit dtype conversion is "
              "done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 array "
              "to a regular zeros array. \nIf you didn't expect to get a float0 you might "
              "have accidentally taken a gradient with respect to an integer argument.")
    with pytest.raises(TypeError) as e:
        lax.sin(z)
    assert str(e.value) == "Called sin with a float0 array. " + advice
    with pytest.raises(TypeError) as e:
        lax.add(z, z)
    assert str(e.value) == "Called add with a float0 at position 0. " + advice


def test_integer_pow_errors():
    with pytest.raises(TypeError) as e:
        jax.make_jaxpr(lambda x: lax.integer_pow(x, -2))(np.ones(3, np.int32))
    assert str(e.value) == ("Integers cannot be raised to negative powers, got "
                            "integer_pow(int32[3], -2)")
    with pytest.raises(TypeError, match="integer_pow does not accept dtype bool"):
        jax.make_jaxpr(lambda x: lax.integer_pow(x, 2))(np.ones(3, bool))


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _population_count(x):
    return np.bitwise_count(x.view(f"u{x.dtype.itemsize}"))


def _clz(x):
    bits = x.dtype.itemsize * 8
    unsigned = x.view(f"u{x.dtype.itemsize}")
    return np.array([bits - int(v).bit_length() for v in unsigned.ravel()],
                    x.dtype).reshape(x.shape)


# name -> (NumPy/SciPy reference computed in float64/complex128, input range)
UNARY_REFERENCE = {
    "neg": (np.negative, None), "sign": (np.sign, None), "floor": (np.floor, None),
    "ceil": (np.ceil, None), "round": (_round_half_away, None),
    "is_finite": (np.isfinite, None), "exp": (np.exp, None), "exp2": (np.exp2, None),
    "log": (np.log, (0.1, 5)), "log1p": (np.log1p, (-0.5, 3)), "expm1": (np.expm1, None),
    "tanh": (np.tanh, None), "logistic": (lambda x: 1 / (1 + np.exp(-x)), None),
    "sin": (np.sin, None), "cos": (np.cos, None), "tan": (np.tan, (-1.2, 1.2)),
    "asin": (np.arcsin, (-0.9, 0.9)), "acos": (np.arccos, (-0.9, 0.9)),
    "atan": (np.arctan, None), "sinh": (np.sinh, None), "cosh": (np.cosh, None),
    "asinh": (np.arcsinh, None), "acosh": (np.arccosh, (1.1, 5)),
    "atanh": (np.arctanh, (-0.9, 0.9)), "sqrt": (np.sqrt, (0.1, 5)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 5)), "cbrt": (np.cbrt, None),
    "square": (np.square, None), "erf": (special.erf, None), "erfc": (special.erfc, None),
    "erf_inv": (special.erfinv, (-0.9, 0.9)), "lgamma": (special.gammaln, (0.1, 5)),
    "digamma": (special.digamma, (0.1, 5)), "abs": (np.abs, None),
    "real": (np.real, None), "imag": (np.imag, None), "conj": (np.conj, None),
    "bitwise_not": (np.invert, None), "population_count": (_population_count, None),
    "clz": (_clz, None),
}

UNARY_VALUE_CASES = [(name, dtype) for name in sorted(UNARY_REFERENCE)
                     for dtype in UNARY_DTYPES[name][1]]


def _expected_unary(name, x):
    """The reference result in the dtype lax returns."""
    fun = UNARY_REFERENCE[name][0]
    if x.dtype.kind in "biu":
        return np.asarray(fun(x)).astype(x.dtype)
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    expected = np.asarray(fun(wide))
    if name == "is_finite":
        return expected
    if name == "conj" and x.dtype.kind == "f":
        return expected.astype(np.complex64)
    if name in ("abs", "real", "imag") and x.dtype.kind == "c":
        return expected.astype(np.float32)
    return expected.astype(x.dtype)


@pytest.mark.parametrize("name,dtype", UNARY_VALUE_CASES)
def test_unary_values(name, dtype):
    low, high = UNARY_REFERENCE[name][1] or (-3, 3)
    x = random_array(dtype_of(dtype), low=low, high=high)
    if name == "is_finite":
        x[:3] = [np.inf, -np.inf, np.nan]
    assert_close(getattr(lax, name)(x), _expected_unary(name, x), dtype)


def test_round_to_nearest_even_and_away_from_zero():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3], np.float32)
    np.testing.assert_array_equal(lax.round(x), [-3, -2, -1, 1, 2, 3, 0])
    np.testing.assert_array_equal(lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
                                  np.round(x))
    np.testing.assert_array_equal(lax.round(x, 1), np.round(x))


def test_complex_sin_cos_at_zero_real_part():
    # With a zero real part the result is exact (no 0 * inf = nan for huge imaginary parts).
    z = np.array([100j, -100j, 0.5 + 2j], np.complex64)
    sin, cos = np.asarray(lax.sin(z)), np.asarray(lax.cos(z))
    np.testing.assert_allclose(sin[2], np.sin(z[2]), rtol=1e-5)
    np.testing.assert_allclose(cos[2], np.cos(z[2]), rtol=1e-5)
    assert sin[0].real == 0 and np.isinf(sin[0].imag)
    assert cos[0].imag == 0 and np.isinf(cos[0].real)


def _truncating_div(x, y):
    if x.dtype.kind in "iu":
        q = np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64))
        return (np.sign(x.astype(np.int64)) * np.sign(y.astype(np.int64)) * q).astype(x.dtype)
    return x / y


def _shift_right_logical(x, y):
    unsigned = x.view(f"u{x.dtype.itemsize}")
    return (unsigned >> y.astype(unsigned.dtype)).view(x.dtype)


BINARY_REFERENCE = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _truncating_div,
    "rem": np.fmod, "pow": np.power, "max": np.maximum, "min": np.minimum,
    "atan2": np.arctan2, "nextafter": np.nextafter,
    "complex": lambda x, y: x + 1j * y, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "shift_left": np.left_shift, "shift_right_arithmetic": np.right_shift,
    "shift_right_logical": _shift_right_logical, "eq": np.equal, "ne": np.not_equal,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "polygamma": special.polygamma,
}

# NumPy has no nextafter for bfloat16 and no complex arctan2 (see the test below).
BINARY_VALUE_CASES = [(name, dtype) for name in sorted(BINARY_REFERENCE)
                      for dtype in BINARY_DTYPES[name][1]
                      if (name, dtype) not in [("nextafter", "bfloat16"),
                                               ("atan2", "complex64")]]


def _binary_operands(name, dtype):
    dtype = dtype_of(dtype)
    x, y = random_array(dtype), random_array(dtype)
    if name in ("div", "rem") and dtype.kind in "iu":
        y[y == 0] = 3
    elif name in ("div", "rem", "atan2"):
        y = np.where(np.abs(y) < 0.1, 1, y).astype(dtype)
    if name == "pow":
        x = np.abs(x).astype(dtype) + dtype.type(0.5)
    if name.startswith("shift"):
        y = RNG.integers(0, 8, y.shape).astype(dtype)
    if name == "polygamma":
        x = RNG.integers(0, 3, x.shape).astype(dtype)
        y = np.abs(y).astype(dtype) + dtype.type(0.5)
    if dtype.kind in "biu" or name in ("eq", "ne", "max", "min"):
        x[:2] = y[:2]       # make ties, which comparisons and max/min must get right
    return x, y


@pytest.mark.parametrize("name,dtype", BINARY_VALUE_CASES)
def test_binary_values(name, dtype):
    x, y = _binary_operands(name, dtype)
    out = getattr(lax, name)(x, y)
    wide = (lambda v: v) if x.dtype.kind in "biu" or name == "nextafter" else (
        lambda v: v.astype(np.complex128 if v.dtype.kind == "c" else np.float64))
    expected = np.asarray(BINARY_REFERENCE[name](wide(x), wide(y)))
    if expected.dtype != np.bool_:
        expected = expected.astype(np.complex64 if name == "complex" else x.dtype)
    assert_close(out, expected, dtype)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "max", "min", "atan2", "eq"])
def test_binary_broadcasting(name):
    x = random_array(np.float32, (2, 1))
    y = random_array(np.float32, (1, 3)) + np.float32(4)
    scalar = np.float32(1.5)
    reference = BINARY_REFERENCE[name]
    np.testing.assert_allclose(getattr(lax, name)(x, y), reference(x, y), rtol=1e-6)
    np.testing.assert_allclose(getattr(lax, name)(x, scalar), reference(x, scalar),
                               rtol=1e-6)
    np.testing.assert_allclose(getattr(lax, name)(scalar, y), reference(scalar, y),
                               rtol=1e-6)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=3),
       mask=st.lists(st.booleans(), min_size=3, max_size=3),
       op=st.sampled_from(["add", "mul", "sub", "max"]))
def test_broadcasting_matches_numpy(shape, mask, op):
    """Size-1 axes broadcast against anything; rank 0 operands against any rank."""
    x = random_array(np.float32, tuple(shape))
    y = random_array(np.float32, tuple(1 if m else d for d, m in zip(shape, mask)))
    np.testing.assert_allclose(getattr(lax, op)(x, y), BINARY_REFERENCE[op](x, y),
                               rtol=1e-6)
    np.testing.assert_allclose(getattr(lax, op)(y, x), BINARY_REFERENCE[op](y, x),
                               rtol=1e-6)


def test_complex_atan2():
    # The value real JAX computes.
    out = lax.atan2(np.complex64(1 + 1j), np.complex64(2 + 0.5j))
    np.testing.assert_allclose(np.asarray(out), 0.57397115 + 0.26149204j, rtol=1e-6)


def test_python_scalars_are_weakly_typed():
    out = lax.add(np.ones(3, np.float32), 1.0)
    assert out.dtype == np.float32 and not out.weak_type
    out = lax.mul(2, 3)
    assert out.dtype == np.int32 and out.weak_type and int(out) == 6


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "complex64", "int32", "uint8"])
@pytest.mark.parametrize("y", [0, 1, 2, 3, 5, 8, -1, -2, -3])
def test_integer_pow(dtype, y):
    dtype = dtype_of(dtype)
    x = random_array(dtype, low=0.5, high=2.0)
    wide = x.astype(np.complex128 if dtype.kind == "c" else
                    np.int64 if dtype.kind in "iu" else np.float64)
    if dtype.kind in "iu" and y < 0:
        with pytest.raises(TypeError, match=re.escape(
                "Integers cannot be raised to negative powers, got "
                f"integer_pow({dtype.name}[7], {y})")):
            lax.integer_pow(x, y)
    else:
        expected = (wide ** y if y >= 0 else 1 / wide ** -y).astype(dtype)
        assert_close(lax.integer_pow(x, y), expected, dtype)
    if dtype.kind not in "iu":
        assert_close(lax.reciprocal(x), (1 / wide).astype(dtype), dtype)


def test_pow_with_integer_exponent():
    x = random_array(np.float32, low=0.5, high=2)
    n = np.array([0, 1, 2, 3, -1, -2, 4], np.int32)
    np.testing.assert_allclose(lax.pow(x, n), x.astype(np.float64) ** n, rtol=1e-6)
    np.testing.assert_allclose(lax.pow(x, 3), x.astype(np.float64) ** 3, rtol=1e-6)


def test_mul_out_dtype():
    x = np.array([100, -120], np.int8)
    out = lax.mul(x, x, out_dtype=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x.astype(np.int32) ** 2)


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8"])
def test_select_n(dtype):
    cases = [random_array(np.float32) for _ in range(2 if dtype == "bool" else 5)]
    which = random_array(np.bool_) if dtype == "bool" else \
        RNG.integers(0, len(cases), 7).astype(dtype)
    np.testing.assert_array_equal(lax.select_n(which, *cases),
                                  np.choose(which.astype(int), cases))
    np.testing.assert_array_equal(lax.select_n(which[0], *cases),
                                  cases[int(which[0])])


def test_select_and_clamp():
    pred = random_array(np.bool_)
    x, y = random_array(np.float32), random_array(np.float32)
    np.testing.assert_array_equal(lax.select(pred, x, y), np.where(pred, x, y))
    np.testing.assert_array_equal(lax.select_n(pred, x), x)
    np.testing.assert_array_equal(lax.clamp(-1.0, x, 1.0), np.clip(x, -1, 1))
    lo = random_array(np.float32) - 1
    np.testing.assert_array_equal(lax.clamp(lo, x, np.float32(2)), np.clip(x, lo, 2))
    ints = random_array(np.int32)
    np.testing.assert_array_equal(lax.clamp(np.int32(-2), ints, np.int32(4)),
                                  np.clip(ints, -2, 4))


def test_select_n_errors():
    f32, b = np.ones(3, np.float32), np.ones(3, bool)
    cases = [
        (lambda: lax.select_n(b, f32, f32, f32),
         "select with boolean `which` cannot have > 2 cases."),
        (lambda: lax.select_n(f32, f32, f32),
         "select `which` must be boolean or integer type, got float32."),
        (lambda: lax.select_n(b, f32, np.ones(2, np.float32)),
         "select cases must have the same shapes, got [(3,), (2,)]."),
        (lambda: lax.select_n(np.ones(2, bool), f32, f32),
         "select `which` must be scalar or have the same shape as cases, got `which` shape "
         "(2,) but case shape (3,)."),
        (lambda: lax.select_n(b, f32, np.ones(3, np.int32)),
         "lax.select requires arguments to have the same dtypes, got float32, int32. (Tip: "
         "jnp.where is a similar function that does automatic type promotion on inputs)."),
    ]
    for f, message in cases:
        with pytest.raises(TypeError) as e:
            jax.make_jaxpr(f)()
        assert str(e.value) == message
    with pytest.raises(ValueError, match="select_n\\(\\) must have at least one case"):
        lax.select_n(b)


def test_clamp_errors():
    f32 = np.ones(3, np.float32)
    with pytest.raises(TypeError) as e:
        lax.clamp(np.ones(2, np.float32), f32, 1.0)
    assert str(e.value) == ("clamp requires min.shape == operand.shape or min.shape == (), "
                            "got min.shape=(2,), operand.shape=(3,).")
    with pytest.raises(TypeError) as e:
        lax.clamp(0.0, f32, np.ones(2, np.float32))
    assert str(e.value) == ("clamp requires max.shape == operand.shape or max.shape == (), "
                            "got max.shape=(2,), operand.shape=(3,).")
    with pytest.raises(TypeError) as e:
        lax.clamp(0, f32, 1.0)
    assert str(e.value) == ("lax.clamp requires arguments to have the same dtypes, got "
                            "int32, float32, float32.")


def test_mulhi_and_zeta():
    # Values real JAX computes.
    x = np.array([2 ** 31 - 1, -5, 123456789], np.int32)
    y = np.array([3, 7, 987654321], np.int32)
    np.testing.assert_array_equal(lax.mulhi(x, y), [1, -1, 28389652])
    np.testing.assert_array_equal(lax.mulhi(x.view(np.uint32), y.view(np.uint32)),
                                  np.array([1, 6, 28389652], np.uint32))
    q = np.array([1.0, 2.0, 0.5], np.float32)
    np.testing.assert_allclose(lax.zeta(np.float32(2), q), special.zeta(2, q), rtol=1e-6)
    assert str(jax.make_jaxpr(lax.mulhi)(x, y)) == (
        "{ lambda ; a:i32[3] b:i32[3]. let c:i32[3] = mulhi a b in (c,) }")
    with pytest.raises(TypeError, match="mulhi does not accept dtype float32 at position 0"):
        lax.mulhi(np.float32(1), np.float32(2))


def test_nextafter_steps_one_ulp():
    x = np.array([1.0, 1.0, 0.0], np.float32)
    y = np.array([2.0, 0.0, 1.0], np.float32)
    np.testing.assert_array_equal(lax.nextafter(x, y), np.nextafter(x, y))


# ----------------------------------------------------------------------------------------
# Changing types
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [
    ("float32", "int32"), ("float32", "uint8"), ("float32", "bool"), ("int32", "float32"),
    ("int32", "bool"), ("bool", "float32"), ("float32", "bfloat16"),
    ("bfloat16", "float32"), ("float32", "complex64"), ("uint32", "int32"),
    ("int8", "float16"), ("complex64", "bool")])
def test_convert_element_type_values(src, dst):
    src, dst = dtype_of(src), dtype_of(dst)
    x = random_array(src, low=0, high=100 if dst.kind in "iu" else 3)
    x[0] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        out = lax.convert_element_type(x, dst)
    assert out.dtype == dst and not out.weak_type
    expected = (x != 0) if dst == np.bool_ else x.astype(dst)
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_convert_complex_to_real_warns_and_keeps_real_part():
    z = np.array([1 + 2j, -3 - 4j], np.complex64)
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        out = lax.convert_element_type(z, np.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1, -3])


def test_convert_element_type_of_python_scalars():
    out = lax.convert_element_type(2.7, np.int32)
    assert isinstance(out, jax.Array) and out.dtype == np.int32 and int(out) == 2
    assert int(lax.convert_element_type(300, np.int8)) == 44     # wraps, like C
    assert float(lax.convert_element_type(2 ** 40, np.float32)) == 2.0 ** 40
    x = jax.make_jaxpr(lambda: lax.convert_element_type(1.5, np.int32))()
    assert str(x) == "{ lambda ; . let  in (1:i32[],) }"


def test_convert_element_type_is_a_noop_for_matching_types():
    def f(x):
        assert lax.convert_element_type(x, np.float32) is x
        return x
    jax.make_jaxpr(f)(np.ones(3, np.float32))


def test_internal_convert_of_scalars():
    """jnp's promotion converts Python scalars with ``_convert_element_type``: while
    tracing the result is lifted into the trace (a tracer the jaxpr shows as a literal,
    as JAX's ``stage``); eagerly it is an array."""
    from glassjax.lax.elementwise import _convert_element_type
    f32, bf16 = np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)

    def traced(x):
        one = _convert_element_type(1, f32, weak_type=True)
        assert isinstance(one, jax.core.Tracer) and one.aval.weak_type
        assert _convert_element_type(np.int8(3), f32).dtype == np.float32
        weak_bf16 = _convert_element_type(1.5, bf16, weak_type=True)
        assert weak_bf16.dtype == bf16 and weak_bf16.weak_type
        return x
    jax.make_jaxpr(traced)(1.0)
    for value, dtype, weak in [(1, f32, True), (1.5, f32, True), (2.5, bf16, False)]:
        out = _convert_element_type(value, dtype, weak_type=weak)
        assert isinstance(out, jax.Array) and out.dtype == dtype and out.weak_type == weak


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint8"),
                                     ("int32", "float32"), ("float16", "int16"),
                                     ("int8", "float32"), ("bfloat16", "uint16")])
def test_bitcast_convert_type(src, dst):
    src, dst = dtype_of(src), dtype_of(dst)
    x = random_array(src, (3, 4))
    expected = x.view(dst)
    if dst.itemsize < src.itemsize:
        expected = expected.reshape(3, 4, src.itemsize // dst.itemsize)
    elif dst.itemsize > src.itemsize:
        expected = expected.reshape(3)
    np.testing.assert_array_equal(lax.bitcast_convert_type(x, dst), expected)


def test_bitcast_convert_type_errors():
    with pytest.raises(ValueError) as e:
        lax.bitcast_convert_type(np.ones((3, 3), np.int8), np.float32)
    assert str(e.value) == ("Attempting to convert array of shape (3, 3) from int8 of size 8 "
                            "bits to float32 of size 32, bits but 3 * 8 != 32")
    with pytest.raises(TypeError) as e:
        lax.bitcast_convert_type(np.ones(3, bool), np.int8)
    assert str(e.value) == ("lax.bitcast_convert_type does not support bool or complex "
                            "values unless the operand and destination types match. Got "
                            "operand dtype=bool, new_dtype=dtype('int8'). Consider using the "
                            "arr.view() method instead.")


def test_reduce_precision():
    x = random_array(np.float32, (100,), low=-100, high=100)
    np.testing.assert_array_equal(lax.reduce_precision(x, 5, 10),
                                  x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(lax.reduce_precision(x, 8, 7),
                                  x.astype(ml_dtypes.bfloat16).astype(np.float32))
    with pytest.raises(ValueError) as e:
        lax.reduce_precision(x, 0, 10)
    assert str(e.value) == "reduce_precision: exponent_bits must be positive; got 0"
    with pytest.raises(TypeError, match="reduce_precision does not accept dtype int32"):
        lax.reduce_precision(np.ones(3, np.int32), 5, 10)


def test_stop_gradient_is_the_identity_on_pytrees():
    x = random_array(np.float32)
    out = lax.stop_gradient({"a": x, "b": (np.int32(3), 2.0)})
    np.testing.assert_array_equal(out["a"], x)
    assert out["b"][0] == 3 and out["b"][1] == 2.0


# ----------------------------------------------------------------------------------------
# Printed jaxprs (text printed by JAX 0.10.2 for the same programs)
# ----------------------------------------------------------------------------------------

F3 = np.ones(3, np.float32)
I3 = np.ones(3, np.int32)
U3 = np.ones(3, np.uint32)
B3 = np.ones(3, bool)
C3 = np.ones(3, np.complex64)

JAXPR_CASES = [
    ("sin", lambda x: lax.sin(x), (F3,)),
    ("sin_accuracy", lambda x: lax.sin(x, accuracy=lax.AccuracyMode.HIGHEST), (F3,)),
    ("exp2_log1p_expm1", lambda x: lax.exp2(lax.log1p(lax.expm1(x))), (F3,)),
    ("logistic_tanh", lambda x: lax.logistic(lax.tanh(x)), (F3,)),
    ("round", lambda x: (lax.round(x), lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)),
     (F3,)),
    ("is_finite", lambda x: lax.is_finite(x), (F3,)),
    ("complex_parts", lambda z: (lax.real(z), lax.imag(z), lax.conj(z), lax.abs(z)), (C3,)),
    ("conj_real", lambda x: lax.conj(x), (F3,)),
    ("complex", lambda x: lax.complex(x, 1.0), (F3,)),
    ("integer_pow", lambda x: (lax.integer_pow(x, 3), lax.integer_pow(x, -2)), (F3,)),
    ("pow_int", lambda x, n: lax.pow(x, n), (F3, I3)),
    ("pow_literal", lambda x: lax.pow(x, 2), (F3,)),
    ("bitwise", lambda a, b: (lax.bitwise_and(a, b), lax.bitwise_or(a, b),
                              lax.bitwise_xor(a, b), lax.bitwise_not(a)), (I3, I3)),
    ("logical", lambda a, b: (lax.bitwise_and(a, b), lax.bitwise_not(a)), (B3, B3)),
    ("shifts", lambda a: (lax.shift_left(a, 2), lax.shift_right_logical(a, 1),
                          lax.shift_right_arithmetic(a, 1)), (I3,)),
    ("bitcounts", lambda a: (lax.population_count(a), lax.clz(a)), (U3,)),
    ("compare", lambda x, y: (lax.eq(x, y), lax.ne(x, y), lax.lt(x, y), lax.le(x, y),
                              lax.gt(x, y), lax.ge(x, y)), (F3, F3)),
    ("scalar_broadcast", lambda x: lax.mul(lax.add(x, 1.0), np.float32(2)), (F3,)),
    ("size1_broadcast", lambda x, y: lax.sub(x, y),
     (np.ones((2, 1), np.float32), np.ones((1, 3), np.float32))),
    ("weak_scalar", lambda x: lax.add(x, 1.0), (1.0,)),
    ("mul_out_dtype", lambda x, y: lax.mul(x, y, out_dtype=np.float32), (I3, I3)),
    ("select_n_bool", lambda p, x: lax.select_n(p, x, lax.neg(x)), (B3, F3)),
    ("select_n_int", lambda i, x: lax.select_n(i, x, lax.neg(x), lax.sin(x)), (I3, F3)),
    ("select_n_scalar", lambda x: lax.select_n(True, x, x), (F3,)),
    ("select", lambda p, x: lax.select(p, x, lax.neg(x)), (B3, F3)),
    ("clamp", lambda x: lax.clamp(0.0, x, 1.0), (F3,)),
    ("clamp_arrays", lambda lo, x: lax.clamp(lo, x, 2.0), (F3, F3)),
    ("convert", lambda x: (lax.convert_element_type(x, np.int32),
                           lax.convert_element_type(x, ml_dtypes.bfloat16),
                           lax.convert_element_type(x, np.float32)), (F3,)),
    ("convert_python_scalar", lambda x: (lax.convert_element_type(2.5, np.int32),
                                         lax.convert_element_type(3, np.float32),
                                         lax.convert_element_type(True, np.float32)), (F3,)),
    ("convert_numpy_scalar", lambda x: lax.convert_element_type(np.float32(3.7), np.int8),
     (F3,)),
    ("convert_numpy_array", lambda x: lax.convert_element_type(np.arange(3), np.float32),
     (F3,)),
    ("convert_weak", lambda x: lax.convert_element_type(x, np.float32), (1.0,)),
    ("bitcast", lambda x: (lax.bitcast_convert_type(x, np.int32),
                           lax.bitcast_convert_type(x, np.uint8)), (F3,)),
    ("bitcast_wider", lambda x: lax.bitcast_convert_type(x, np.float32),
     (np.ones((3, 4), np.int8),)),
    ("reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), (F3,)),
    ("stop_gradient", lambda x, n: lax.stop_gradient((x, n, 2.0)), (F3, I3)),
    ("special", lambda x: (lax.erf(x), lax.erfc(x), lax.erf_inv(x), lax.lgamma(x),
                           lax.digamma(x), lax.polygamma(1.0, x)), (F3,)),
    ("trig", lambda x: (lax.tan(x), lax.asin(x), lax.acos(x), lax.atan(x),
                        lax.atan2(x, x)), (F3,)),
    ("hyperbolic", lambda x: (lax.sinh(x), lax.cosh(x), lax.asinh(x), lax.acosh(x),
                              lax.atanh(x)), (F3,)),
    ("roots", lambda x: (lax.sqrt(x), lax.rsqrt(x), lax.cbrt(x), lax.square(x),
                         lax.reciprocal(x)), (F3,)),
    ("arith", lambda x, y: (lax.div(x, y), lax.rem(x, y), lax.max(x, y), lax.min(x, y),
                            lax.nextafter(x, y)), (F3, F3)),
    ("sign_floor_ceil", lambda x: (lax.sign(x), lax.floor(x), lax.ceil(x)), (F3,)),
]

EXPECTED_JAXPRS = {
    'sin': '{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }',
    'sin_accuracy': '{ lambda ; a:f32[3]. let\n    b:f32[3] = sin[accuracy=AccuracyMode.HIGHEST] a\n  in (b,) }',
    'exp2_log1p_expm1': '{ lambda ; a:f32[3]. let\n    b:f32[3] = expm1 a\n    c:f32[3] = log1p b\n    d:f32[3] = exp2 c\n  in (d,) }',
    'logistic_tanh': '{ lambda ; a:f32[3]. let b:f32[3] = tanh a; c:f32[3] = logistic b in (c,) }',
    'round': '{ lambda ; a:f32[3]. let\n    b:f32[3] = round[rounding_method=0] a\n    c:f32[3] = round[rounding_method=1] a\n  in (b, c) }',
    'is_finite': '{ lambda ; a:f32[3]. let b:bool[3] = is_finite a in (b,) }',
    'complex_parts': '{ lambda ; a:c64[3]. let\n    b:f32[3] = real a\n    c:f32[3] = imag a\n    d:c64[3] = conj[input_dtype=complex64] a\n    e:f32[3] = abs a\n  in (b, c, d, e) }',
    'conj_real': '{ lambda ; a:f32[3]. let b:c64[3] = conj[input_dtype=float32] a in (b,) }',
    'complex': '{ lambda ; a:f32[3]. let b:c64[3] = complex a 1.0:f32[] in (b,) }',
    'integer_pow': '{ lambda ; a:f32[3]. let\n    b:f32[3] = integer_pow[y=3] a\n    c:f32[3] = integer_pow[y=-2] a\n  in (b, c) }',
    'pow_int': '{ lambda ; a:f32[3] b:i32[3]. let c:f32[3] = pow a b in (c,) }',
    'pow_literal': '{ lambda ; a:f32[3]. let b:f32[3] = pow a 2:i32[] in (b,) }',
    'bitwise': '{ lambda ; a:i32[3] b:i32[3]. let\n    c:i32[3] = and a b\n    d:i32[3] = or a b\n    e:i32[3] = xor a b\n    f:i32[3] = not a\n  in (c, d, e, f) }',
    'logical': '{ lambda ; a:bool[3] b:bool[3]. let\n    c:bool[3] = and a b\n    d:bool[3] = not a\n  in (c, d) }',
    'shifts': '{ lambda ; a:i32[3]. let\n    b:i32[3] = shift_left a 2:i32[]\n    c:i32[3] = shift_right_logical a 1:i32[]\n    d:i32[3] = shift_right_arithmetic a 1:i32[]\n  in (b, c, d) }',
    'bitcounts': '{ lambda ; a:u32[3]. let\n    b:u32[3] = population_count a\n    c:u32[3] = clz a\n  in (b, c) }',
    'compare': '{ lambda ; a:f32[3] b:f32[3]. let\n    c:bool[3] = eq a b\n    d:bool[3] = ne a b\n    e:bool[3] = lt a b\n    f:bool[3] = le a b\n    g:bool[3] = gt a b\n    h:bool[3] = ge a b\n  in (c, d, e, f, g, h) }',
    'scalar_broadcast': '{ lambda ; a:f32[3]. let\n    b:f32[3] = add a 1.0:f32[]\n    c:f32[3] = mul b 2.0:f32[]\n  in (c,) }',
    'size1_broadcast': '{ lambda ; a:f32[2,1] b:f32[1,3]. let c:f32[2,3] = sub a b in (c,) }',
    'weak_scalar': '{ lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }',
    'mul_out_dtype': "{ lambda ; a:i32[3] b:i32[3]. let\n    c:f32[3] = mul[out_dtype=<class 'numpy.float32'>] a b\n  in (c,) }",
    'select_n_bool': '{ lambda ; a:bool[3] b:f32[3]. let\n    c:f32[3] = neg b\n    d:f32[3] = select_n a b c\n  in (d,) }',
    'select_n_int': '{ lambda ; a:i32[3] b:f32[3]. let\n    c:f32[3] = neg b\n    d:f32[3] = sin b\n    e:f32[3] = select_n a b c d\n  in (e,) }',
    'select_n_scalar': '{ lambda ; a:f32[3]. let b:f32[3] = select_n True:bool[] a a in (b,) }',
    'select': '{ lambda ; a:bool[3] b:f32[3]. let\n    c:f32[3] = neg b\n    d:f32[3] = select_n a c b\n  in (d,) }',
    'clamp': '{ lambda ; a:f32[3]. let b:f32[3] = clamp 0.0:f32[] a 1.0:f32[] in (b,) }',
    'clamp_arrays': '{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = clamp a b 2.0:f32[] in (c,) }',
    'convert': '{ lambda ; a:f32[3]. let\n    b:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] a\n    c:bf16[3] = convert_element_type[new_dtype=bfloat16 weak_type=False] a\n  in (b, c, a) }',
    'convert_python_scalar': '{ lambda ; a:f32[3]. let  in (2:i32[], 3.0:f32[], 1.0:f32[]) }',
    'convert_numpy_scalar': '{ lambda ; a:f32[3]. let  in (3:i8[],) }',
    'convert_numpy_array': '{ lambda a:i32[3]; b:f32[3]. let\n    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a\n  in (c,) }',
    'convert_weak': '{ lambda ; a:f32[]. let\n    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n  in (b,) }',
    'bitcast': '{ lambda ; a:f32[3]. let\n    b:i32[3] = bitcast_convert_type[new_dtype=int32] a\n    c:u8[3,4] = bitcast_convert_type[new_dtype=uint8] a\n  in (b, c) }',
    'bitcast_wider': '{ lambda ; a:i8[3,4]. let\n    b:f32[3] = bitcast_convert_type[new_dtype=float32] a\n  in (b,) }',
    'reduce_precision': '{ lambda ; a:f32[3]. let\n    b:f32[3] = reduce_precision[exponent_bits=5 mantissa_bits=10] a\n  in (b,) }',
    'stop_gradient': '{ lambda ; a:f32[3] b:i32[3]. let\n    c:f32[3] = stop_gradient a\n    d:i32[3] = stop_gradient b\n    e:f32[] = stop_gradient 2.0:f32[]\n  in (c, d, e) }',
    'special': '{ lambda ; a:f32[3]. let\n    b:f32[3] = erf a\n    c:f32[3] = erfc a\n    d:f32[3] = erf_inv a\n    e:f32[3] = lgamma a\n    f:f32[3] = digamma a\n    g:f32[3] = polygamma 1.0:f32[] a\n  in (b, c, d, e, f, g) }',
    'trig': '{ lambda ; a:f32[3]. let\n    b:f32[3] = tan a\n    c:f32[3] = asin a\n    d:f32[3] = acos a\n    e:f32[3] = atan a\n    f:f32[3] = atan2 a a\n  in (b, c, d, e, f) }',
    'hyperbolic': '{ lambda ; a:f32[3]. let\n    b:f32[3] = sinh a\n    c:f32[3] = cosh a\n    d:f32[3] = asinh a\n    e:f32[3] = acosh a\n    f:f32[3] = atanh a\n  in (b, c, d, e, f) }',
    'roots': '{ lambda ; a:f32[3]. let\n    b:f32[3] = sqrt a\n    c:f32[3] = rsqrt a\n    d:f32[3] = cbrt a\n    e:f32[3] = square a\n    f:f32[3] = integer_pow[y=-1] a\n  in (b, c, d, e, f) }',
    'arith': '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = div a b\n    d:f32[3] = rem a b\n    e:f32[3] = max a b\n    f:f32[3] = min a b\n    g:f32[3] = nextafter a b\n  in (c, d, e, f, g) }',
    'sign_floor_ceil': '{ lambda ; a:f32[3]. let\n    b:f32[3] = sign a\n    c:f32[3] = floor a\n    d:f32[3] = ceil a\n  in (b, c, d) }',
}


@pytest.mark.parametrize("name,f,args", JAXPR_CASES, ids=[c[0] for c in JAXPR_CASES])
def test_jaxpr_text(name, f, args):
    assert str(jax.make_jaxpr(f)(*args)) == EXPECTED_JAXPRS[name]



# ----------------------------------------------------------------------------------------
# Lowering: the StableHLO/CHLO ops JAX 0.10.2 emits for each primitive, in order
# ----------------------------------------------------------------------------------------

M21 = np.ones((2, 1), np.float32)
M13 = np.ones((1, 3), np.float32)

LOWERING_CASES = [
    ("unary_f32", lambda x: [getattr(lax, n)(x) for n in [
        "neg", "sign", "floor", "ceil", "round", "is_finite", "exp", "exp2", "log", "log1p",
        "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
        "cosh", "asinh", "acosh", "atanh", "sqrt", "rsqrt", "cbrt", "square", "erf", "erfc",
        "erf_inv", "lgamma", "digamma", "abs"]], (F3,)),
    ("round_even", lambda x: lax.round(x, 1), (F3,)),
    ("unary_c64", lambda x: [getattr(lax, n)(x) for n in [
        "neg", "sign", "exp", "log", "sin", "cos", "tan", "sqrt", "square", "abs", "real",
        "imag", "conj"]], (C3,)),
    ("unary_int", lambda x: [getattr(lax, n)(x) for n in [
        "neg", "sign", "square", "abs", "bitwise_not", "population_count", "clz"]], (I3,)),
    ("unary_uint", lambda x: [lax.sign(x), lax.square(x)], (U3,)),
    ("conj_real", lambda x: lax.conj(x), (F3,)),
    ("binary_f32", lambda x, y: [getattr(lax, n)(x, y) for n in [
        "add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter",
        "complex", "eq", "ne", "lt", "le", "gt", "ge", "polygamma"]], (F3, F3)),
    ("binary_int", lambda x, y: [getattr(lax, n)(x, y) for n in [
        "add", "div", "rem", "max", "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
        "shift_right_logical", "shift_right_arithmetic", "lt"]], (I3, I3)),
    ("binary_c64", lambda x, y: [lax.max(x, y), lax.min(x, y), lax.eq(x, y), lax.pow(x, y)],
     (C3, C3)),
    ("pow_int", lambda x, y: lax.pow(x, y), (F3, I3)),
    ("intpow", lambda x: [lax.integer_pow(x, n) for n in [0, 1, 2, 3, 5, -1, -3]], (F3,)),
    ("select_n", lambda b, i, x: [lax.select_n(b, x, x), lax.select_n(i, x, x, x, x, x),
                                  lax.select_n(True, x, x),
                                  lax.select_n(np.int32(1), x, x, x)], (B3, I3, F3)),
    ("clamp", lambda x: [lax.clamp(0.0, x, 1.0), lax.clamp(x, x, x)], (F3,)),
    ("convert", lambda x, c, i: [lax.convert_element_type(x, np.int32),
                                 lax.convert_element_type(x, bool),
                                 lax.convert_element_type(c, np.float32),
                                 lax.convert_element_type(i, bool),
                                 lax.convert_element_type(c, bool)], (F3, C3, I3)),
    ("bitcast", lambda x: [lax.bitcast_convert_type(x, np.int32),
                           lax.bitcast_convert_type(x, np.uint8)], (F3,)),
    ("reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), (F3,)),
    ("stop_gradient", lambda x: lax.stop_gradient(x), (F3,)),
    ("mul_out", lambda x: lax.mul(x, x, out_dtype=np.float32), (I3,)),
    ("bcast", lambda x, y: lax.add(x, y), (M21, M13)),
]

EXPECTED_LOWERED_OPS = {
    'unary_f32':
        'negate sign floor ceil round_nearest_afz is_finite exponential broadcast_in_dim multiply exponential log log_plus_one exponential_minus_one tanh negate exponential broadcast_in_dim add broadcast_in_dim divide sine cosine tan chlo.asin chlo.acos chlo.atan chlo.sinh chlo.cosh chlo.asinh chlo.acosh chlo.atanh sqrt rsqrt cbrt chlo.square chlo.erf chlo.erfc chlo.erf_inv chlo.lgamma chlo.digamma abs',
    'round_even':
        'round_nearest_even',
    'unary_c64':
        'negate sign exponential log real imag broadcast_in_dim compare sine cosine exponential_minus_one negate exponential_minus_one subtract broadcast_in_dim divide add broadcast_in_dim add broadcast_in_dim divide multiply multiply broadcast_in_dim complex complex select real imag broadcast_in_dim compare sine cosine exponential_minus_one negate exponential_minus_one subtract broadcast_in_dim divide add broadcast_in_dim add broadcast_in_dim divide multiply negate multiply broadcast_in_dim complex complex select tan sqrt chlo.square abs real imag real imag negate complex',
    'unary_int':
        'negate sign multiply abs not popcnt count_leading_zeros',
    'unary_uint':
        'broadcast_in_dim compare broadcast_in_dim broadcast_in_dim select multiply',
    'conj_real':
        'broadcast_in_dim complex',
    'binary_f32':
        'add subtract multiply divide remainder power maximum minimum atan2 chlo.next_after complex compare compare compare compare compare compare chlo.polygamma',
    'binary_int':
        'add divide remainder maximum and or xor shift_left shift_right_logical shift_right_arithmetic compare',
    'binary_c64':
        'real real compare compare imag imag compare select select real real compare compare imag imag compare select select compare power',
    'pow_int':
        'convert power',
    'intpow':
        'broadcast_in_dim multiply multiply multiply multiply multiply multiply broadcast_in_dim divide multiply multiply broadcast_in_dim divide',
    'select_n':
        'select broadcast_in_dim compare broadcast_in_dim compare select broadcast_in_dim compare broadcast_in_dim compare select select select select broadcast_in_dim compare broadcast_in_dim compare select select',
    'clamp':
        'broadcast_in_dim broadcast_in_dim clamp clamp',
    'convert':
        'convert broadcast_in_dim compare convert real convert broadcast_in_dim compare convert real broadcast_in_dim compare convert',
    'bitcast':
        'bitcast_convert bitcast_convert',
    'reduce_precision':
        'reduce_precision',
    'stop_gradient':
        '',
    'mul_out':
        'convert convert multiply',
    'bcast':
        'broadcast_in_dim broadcast_in_dim add',
}


@pytest.mark.parametrize("name,f,args", LOWERING_CASES, ids=[c[0] for c in LOWERING_CASES])
def test_lowered_ops(name, f, args):
    """The ops of the lowered module (constants aside) are JAX's, in JAX's order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        text = jax.jit(f).lower(*args).as_text()
    ops = [op.replace("stablehlo.", "")
           for op in re.findall(r"= ((?:stablehlo|chlo)\.[a-z_0-9]+)", text)
           if op != "stablehlo.constant"]
    assert " ".join(ops) == EXPECTED_LOWERED_OPS[name]


# ----------------------------------------------------------------------------------------
# Differentiation: the jaxprs JAX prints for grad/jvp, and values vs finite differences
# ----------------------------------------------------------------------------------------

S = np.float32(0.5)
Z = np.complex64(0.5 + 0.25j)
F2 = np.zeros(2, np.float32)
B2 = np.array([True, False])
M23 = np.ones((2, 3), np.float32)
M32 = np.ones((3, 2), np.float32)
B23 = np.ones((2, 3), bool)
I23 = np.ones((2, 3), np.int32)


def total(x):
    """The sum of all elements: a scalar to differentiate."""
    return lax.reduce_sum(x, tuple(range(np.ndim(x))))


AD_CASES = [
    ("neg", jax.grad(lax.neg), (S,)),
    ("sign", jax.grad(lax.sign), (S,)),
    ("floor", jax.grad(lax.floor), (S,)),
    ("round", jax.grad(lax.round), (S,)),
    ("exp", jax.grad(lax.exp), (S,)),
    ("exp2", jax.grad(lax.exp2), (S,)),
    ("log", jax.grad(lax.log), (S,)),
    ("log1p", jax.grad(lax.log1p), (S,)),
    ("expm1", jax.grad(lax.expm1), (S,)),
    ("tanh", jax.grad(lax.tanh), (S,)),
    ("logistic", jax.grad(lax.logistic), (S,)),
    ("sin", jax.grad(lax.sin), (S,)),
    ("cos", jax.grad(lax.cos), (S,)),
    ("tan", jax.grad(lax.tan), (S,)),
    ("asin", jax.grad(lax.asin), (S,)),
    ("acos", jax.grad(lax.acos), (S,)),
    ("atan", jax.grad(lax.atan), (S,)),
    ("sinh", jax.grad(lax.sinh), (S,)),
    ("cosh", jax.grad(lax.cosh), (S,)),
    ("asinh", jax.grad(lax.asinh), (S,)),
    ("acosh", jax.grad(lax.acosh), (S,)),
    ("atanh", jax.grad(lax.atanh), (S,)),
    ("sqrt", jax.grad(lax.sqrt), (S,)),
    ("rsqrt", jax.grad(lax.rsqrt), (S,)),
    ("cbrt", jax.grad(lax.cbrt), (S,)),
    ("square", jax.grad(lax.square), (S,)),
    ("erf", jax.grad(lax.erf), (S,)),
    ("erfc", jax.grad(lax.erfc), (S,)),
    ("erf_inv", jax.grad(lax.erf_inv), (S,)),
    ("lgamma", jax.grad(lax.lgamma), (S,)),
    ("digamma", jax.grad(lax.digamma), (S,)),
    ("abs", jax.grad(lax.abs), (S,)),
    ("tanh_highest", jax.grad(lambda x: lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)),
     (S,)),
    ("logistic_highest",
     jax.grad(lambda x: lax.logistic(x, accuracy=lax.AccuracyMode.HIGHEST)),
     (S,)),
    ("expm1_highest", jax.grad(lambda x: lax.expm1(x, accuracy=lax.AccuracyMode.HIGHEST)),
     (S,)),
    ("sin_weak", jax.grad(lax.sin), (0.5,)),
    ("integer_pow_3", jax.grad(lambda x: lax.integer_pow(x, 3)), (S,)),
    ("integer_pow_2", jax.grad(lambda x: lax.integer_pow(x, 2)), (S,)),
    ("integer_pow_1", jax.grad(lambda x: lax.integer_pow(x, 1)), (S,)),
    ("integer_pow_0", jax.grad(lambda x: lax.integer_pow(x, 0)), (S,)),
    ("integer_pow_neg", jax.grad(lambda x: lax.integer_pow(x, -3)), (S,)),
    ("reciprocal", jax.grad(lax.reciprocal), (S,)),
    ("add", jax.grad(lax.add, (0, 1)), (S, S)),
    ("sub", jax.grad(lax.sub, (0, 1)), (S, S)),
    ("mul", jax.grad(lax.mul, (0, 1)), (S, S)),
    ("div", jax.grad(lax.div, (0, 1)), (S, S)),
    ("rem", jax.grad(lax.rem, (0, 1)), (S, S)),
    ("pow", jax.grad(lax.pow, (0, 1)), (S, S)),
    ("pow_int", jax.grad(lambda x: lax.pow(x, 3)), (S,)),
    ("max", jax.grad(lax.max, (0, 1)), (S, S)),
    ("min", jax.grad(lax.min, (0, 1)), (S, S)),
    ("atan2", jax.grad(lax.atan2, (0, 1)), (S, S)),
    ("polygamma", jax.grad(lax.polygamma, 1), (S, S)),
    ("sub_rhs", jax.grad(lax.sub, 1), (S, S)),
    ("add_broadcast", jax.grad(lambda x, y: total(lax.add(x, y)), (0, 1)),
     (M21, M13)),
    ("sub_broadcast_rhs", jax.grad(lambda x, y: total(lax.sub(x, y)), (0, 1)),
     (F3, S)),
    ("mul_broadcast", jax.grad(lambda x, y: total(lax.mul(x, y)), (0, 1)),
     (F3, S)),
    ("div_broadcast", jax.grad(lambda x, y: total(lax.div(x, y)), (0, 1)),
     (F3, S)),
    ("max_shaped", jax.grad(lambda x, y: total(lax.max(x, y)), (0, 1)),
     (F3, F3)),
    ("pow_int_shaped", jax.grad(lambda x, n: total(lax.pow(x, n))),
     (F3, I3)),
    ("abs_shaped", jax.grad(lambda x: total(lax.abs(x))), (F3,)),
    ("rem_broadcast", jax.grad(lambda x, y: total(lax.rem(x, y))), (S, F3)),
    ("select_n", jax.grad(lambda x: total(lax.select_n(lax.gt(x, 0.0), x, lax.sin(x)))),
     (F3,)),
    ("select_n_int",
     jax.grad(lambda x, i: total(lax.select_n(i, x, lax.sin(x), lax.neg(x)))),
     (F3, I3)),
    ("select_scalar_pred", jax.grad(lambda x: lax.select(True, x, lax.mul(x, 2.0))), (S,)),
    ("clamp", jax.grad(lambda x: total(lax.clamp(0.0, x, 1.0))), (F3,)),
    ("clamp_arrays", jax.grad(lambda lo, x, hi: total(lax.clamp(lo, x, hi)), (0, 1, 2)),
     (F3, F3, F3)),
    ("convert", jax.grad(lambda x: total(lax.convert_element_type(
        lax.convert_element_type(x, ml_dtypes.bfloat16), np.float32))),
     (F3,)),
    ("convert_to_int", jax.grad(lambda x: lax.mul(x, lax.convert_element_type(
        lax.convert_element_type(x, np.int32), np.float32))),
     (S,)),
    ("complex_parts", jax.grad(lambda x: total(lax.add(
        lax.real(lax.conj(lax.complex(x, lax.mul(x, 2.0)))), lax.imag(lax.complex(x, x))))),
     (F3,)),
    ("abs_complex", jax.grad(lambda x: total(lax.abs(lax.complex(x, x)))),
     (F3,)),
    ("sin_complex_holomorphic", jax.grad(lambda z: lax.sin(z), holomorphic=True), (Z,)),
    ("reduce_precision", jax.grad(lambda x: lax.reduce_precision(lax.sin(x), 5, 10)), (S,)),
    ("stop_gradient", jax.grad(lambda x: lax.mul(lax.stop_gradient(x), x)), (S,)),
    ("sign_times", jax.grad(lambda x: lax.mul(lax.sign(x), lax.exp(x))), (S,)),
    ("tanh_chain", jax.grad(lambda x: lax.tanh(lax.tanh(x))), (S,)),
    ("jvp_add_broadcast", lambda x, y, tx: jax.jvp(lambda a: lax.add(a, y), (x,), (tx,)),
     (S, F3, S)),
    ("jvp_sub_lhs_zero", lambda x, y, ty: jax.jvp(lambda b: lax.sub(x, b), (y,), (ty,)),
     (F3, S, S)),
    ("jvp_rem_broadcast", lambda x, y, tx: jax.jvp(lambda a: lax.rem(a, y), (x,), (tx,)),
     (S, F3, S)),
    ("jvp_mul", lambda x, y, tx, ty: jax.jvp(lax.mul, (x, y), (tx, ty)), (F3, F3, F3, F3)),
    ("jvp_select", lambda p, x, y, tx: jax.jvp(lambda a: lax.select(p, a, y), (x,), (tx,)),
     (B3, F3, F3, F3)),
    ("jvp_convert_int",
     lambda x, tx: jax.jvp(lambda a: lax.convert_element_type(a, np.int32), (x,), (tx,)),
     (F3, F3)),
    ("jvp_comparison", lambda x, tx: jax.jvp(lambda a: lax.lt(a, 1.0), (x,), (tx,)),
     (F3, F3)),
    ("jvp_bitcast",
     lambda x, tx: jax.jvp(lambda a: lax.bitcast_convert_type(a, np.int32), (x,), (tx,)),
     (F3, F3)),
    ("jvp_conj", lambda z, tz: jax.jvp(lax.conj, (z,), (tz,)), (C3, C3)),
    ("jvp_complex", lambda x, y, tx: jax.jvp(lambda a: lax.complex(a, y), (x,), (tx,)),
     (F3, F3, F3)),
    ("jvp_stop_gradient", lambda x, tx: jax.jvp(lax.stop_gradient, (x,), (tx,)), (F3, F3)),
    ("jvp_exp2_log", lambda x, tx: jax.jvp(lambda a: lax.log(lax.exp2(a)), (x,), (tx,)),
     (F3, F3)),
]

EXPECTED_AD_JAXPRS = {
    'neg': '{ lambda ; a:f32[]. let _:f32[] = neg a; b:f32[] = neg 1.0:f32[] in (b,) }',
    'sign': '{ lambda ; a:f32[]. let _:f32[] = sign a in (0.0:f32[],) }',
    'floor': '{ lambda ; a:f32[]. let _:f32[] = floor a in (0.0:f32[],) }',
    'round': '{ lambda ; a:f32[]. let _:f32[] = round[rounding_method=0] a in (0.0:f32[],) }',
    'exp': '{ lambda ; a:f32[]. let b:f32[] = exp a; c:f32[] = mul 1.0:f32[] b in (c,) }',
    'exp2': '{ lambda ; a:f32[]. let\n    b:f32[] = exp2 a\n    c:f32[] = log 2.0:f32[]\n    d:f32[] = mul c 1.0:f32[]\n    e:f32[] = mul d b\n  in (e,) }',
    'log': '{ lambda ; a:f32[]. let _:f32[] = log a; b:f32[] = div 1.0:f32[] a in (b,) }',
    'log1p': '{ lambda ; a:f32[]. let\n    _:f32[] = log1p a\n    b:f32[] = add a 1.0:f32[]\n    c:f32[] = div 1.0:f32[] b\n  in (c,) }',
    'expm1': '{ lambda ; a:f32[]. let\n    b:f32[] = expm1 a\n    c:f32[] = add b 1.0:f32[]\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'tanh': '{ lambda ; a:f32[]. let\n    b:f32[] = tanh a\n    c:f32[] = sub 1.0:f32[] b\n    d:f32[] = mul 1.0:f32[] c\n    e:f32[] = mul d b\n    f:f32[] = add_any d e\n  in (f,) }',
    'logistic': '{ lambda ; a:f32[]. let\n    b:f32[] = logistic a\n    c:f32[] = sub 1.0:f32[] b\n    d:f32[] = mul b c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'sin': '{ lambda ; a:f32[]. let\n    _:f32[] = sin a\n    b:f32[] = cos a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'cos': '{ lambda ; a:f32[]. let\n    _:f32[] = cos a\n    b:f32[] = sin a\n    c:f32[] = neg 1.0:f32[]\n    d:f32[] = mul c b\n  in (d,) }',
    'tan': '{ lambda ; a:f32[]. let\n    b:f32[] = tan a\n    c:f32[] = square b\n    d:f32[] = add 1.0:f32[] c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'asin': '{ lambda ; a:f32[]. let\n    _:f32[] = asin a\n    b:f32[] = square a\n    c:f32[] = sub 1.0:f32[] b\n    d:f32[] = rsqrt c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'acos': '{ lambda ; a:f32[]. let\n    _:f32[] = acos a\n    b:f32[] = square a\n    c:f32[] = sub 1.0:f32[] b\n    d:f32[] = rsqrt c\n    e:f32[] = neg d\n    f:f32[] = mul 1.0:f32[] e\n  in (f,) }',
    'atan': '{ lambda ; a:f32[]. let\n    _:f32[] = atan a\n    b:f32[] = square a\n    c:f32[] = add 1.0:f32[] b\n    d:f32[] = div 1.0:f32[] c\n  in (d,) }',
    'sinh': '{ lambda ; a:f32[]. let\n    _:f32[] = sinh a\n    b:f32[] = cosh a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'cosh': '{ lambda ; a:f32[]. let\n    _:f32[] = cosh a\n    b:f32[] = sinh a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'asinh': '{ lambda ; a:f32[]. let\n    _:f32[] = asinh a\n    b:f32[] = square a\n    c:f32[] = add b 1.0:f32[]\n    d:f32[] = rsqrt c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'acosh': '{ lambda ; a:f32[]. let\n    _:f32[] = acosh a\n    b:f32[] = square a\n    c:f32[] = sub b 1.0:f32[]\n    d:f32[] = rsqrt c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'atanh': '{ lambda ; a:f32[]. let\n    _:f32[] = atanh a\n    b:f32[] = add 1.0:f32[] a\n    c:f32[] = integer_pow[y=-1] b\n    d:f32[] = sub 1.0:f32[] a\n    e:f32[] = mul c 1.0:f32[]\n    f:f32[] = div e d\n  in (f,) }',
    'sqrt': '{ lambda ; a:f32[]. let\n    b:f32[] = sqrt a\n    c:f32[] = div 0.5:f32[] b\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'rsqrt': '{ lambda ; a:f32[]. let\n    b:f32[] = rsqrt a\n    c:f32[] = div b a\n    d:f32[] = mul -0.5:f32[] c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'cbrt': '{ lambda ; a:f32[]. let\n    b:f32[] = cbrt a\n    c:f32[] = integer_pow[y=-2] b\n    d:f32[] = mul 0.3333333432674408:f32[] c\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'square': '{ lambda ; a:f32[]. let\n    _:f32[] = square a\n    b:f32[] = mul 2.0:f32[] a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'erf': '{ lambda ; a:f32[]. let\n    _:f32[] = erf a\n    b:f32[] = square a\n    c:f32[] = neg b\n    d:f32[] = exp c\n    e:f32[] = mul 1.128379225730896:f32[] 1.0:f32[]\n    f:f32[] = mul e d\n  in (f,) }',
    'erfc': '{ lambda ; a:f32[]. let\n    _:f32[] = erfc a\n    b:f32[] = square a\n    c:f32[] = neg b\n    d:f32[] = exp c\n    e:f32[] = mul -1.128379225730896:f32[] 1.0:f32[]\n    f:f32[] = mul e d\n  in (f,) }',
    'erf_inv': '{ lambda ; a:f32[]. let\n    b:f32[] = erf_inv a\n    c:f32[] = square b\n    d:f32[] = exp c\n    e:f32[] = mul 0.8862269520759583:f32[] 1.0:f32[]\n    f:f32[] = mul e d\n  in (f,) }',
    'lgamma': '{ lambda ; a:f32[]. let\n    _:f32[] = lgamma a\n    b:f32[] = digamma a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'digamma': '{ lambda ; a:f32[]. let\n    _:f32[] = digamma a\n    b:f32[] = polygamma 1.0:f32[] a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'abs': '{ lambda ; a:f32[]. let\n    _:f32[] = abs a\n    b:bool[] = ge a 0.0:f32[]\n    c:f32[] = select_n b 1.0:f32[] 0.0:f32[]\n    d:f32[] = select_n b 0.0:f32[] 1.0:f32[]\n    e:f32[] = neg c\n    f:f32[] = add_any d e\n  in (f,) }',
    'tanh_highest': '{ lambda ; a:f32[]. let\n    _:f32[] = tanh[accuracy=AccuracyMode.HIGHEST] a\n    b:f32[] = mul 2.0:f32[] a\n    c:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] b\n    d:f32[] = mul -2.0:f32[] a\n    e:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] d\n    f:f32[] = mul c e\n    g:f32[] = mul 4.0:f32[] f\n    h:f32[] = mul 1.0:f32[] g\n  in (h,) }',
    'logistic_highest': '{ lambda ; a:f32[]. let\n    b:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] a\n    c:f32[] = neg a\n    d:f32[] = logistic c\n    e:f32[] = mul b d\n    f:f32[] = mul 1.0:f32[] e\n  in (f,) }',
    'expm1_highest': '{ lambda ; a:f32[]. let\n    _:f32[] = expm1[accuracy=AccuracyMode.HIGHEST] a\n    b:f32[] = exp[accuracy=AccuracyMode.HIGHEST] a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'sin_weak': '{ lambda ; a:f32[]. let\n    _:f32[] = sin a\n    b:f32[] = cos a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'integer_pow_3': '{ lambda ; a:f32[]. let\n    _:f32[] = integer_pow[y=3] a\n    b:f32[] = integer_pow[y=2] a\n    c:f32[] = mul 3.0:f32[] b\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'integer_pow_2': '{ lambda ; a:f32[]. let\n    _:f32[] = integer_pow[y=2] a\n    b:f32[] = mul 2.0:f32[] a\n    c:f32[] = mul 1.0:f32[] b\n  in (c,) }',
    'integer_pow_1': '{ lambda ; a:f32[]. let _:f32[] = integer_pow[y=1] a in (1.0:f32[],) }',
    'integer_pow_0': '{ lambda ; a:f32[]. let _:f32[] = integer_pow[y=0] a in (0.0:f32[],) }',
    'integer_pow_neg': '{ lambda ; a:f32[]. let\n    _:f32[] = integer_pow[y=-3] a\n    b:f32[] = integer_pow[y=-4] a\n    c:f32[] = mul -3.0:f32[] b\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'reciprocal': '{ lambda ; a:f32[]. let\n    _:f32[] = integer_pow[y=-1] a\n    b:f32[] = integer_pow[y=-2] a\n    c:f32[] = mul -1.0:f32[] b\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'add': '{ lambda ; a:f32[] b:f32[]. let _:f32[] = add a b in (1.0:f32[], 1.0:f32[]) }',
    'sub': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = sub a b\n    c:f32[] = neg 1.0:f32[]\n  in (1.0:f32[], c) }',
    'mul': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = mul a b\n    c:f32[] = mul a 1.0:f32[]\n    d:f32[] = mul 1.0:f32[] b\n  in (d, c) }',
    'div': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = div a b\n    c:f32[] = integer_pow[y=-2] b\n    d:f32[] = mul 1.0:f32[] c\n    e:f32[] = mul d a\n    f:f32[] = neg e\n    g:f32[] = div 1.0:f32[] b\n  in (g, f) }',
    'rem': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = rem a b\n    c:f32[] = div a b\n    d:f32[] = sign c\n    e:f32[] = div a b\n    f:f32[] = abs e\n    g:f32[] = floor f\n    h:f32[] = mul d g\n    i:f32[] = mul 1.0:f32[] h\n    j:f32[] = neg i\n  in (1.0:f32[], j) }',
    'pow': '{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = pow a b\n    d:f32[] = sub b 1.0:f32[]\n    e:f32[] = pow a d\n    f:f32[] = mul b e\n    g:bool[] = eq a 0.0:f32[]\n    h:f32[] = select_n g a 1.0:f32[]\n    i:f32[] = log h\n    j:f32[] = mul i c\n    k:f32[] = mul 1.0:f32[] j\n    l:f32[] = mul 1.0:f32[] f\n  in (l, k) }',
    'pow_int': '{ lambda ; a:f32[]. let\n    _:f32[] = pow a 3:i32[]\n    b:bool[] = eq 3.0:f32[] 0.0:f32[]\n    c:bool[] = eq 3.0:f32[] 0.0:f32[]\n    d:f32[] = select_n c 3.0:f32[] 1.0:f32[]\n    e:f32[] = sub 3.0:f32[] 1.0:f32[]\n    f:f32[] = pow a e\n    g:f32[] = mul d f\n    h:f32[] = select_n b g 0.0:f32[]\n    i:f32[] = mul 1.0:f32[] h\n  in (i,) }',
    'max': '{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = max a b\n    d:bool[] = eq a c\n    e:f32[] = select_n d 0.0:f32[] 1.0:f32[]\n    f:bool[] = eq b c\n    g:f32[] = select_n f 1.0:f32[] 2.0:f32[]\n    h:f32[] = div e g\n    i:bool[] = eq b c\n    j:f32[] = select_n i 0.0:f32[] 1.0:f32[]\n    k:bool[] = eq a c\n    l:f32[] = select_n k 1.0:f32[] 2.0:f32[]\n    m:f32[] = div j l\n    n:f32[] = mul 1.0:f32[] m\n    o:f32[] = mul 1.0:f32[] h\n  in (o, n) }',
    'min': '{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = min a b\n    d:bool[] = eq a c\n    e:f32[] = select_n d 0.0:f32[] 1.0:f32[]\n    f:bool[] = eq b c\n    g:f32[] = select_n f 1.0:f32[] 2.0:f32[]\n    h:f32[] = div e g\n    i:bool[] = eq b c\n    j:f32[] = select_n i 0.0:f32[] 1.0:f32[]\n    k:bool[] = eq a c\n    l:f32[] = select_n k 1.0:f32[] 2.0:f32[]\n    m:f32[] = div j l\n    n:f32[] = mul 1.0:f32[] m\n    o:f32[] = mul 1.0:f32[] h\n  in (o, n) }',
    'atan2': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = atan2 a b\n    c:f32[] = square a\n    d:f32[] = square b\n    e:f32[] = add c d\n    f:f32[] = div b e\n    g:f32[] = neg a\n    h:f32[] = square a\n    i:f32[] = square b\n    j:f32[] = add h i\n    k:f32[] = div g j\n    l:f32[] = mul 1.0:f32[] k\n    m:f32[] = mul 1.0:f32[] f\n  in (m, l) }',
    'polygamma': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = polygamma a b\n    c:f32[] = add a 1.0:f32[]\n    d:f32[] = polygamma c b\n    e:f32[] = mul 1.0:f32[] d\n  in (e,) }',
    'sub_rhs': '{ lambda ; a:f32[] b:f32[]. let\n    _:f32[] = sub a b\n    c:f32[] = neg 1.0:f32[]\n  in (c,) }',
    'add_broadcast': '{ lambda ; a:f32[2,1] b:f32[1,3]. let\n    c:f32[2,3] = add a b\n    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n    d:f32[2,3] = broadcast_in_dim 1.0:f32[]\n    e:f32[2] = reduce_sum[axes=(1,) out_sharding=None] d\n    f:f32[2,1] = reshape[dimensions=None new_sizes=(2, 1) sharding=None] e\n    g:f32[3] = reduce_sum[axes=(0,) out_sharding=None] d\n    h:f32[1,3] = reshape[dimensions=None new_sizes=(1, 3) sharding=None] g\n  in (f, h) }',
    'sub_broadcast_rhs': '{ lambda ; a:f32[3] b:f32[]. let\n    c:f32[3] = sub a b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = neg d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n  in (d, f) }',
    'mul_broadcast': '{ lambda ; a:f32[3] b:f32[]. let\n    c:f32[3] = mul a b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = mul a d\n    f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    g:f32[3] = mul d b\n  in (g, f) }',
    'div_broadcast': '{ lambda ; a:f32[3] b:f32[]. let\n    c:f32[3] = div a b\n    d:f32[] = integer_pow[y=-2] b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = mul e d\n    g:f32[3] = mul f a\n    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g\n    i:f32[] = neg h\n    j:f32[3] = div e b\n  in (j, i) }',
    'max_shaped': '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = max a b\n    d:bool[3] = eq a c\n    e:f32[3] = broadcast_in_dim 1.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n d f e\n    h:bool[3] = eq b c\n    i:f32[3] = broadcast_in_dim 2.0:f32[]\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = select_n h j i\n    l:f32[3] = div g k\n    m:bool[3] = eq b c\n    n:f32[3] = broadcast_in_dim 1.0:f32[]\n    o:f32[3] = broadcast_in_dim 0.0:f32[]\n    p:f32[3] = select_n m o n\n    q:bool[3] = eq a c\n    r:f32[3] = broadcast_in_dim 2.0:f32[]\n    s:f32[3] = broadcast_in_dim 1.0:f32[]\n    t:f32[3] = select_n q s r\n    u:f32[3] = div p t\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    v:f32[3] = broadcast_in_dim 1.0:f32[]\n    w:f32[3] = mul v u\n    x:f32[3] = mul v l\n  in (x, w) }',
    'pow_int_shaped': '{ lambda ; a:f32[3] b:i32[3]. let\n    c:f32[3] = pow a b\n    d:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b\n    e:bool[3] = eq d 0.0:f32[]\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:bool[3] = eq d 0.0:f32[]\n    h:f32[3] = broadcast_in_dim 1.0:f32[]\n    i:f32[3] = select_n g d h\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:f32[3] = sub d j\n    l:f32[3] = pow a k\n    m:f32[3] = mul i l\n    n:f32[3] = select_n e m f\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    o:f32[3] = broadcast_in_dim 1.0:f32[]\n    p:f32[3] = mul o n\n  in (p,) }',
    'abs_shaped': '{ lambda ; a:f32[3]. let\n    b:f32[3] = abs a\n    c:bool[3] = ge a 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[3] = broadcast_in_dim 0.0:f32[]\n    f:f32[3] = select_n c d e\n    g:f32[3] = select_n c e d\n    h:f32[3] = neg f\n    i:f32[3] = add_any g h\n  in (i,) }',
    'rem_broadcast': '{ lambda ; a:f32[] b:f32[3]. let\n    c:f32[3] = rem a b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d\n  in (e,) }',
    'select_n': '{ lambda ; a:f32[3]. let\n    b:bool[3] = gt a 0.0:f32[]\n    c:f32[3] = sin a\n    d:f32[3] = cos a\n    e:f32[3] = select_n b a c\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] e\n    f:f32[3] = broadcast_in_dim 1.0:f32[]\n    g:f32[3] = broadcast_in_dim 0.0:f32[]\n    h:f32[3] = select_n b f g\n    i:f32[3] = select_n b g f\n    j:f32[3] = mul i d\n    k:f32[3] = add_any h j\n  in (k,) }',
    'select_n_int': '{ lambda ; a:f32[3] b:i32[3]. let\n    c:f32[3] = sin a\n    d:f32[3] = cos a\n    e:f32[3] = neg a\n    f:f32[3] = select_n b a c e\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f\n    g:f32[3] = broadcast_in_dim 1.0:f32[]\n    h:f32[3] = broadcast_in_dim 0.0:f32[]\n    i:bool[3] = eq b 0:i32[]\n    j:f32[3] = select_n i h g\n    k:bool[3] = eq b 1:i32[]\n    l:f32[3] = select_n k h g\n    m:bool[3] = eq b 2:i32[]\n    n:f32[3] = select_n m h g\n    o:f32[3] = neg n\n    p:f32[3] = add_any j o\n    q:f32[3] = mul l d\n    r:f32[3] = add_any p q\n  in (r,) }',
    'select_scalar_pred': '{ lambda ; a:f32[]. let\n    b:f32[] = mul a 2.0:f32[]\n    _:f32[] = select_n True:bool[] b a\n    c:f32[] = select_n True:bool[] 1.0:f32[] 0.0:f32[]\n    d:f32[] = select_n True:bool[] 0.0:f32[] 1.0:f32[]\n    e:f32[] = mul c 2.0:f32[]\n    f:f32[] = add_any d e\n  in (f,) }',
    'clamp': '{ lambda ; a:f32[3]. let\n    b:f32[3] = clamp 0.0:f32[] a 1.0:f32[]\n    c:bool[3] = gt a 0.0:f32[]\n    d:bool[3] = lt a 1.0:f32[]\n    e:bool[3] = and c d\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n    f:f32[3] = broadcast_in_dim 1.0:f32[]\n    g:f32[3] = broadcast_in_dim 0.0:f32[]\n    h:f32[3] = select_n e g f\n  in (h,) }',
    'clamp_arrays': '{ lambda ; a:f32[3] b:f32[3] c:f32[3]. let\n    d:f32[3] = clamp a b c\n    e:bool[3] = gt a b\n    f:bool[3] = lt a c\n    g:bool[3] = and e f\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    h:bool[3] = gt b a\n    i:bool[3] = lt b c\n    j:bool[3] = and h i\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    k:bool[3] = lt c b\n    _:f32[3] = broadcast_in_dim 0.0:f32[]\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d\n    l:f32[3] = broadcast_in_dim 1.0:f32[]\n    m:f32[3] = broadcast_in_dim 0.0:f32[]\n    n:f32[3] = select_n k m l\n    o:f32[3] = broadcast_in_dim 0.0:f32[]\n    p:f32[3] = select_n j o l\n    q:f32[3] = broadcast_in_dim 0.0:f32[]\n    r:f32[3] = select_n g q l\n  in (r, p, n) }',
    'convert': '{ lambda ; a:f32[3]. let\n    b:bf16[3] = convert_element_type[new_dtype=bfloat16 weak_type=False] a\n    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    d:f32[3] = broadcast_in_dim 1.0:f32[]\n    e:bf16[3] = convert_element_type[new_dtype=bfloat16 weak_type=False] d\n    f:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] e\n  in (f,) }',
    'convert_to_int': '{ lambda ; a:f32[]. let\n    b:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n    _:f32[] = mul a c\n    d:f32[] = mul 1.0:f32[] c\n  in (d,) }',
    'complex_parts': '{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    c:c64[3] = complex a b\n    d:c64[3] = conj[input_dtype=complex64] c\n    e:f32[3] = real d\n    f:c64[3] = complex a a\n    g:f32[3] = imag f\n    h:f32[3] = add e g\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] h\n    i:f32[3] = broadcast_in_dim 1.0:f32[]\n    j:f32[3] = neg i\n    k:c64[3] = complex 0.0:f32[] j\n    l:f32[3] = real k\n    m:c64[3] = neg k\n    n:f32[3] = imag m\n    o:f32[3] = add_any l n\n    p:c64[3] = complex i 0.0:f32[]\n    q:c64[3] = conj[input_dtype=complex64] p\n    r:f32[3] = real q\n    s:c64[3] = neg q\n    t:f32[3] = imag s\n    u:f32[3] = add_any o r\n    v:f32[3] = mul t 2.0:f32[]\n    w:f32[3] = add_any u v\n  in (w,) }',
    'abs_complex': '{ lambda ; a:f32[3]. let\n    b:c64[3] = complex a a\n    c:f32[3] = abs b\n    d:c64[3] = conj[input_dtype=complex64] b\n    e:c64[3] = convert_element_type[new_dtype=complex64 weak_type=False] c\n    f:bool[3] = eq e 0j:c64[]\n    g:c64[3] = broadcast_in_dim (1+0j):c64[]\n    h:c64[3] = select_n f e g\n    i:c64[3] = div d h\n    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n    j:f32[3] = broadcast_in_dim 1.0:f32[]\n    k:c64[3] = complex j 0.0:f32[]\n    l:c64[3] = mul k i\n    m:f32[3] = real l\n    n:c64[3] = neg l\n    o:f32[3] = imag n\n    p:f32[3] = add_any m o\n  in (p,) }',
    'sin_complex_holomorphic': '{ lambda ; a:c64[]. let\n    _:c64[] = sin a\n    b:c64[] = cos a\n    c:c64[] = mul (1+0j):c64[] b\n  in (c,) }',
    'reduce_precision': '{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n    _:f32[] = reduce_precision[exponent_bits=5 mantissa_bits=10] b\n    d:f32[] = reduce_precision[exponent_bits=5 mantissa_bits=10] 1.0:f32[]\n    e:f32[] = mul d c\n  in (e,) }',
    'stop_gradient': '{ lambda ; a:f32[]. let\n    b:f32[] = stop_gradient a\n    _:f32[] = mul b a\n    c:f32[] = mul b 1.0:f32[]\n  in (c,) }',
    'sign_times': '{ lambda ; a:f32[]. let\n    b:f32[] = sign a\n    c:f32[] = exp a\n    _:f32[] = mul b c\n    d:f32[] = mul b 1.0:f32[]\n    e:f32[] = mul d c\n  in (e,) }',
    'tanh_chain': '{ lambda ; a:f32[]. let\n    b:f32[] = tanh a\n    c:f32[] = sub 1.0:f32[] b\n    d:f32[] = tanh b\n    e:f32[] = sub 1.0:f32[] d\n    f:f32[] = mul 1.0:f32[] e\n    g:f32[] = mul f d\n    h:f32[] = add_any f g\n    i:f32[] = mul h c\n    j:f32[] = mul i b\n    k:f32[] = add_any i j\n  in (k,) }',
    'jvp_add_broadcast': '{ lambda ; a:f32[] b:f32[3] c:f32[]. let\n    d:f32[3] = add a b\n    e:f32[3] = broadcast_in_dim c\n  in (d, e) }',
    'jvp_sub_lhs_zero': '{ lambda ; a:f32[3] b:f32[] c:f32[]. let\n    d:f32[3] = sub a b\n    e:f32[] = neg c\n    f:f32[3] = broadcast_in_dim e\n  in (d, f) }',
    'jvp_rem_broadcast': '{ lambda ; a:f32[] b:f32[3] c:f32[]. let\n    d:f32[3] = rem a b\n    e:f32[3] = broadcast_in_dim c\n  in (d, e) }',
    'jvp_mul': '{ lambda ; a:f32[3] b:f32[3] c:f32[3] d:f32[3]. let\n    e:f32[3] = mul a b\n    f:f32[3] = mul c b\n    g:f32[3] = mul a d\n    h:f32[3] = add_any f g\n  in (e, h) }',
    'jvp_select': '{ lambda ; a:bool[3] b:f32[3] c:f32[3] d:f32[3]. let\n    e:f32[3] = select_n a c b\n    f:f32[3] = broadcast_in_dim 0.0:f32[]\n    g:f32[3] = select_n a f d\n  in (e, g) }',
    'jvp_convert_int': "{ lambda ; a:f32[3] b:f32[3]. let\n    c:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] a\n    d:float0[3] = broadcast_in_dim (b'',):float0[]\n  in (c, d) }",
    'jvp_comparison': "{ lambda ; a:f32[3] b:f32[3]. let\n    c:bool[3] = lt a 1.0:f32[]\n    d:float0[3] = broadcast_in_dim (b'',):float0[]\n  in (c, d) }",
    'jvp_bitcast': "{ lambda ; a:f32[3] b:f32[3]. let\n    c:i32[3] = bitcast_convert_type[new_dtype=int32] a\n    d:float0[3] = broadcast_in_dim (b'',):float0[]\n  in (c, d) }",
    'jvp_conj': '{ lambda ; a:c64[3] b:c64[3]. let\n    c:c64[3] = conj[input_dtype=complex64] a\n    d:c64[3] = conj[input_dtype=complex64] b\n  in (c, d) }',
    'jvp_complex': '{ lambda ; a:f32[3] b:f32[3] c:f32[3]. let\n    d:c64[3] = complex a b\n    e:f32[3] = broadcast_in_dim 0.0:f32[]\n    f:c64[3] = complex c e\n  in (d, f) }',
    'jvp_stop_gradient': '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = stop_gradient a\n    d:f32[3] = broadcast_in_dim 0.0:f32[]\n  in (c, d) }',
    'jvp_exp2_log': '{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = exp2 a\n    d:f32[] = log 2.0:f32[]\n    e:f32[3] = mul b c\n    f:f32[3] = mul d e\n    g:f32[3] = log c\n    h:f32[3] = div f c\n  in (g, h) }',
}


@pytest.mark.parametrize("name,f,args", AD_CASES, ids=[c[0] for c in AD_CASES])
def test_ad_jaxpr_text(name, f, args):
    assert str(jax.make_jaxpr(f)(*args)) == EXPECTED_AD_JAXPRS[name]


# Unary ops whose derivative is defined on the whole of their (test) domain.
SMOOTH_UNARY = ["neg", "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin",
                "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                "atanh", "sqrt", "rsqrt", "cbrt", "square", "erf", "erfc", "erf_inv",
                "lgamma", "digamma", "abs"]


def _central_difference(fun, x, h=1e-5):
    return (fun(x + h) - fun(x - h)) / (2 * h)


@pytest.mark.parametrize("name", SMOOTH_UNARY)
def test_unary_grad_matches_finite_differences(name):
    fun, domain = UNARY_REFERENCE[name]
    low, high = domain or (-2, 2)
    xs = RNG.uniform(low, high, 5)
    xs = xs[np.abs(xs) > 0.05]       # abs and cbrt have a kink or a pole at 0
    grads = [float(jax.grad(getattr(lax, name))(np.float32(x))) for x in xs]
    np.testing.assert_allclose(grads, _central_difference(fun, xs), rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "rem", "pow", "max", "min",
                                  "atan2"])
def test_binary_grad_matches_finite_differences(name):
    fun = BINARY_REFERENCE[name]
    x, y = RNG.uniform(0.5, 2, 4), RNG.uniform(0.5, 2, 4) + 0.1
    for xi, yi in zip(x, y):
        gx, gy = jax.grad(getattr(lax, name), (0, 1))(np.float32(xi), np.float32(yi))
        np.testing.assert_allclose(
            [float(gx), float(gy)],
            [_central_difference(lambda v: fun(v, yi), xi),
             _central_difference(lambda v: fun(xi, v), yi)], rtol=2e-3, atol=1e-4)


def test_max_splits_the_gradient_of_ties():
    gx, gy = jax.grad(lax.max, (0, 1))(np.float32(1), np.float32(1))
    assert float(gx) == float(gy) == 0.5


def test_broadcast_operands_get_summed_cotangents():
    x, y = random_array(np.float32, (2, 1)), random_array(np.float32, (1, 3))
    gx, gy = jax.grad(lambda a, b: total(lax.mul(a, b)), (0, 1))(x, y)
    np.testing.assert_allclose(gx, np.broadcast_to(y, (2, 3)).sum(1, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_allclose(gy, np.broadcast_to(x, (2, 3)).sum(0, keepdims=True),
                               rtol=1e-6)


def test_select_and_clamp_gradients():
    x = np.array([-2.0, -0.5, 0.5, 2.0], np.float32)
    g = jax.grad(lambda v: total(lax.clamp(-1.0, v, 1.0)))(x)
    np.testing.assert_array_equal(g, [0, 1, 1, 0])
    g = jax.grad(lambda v: total(
        lax.select(lax.gt(v, 0.0), lax.square(v), lax.neg(v))))(x)
    np.testing.assert_array_equal(g, np.where(x > 0, 2 * x, -1))


def test_stop_gradient_blocks_nested_derivatives():
    f = lambda x: lax.mul(lax.stop_gradient(lax.square(x)), x)
    assert float(jax.grad(f)(np.float32(3))) == 9.0
    assert float(jax.grad(jax.grad(f))(np.float32(3))) == 0.0


# ----------------------------------------------------------------------------------------
# Batching: the jaxprs JAX prints for vmap, and vmap against a Python loop
# ----------------------------------------------------------------------------------------

VMAP_CASES = [
    ("sin", jax.vmap(lax.sin), (M23,)),
    ("add_same", jax.vmap(lax.add), (M23, M23)),
    ("add_unbatched", jax.vmap(lax.add, (0, None)), (M23, F3)),
    ("add_axes_differ", jax.vmap(lax.add, (1, 0)), (M32, M23)),
    ("add_scalar_rows", jax.vmap(lax.add, (0, None)), (F2, F3)),
    ("mul_literal", jax.vmap(lambda x: lax.mul(x, 2.0)), (M23,)),
    ("select_n_same", jax.vmap(lax.select_n), (B23, M23, M23)),
    ("select_n_scalar_which", jax.vmap(lax.select_n), (B2, M23, M23)),
    ("select_n_unbatched_which", jax.vmap(lax.select_n, (None, 0, 0)), (B3, M23, M23)),
    ("select_n_scalar_unbatched", jax.vmap(lambda x, y: lax.select_n(True, x, y)),
     (M23, M23)),
    ("select_n_case_axes", jax.vmap(lax.select_n, (None, 0, 1)), (True, M23, M32)),
    ("select_n_which_only", jax.vmap(lax.select_n, (0, None, None)), (B23, F3, F3)),
    ("select_n_int", jax.vmap(lax.select_n, (0, 0, None, 0)), (I23, M23, F3, M23)),
    ("clamp_scalar_bounds", jax.vmap(lambda x: lax.clamp(0.0, x, 1.0)), (M23,)),
    ("clamp_all", jax.vmap(lax.clamp), (M23, M23, M23)),
    ("clamp_rows", jax.vmap(lax.clamp, (0, 0, 0)), (F2, M23, F2)),
    ("clamp_x_only", jax.vmap(lax.clamp, (None, 0, None)), (F3, M23, F3)),
    ("clamp_bound_only", jax.vmap(lax.clamp, (0, None, None)), (F2, F3, S)),
    ("convert", jax.vmap(lambda x: lax.convert_element_type(x, np.int32)), (M23,)),
    ("integer_pow", jax.vmap(lambda x: lax.integer_pow(x, 3)), (M23,)),
    ("stop_gradient", jax.vmap(lax.stop_gradient), (M23,)),
    ("add_any", jax.vmap(lax.add_any, (1, 0)), (M32, M23)),
    ("reduce_precision", jax.vmap(lambda x: lax.reduce_precision(x, 5, 10), 1), (M23,)),
    ("bitcast", jax.vmap(lambda x: lax.bitcast_convert_type(x, np.uint8), 1), (M23,)),
    ("pow_int", jax.vmap(lax.pow, (0, None)), (M23, I3)),
    ("complex", jax.vmap(lax.complex, (0, None)), (M23, F3)),
]

EXPECTED_VMAP_JAXPRS = {
    'sin': '{ lambda ; a:f32[2,3]. let b:f32[2,3] = sin a in (b,) }',
    'add_same': '{ lambda ; a:f32[2,3] b:f32[2,3]. let c:f32[2,3] = add a b in (c,) }',
    'add_unbatched': '{ lambda ; a:f32[2,3] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:f32[2,3] = add a c\n  in (d,) }',
    'add_axes_differ': '{ lambda ; a:f32[3,2] b:f32[2,3]. let\n    c:f32[2,3] = transpose[permutation=(1, 0)] a\n    d:f32[2,3] = add c b\n  in (d,) }',
    'add_scalar_rows': '{ lambda ; a:f32[2] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[2,3] = add d c\n  in (e,) }',
    'mul_literal': '{ lambda ; a:f32[2,3]. let b:f32[2,3] = mul a 2.0:f32[] in (b,) }',
    'select_n_same': '{ lambda ; a:bool[2,3] b:f32[2,3] c:f32[2,3]. let\n    d:f32[2,3] = select_n a b c\n  in (d,) }',
    'select_n_scalar_which': '{ lambda ; a:bool[2] b:f32[2,3] c:f32[2,3]. let\n    d:bool[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[2,3] = select_n d b c\n  in (e,) }',
    'select_n_unbatched_which': '{ lambda ; a:bool[3] b:f32[2,3] c:f32[2,3]. let\n    d:bool[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    e:f32[2,3] = select_n d b c\n  in (e,) }',
    'select_n_scalar_unbatched': '{ lambda ; a:f32[2,3] b:f32[2,3]. let\n    c:f32[2,3] = select_n True:bool[] a b\n  in (c,) }',
    'select_n_case_axes': '{ lambda ; a:bool[] b:f32[2,3] c:f32[3,2]. let\n    d:f32[2,3] = transpose[permutation=(1, 0)] c\n    e:f32[2,3] = select_n a b d\n  in (e,) }',
    'select_n_which_only': '{ lambda ; a:bool[2,3] b:f32[3] c:f32[3]. let\n    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    e:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n    f:f32[2,3] = select_n a d e\n  in (f,) }',
    'select_n_int': '{ lambda ; a:i32[2,3] b:f32[2,3] c:f32[3] d:f32[2,3]. let\n    e:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n    f:f32[2,3] = select_n a b e d\n  in (f,) }',
    'clamp_scalar_bounds': '{ lambda ; a:f32[2,3]. let b:f32[2,3] = clamp 0.0:f32[] a 1.0:f32[] in (b,) }',
    'clamp_all': '{ lambda ; a:f32[2,3] b:f32[2,3] c:f32[2,3]. let\n    d:f32[2,3] = clamp a b c\n  in (d,) }',
    'clamp_rows': '{ lambda ; a:f32[2] b:f32[2,3] c:f32[2]. let\n    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    e:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n    f:f32[2,3] = clamp d b e\n  in (f,) }',
    'clamp_x_only': '{ lambda ; a:f32[3] b:f32[2,3] c:f32[3]. let\n    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a\n    e:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n    f:f32[2,3] = clamp d b e\n  in (f,) }',
    'clamp_bound_only': '{ lambda ; a:f32[2] b:f32[3] c:f32[]. let\n    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    e:f32[2,3] = broadcast_in_dim c\n    f:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n    g:f32[2,3] = clamp f d e\n  in (g,) }',
    'convert': '{ lambda ; a:f32[2,3]. let\n    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a\n  in (b,) }',
    'integer_pow': '{ lambda ; a:f32[2,3]. let b:f32[2,3] = integer_pow[y=3] a in (b,) }',
    'stop_gradient': '{ lambda ; a:f32[2,3]. let b:f32[2,3] = stop_gradient a in (b,) }',
    'add_any': '{ lambda ; a:f32[3,2] b:f32[2,3]. let\n    c:f32[2,3] = transpose[permutation=(1, 0)] a\n    d:f32[2,3] = add_any c b\n  in (d,) }',
    'reduce_precision': '{ lambda ; a:f32[2,3]. let\n    b:f32[2,3] = reduce_precision[exponent_bits=5 mantissa_bits=10] a\n    c:f32[3,2] = transpose[permutation=(1, 0)] b\n  in (c,) }',
    'bitcast': '{ lambda ; a:f32[2,3]. let\n    b:u8[2,3,4] = bitcast_convert_type[new_dtype=uint8] a\n    c:u8[3,2,4] = transpose[permutation=(1, 0, 2)] b\n  in (c,) }',
    'pow_int': '{ lambda ; a:f32[2,3] b:i32[3]. let\n    c:i32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:f32[2,3] = pow a c\n  in (d,) }',
    'complex': '{ lambda ; a:f32[2,3] b:f32[3]. let\n    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b\n    d:c64[2,3] = complex a c\n  in (d,) }',
}


@pytest.mark.parametrize("name,f,args", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap_jaxpr_text(name, f, args):
    assert str(jax.make_jaxpr(f)(*args)) == EXPECTED_VMAP_JAXPRS[name]


def _loop(f, in_axes, *args):
    """What vmap(f, in_axes) computes, one batch element at a time."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    pick = lambda a, ax, i: a if ax is None else np.take(a, i, axis=ax)
    return np.stack([np.asarray(f(*(pick(a, ax, i) for a, ax in zip(args, in_axes))))
                     for i in range(size)])


@pytest.mark.parametrize("name", sorted(UNARY_REFERENCE))
def test_vmap_unary_matches_loop(name):
    dtype = dtype_of(UNARY_DTYPES[name][1][0])
    low, high = UNARY_REFERENCE[name][1] or (-3, 3)
    x = random_array(dtype, (3, 4), low=low, high=high)
    f = getattr(lax, name)
    # (vectorised and scalar code may round transcendental functions differently: 1 ulp)
    assert_close(jax.vmap(f)(x), _loop(f, (0,), x), dtype)
    assert_close(np.asarray(jax.vmap(f, 1, 1)(x)).T, _loop(f, (1,), x), dtype)


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0), (1, 0), (0, 1)])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "max", "atan2", "lt",
                                  "shift_left", "pow", "complex"])
def test_vmap_binary_matches_loop(name, in_axes):
    dtype = dtype_of(BINARY_DTYPES[name][1][0])
    x, y = _binary_operands(name, dtype)
    shape = lambda ax: (3,) if ax is None else (7, 3) if ax == 0 else (3, 7)
    x = np.resize(x, shape(in_axes[0]))
    y = np.resize(y, shape(in_axes[1]))
    f = getattr(lax, name)
    assert_close(jax.vmap(f, in_axes)(x, y), _loop(f, in_axes, x, y), dtype)


@pytest.mark.parametrize("in_axes,shapes", [
    ((0, 0, 0), [(4, 3), (4, 3), (4, 3)]),
    ((0, 0, 0), [(4,), (4, 3), (4, 3)]),          # a scalar `which` per example
    ((None, 0, 0), [(3,), (4, 3), (4, 3)]),
    ((0, None, None), [(4, 3), (3,), (3,)]),
    ((None, 0, 1), [(), (4, 3), (3, 4)]),
    ((0, 1, None), [(4,), (3, 4), (3,)]),
    ((1, 0, 0), [(3, 4), (4, 3), (4, 3)]),
    ((0, None, 0), [(4,), (), (4,)]),
])
def test_vmap_select_n_matches_loop(in_axes, shapes):
    which = RNG.integers(0, 2, shapes[0]).astype(bool)
    cases = [random_array(np.float32, s) for s in shapes[1:]]
    np.testing.assert_array_equal(jax.vmap(lax.select_n, in_axes)(which, *cases),
                                  _loop(lax.select_n, in_axes, which, *cases))


def test_vmap_select_n_with_integer_which():
    which = RNG.integers(0, 3, (4, 5)).astype(np.int32)
    cases = [random_array(np.float32, (4, 5)) for _ in range(3)]
    np.testing.assert_array_equal(jax.vmap(lax.select_n)(which, *cases),
                                  _loop(lax.select_n, (0, 0, 0, 0), which, *cases))


@pytest.mark.parametrize("in_axes,shapes", [
    ((0, 0, 0), [(4, 3), (4, 3), (4, 3)]),
    ((None, 0, None), [(), (4, 3), ()]),
    ((0, 0, 0), [(4,), (4, 3), (4,)]),
    ((None, 0, None), [(3,), (4, 3), (3,)]),
    ((0, None, None), [(4,), (3,), ()]),
    ((0, None, 0), [(4,), (), (4,)]),
    ((1, 0, None), [(3, 4), (4, 3), ()]),
])
def test_vmap_clamp_matches_loop(in_axes, shapes):
    lo, x, hi = (random_array(np.float32, s) for s in shapes)
    lo, hi = lo - np.float32(2), hi + np.float32(2)
    np.testing.assert_array_equal(jax.vmap(lax.clamp, in_axes)(lo, x, hi),
                                  _loop(lax.clamp, in_axes, lo, x, hi))
