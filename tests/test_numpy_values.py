"""Values computed by ``glassjax.numpy`` (eagerly, on the device) against NumPy.

Inputs are float32/int32/... so NumPy computes in the same precision; dtypes are those
JAX gives (no float64 without x64), checked separately where they differ from NumPy.
"""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax.array import Array

rng = np.random.default_rng(0)
SHAPES = [(), (3,), (2, 3), (2, 1, 4)]


def _data(shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 10, shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-10, 10, shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _check(got, want, rtol=1e-5, atol=1e-6, check_dtype=True):
    assert isinstance(got, Array), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape
    if check_dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


# -- creation -----------------------------------------------------------------------------

def test_array_from_python_data():
    _check(jnp.array([1, 2, 3]), np.array([1, 2, 3], np.int32))
    _check(jnp.array([[1.0, 2], [3, 4]]), np.array([[1, 2], [3, 4]], np.float32))
    _check(jnp.array([True, False]), np.array([True, False]))
    _check(jnp.array([1 + 2j]), np.array([1 + 2j], np.complex64))
    _check(jnp.array([], ), np.array([], np.float32))
    assert jnp.array(3.0).weak_type and not jnp.array([3.0]).weak_type
    assert jnp.array(3, dtype=jnp.int8).dtype == np.int8


def test_array_from_numpy_and_arrays():
    a = np.arange(6.0).reshape(2, 3)
    x = jnp.array(a)
    _check(x, a.astype(np.float32))
    _check(jnp.asarray(x), a.astype(np.float32))
    assert jnp.asarray(x) is x
    y = jnp.array(x)                           # copy=True: a new array
    assert y is not x
    _check(y, a.astype(np.float32))
    _check(jnp.array([x, x]), np.stack([a, a]).astype(np.float32))
    _check(jnp.array(a, ndmin=4), a.astype(np.float32).reshape(1, 1, 2, 3))


def test_array_rejects_none_and_big_ints():
    with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
        jnp.array([1, None])
    with pytest.raises(OverflowError):
        jnp.array(2 ** 40)


def test_array_warns_for_64_bit_request():
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
        x = jnp.array([1.0], dtype=np.float64)
    assert x.dtype == np.float32


def test_scalar_types_make_arrays():
    x = jnp.float32(1)
    assert isinstance(x, Array) and x.dtype == np.float32 and x.shape == ()
    assert jnp.int8([1, 2]).dtype == np.int8
    assert np.dtype(jnp.bfloat16).name == "bfloat16"
    assert isinstance(np.float32(2), jnp.float32)
    assert jnp.zeros(2, jnp.int16).dtype == np.int16


def test_filled_arrays():
    _check(jnp.zeros((2, 3)), np.zeros((2, 3), np.float32))
    _check(jnp.ones(3, jnp.int32), np.ones(3, np.int32))
    _check(jnp.full((2,), 7.0), np.full((2,), 7.0, np.float32))
    _check(jnp.full((2, 2), jnp.array([1, 2])), np.array([[1, 2], [1, 2]], np.int32))
    _check(jnp.empty((2,)), np.zeros(2, np.float32))
    base = jnp.ones((2, 3), jnp.float16)
    _check(jnp.zeros_like(base), np.zeros((2, 3), np.float16))
    _check(jnp.ones_like(base, dtype=bool), np.ones((2, 3), bool))
    _check(jnp.full_like(base, 3, shape=(4,)), np.full(4, 3, np.float16))
    assert jnp.full_like(jnp.array(1.0), 2).weak_type


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((1, 10, 3), {}), ((0.0, 1.0, 0.25), {}), ((5.0,), {}), ((-3, 3), {}),
    ((2, 9, 2), {"dtype": np.float32}), ((10, 0, -3), {}), ((0, 1, 0.1), {}),
])
def test_arange(args, kwargs):
    want = np.arange(*args, **kwargs)
    want = want.astype(np.float32 if want.dtype == np.float64 else
                       np.int32 if want.dtype == np.int64 else want.dtype)
    _check(jnp.arange(*args, **kwargs), want)


