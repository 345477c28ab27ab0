"""Elementwise ``jnp`` functions ("ufuncs"): promote the arguments, then apply lax.

Most are one lax primitive after ``promote_args*`` (``jnp.sin`` is ``lax.sin`` after
promoting ints to float). A few are small programs (``floor_divide``, ``remainder``,
integer ``power``) that NumPy's semantics need; those are ``jit`` functions in JAX, so
they print as ``jit[name=floor_divide ...]`` equations, and here too.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.lax import logaddexp as lax_logaddexp
from glassjax.numpy import reductions
from glassjax.numpy.util import (_where, broadcast_arrays, check_arraylike, check_no_float0s,
                                 const, eager_jit, ensure_arraylike, lax_asarray, promote_args,
                                 promote_args_inexact, promote_args_numeric,
                                 promote_dtypes, promote_dtypes_inexact,
                                 promote_dtypes_numeric, promote_shapes)


def _to_bool(x):
    return x if dtypes.dtype(x) == np.bool_ else lax.ne(x, const(x, 0))


def _is(x, kind):
    return dtypes.issubdtype(dtypes.dtype(x), kind)


def _ufunc(fn, name, doc):
    """``fn`` named ``name``, dispatched as JAX's ``jit``-ed ufuncs are (``eager_jit``)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return eager_jit(fn)


def _inexact_unary(lax_fn, name):
    """A ufunc that promotes its argument to floating point, then applies ``lax_fn``."""
    return _ufunc(lambda x, /: lax_fn(*promote_args_inexact(name, x)), name,
                  f"Elementwise ``{name}`` (integers and bools are promoted to float).")


def _unary(lax_fn, name):
    return _ufunc(lambda x, /: lax_fn(*promote_args(name, x)), name,
                  f"Elementwise ``{name}``.")


def _binary(lax_fn, name, promote=promote_args):
    return _ufunc(lambda x, y, /: lax_fn(*promote(name, x, y)), name,
                  f"Elementwise ``{name}`` after dtype and rank promotion.")


def _numeric_binary(lax_fn, name):
    """A binary ufunc that promotes bools to integers."""
    return _binary(lax_fn, name, promote_args_numeric)


def _inexact_binary(lax_fn, name):
    """A binary ufunc that promotes its arguments to floating point."""
    return _binary(lax_fn, name, promote_args_inexact)


def _rounding(lax_fn, name):
    """A rounding ufunc: integers and bools are already round, floats go to ``lax_fn``."""
    def ufunc(x, /):
        x = ensure_arraylike(name, x)
        if _is(x, np.integer) or _is(x, np.bool_):
            return x
        return lax_fn(*promote_args_inexact(name, x))
    return _ufunc(ufunc, name, f"Elementwise ``{name}`` (integers are already round).")


# -- one lax primitive after promotion ----------------------------------------------------

exp = _inexact_unary(lax.exp, "exp")
exp2 = _inexact_unary(lax.exp2, "exp2")
expm1 = _inexact_unary(lax.expm1, "expm1")
log = _inexact_unary(lax.log, "log")
log1p = _inexact_unary(lax.log1p, "log1p")
sin = _inexact_unary(lax.sin, "sin")
cos = _inexact_unary(lax.cos, "cos")
tan = _inexact_unary(lax.tan, "tan")
arcsin = _inexact_unary(lax.asin, "arcsin")
arccos = _inexact_unary(lax.acos, "arccos")
arctan = _inexact_unary(lax.atan, "arctan")
sinh = _inexact_unary(lax.sinh, "sinh")
cosh = _inexact_unary(lax.cosh, "cosh")
tanh = _inexact_unary(lax.tanh, "tanh")
arcsinh = _inexact_unary(lax.asinh, "arcsinh")
arctanh = _inexact_unary(lax.atanh, "arctanh")
sqrt = _inexact_unary(lax.sqrt, "sqrt")
cbrt = _inexact_unary(lax.cbrt, "cbrt")

bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")
left_shift = _numeric_binary(lax.shift_left, "left_shift")
bitwise_left_shift = _numeric_binary(lax.shift_left, "bitwise_left_shift")
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")
minimum = _binary(lax.min, "minimum")
maximum = _binary(lax.max, "maximum")
arctan2 = _inexact_binary(lax.atan2, "arctan2")
float_power = _inexact_binary(lax.pow, "float_power")
nextafter = _inexact_binary(lax.nextafter, "nextafter")

# Array-API spellings.
asin, acos, atan, asinh, atanh, atan2 = arcsin, arccos, arctan, arcsinh, arctanh, arctan2


negative = _unary(lax.neg, "negative")
positive = _unary(lax_asarray, "positive")
sign = _unary(lax.sign, "sign")
bitwise_not = _unary(lax.bitwise_not, "bitwise_not")
invert = bitwise_invert = bitwise_not


@eager_jit
def fabs(x, /):
    x = ensure_arraylike("fabs", x)
    if _is(x, np.complexfloating):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(*promote_args_inexact("fabs", x))


@eager_jit
def absolute(x, /):
    """``|x|``; bools and unsigned ints are their own absolute value."""
    x = ensure_arraylike("absolute", x)
    if x.dtype == np.bool_ or _is(x, np.unsignedinteger):
        return x
    return lax.abs(x)


abs = absolute  # noqa: A001 - the NumPy name


floor = _rounding(lax.floor, "floor")
ceil = _rounding(lax.ceil, "ceil")


@jit
def arccosh(x, /):
    result = lax.acosh(*promote_args_inexact("arccosh", x))
    if _is(result, np.complexfloating):
        result = _where(real(result) < 0, lax.neg(result), result)
    return result


acosh = arccosh


@eager_jit
def square(x, /):
    x, = promote_dtypes_numeric(ensure_arraylike("square", x))
    return lax.square(x)


@eager_jit
def reciprocal(x, /):
    x, = promote_dtypes_inexact(ensure_arraylike("reciprocal", x))
    return lax.integer_pow(x, -1)


@eager_jit
def deg2rad(x, /):
    x, = promote_args_inexact("deg2rad", x)
    return lax.mul(x, const(x, np.pi / 180))