def test_linspace_logspace_geomspace():
    _check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    _check(jnp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False,
                                                             dtype=np.float32))
    _check(jnp.linspace(0, 10, 3, dtype=jnp.int32), np.array([0, 5, 10], np.int32))
    out, step = jnp.linspace(1.0, 2.0, 3, retstep=True)
    _check(out, np.array([1.0, 1.5, 2.0], np.float32))
    _check(step, np.float32(0.5))
    _check(jnp.linspace(jnp.zeros(2), jnp.ones(2), 3, axis=1),
           np.linspace(np.zeros(2), np.ones(2), 3, axis=1).astype(np.float32))
    _check(jnp.logspace(0, 2, 3), np.logspace(0, 2, 3).astype(np.float32), rtol=1e-5)
    _check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4).astype(np.float32),
           rtol=1e-5)


def test_eye_tri_meshgrid():
    _check(jnp.eye(3, 4, k=1), np.eye(3, 4, k=1, dtype=np.float32))
    _check(jnp.eye(3, k=-1), np.eye(3, k=-1, dtype=np.float32))
    _check(jnp.identity(2, dtype=jnp.int32), np.identity(2, np.int32))
    _check(jnp.tri(3, 4, 1), np.tri(3, 4, 1, np.float32))
    m = _data((2, 3, 3), np.float32)
    _check(jnp.tril(m), np.tril(m))
    _check(jnp.triu(m, k=1), np.triu(m, k=1))
    a, b = np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32)
    for indexing in ("xy", "ij"):
        for got, want in zip(jnp.meshgrid(a, b, indexing=indexing),
                             np.meshgrid(a, b, indexing=indexing)):
            _check(got, want)
    _check(jnp.indices((2, 3)), np.indices((2, 3)).astype(np.int32))


# -- elementwise --------------------------------------------------------------------------

UNARY_FLOAT = ["exp", "exp2", "expm1", "sin", "cos", "tan", "arctan", "sinh",
               "cosh", "tanh", "arcsinh", "negative", "positive", "sign", "floor", "ceil",
               "rint", "trunc", "fabs", "abs", "square", "deg2rad", "rad2deg", "isfinite",
               "isnan", "isinf", "signbit", "cbrt", "reciprocal"]


@pytest.mark.parametrize("name", UNARY_FLOAT)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_float(name, shape):
    x = _data(shape, np.float32)
    _check(getattr(jnp, name)(x), getattr(np, name)(x), rtol=2e-5)


@pytest.mark.parametrize("name", ["log", "log2", "log10", "log1p", "sqrt", "arcsin",
                                  "arccos", "arctanh"])
def test_unary_float_domain(name):
    x = rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
    _check(getattr(jnp, name)(x), getattr(np, name)(x), rtol=2e-5)
    _check(jnp.arccosh(x + 1), np.arccosh(x + 1), rtol=2e-5)


@pytest.mark.parametrize("name", ["negative", "sign", "abs", "square", "floor", "ceil",
                                  "bitwise_not", "logical_not", "isnan", "isfinite"])
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.bool_])
def test_unary_int_and_bool(name, dtype):
    x = _data((2, 3), dtype)
    lax_name = {"negative": "neg", "sign": "sign"}.get(name)
    if dtype == np.bool_ and lax_name:
        # Refused for booleans by lax.neg and lax.sign, as by NumPy.
        with pytest.raises(TypeError, match=f"{lax_name} does not accept dtype bool"):
            getattr(jnp, name)(x)
    else:
        got = getattr(jnp, name)(x)
        _check(got, getattr(np, name)(x), check_dtype=name not in ("square",))
        if name == "square" and dtype == np.bool_:
            assert got.dtype == np.int32          # JAX's; NumPy gives int8


def test_int_to_float_unary_gives_float32():
    x = np.arange(1, 5, dtype=np.int32)
    _check(jnp.sqrt(x), np.sqrt(x).astype(np.float32))
    _check(jnp.rint(x), x.astype(np.float32))
    _check(jnp.exp(True), np.float32(np.e))


@pytest.mark.parametrize("name", ["real", "imag", "conj", "angle", "abs", "exp", "log",
                                  "sqrt", "sign", "isfinite", "log2", "log10"])
def test_unary_complex(name):
    x = _data((2, 3), np.complex64)
    want = getattr(np, name)(x)
    _check(getattr(jnp, name)(x), want, rtol=1e-4, atol=1e-5, check_dtype=False)
    assert getattr(jnp, name)(x).dtype == np.asarray(want).dtype


BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
          "remainder", "fmod", "power", "maximum", "minimum", "fmax", "fmin", "arctan2",
          "hypot", "copysign", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "logical_and", "logical_or", "logical_xor", "heaviside",
          "float_power"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,)),
                                    ((2, 1, 4), (3, 1))])
def test_binary_float(name, shapes):
    x, y = _data(shapes[0], np.float32), _data(shapes[1], np.float32)
    if name in ("power", "float_power"):
        x = np.abs(x) + 0.5
    _check(getattr(jnp, name)(x, y), getattr(np, name)(x, y).astype(
        getattr(np, name)(x, y).dtype if name != "float_power" else np.float32),
        rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "floor_divide",
                                  "remainder", "fmod", "maximum", "minimum",
                                  "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift", "equal", "less", "power"])
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
def test_binary_int(name, dtype):
    x, y = _data((3, 4), dtype), _data((3, 4), dtype)
    if name in ("floor_divide", "remainder", "fmod"):
        y = np.where(y == 0, dtype(3), y)
    if name in ("left_shift", "right_shift", "power"):
        y = np.abs(y) % 4
    _check(getattr(jnp, name)(x, y), getattr(np, name)(x, y))


def test_integer_division_by_zero_is_jaxs():
    x = np.array([7, -7], np.int32)
    # JAX 0.10.2 gives 0 for x % 0 and -2 for x // 0 (NumPy: 0 for both, with a warning).
    _check(jnp.remainder(x, 0), np.array([0, 0], np.int32))
    _check(jnp.floor_divide(x, 0), np.array([-2, -2], np.int32))


def test_python_scalars_are_weak():
    x = jnp.ones(3, jnp.float16)
    assert (x + 1).dtype == np.float16 and (x * 2.5).dtype == np.float16
    assert (jnp.ones(3, jnp.int8) + 3).dtype == np.int8
    assert (jnp.ones(3, jnp.int8) + 3.0).dtype == np.float32
    y = jnp.add(1, 1.0)
    assert y.dtype == np.float32 and y.weak_type
    # A strong int32 with a weak float: the float kind wins and stays weak (JAX's lattice).
    z = jnp.add(jnp.int32(1), 1.0)
    assert z.dtype == np.float32 and z.weak_type
    assert jnp.add(1, jnp.float16(1.0)).dtype == np.float16