@eager_jit
def rad2deg(x, /):
    x, = promote_args_inexact("rad2deg", x)
    return lax.mul(x, const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


@eager_jit
def log2(x, /):
    x, = promote_args_inexact("log2", x)
    if _is(x, np.complexfloating):
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        ln2 = lax.log(const(re, 2))
        return lax.complex(lax.div(re, ln2), lax.div(im, ln2))
    return lax.div(lax.log(x), lax.log(const(x, 2)))


@eager_jit
def log10(x, /):
    x, = promote_args_inexact("log10", x)
    one_over_log10 = np.array(0.4342944819032518, dtypes.finfo(dtypes.dtype(x)).dtype)
    if _is(x, np.complexfloating):
        r = lax.log(x)
        re, im = lax.real(r), lax.imag(r)
        return lax.complex(lax.mul(re, one_over_log10), lax.mul(im, one_over_log10))
    return lax.mul(lax.log(x), one_over_log10)


# -- arithmetic ---------------------------------------------------------------------------

def _with_bool(lax_fn, bool_fn, name, doc):
    """A binary ufunc that is ``bool_fn`` on bools (as NumPy's ``+`` is ``or``)."""
    def ufunc(x, y, /):
        x, y = promote_args(name, x, y)
        return (bool_fn if dtypes.dtype(x) == np.bool_ else lax_fn)(x, y)
    return _ufunc(ufunc, name, doc)


add = _with_bool(lax.add, lax.bitwise_or, "add", "``x + y``; for bools, logical or.")
subtract = _binary(lax.sub, "subtract")
multiply = _with_bool(lax.mul, lax.bitwise_and, "multiply",
                      "``x * y``; for bools, logical and.")


@eager_jit
def true_divide(x1, x2, /):
    """``x1 / x2``, always in floating point (``int / int`` is float)."""
    return lax.div(*promote_args_inexact("true_divide", x1, x2))


divide = true_divide


@jit
def floor_divide(x1, x2, /):
    """``x1 // x2``: division rounded towards minus infinity (lax.div truncates)."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    if _is(x1, np.unsignedinteger):
        return lax.div(x1, x2)
    if _is(x1, np.integer):
        quotient = lax.div(x1, x2)
        select = logical_and(lax.sign(x1) != lax.sign(x2), lax.rem(x1, x2) != 0)
        return _where(select, quotient - 1, quotient)
    if _is(x1, np.complexfloating):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


@jit
def divmod(x1, x2, /):  # noqa: A001 - the NumPy name
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _is(x1, np.integer):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def _float_divmod(x1, x2):
    mod = lax.rem(x1, x2)
    x1_corrected = _where(x2 == 0, x1, lax.sub(x1, mod))
    div = lax.div(x1_corrected, x2)
    ind = lax.bitwise_and(mod != 0, lax.sign(x2) != lax.sign(mod))
    mod = lax.select(ind, mod + x2, mod)
    div = lax.select(ind, div - 1.0, div)
    return lax.round(div), mod


@jit
def remainder(x1, x2, /):
    """``x1 % x2`` with the sign of ``x2`` (lax.rem takes the sign of ``x1``)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    zero = const(x1, 0)
    if _is(x2, np.integer):
        x2 = _where(x2 == 0, lax.full_like(x2, 1), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


@jit
def fmod(x1, x2, /):
    """C's ``fmod``: the remainder with the sign of ``x1``."""
    x1, x2 = ensure_arraylike("fmod", x1, x2)
    if dtypes.issubdtype(dtypes.result_type(x1, x2), np.integer):
        x2 = _where(x2 == 0, lax.full_like(x2, 1), x2)
    return lax.rem(*promote_args_numeric("fmod", x1, x2))


def power(x1, x2, /):
    """``x1 ** x2``. A concrete integer exponent becomes ``integer_pow`` (repeated
    multiplication); otherwise ``pow``, or a square-and-multiply loop for integers."""
    check_arraylike("power", x1, x2)
    check_no_float0s("power", x1, x2)
    if not isinstance(x2, core.Tracer) or x2.to_concrete_value() is not None:
        try:
            exponent = operator.index(x2)
        except TypeError:
            pass
        else:
            x1, = promote_dtypes_numeric(x1)
            return lax.integer_pow(x1, exponent)
    return _power(x1, x2)


pow = power  # noqa: A001 - the array-API name


@eager_jit
def _power(x1, x2):
    x1, x2 = promote_shapes("power", x1, x2)
    x1_, x2_ = promote_args_numeric("power", x1, x2)
    if _is(x1_, np.integer) or _is(x1_, np.bool_):
        return _pow_int_int(x1_, x2_)
    if _is(x1, np.inexact) and _is(x2, np.integer):
        return lax.pow(x1, x2)          # lax.pow takes an integer exponent as it is
    return lax.pow(x1_, x2_)


def _pow_int_int(x1, x2):
    """Integer power by squaring, unrolled for 6 bits of exponent (larger exponents
    overflow anyway)."""
    zero, one = np.array(0, dtypes.dtype(x2)), np.array(1, dtypes.dtype(x2))
    acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    for _ in range(6):
        acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


@eager_jit
def right_shift(x1, x2, /):
    """``x1 >> x2``: logical for unsigned types, arithmetic (sign-filling) otherwise."""
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    shift = lax.shift_right_logical if _is(x1, np.unsignedinteger) else \
        lax.shift_right_arithmetic
    return shift(x1, x2)


bitwise_right_shift = right_shift


@jit
def rint(x, /):
    """Round to the nearest integer, ties to even (ints and bools become float)."""
    x = ensure_arraylike("rint", x)
    if x.dtype == np.bool_ or _is(x, np.integer):
        return lax.convert_element_type(x, dtypes.default_float_dtype())
    if _is(x, np.complexfloating):
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


@jit
def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if _is(x1, np.complexfloating):
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2).astype(bool), -lax.abs(x1), lax.abs(x1))