def test_operators_and_reflected_operators():
    a, b = _data((2, 3), np.float32), _data((2, 3), np.float32)
    x, y = jnp.asarray(a), jnp.asarray(b)
    _check(x + y, a + b)
    _check(1 - x, 1 - a)
    _check(2 * x, 2 * a)
    _check(x / 2, a / 2)
    _check(3 / (x * x + 1), 3 / (a * a + 1))
    _check(x // 0.5, a // np.float32(0.5))
    _check(x % 0.5, a % np.float32(0.5))
    _check(abs(x) ** 2, np.abs(a) ** 2, rtol=2e-5)
    _check(2 ** x, 2 ** a, rtol=2e-5)
    _check(-x, -a)
    _check(+x, a)
    _check(x < y, a < b)
    _check(x >= 0, a >= 0)
    _check(x == y, a == b)
    _check(x != 0, a != 0)
    i = jnp.arange(6).reshape(2, 3)
    n = np.arange(6, dtype=np.int32).reshape(2, 3)
    _check(i & 3, n & 3)
    _check(5 | i, 5 | n)
    _check(i ^ i, n ^ n)
    _check(~i, ~n)
    _check(i << 2, n << 2)
    _check(i >> 1, n >> 1)
    _check(x @ y.T, a @ b.T, rtol=1e-5)
    _check(a @ y.T, a @ b.T, rtol=1e-5)        # NumPy defers to Array.__rmatmul__
    q, r = divmod(i, 4)
    _check(q, n // 4)
    _check(r, n % 4)
    _check(round(x, 1), np.round(a, 1))
    assert round(jnp.array(2.6)).dtype == np.int32


def test_operators_return_notimplemented_for_unknown_types():
    x = jnp.ones(2)

    class Other:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"

    assert x + Other() == "radd"
    assert x * Other() == "rmul"
    with pytest.raises(TypeError, match="unsupported operand type"):
        x + [1, 2]
    with pytest.raises(TypeError):
        x @ "a"
    assert (x == "a") is False or (x.__eq__("a") is NotImplemented)


def test_where_and_clip():
    a = _data((2, 3), np.float32)
    _check(jnp.where(a > 0, a, 0.0), np.where(a > 0, a, 0).astype(np.float32))
    _check(jnp.where(a > 0, 1, -1), np.where(a > 0, 1, -1).astype(np.int32))
    _check(jnp.where(True, a, 0), a)
    _check(jnp.clip(a, -0.5, 0.5), np.clip(a, -0.5, 0.5))
    _check(jnp.clip(a, max=0), np.clip(a, None, 0))
    _check(jnp.round(a, 2), np.round(a, 2))
    _check(jnp.select([a > 0.5, a < -0.5], [a, -a], 0.0),
           np.select([a > 0.5, a < -0.5], [a, -a], 0.0).astype(np.float32))
    _check(jnp.isclose(a, a + 1e-7), np.isclose(a, a + 1e-7))
    assert bool(jnp.allclose(a, a))
    assert bool(jnp.array_equal(a, a)) and not bool(jnp.array_equal(a, a[:1]))


def test_nonzero_family():
    a = np.array([[0, 1, 0], [2, 0, 3]], np.int32)
    for got, want in zip(jnp.nonzero(a), np.nonzero(a)):
        _check(got, want.astype(np.int32))
    for got, want in zip(jnp.where(a), np.where(a)):
        _check(got, want.astype(np.int32))
    _check(jnp.nonzero(a, size=5, fill_value=-1)[1], np.array([1, 0, 2, -1, -1], np.int32))
    _check(jnp.argwhere(a), np.argwhere(a).astype(np.int32))
    _check(jnp.flatnonzero(a), np.flatnonzero(a).astype(np.int32))
    _check(jnp.bincount(np.array([0, 1, 1, 3])), np.bincount([0, 1, 1, 3]).astype(np.int32))


# -- reductions ---------------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "ptp",
              "argmax", "argmin", "count_nonzero", "nansum", "nanmax", "nanmin", "nanmean"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_reductions(name, axis, dtype):
    x = _data((2, 3, 4), dtype)
    # Refused by JAX as by NumPy: an arg-reduction takes one axis, and ptp subtracts,
    # which booleans do not.
    if name in ("argmax", "argmin") and isinstance(axis, tuple):
        with pytest.raises(TypeError, match="'tuple' object cannot be interpreted as an "
                                            "integer"):
            getattr(jnp, name)(x, axis=axis)
    elif name == "ptp" and dtype == np.bool_:
        with pytest.raises(TypeError, match="sub does not accept dtype bool"):
            jnp.ptp(x, axis=axis)
    else:
        got = getattr(jnp, name)(x, axis=axis)
        want = np.asarray(getattr(np, name)(x, axis=axis))
        if dtype == np.int32 and name in ("sum", "prod"):
            want = want.astype(np.int32)      # int32 accumulation wraps around in JAX
        _check(got, want, rtol=1e-4, atol=1e-5, check_dtype=False)


def test_reduction_dtypes():
    assert jnp.sum(jnp.ones(3, jnp.int8)).dtype == np.int32
    assert jnp.sum(jnp.ones(3, jnp.uint8)).dtype == np.uint32
    assert jnp.sum(jnp.array([True, True, False])).dtype == np.int32
    assert jnp.sum(jnp.ones(3, jnp.float16)).dtype == np.float16
    assert jnp.mean(jnp.arange(4)).dtype == np.float32
    assert jnp.argmax(jnp.ones(3)).dtype == np.int32
    assert jnp.var(jnp.ones(3, jnp.complex64)).dtype == np.float32
    assert not jnp.sum(jnp.array(3.0)).weak_type


def test_reduction_options():
    x = _data((3, 4), np.float32)
    _check(jnp.sum(x, axis=1, keepdims=True), x.sum(axis=1, keepdims=True))
    _check(jnp.sum(x, where=x > 0), np.sum(x, where=x > 0))
    _check(jnp.max(x, axis=0, initial=0.5), np.max(x, axis=0, initial=0.5))
    _check(jnp.min(x, where=x > 0, initial=10.0), np.min(x, where=x > 0, initial=10.0))
    _check(jnp.mean(x, axis=0, where=x > 0), np.mean(x, axis=0, where=x > 0))
    _check(jnp.var(x, ddof=1), np.var(x, ddof=1), rtol=1e-5)
    _check(jnp.std(x, axis=1, keepdims=True), np.std(x, axis=1, keepdims=True), rtol=1e-5)
    _check(jnp.sum(np.arange(5, dtype=np.int32), dtype=jnp.float32), np.float32(10))
    w = np.arange(1.0, 5.0, dtype=np.float32)
    _check(jnp.average(x, axis=1, weights=w), np.average(x, axis=1, weights=w), rtol=1e-5)
    avg, total = jnp.average(x, axis=0, returned=True)
    _check(avg, x.mean(axis=0))
    _check(total, np.full(4, 3.0, np.float32))
    _check(jnp.argmax(x, axis=1, keepdims=True),
           np.argmax(x, axis=1, keepdims=True).astype(np.int32))
    _check(jnp.cumsum(x, axis=1), np.cumsum(x, axis=1), rtol=1e-5)
    _check(jnp.cumprod(x), np.cumprod(x), rtol=1e-4)
    _check(jnp.cumsum(np.array([True, True])), np.array([1, 2], np.int32))
    nan = np.array([1.0, np.nan, 3.0], np.float32)
    _check(jnp.nanmax(nan), np.float32(3.0))
    _check(jnp.nansum(nan), np.float32(4.0))
    _check(jnp.var(np.ones(1, np.float32), ddof=1), np.float32(np.nan))


def test_sort_and_order_statistics():
    x = _data((3, 5), np.float32)
    _check(jnp.sort(x), np.sort(x))
    _check(jnp.sort(x, axis=0, descending=True), -np.sort(-x, axis=0))
    _check(jnp.argsort(x, axis=None), np.argsort(x, axis=None, kind="stable")
           .astype(np.int32))
    _check(jnp.median(x), np.median(x), rtol=1e-5)
    _check(jnp.median(x, axis=1, keepdims=True), np.median(x, axis=1, keepdims=True))
    _check(jnp.percentile(x, 25), np.percentile(x, 25).astype(np.float32), rtol=1e-5)
    _check(jnp.quantile(x, np.array([0.1, 0.9], np.float32), axis=0),
           np.quantile(x, [0.1, 0.9], axis=0).astype(np.float32), rtol=1e-5)
    for method in ("lower", "higher", "nearest", "midpoint"):
        _check(jnp.quantile(x, 0.3, axis=1, method=method),
               np.quantile(x, 0.3, axis=1, method=method).astype(np.float32), rtol=1e-5)


# -- shapes -------------------------------------------------------------------------------

def test_shape_functions():
    a = _data((2, 3, 4), np.float32)
    _check(jnp.reshape(a, (4, -1)), a.reshape(4, -1))
    _check(jnp.asarray(a).reshape(6, 4), a.reshape(6, 4))
    _check(jnp.asarray(a).reshape((3, 8), order="F"), a.reshape((3, 8), order="F"))
    _check(jnp.ravel(a), a.ravel())
    _check(jnp.transpose(a), a.T)
    _check(jnp.asarray(a).transpose(1, 0, 2), a.transpose(1, 0, 2))
    _check(jnp.asarray(a).T, a.T)
    _check(jnp.asarray(a).mT, np.swapaxes(a, -1, -2))
    _check(jnp.swapaxes(a, 0, 2), np.swapaxes(a, 0, 2))
    _check(jnp.moveaxis(a, (0, 1), (2, 0)), np.moveaxis(a, (0, 1), (2, 0)))
    _check(jnp.squeeze(a[:1, :, :1]), np.squeeze(a[:1, :, :1]))
    _check(jnp.expand_dims(a, (0, 4)), np.expand_dims(a, (0, 4)))
    _check(jnp.flip(a, (0, 2)), np.flip(a, (0, 2)))
    _check(jnp.fliplr(a), np.fliplr(a))
    _check(jnp.concatenate([a, a], axis=2), np.concatenate([a, a], axis=2))
    _check(jnp.concatenate([a, a], axis=None), np.concatenate([a, a], axis=None))
    _check(jnp.concatenate(a, axis=1), np.concatenate(a, axis=1))
    _check(jnp.stack([a, a], axis=-1), np.stack([a, a], axis=-1))
    _check(jnp.stack(a, axis=1), np.stack(a, axis=1))
    v = a[0, 0]
    _check(jnp.vstack([v, v]), np.vstack([v, v]))
    _check(jnp.hstack([v, v]), np.hstack([v, v]))
    _check(jnp.dstack([a[0], a[0]]), np.dstack([a[0], a[0]]))
    _check(jnp.column_stack([v, v]), np.column_stack([v, v]))
    for got, want in zip(jnp.split(a, [1, 3], axis=2), np.split(a, [1, 3], axis=2)):
        _check(got, want)
    for got, want in zip(jnp.array_split(a, 3, axis=2), np.array_split(a, 3, axis=2)):
        _check(got, want)
    _check(jnp.tile(a[0], (2, 1, 2)), np.tile(a[0], (2, 1, 2)))
    _check(jnp.repeat(a, 2, axis=1), np.repeat(a, 2, axis=1))
    _check(jnp.repeat(a, np.array([1, 0, 2]), axis=1), np.repeat(a, [1, 0, 2], axis=1))
    _check(jnp.repeat(3.0, 2), np.repeat(np.float32(3.0), 2))
    _check(jnp.atleast_1d(1.0), np.atleast_1d(np.float32(1.0)))
    _check(jnp.atleast_2d(v), np.atleast_2d(v))
    _check(jnp.atleast_3d(a[0]), np.atleast_3d(a[0]))
    _check(jnp.broadcast_to(v, (2, 4)), np.broadcast_to(v, (2, 4)))
    for got, want in zip(jnp.broadcast_arrays(a, v), np.broadcast_arrays(a, v)):
        _check(got, want)
    assert jnp.broadcast_shapes((1, 2), (3, 1)) == (3, 2)
    assert jnp.shape(a) == (2, 3, 4) and jnp.ndim([1, 2]) == 1 and jnp.size(a, 1) == 3


def test_diagonals_and_products():
    m = _data((4, 4), np.float32)
    _check(jnp.diagonal(m), np.diagonal(m))
    _check(jnp.diagonal(m, 1), np.diagonal(m, 1))
    _check(jnp.diag(m, -1), np.diag(m, -1))
    _check(jnp.diag(m[0]), np.diag(m[0]))
    _check(jnp.trace(m), np.trace(m), rtol=1e-5)
    v = _data((3,), np.float32)
    _check(jnp.cross(v, v[::-1]), np.cross(v, v[::-1]), rtol=1e-5)
    _check(jnp.kron(m[:2, :2], m[:2, :3]), np.kron(m[:2, :2], m[:2, :3]))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)),
                                   ((3,), (3, 2)), ((5, 2, 3), (3, 4)),
                                   ((4, 1, 2, 3), (1, 5, 3, 2)), ((2, 2, 3), (2, 3, 2))])
def test_matmul_and_dot(sa, sb):
    a, b = _data(sa, np.float32), _data(sb, np.float32)
    _check(jnp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-5)
    _check(jnp.asarray(a) @ b, a @ b, rtol=1e-5, atol=1e-5)
    _check(jnp.dot(a, b) if len(sb) < 3 else jnp.dot(a, b), np.dot(a, b), rtol=1e-5,
           atol=1e-5)


def test_other_products():
    a, b = _data((2, 3), np.float32), _data((3, 4), np.float32)
    i = _data((3,), np.int32)
    _check(jnp.dot(a, i), np.dot(a, i.astype(np.float32)), rtol=1e-5)
    _check(jnp.dot(a, 2.0), a * 2)
    _check(jnp.vdot(a, a), np.vdot(a, a), rtol=1e-5)
    c = _data((3,), np.complex64)
    _check(jnp.vdot(c, c), np.vdot(c, c), rtol=1e-5)
    _check(jnp.inner(a, a), np.inner(a, a), rtol=1e-5)
    _check(jnp.outer(a[0], i), np.outer(a[0], i.astype(np.float32)))
    _check(jnp.tensordot(a, b, axes=1), np.tensordot(a, b, axes=1), rtol=1e-5)
    _check(jnp.tensordot(a, a, axes=([0, 1], [0, 1])), np.tensordot(a, a, ([0, 1], [0, 1])),
           rtol=1e-5)


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]), ("i,i->", [(3,), (3,)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij,jk,kl->il", [(3, 2), (2, 4), (4, 5)]), ("i,j->ij", [(3,), (2,)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
    ("iij->j", [(3, 3, 2)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 6)]), ("i,i,i->i", [(3,)] * 3),
    ("ij,j->i", [(2, 1), (3,)]),
])
def test_einsum(spec, shapes):
    ops = [_data(s, np.float32) for s in shapes]
    _check(jnp.einsum(spec, *ops), np.einsum(spec, *ops), rtol=1e-4, atol=1e-5)