@jit
def signbit(x, /):
    """Whether the sign bit is set (true for -0.0 and negative NaNs too)."""
    x, = promote_args("signbit", x)
    dtype = dtypes.dtype(x)
    if dtypes.issubdtype(dtype, np.integer):
        return lax.lt(x, const(x, 0))
    if dtypes.issubdtype(dtype, np.bool_):
        return lax.full_like(x, False, dtype=np.bool_)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")
    info = dtypes.finfo(dtype)
    int_type = {16: np.int16, 32: np.int32, 64: np.int64}[info.bits]
    x = lax.bitcast_convert_type(x, int_type)
    return lax.convert_element_type(x >> (info.nexp + info.nmant), np.bool_)


@jit
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` without overflow for large inputs."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if _is(x1, np.complexfloating):
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                         "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    idx_inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    x = _where(x1 == 0, x1, x1 * lax.sqrt(1 + lax.square(
        lax.div(x2, _where(x1 == 0, lax.full_like(x1, 1), x1)))))
    return _where(idx_inf, const(x, np.inf), x)


@jit
def heaviside(x1, x2, /):
    """0 for ``x1 < 0``, 1 for ``x1 > 0``, ``x2`` where ``x1 == 0``."""
    x1, x2 = promote_dtypes_inexact(*ensure_arraylike("heaviside", x1, x2))
    zero = const(x1, 0)
    return _where(lax.lt(x1, zero), zero,
                  _where(lax.gt(x1, zero), const(x1, 1),
                         _where(lax.ne(x1, x1), x1, x2)))


@jit
def modf(x, /, out=None):
    """The fractional and integral parts of ``x``."""
    x, = promote_dtypes_inexact(ensure_arraylike("modf", x))
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = _where(lax.ge(x, const(x, 0)), floor(x), ceil(x))
    return x - whole, whole


# -- comparisons and logic ----------------------------------------------------------------

def _complex_comparison(lax_op, x, y):
    """Complex numbers compare lexicographically: real parts, then imaginary parts."""
    if _is(x, np.complexfloating):
        return lax.select(lax.eq(lax.real(x), lax.real(y)),
                          lax_op(lax.imag(x), lax.imag(y)),
                          lax_op(lax.real(x), lax.real(y)))
    return lax_op(x, y)


def _comparison(lax_op, name):
    return _ufunc(lambda x, y, /: _complex_comparison(lax_op, *promote_args(name, x, y)),
                  name, f"Elementwise ``{name}`` (complex numbers compare lexicographically).")


greater_equal = _comparison(lax.ge, "greater_equal")
greater = _comparison(lax.gt, "greater")
less_equal = _comparison(lax.le, "less_equal")
less = _comparison(lax.lt, "less")


def _logical(lax_op, name):
    return _ufunc(lambda *args: lax_op(*map(_to_bool, promote_args(name, *args))), name,
                  f"``{name}`` of the truth values (nonzero is true).")


logical_and = _logical(lax.bitwise_and, "logical_and")
logical_or = _logical(lax.bitwise_or, "logical_or")
logical_xor = _logical(lax.bitwise_xor, "logical_xor")
logical_not = _logical(lax.bitwise_not, "logical_not")


@eager_jit
def isfinite(x, /):
    x = ensure_arraylike("isfinite", x)
    if _is(x, np.floating):
        return lax.is_finite(x)
    if _is(x, np.complexfloating):
        return lax.bitwise_and(lax.is_finite(real(x)), lax.is_finite(imag(x)))
    return lax.full_like(x, True, dtype=np.bool_)


@jit
def isinf(x, /):
    x = ensure_arraylike("isinf", x)
    # (A NumPy constant, so the result is a strong bool even for a weak x, as in JAX.)
    if _is(x, np.floating):
        return lax.eq(lax.abs(x), np.array(np.inf, x.dtype))
    if _is(x, np.complexfloating):
        re, im = lax.real(x), lax.imag(x)
        return lax.bitwise_or(lax.eq(lax.abs(re), np.array(np.inf, re.dtype)),
                              lax.eq(lax.abs(im), np.array(np.inf, im.dtype)))
    return lax.full_like(x, False, dtype=np.bool_)


def _isposneginf(infinity, x, out):
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not "
                                  "supported.")
    if _is(x, np.floating):
        return lax.eq(x, np.array(infinity, x.dtype))
    if _is(x, np.complexfloating):
        raise ValueError("isposinf/isneginf are not well defined for complex types")
    return lax.full_like(x, False, dtype=np.bool_)


def isposinf(x, /, out=None):
    return _isposneginf(np.inf, ensure_arraylike("isposinf", x), out)


def isneginf(x, /, out=None):
    return _isposneginf(-np.inf, ensure_arraylike("isneginf", x), out)


@eager_jit
def isnan(x, /):
    """NaN is the one value not equal to itself."""
    x = ensure_arraylike("isnan", x)
    return lax.ne(x, x)


# -- complex numbers ----------------------------------------------------------------------

def real(val, /):
    val = ensure_arraylike("real", val)
    return lax.real(val) if np.iscomplexobj(val) else val


def imag(val, /):
    val = ensure_arraylike("imag", val)
    return lax.imag(val) if np.iscomplexobj(val) else lax.full_like(val, 0)


@eager_jit
def conjugate(x, /):
    x = ensure_arraylike("conjugate", x)
    return lax.conj(x) if np.iscomplexobj(x) else x


conj = conjugate


# -- functions with custom derivatives ----------------------------------------------------

@eager_jit
def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))``, without overflow."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return lax_logaddexp.logaddexp(lax_asarray(x1), lax_asarray(x2))


@eager_jit
def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)``, without overflow."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return lax_logaddexp.logaddexp2(lax_asarray(x1), lax_asarray(x2))


@jit
def sinc(x, /):
    """``sin(pi x) / (pi x)``, with the limit 1 at 0 (and its derivatives there, from a
    Maclaurin series: plain autodiff of the division would give NaN)."""
    x, = promote_dtypes_inexact(ensure_arraylike("sinc", x))
    eq_zero = lax.eq(x, const(x, 0))
    pi_x = lax.mul(const(x, np.pi), x)
    safe_pi_x = _where(eq_zero, const(x, 1), pi_x)
    return _where(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The k-th derivative of sin(x)/x at 0 (shaped like ``x``)."""
    if k % 2:
        return x * 0
    return x * 0 + const(x, (-1) ** (k // 2) / (k + 1))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), _sinc_maclaurin(k + 1, x) * t


# -- floating-point decomposition ---------------------------------------------------------

_INT_OF_BITS = {16: np.int16, 32: np.int32, 64: np.int64}


def _normalize_float(x):
    """(the bits of ``x`` with subnormals scaled up to normal range, the exponent
    correction that scaling needs)."""
    info = dtypes.finfo(dtypes.dtype(x))
    int_type = _INT_OF_BITS[info.bits]
    cond = lax.abs(x) < info.tiny
    x1 = _where(cond, x * const(x, 1 << info.nmant), x)
    x2 = _where(cond, int_type(-info.nmant), int_type(0))
    return lax.bitcast_convert_type(x1, int_type), x2


@custom_jvp
def _frexp(x):
    """Read the exponent out of the bits and replace it by the one of [0.5, 1)."""
    dtype = dtypes.dtype(x)
    info = dtypes.finfo(dtype)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 += ((x1 >> info.nmant) & mask) - bias + 1
    x1 &= ~(mask << info.nmant)
    x1 |= (bias - 1) << info.nmant
    x1 = lax.bitcast_convert_type(x1, dtype)
    cond = isinf(x) | isnan(x) | (x == 0)
    x2 = _where(cond, lax.full_like(x2, 0), x2)
    return _where(cond, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    """``x = m * 2**e`` with ``e`` locally constant: ``dm = dx / 2**e``."""
    x, = primals
    t, = tangents
    m, e = _frexp(x)
    return (m, e), (t * lax.exp2(-lax.convert_element_type(e, t.dtype)),
                    lax.full_like(e, 0, dtype=dtypes.float0))


@jit
def frexp(x, /):
    """The mantissa in [0.5, 1) and the integer exponent of ``x = m * 2**e``."""
    x = ensure_arraylike("frexp", x)
    x, = promote_dtypes_inexact(x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit
def ldexp(x1, x2, /):
    """``x1 * 2**x2``, computed through the exponent (as ``frexp`` reads it) so that it
    neither overflows nor underflows early."""
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    if (dtypes.issubdtype(x1.dtype, np.complexfloating)
            or dtypes.issubdtype(x2.dtype, np.inexact)):
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    x1, = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, x1.dtype)
    m, e = frexp(x1)
    e = (e.astype(x2.dtype) + x2).astype(x1.dtype)
    m = _where(e > 0, m * 2, m)
    e = _where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(m.dtype))
    return _where(isinf(x1) | (x1 == 0), x1, x)


@functools.partial(jit, inline=True)
def spacing(x, /):
    """The distance from ``x`` to the next representable number away from zero."""
    arr, = promote_args_inexact("spacing", x)
    if dtypes.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = const(arr, np.inf)
    if arr.dtype == np.float16:
        return lax.nextafter(arr, inf) - arr
    result = lax.nextafter(arr, copysign(inf, arr)) - arr
    return _where(result == 0, copysign(dtypes.finfo(arr.dtype).smallest_subnormal, arr),
                  result)


@jit
def bitwise_count(x, /):
    """The number of 1 bits in ``|x|`` (as uint8)."""
    x, = promote_args_numeric("bitwise_count", x)
    return lax.population_count(absolute(x)).astype(np.uint8)


@custom_jvp
def _i0(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    """``I0' = I1 = exp(|x|) i1e(x)``, written without ``|x|`` so that it is 0 at 0."""
    x, = primals
    t, = tangents
    return _i0(x), t * lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


@jit
def i0(x):
    """The modified Bessel function of the first kind of order 0."""
    x_arr, = promote_args_inexact("i0", x)
    if not dtypes.issubdtype(x_arr.dtype, np.floating):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x_arr.dtype}")
    return _i0(x_arr)


# -- integer gcd and lcm ------------------------------------------------------------------

def _gcd_cond(xs):
    return reductions.any(xs[1] != 0)


def _gcd_body(xs):
    """One Euclid step on every lane whose remainder is not yet 0 (kept ordered)."""
    x1, x2 = xs
    x1, x2 = (_where(x2 != 0, x2, x1),
              _where(x2 != 0, lax.rem(x1, x2), const(x2, 0)))
    return (_where(x1 < x2, x2, x1), _where(x1 < x2, x1, x2))


@jit
def gcd(x1, x2):
    """The greatest common divisor of ``|x1|`` and ``|x2|`` (Euclid's algorithm)."""
    x1, x2 = ensure_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    if not dtypes.issubdtype(x1.dtype, np.integer):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)
    result, _ = lax.while_loop(_gcd_cond, _gcd_body, (absolute(x1), absolute(x2)))
    return result


@jit
def lcm(x1, x2):
    """The least common multiple of ``|x1|`` and ``|x2|`` (0 if either is 0)."""
    x1, x2 = ensure_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    x1, x2 = absolute(x1), absolute(x2)
    if not dtypes.issubdtype(x1.dtype, np.integer):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _where(d == 0, const(d, 0), multiply(x1, floor_divide(x2, d)))