# -- indexing -----------------------------------------------------------------------------

X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

INDICES = [
    1, -1, (0, -1), (slice(None), slice(1, None), slice(None, None, 2)), (Ellipsis, -1),
    (None, 0, slice(None), None), (slice(None, None, -1), slice(None, None, -2), 1),
    (1, 2, 3), np.array([1, 0, 1]), (slice(None), np.array([0, 2])),
    (np.array([0, 1]), np.array([2, 0])), (np.array([0, 1]), slice(None), np.array([3, 1])),
    np.array([True, False]), (slice(None), np.array([True, False, True])),
    X % 2 == 0, (Ellipsis, np.array([[1, 2], [0, 3]])), (slice(1, None), None, 1),
    (np.array([[0], [1]]), slice(None), np.array([[1, 2]])), (0, slice(None, None, -1)),
    (np.array([1, 0]), slice(None, None, -2)), (), Ellipsis, (True,),
    (slice(5, 10),), (slice(-10, -2),),
]


@pytest.mark.parametrize("idx", INDICES, ids=[repr(i)[:40] for i in INDICES])
def test_getitem_matches_numpy(idx):
    x = jnp.asarray(X)
    np_idx = np.asarray(idx) if isinstance(idx, list) else idx
    _check(x[idx], X[np_idx])


def test_list_index_is_an_error():
    with pytest.raises(TypeError, match="non-tuple sequence for multidimensional"):
        jnp.arange(3)[[0, 1]]


def test_dynamic_and_out_of_bounds_indexing():
    x = jnp.arange(10)
    _check(x[11], np.int32(9))                   # clamped, as XLA does
    _check(x[jnp.array([-20, 20])], np.array([0, 9], np.int32))
    _check(jnp.arange(10.0).at[11].get(mode="fill", fill_value=-1.0), np.float32(-1))
    f = glassjax.jit(lambda x, i: x[i, 1:])
    _check(f(jnp.asarray(X[0]), 1), X[0][1, 1:])
    _check(f(jnp.asarray(X[0]), -1), X[0][-1, 1:])
    _check(jnp.take(x, np.array([1, 12, -1])), np.array([1, np.iinfo(np.int32).min, 9],
                                                          np.int32))
    _check(jnp.take(jnp.asarray(X), np.array([2, 0]), axis=1), np.take(X, [2, 0], axis=1))
    _check(jnp.take(jnp.asarray(X), np.array([5]), axis=2, mode="wrap"),
           np.take(X, [5], axis=2, mode="wrap"))


def test_at_updates():
    x = jnp.zeros((3, 3))
    _check(x.at[1, :].set(1.0), np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]], np.float32))
    _check(x, np.zeros((3, 3), np.float32))
    y = jnp.ones((5, 6))
    want = np.ones((5, 6), np.float32)
    want[::2, 3:] += 7
    _check(y.at[::2, 3:].add(7.0), want)
    v = jnp.arange(5.0)
    _check(v.at[1].mul(10), np.array([0, 10, 2, 3, 4], np.float32))
    _check(v.at[2].divide(4), np.array([0, 1, 0.5, 3, 4], np.float32))
    _check(v.at[3].power(2), np.array([0, 1, 2, 9, 4], np.float32))
    _check(v.at[np.array([0, 0, 4])].add(1.0), np.array([2, 1, 2, 3, 5], np.float32))
    _check(v.at[1:3].min(0.5), np.array([0, 0.5, 0.5, 3, 4], np.float32))
    _check(v.at[np.array([1, 2])].max(np.array([5.0, 0.0])),
           np.array([0, 5, 2, 3, 4], np.float32))
    _check(v.at[np.array([True, False, True, False, True])].set(-1.0),
           np.array([-1, 1, -1, 3, -1], np.float32))
    _check(v.at[10].set(99.0), np.arange(5, dtype=np.float32))   # dropped
    _check(v.at[-1].set(99.0), np.array([0, 1, 2, 3, 99], np.float32))
    _check(v.at[::-1].set(np.arange(5.0)), np.arange(5, dtype=np.float32)[::-1])
    _check(jnp.arange(4).at[1].add(2.7), np.array([0, 3, 2, 3], np.int32))


def test_setitem_is_an_error():
    with pytest.raises(TypeError, match="JAX arrays are immutable"):
        jnp.ones(3)[0] = 1.0


# -- methods ------------------------------------------------------------------------------

def test_array_methods():
    a = _data((2, 3), np.float32)
    x = jnp.asarray(a)
    _check(x.sum(axis=0), a.sum(axis=0))
    _check(x.mean(), a.mean())
    _check(x.max(1), a.max(1))
    _check(x.min(), a.min())
    _check(x.prod(), a.prod(), rtol=1e-5)
    _check(x.std(), a.std(), rtol=1e-5)
    _check(x.var(axis=1), a.var(axis=1), rtol=1e-5)
    _check(x.argmax(), np.int32(a.argmax()))
    _check(x.argmin(axis=0), a.argmin(axis=0).astype(np.int32))
    _check(x.cumsum(axis=1), a.cumsum(axis=1), rtol=1e-5)
    _check(x.all(), np.bool_(a.all()))
    _check((x > 0).any(axis=1), (a > 0).any(axis=1))
    _check(x.astype(jnp.int32), a.astype(np.int32))
    _check(x.ravel(), a.ravel())
    _check(x.flatten(), a.flatten())
    _check(x[None].squeeze(), a)
    _check(x.swapaxes(0, 1), a.swapaxes(0, 1))
    _check(x.clip(-0.5, 0.5), a.clip(-0.5, 0.5))
    _check(x.round(1), a.round(1))
    _check(x.dot(a.T), a.dot(a.T), rtol=1e-5)
    _check(x.reshape(3, 2), a.reshape(3, 2))
    _check(x.transpose(), a.transpose())
    _check(x.real, a)
    _check(x.imag, np.zeros_like(a))
    _check(x.conj(), a)
    _check(x.take(np.array([0, 5])), a.take([0, 5]))
    _check(x.diagonal(), a.diagonal())
    _check(x.trace(), a.trace(), rtol=1e-5)
    assert x.nbytes == a.nbytes and x.itemsize == 4
    assert x[0, 0].item() == a[0, 0]
    assert 1.0 not in jnp.array([0.0, 2.0])
    with pytest.raises(NotImplementedError, match="arr.flat"):
        x.flat


def test_view_sort_and_device_methods():
    a = np.array([1.0, 2.0], np.float32)
    x = jnp.asarray(a)
    for dtype in (np.int32, np.uint8, np.int16, np.complex64):
        _check(x.view(dtype), a.view(dtype))
        _check(glassjax.jit(lambda v: v.view(dtype))(x), a.view(dtype))
    c = np.array([1 + 2j, 3 - 1j], np.complex64)
    _check(jnp.asarray(c).view(np.float32), c.view(np.float32))
    b = np.array([1, 0, 1], np.int8)
    _check(jnp.asarray(b).view(np.bool_), b.view(np.bool_))
    _check(jnp.float32(1.0).view(jnp.int32), np.float32(1.0).view(np.int32))
    with pytest.raises(ValueError, match="0d array is only supported if the itemsize"):
        jnp.float32(1.0).view(jnp.int8)
    assert x.tobytes() == a.tobytes()
    i = np.array([3, 1, 2], np.int32)
    _check(jnp.asarray(i).sort(), np.sort(i))
    _check(jnp.asarray(i).argsort(), np.argsort(i).astype(np.int32))
    (nz,) = jnp.asarray([0, 1, 2]).nonzero()
    _check(nz, np.array([1, 2], np.int32))
    moved = x.to_device(glassjax.devices()[0])
    assert moved.committed and moved.devices() == {glassjax.devices()[0]}


def test_methods_work_on_tracers():
    def f(x):
        return (x.sum(axis=0) + x.T.mean(axis=1) + x.reshape(3, 2).max(axis=1)
                + x[1] - x.at[0].set(1.0)[0])
    a = _data((2, 3), np.float32)
    want = a.sum(0) + a.T.mean(1) + a.reshape(3, 2).max(1) + a[1] - 1.0
    _check(glassjax.jit(f)(a), want, rtol=1e-5)


def test_inf_predicates_give_strong_bools():
    # A NumPy infinity constant: the result is not weakly typed even for a Python float.
    assert repr(jnp.isinf(jnp.inf)) == "Array(True, dtype=bool)"
    assert repr(jnp.isneginf(jnp.inf)) == "Array(False, dtype=bool)"
    assert repr(jnp.isposinf(jnp.array([1.0, jnp.inf]))) == \
        "Array([False,  True], dtype=bool)"
