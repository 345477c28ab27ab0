"""Elementwise primitives: each one's definition, rules and public function together.

An elementwise primitive applies a scalar function to every element of its operands. For
each one, in order: the primitive (shape, dtype and weak-type rules from ``unop`` or
``naryop``, which also give it its batching rule), its lowering to StableHLO (or CHLO, or
an expression in other lax ops where JAX lowers it that way), its JVP rule, its transpose
rule if it is linear, and the public ``lax`` function that binds it.

The JVP rules use the same operations in the same order as JAX's, so ``make_jaxpr`` of a
``grad`` prints the same equations (e.g. tanh' is ``(g + g*ans) * (1 - ans)``).
"""
from __future__ import annotations

import builtins
import enum
import operator
import warnings

import numpy as np

from glassjax import core, dtypes, pretty, tree_util
from glassjax.interpreters import ad, batching, staging
from glassjax.lax import structural
from glassjax.lax.utils import (_any, _bool_or_int, _complex, _float, _inexact, _int,
                                _num, _ordered, check_same_dtypes,
                                multi_broadcast, naryop, naryop_dtype_rule,
                                standard_primitive, unop, unop_dtype_rule)
from glassjax.xla import dispatch, lowering, runtime
from glassjax.xla.lowering import hlo
from jaxlib.mlir.dialects import chlo

# ----------------------------------------------------------------------------------------
# Helpers for rules: constants shaped or typed like an operand
# ----------------------------------------------------------------------------------------


def _python_scalar_type(dtype):
    """The Python type whose weakly typed values have ``dtype`` (float for float32 when
    x64 is off), or None."""
    for typ in (int, float, builtins.complex):
        if dtypes.canonicalize_dtype(dtypes.python_scalar_dtypes[typ]) == dtype:
            return typ
    return None


def _const(example, value):
    """``value`` with ``example``'s dtype: the constants rules multiply by. A weakly typed
    scalar example gets a Python scalar (so the result stays weak), anything else a
    NumPy scalar; either way the constant is a literal in a jaxpr."""
    dtype = dtypes.dtype(example, canonicalize=True)
    if dtypes.is_weakly_typed(example) and np.ndim(example) == 0:
        typ = _python_scalar_type(dtype)
        if typ is not None:
            return typ(value)
    return np.array(value, dtype)


def _zeros(x):
    return structural.full_like(x, 0)


def _ones(x):
    return structural.full_like(x, 1)


def _one(x):
    """A scalar 1 of ``x``'s type (broadcast by the op that uses it)."""
    return structural.full_like(x, 1, shape=())


def _replace_zero(x):
    """``x`` with its zeros replaced by ones (a safe divisor / log argument)."""
    return select(eq(x, _const(x, 0)), _ones(x), x)


def _maybe_broadcast(shape, x):
    """``x`` broadcast to ``shape`` the way a broadcasting op broadcasts its operand
    (rank 0, or equal rank with size-1 axes): what a lone tangent of ``add`` needs."""
    x_shape = np.shape(x)
    if x_shape == tuple(shape):
        return x
    if not x_shape:
        return structural.broadcast_in_dim(x, shape, ())
    kept = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
    squeezed = structural.reshape(x, [x_shape[i] for i in kept])
    return structural.broadcast_in_dim(squeezed, shape, kept)


def _unbroadcast(aval, x):
    """Sum a cotangent back down to the shape of an operand that was broadcast."""
    from glassjax.lax.reductions import reduce_sum   # reductions imports this module
    x_shape = np.shape(x)
    if x_shape == aval.shape:
        return x
    if not aval.shape:
        return reduce_sum(x, tuple(range(len(x_shape))))
    dims = tuple(i for i, (a, b) in enumerate(zip(x_shape, aval.shape)) if a != b)
    return structural.reshape(reduce_sum(x, dims) if dims else x, aval.shape)


def _ct_aval(x):
    """The cotangent type of a transpose rule's operand (linear or not)."""
    return x.aval if ad.is_undefined_primal(x) else core.get_aval(x).at_least_vspace()


def _is_complex(x):
    return dtypes.issubdtype(dtypes.dtype(x, canonicalize=True), np.complexfloating)


def _zero_jvp(prim):
    """Piecewise-constant ops (floor, sign, comparisons, bitwise ops): zero tangent."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, ad.Zero.from_primal_value(out)
    ad.primitive_jvps[prim] = jvp


def _hide_none(*names):
    """Printing rule: leave out these params when they are None (e.g. ``accuracy``)."""
    return pretty.hide_params(lambda p: {k: v for k, v in p.items()
                                         if not (k in names and v is None)})


# ----------------------------------------------------------------------------------------
# Accuracy of transcendental functions
# ----------------------------------------------------------------------------------------

class AccuracyMode(enum.Enum):
    """Ask XLA for its most accurate (``HIGHEST``) or its default implementation."""
    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """The error a transcendental function may have: (atol and rtol) or (atol and ulps).
    XLA picks an implementation that meets it, or fails to compile."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


def _accuracy_attr(accuracy):
    if accuracy is None:
        return None
    if isinstance(accuracy, AccuracyMode):
        return hlo.ResultAccuracyAttr.get(0.0, 0.0, 0, accuracy.name)
    if isinstance(accuracy, Tolerance):
        return hlo.ResultAccuracyAttr.get(atol=accuracy.atol, rtol=accuracy.rtol,
                                          ulps=accuracy.ulps, mode="TOLERANCE")
    raise NotImplementedError(f"Accuracy {accuracy} not supported")


def _accurate(op):
    """Lower with op's ``result_accuracy`` attribute set from the ``accuracy`` param."""
    return lambda x, *, accuracy: op(x, result_accuracy=_accuracy_attr(accuracy))


def _accuracy_unop(name, op, accepted=_inexact):
    """A unary op with an ``accuracy`` param (hidden in jaxprs when None)."""
    prim = unop(name, accepted, None if op is None else _accurate(op))
    pretty.pp_eqn_rules[prim] = _hide_none("accuracy")
    return prim


# ----------------------------------------------------------------------------------------
# Sign, rounding, classification
# ----------------------------------------------------------------------------------------

neg_p = unop("neg", _num, hlo.negate)
ad.deflinear2(neg_p, lambda t, operand: [neg(t)])


def neg(x):
    """Elementwise negation: ``-x``."""
    return neg_p.bind(x)


def _sign_lower(ctx, x):
    """StableHLO's sign is for signed types; for unsigned ones sign is ``x != 0``."""
    aval = ctx.avals_in[0]
    if not dtypes.issubdtype(aval.dtype, np.unsignedinteger):
        return hlo.sign(x)
    is_zero = _compare(x, lowering.full_like_aval(0, aval), "EQ", "UNSIGNED")
    return hlo.select(is_zero, lowering.full_like_aval(0, aval),
                      lowering.full_like_aval(1, aval))


sign_p = unop("sign", _num, None)
lowering.register_lowering(sign_p, _sign_lower)
_zero_jvp(sign_p)


def sign(x):
    """Elementwise sign: -1, 0 or 1 (for complex x, ``x / abs(x)``)."""
    return sign_p.bind(x)


floor_p = unop("floor", _float, hlo.floor)
_zero_jvp(floor_p)


def floor(x):
    """Elementwise floor: the largest integer not above x."""
    return floor_p.bind(x)


ceil_p = unop("ceil", _float, hlo.ceil)
_zero_jvp(ceil_p)


def ceil(x):
    """Elementwise ceiling: the smallest integer not below x."""
    return ceil_p.bind(x)


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties (x.5): away from zero, or to the nearest even integer."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


round_p = unop("round", _float, lambda x, *, rounding_method: (
    hlo.round_nearest_afz(x) if rounding_method is RoundingMethod.AWAY_FROM_ZERO
    else hlo.round_nearest_even(x)))
_zero_jvp(round_p)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001 - the lax name
    """Elementwise rounding to the nearest integer."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


is_finite_p = unop("is_finite", _float, hlo.is_finite,
                   result_dtype=lambda d: np.dtype(np.bool_))
_zero_jvp(is_finite_p)


def is_finite(x):
    """Elementwise: True where x is neither infinite nor NaN."""
    return is_finite_p.bind(x)


# ----------------------------------------------------------------------------------------
# Exponentials and logarithms
# ----------------------------------------------------------------------------------------

exp_p = _accuracy_unop("exp", hlo.exponential)
ad.defjvp2(exp_p, lambda g, ans, x, accuracy: mul(g, ans))


def exp(x, *, accuracy=None):
    """Elementwise exponential: e**x."""
    return exp_p.bind(x, accuracy=accuracy)


def _exp2_lower(ctx, x, *, accuracy):
    """2**x as exp(log(2) * x), as JAX lowers it."""
    log2 = lowering.full_like_aval(np.log(2), ctx.avals_in[0])
    return hlo.exponential(hlo.multiply(log2, x), result_accuracy=_accuracy_attr(accuracy))


exp2_p = _accuracy_unop("exp2", None)
lowering.register_lowering(exp2_p, _exp2_lower)
ad.defjvp2(exp2_p, lambda g, ans, x, accuracy: mul(log(_const(x, 2)), mul(g, ans)))


def exp2(x, *, accuracy=None):
    """Elementwise base-2 exponential: 2**x."""
    return exp2_p.bind(x, accuracy=accuracy)


log_p = _accuracy_unop("log", hlo.log)
ad.defjvp(log_p, lambda g, x, accuracy: div(g, x))


def log(x, *, accuracy=None):
    """Elementwise natural logarithm."""
    return log_p.bind(x, accuracy=accuracy)


expm1_p = _accuracy_unop("expm1", hlo.exponential_minus_one)
ad.defjvp2(expm1_p, lambda g, ans, x, accuracy: (
    mul(g, exp(x, accuracy=accuracy)) if accuracy is AccuracyMode.HIGHEST
    else mul(g, add(ans, _one(ans)))))


def expm1(x, *, accuracy=None):
    """Elementwise e**x - 1, accurate for small x."""
    return expm1_p.bind(x, accuracy=accuracy)


log1p_p = _accuracy_unop("log1p", hlo.log_plus_one)
ad.defjvp(log1p_p, lambda g, x, accuracy: div(g, add(x, _one(x))))


def log1p(x, *, accuracy=None):
    """Elementwise log(1 + x), accurate for small x."""
    return log1p_p.bind(x, accuracy=accuracy)


tanh_p = _accuracy_unop("tanh", hlo.tanh)
ad.defjvp2(tanh_p, lambda g, ans, x, accuracy: (
    mul(g, mul(_const(x, 4), mul(logistic(mul(_const(x, 2), x), accuracy=accuracy),
                                 logistic(mul(_const(x, -2), x), accuracy=accuracy))))
    if accuracy is AccuracyMode.HIGHEST
    else mul(add(g, mul(g, ans)), sub(_one(x), ans))))


def tanh(x, *, accuracy=None):
    """Elementwise hyperbolic tangent."""
    return tanh_p.bind(x, accuracy=accuracy)


def _logistic_expr(x, accuracy):
    """JAX lowers logistic as 1 / (1 + exp(-x)) rather than StableHLO's logistic op."""
    del accuracy
    one = _const(x, 1)
    return div(one, add(one, exp(neg(x))))


logistic_p = _accuracy_unop("logistic", None)
lowering.register_lowering(logistic_p, lowering.lower_fun(_logistic_expr))
ad.defjvp2(logistic_p, lambda g, ans, x, accuracy: (
    mul(g, mul(ans, logistic(neg(x)))) if accuracy is AccuracyMode.HIGHEST
    else mul(g, mul(ans, sub(_one(ans), ans)))))


def logistic(x, *, accuracy=None):
    """Elementwise logistic sigmoid: 1 / (1 + e**-x)."""
    return logistic_p.bind(x, accuracy=accuracy)


# ----------------------------------------------------------------------------------------
# Trigonometric and hyperbolic functions
# ----------------------------------------------------------------------------------------

def _sinh_cosh_parts(b):
    """(sinh(b), cosh(b)) from expm1, which avoids cancellation for small b."""
    two = _const(b, 2)
    e1m, e2m = expm1(b), expm1(neg(b))
    return div(sub(e1m, e2m), two), div(add(add(e1m, e2m), two), two)


def _sin_complex(x):
    """sin(a+bi) = sin(a)cosh(b) + i cos(a)sinh(b); when a == 0 the real part is exactly
    0 (not 0 * inf = nan for huge b)."""
    a, b = real(x), imag(x)
    a_is_zero = eq(a, _const(a, 0))
    sn, cs = sin(a), cos(a)
    snh, csh = _sinh_cosh_parts(b)
    re, im = mul(sn, csh), mul(cs, snh)
    return select(a_is_zero, complex(_const(a, 0), im), complex(re, im))


def _cos_complex(x):
    """cos(a+bi) = cos(a)cosh(b) - i sin(a)sinh(b); exact 0 imaginary part at a == 0."""
    a, b = real(x), imag(x)
    a_is_zero = eq(a, _const(a, 0))
    sn, cs = sin(a), cos(a)
    snh, csh = _sinh_cosh_parts(b)
    re, im = mul(cs, csh), mul(neg(sn), snh)
    return select(a_is_zero, complex(re, _const(a, 0)), complex(re, im))


def _real_or_complex_lower(hlo_op, complex_expr):
    """StableHLO for real inputs; for complex ones an expression in other lax ops."""
    complex_rule = lowering.lower_fun(complex_expr)

    def rule(ctx, x, *, accuracy):
        if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
            return complex_rule(ctx, x)
        return hlo_op(x, result_accuracy=_accuracy_attr(accuracy))
    return rule


sin_p = _accuracy_unop("sin", None)
lowering.register_lowering(sin_p, _real_or_complex_lower(hlo.sine, _sin_complex))
ad.defjvp(sin_p, lambda g, x, accuracy: mul(g, cos(x, accuracy=accuracy)))


def sin(x, *, accuracy=None):
    """Elementwise sine."""
    return sin_p.bind(x, accuracy=accuracy)


cos_p = _accuracy_unop("cos", None)
lowering.register_lowering(cos_p, _real_or_complex_lower(hlo.cosine, _cos_complex))
ad.defjvp(cos_p, lambda g, x, accuracy: neg(mul(g, sin(x, accuracy=accuracy))))


def cos(x, *, accuracy=None):
    """Elementwise cosine."""
    return cos_p.bind(x, accuracy=accuracy)


tan_p = _accuracy_unop("tan", hlo.tan)
ad.defjvp2(tan_p, lambda g, ans, x, accuracy: mul(g, add(_const(x, 1), square(ans))))


def tan(x, *, accuracy=None):
    """Elementwise tangent."""
    return tan_p.bind(x, accuracy=accuracy)


asin_p = unop("asin", _inexact, chlo.asin)
ad.defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(_const(x, 1), square(x)))))


def asin(x):
    """Elementwise arc sine."""
    return asin_p.bind(x)


acos_p = unop("acos", _inexact, chlo.acos)
ad.defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(_const(x, 1), square(x))))))


def acos(x):
    """Elementwise arc cosine."""
    return acos_p.bind(x)


atan_p = unop("atan", _inexact, chlo.atan)
ad.defjvp(atan_p, lambda g, x: div(g, add(_const(x, 1), square(x))))


def atan(x):
    """Elementwise arc tangent."""
    return atan_p.bind(x)


atan2_p = naryop("atan2", [_inexact, _inexact], hlo.atan2)
ad.defjvp(atan2_p,
          lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),
          lambda g, x, y: mul(g, div(neg(x), add(square(x), square(y)))))


def atan2(x, y):
    """Elementwise arc tangent of x / y, in the quadrant of (y, x)."""
    return atan2_p.bind(x, y)


sinh_p = unop("sinh", _inexact, chlo.sinh)
ad.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


cosh_p = unop("cosh", _inexact, chlo.cosh)
ad.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


asinh_p = unop("asinh", _inexact, chlo.asinh)
ad.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _one(x)))))


def asinh(x):
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


acosh_p = unop("acosh", _inexact, chlo.acosh)
ad.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _one(x)))))


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


atanh_p = unop("atanh", _inexact, chlo.atanh)
ad.defjvp(atanh_p, lambda g, x: mul(reciprocal(add(_one(x), x)),
                                    div(g, sub(_one(x), x))))


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


# ----------------------------------------------------------------------------------------
# Powers and roots
# ----------------------------------------------------------------------------------------

sqrt_p = _accuracy_unop("sqrt", hlo.sqrt)
ad.defjvp2(sqrt_p, lambda g, ans, x, accuracy: mul(g, div(_const(x, 0.5), ans)))


def sqrt(x, *, accuracy=None):
    """Elementwise square root."""
    return sqrt_p.bind(x, accuracy=accuracy)


rsqrt_p = _accuracy_unop("rsqrt", hlo.rsqrt)
ad.defjvp2(rsqrt_p, lambda g, ans, x, accuracy: mul(g, mul(_const(x, -0.5), div(ans, x))))


def rsqrt(x, *, accuracy=None):
    """Elementwise reciprocal square root: 1 / sqrt(x)."""
    return rsqrt_p.bind(x, accuracy=accuracy)


cbrt_p = _accuracy_unop("cbrt", hlo.cbrt, accepted=_float)
ad.defjvp2(cbrt_p, lambda g, ans, x, accuracy: mul(
    g, mul(_const(x, 1 / 3), integer_pow(ans, -2))))


def cbrt(x, *, accuracy=None):
    """Elementwise cube root."""
    return cbrt_p.bind(x, accuracy=accuracy)


def _square_lower(ctx, x):
    """Integers: x * x; floats and complex: CHLO's square (exact for complex)."""
    if dtypes.issubdtype(ctx.avals_in[0].dtype, np.integer):
        return hlo.multiply(x, x)
    return chlo.square(x)


square_p = unop("square", _num, None)
lowering.register_lowering(square_p, _square_lower)
ad.defjvp2(square_p, lambda g, ans, x: mul(g, mul(_const(x, 2), x)))


def square(x):
    """Elementwise square: x * x."""
    return square_p.bind(x)


def reciprocal(x):
    """Elementwise 1 / x (an ``integer_pow`` with exponent -1, as in JAX)."""
    return integer_pow(x, -1)


def _pow_dtype(x_dtype, y_dtype):
    if (dtypes.issubdtype(x_dtype, np.inexact) and
            dtypes.issubdtype(y_dtype, np.integer)):
        return x_dtype
    if x_dtype == y_dtype:
        return x_dtype
    raise TypeError("the first argument to pow must have an inexact dtype (float or "
                    "complex), and the second argument must have an inexact or integer "
                    "dtype, and two inexact dtypes must match, but got "
                    f"{x_dtype} and {y_dtype} respectively.")


def _pow_lower(ctx, x, y):
    """An integer exponent is converted to the base's type first."""
    (x_aval, y_aval), out = ctx.avals_in, ctx.avals_out[0]
    if x_aval.dtype != y_aval.dtype:
        y_aval = y_aval.update(dtype=out.dtype)
        y = lowering.convert(y, y_aval)
    return hlo.power(multi_broadcast(x, x_aval, out.shape),
                     multi_broadcast(y, y_aval, out.shape))


def _pow_jvp_lhs(g, ans, x, y):
    """d/dx x**y = y * x**(y-1); for integer y, exactly 0 where y == 0 (even at x == 0)."""
    y_dtype = dtypes.dtype(y, canonicalize=True)
    dtype = dtypes.dtype(x, canonicalize=True)
    x = convert_element_type(x, dtype)
    y = convert_element_type(y, dtype)
    if dtypes.issubdtype(y_dtype, np.integer):
        if np.shape(x) != np.shape(y):
            shape = np.broadcast_shapes(np.shape(x), np.shape(y))
            x, y = _maybe_broadcast(shape, x), _maybe_broadcast(shape, y)
        jac = select(eq(y, _const(y, 0)), _zeros(y),
                     mul(_replace_zero(y), pow(x, sub(y, _ones(y)))))
    else:
        jac = mul(y, pow(x, sub(y, _ones(y))))
    return mul(g, jac)


def _pow_jvp_rhs(g, ans, x, y):
    """d/dy x**y = log(x) * x**y (log(1) = 0 stands in where x == 0)."""
    return convert_element_type(mul(g, mul(log(_replace_zero(x)), ans)),
                                dtypes.dtype(y, canonicalize=True))


pow_p = naryop("pow", [_inexact, _int + _inexact], None, result_dtype=_pow_dtype,
               require_same=False)
lowering.register_lowering(pow_p, _pow_lower)
ad.defjvp2(pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def pow(x, y):  # noqa: A001 - the lax name
    """Elementwise power x**y: x inexact, y integer or of x's dtype."""
    return pow_p.bind(x, y)


def _integer_pow_dtype(x, *, y):
    dtype = unop_dtype_rule(lambda d: d, _num, "integer_pow", x)
    if y < 0 and dtypes.issubdtype(dtype, np.integer):
        raise TypeError("Integers cannot be raised to negative powers, got "
                        f"integer_pow({x}, {y})")
    return dtype


def _integer_pow_lower(ctx, x, *, y):
    """Square and multiply: x**13 = x * x**4 * x**8, squaring x once per bit of 13."""
    acc, power, n = None, x, builtins.abs(y)
    while n:
        if n & 1:
            acc = power if acc is None else hlo.multiply(acc, power)
        n >>= 1
        if n:
            power = hlo.multiply(power, power)
    if acc is None:
        return lowering.full_like_aval(1, ctx.avals_in[0])
    return hlo.divide(lowering.full_like_aval(1, ctx.avals_in[0]), acc) if y < 0 else acc


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return _zeros(g)
    if y == 1:
        return g
    if y == 2:
        return mul(g, mul(_const(x, y), x))
    return mul(g, mul(_const(x, y), integer_pow(x, y - 1)))


integer_pow_p = standard_primitive(lambda x, *, y: x.shape, _integer_pow_dtype,
                                   "integer_pow")
batching.defvectorized(integer_pow_p)
lowering.register_lowering(integer_pow_p, _integer_pow_lower)
ad.defjvp(integer_pow_p, _integer_pow_jvp)


def integer_pow(x, y):
    """``x ** y`` for a static Python integer ``y`` (multiplications, no pow)."""
    return integer_pow_p.bind(x, y=y)


# ----------------------------------------------------------------------------------------
# Special functions
# ----------------------------------------------------------------------------------------

erf_p = unop("erf", _float, chlo.erf)
ad.defjvp(erf_p, lambda g, x: mul(_const(x, 2 / np.sqrt(np.pi)),
                                  mul(g, exp(neg(square(x))))))


def erf(x):
    """Elementwise error function."""
    return erf_p.bind(x)


erfc_p = unop("erfc", _float, chlo.erfc)
ad.defjvp(erfc_p, lambda g, x: mul(_const(x, -2 / np.sqrt(np.pi)),
                                   mul(g, exp(neg(square(x))))))


def erfc(x):
    """Elementwise complementary error function: 1 - erf(x)."""
    return erfc_p.bind(x)


erf_inv_p = unop("erf_inv", _float, chlo.erf_inv)
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2),
                                            mul(g, exp(square(ans)))))


def erf_inv(x):
    """Elementwise inverse of the error function."""
    return erf_inv_p.bind(x)


lgamma_p = unop("lgamma", _float, chlo.lgamma)
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))


def lgamma(x):
    """Elementwise log of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


digamma_p = unop("digamma", _float, chlo.digamma)
ad.defjvp(digamma_p, lambda g, x: mul(g, polygamma(_const(x, 1), x)))


def digamma(x):
    """Elementwise digamma: the derivative of lgamma."""
    return digamma_p.bind(x)


def _polygamma_jvp_m(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


polygamma_p = naryop("polygamma", [_float, _float], chlo.polygamma)
ad.defjvp(polygamma_p, _polygamma_jvp_m,
          lambda g, m, x: mul(g, polygamma(add(m, _const(m, 1)), x)))


def polygamma(m, x):
    """Elementwise polygamma: the m-th derivative of digamma (m a whole number)."""
    return polygamma_p.bind(m, x)


zeta_p = naryop("zeta", [_float, _float], chlo.zeta)


def zeta(x, q):
    """Elementwise Hurwitz zeta function: the sum over n >= 0 of (n + q)**-x."""
    return zeta_p.bind(x, q)


# ----------------------------------------------------------------------------------------
# Complex numbers
# ----------------------------------------------------------------------------------------

def _complex_basetype(dtype):
    """complex64 -> float32, complex128 -> float64; real dtypes are their own base."""
    return np.abs(np.zeros((), dtype)).dtype


def _complex_dtype(dtype, *_):
    """The complex dtype with ``dtype``'s precision (float32 -> complex64)."""
    return (np.zeros((), dtype) + np.zeros((), np.complex64)).dtype


_complex_elem_types = (np.float32, np.float64)

real_p = unop("real", _complex, hlo.real, result_dtype=_complex_basetype)
ad.deflinear2(real_p, lambda t, _: [complex(t, np.zeros((), dtypes.dtype(t)))])


def real(x):
    """Elementwise real part."""
    return real_p.bind(x)


imag_p = unop("imag", _complex, hlo.imag, result_dtype=_complex_basetype)
ad.deflinear2(imag_p, lambda t, _: [complex(np.zeros((), dtypes.dtype(t)), neg(t))])


def imag(x):
    """Elementwise imaginary part."""
    return imag_p.bind(x)


def _complex_transpose(t, x, y):
    """complex(x, y) = x + iy: x gets real(t) and y gets imag(-t) (the adjoint)."""
    if type(t) is ad.Zero:
        return [ad.Zero(x.aval) if ad.is_undefined_primal(x) else None,
                ad.Zero(y.aval) if ad.is_undefined_primal(y) else None]
    return [_unbroadcast(x.aval, real(t)) if ad.is_undefined_primal(x) else None,
            _unbroadcast(y.aval, imag(neg(t))) if ad.is_undefined_primal(y) else None]


complex_p = naryop("complex", [_complex_elem_types, _complex_elem_types], hlo.complex,
                   result_dtype=_complex_dtype)
ad.deflinear2(complex_p, _complex_transpose)


def complex(x, y):  # noqa: A001 - the lax name
    """Elementwise x + iy from real arrays x and y."""
    return complex_p.bind(x, y)


def _conj_expr(x, *, input_dtype):
    """conj(a+bi) = a - bi; a real input becomes a complex number with imaginary part 0."""
    if dtypes.issubdtype(dtypes.dtype(x), np.complexfloating):
        return complex(real(x), neg(imag(x)))
    return complex(x, _zeros(x))


def _conj_transpose(t, x, *, input_dtype):
    return [conj(t) if dtypes.issubdtype(input_dtype, np.complexfloating) else real(t)]


conj_p = unop("conj", (np.float32, np.complexfloating, np.float64), None,
              result_dtype=_complex_dtype)
lowering.register_lowering(conj_p, lowering.lower_fun(_conj_expr))
ad.deflinear2(conj_p, _conj_transpose)


def conj(x):
    """Elementwise complex conjugate (of a real array: that array as complex)."""
    return conj_p.bind(x, input_dtype=dtypes.dtype(x, canonicalize=True))


def _abs_jvp(g, ans, x):
    if _is_complex(x):
        return real(mul(g, div(conj(x), _replace_zero(
            convert_element_type(ans, dtypes.dtype(x, canonicalize=True))))))
    return select(ge(x, structural.full_like(x, 0, shape=())), g, neg(g))


abs_p = unop("abs", (np.floating, np.complexfloating, np.signedinteger), hlo.abs,
             result_dtype=_complex_basetype)
ad.defjvp2(abs_p, _abs_jvp)


def abs(x):  # noqa: A001 - the lax name
    """Elementwise absolute value (the modulus, a real number, for complex x)."""
    return abs_p.bind(x)


# ----------------------------------------------------------------------------------------
# Binary arithmetic
# ----------------------------------------------------------------------------------------

def _additive_jvp(prim, negate_rhs):
    """add and sub are linear: the tangent is the op applied to the tangents. When one
    tangent is zero the other is passed through, broadcast as the op would have."""
    def jvp(primals, tangents):
        out = prim.bind(*primals)
        xdot, ydot = tangents
        if type(xdot) is ad.Zero and type(ydot) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        if type(xdot) is ad.Zero:
            return out, _maybe_broadcast(np.shape(out), neg(ydot) if negate_rhs else ydot)
        if type(ydot) is ad.Zero:
            return out, _maybe_broadcast(np.shape(out), xdot)
        return out, prim.bind(xdot, ydot)
    return jvp


def _additive_transpose(negate_rhs):
    """Each operand of add/sub gets the cotangent (negated for sub's right operand),
    summed down to its shape if it was broadcast."""
    def transpose(ct, x, y):
        x_aval, y_aval = _ct_aval(x), _ct_aval(y)
        if type(ct) is ad.Zero:
            return [ad.Zero(x_aval), ad.Zero(y_aval)]
        return [_unbroadcast(x_aval, ct),
                _unbroadcast(y_aval, neg(ct) if negate_rhs else ct)]
    return transpose


add_p = naryop("add", [_num, _num], hlo.add)
ad.primitive_jvps[add_p] = _additive_jvp(add_p, negate_rhs=False)
ad.primitive_transposes[add_p] = _additive_transpose(negate_rhs=False)


def add(x, y):
    """Elementwise addition: ``x + y``."""
    return add_p.bind(x, y)


sub_p = naryop("sub", [_num, _num], hlo.subtract)
ad.primitive_jvps[sub_p] = _additive_jvp(sub_p, negate_rhs=True)
ad.primitive_transposes[sub_p] = _additive_transpose(negate_rhs=True)


def sub(x, y):
    """Elementwise subtraction: ``x - y``."""
    return sub_p.bind(x, y)


def _mul_transpose_lhs(ct, x, y, *, out_dtype):
    return _unbroadcast(x.aval, mul(ct, y, out_dtype=None if out_dtype is None
                                    else x.aval.dtype))


def _mul_transpose_rhs(ct, x, y, *, out_dtype):
    return _unbroadcast(y.aval, mul(x, ct, out_dtype=None if out_dtype is None
                                    else y.aval.dtype))


mul_p = naryop("mul", [_num, _num], None)
ad.defbilinear(mul_p, _mul_transpose_lhs, _mul_transpose_rhs)
pretty.pp_eqn_rules[mul_p] = _hide_none("out_dtype")


def _mul_lower(ctx, x, y, *, out_dtype):
    """With ``out_dtype`` the operands are converted to it before multiplying."""
    out = ctx.avals_out[0]
    x, y = (multi_broadcast(v, a, out.shape) for v, a in zip((x, y), ctx.avals_in))
    if out_dtype is not None:
        x, y = lowering.convert(x, out), lowering.convert(y, out)
    return hlo.multiply(x, y)


lowering.register_lowering(mul_p, _mul_lower)


def mul(x, y, *, out_dtype=None):
    """Elementwise multiplication: ``x * y`` (computed in ``out_dtype`` if given)."""
    return mul_p.bind(x, y, out_dtype=out_dtype)


mulhi_p = naryop("mulhi", [_int, _int], chlo.mulhi)
_zero_jvp(mulhi_p)


def mulhi(x, y, /):
    """Elementwise high half of the double-width integer product ``x * y``."""
    return mulhi_p.bind(x, y)


def _div_transpose(ct, x, y):
    """div is linear in its numerator only."""
    if ad.is_undefined_primal(y):
        raise RuntimeError("nonlinear div can't be transposed")
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval), None]
    return [_unbroadcast(x.aval, div(ct, y)), None]


div_p = naryop("div", [_num, _num], hlo.divide)
ad.defjvp(div_p,
          lambda g, x, y: div(g, y),
          lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
ad.primitive_transposes[div_p] = _div_transpose


def div(x, y):
    """Elementwise division (integer division rounds towards zero)."""
    return div_p.bind(x, y)


rem_p = naryop("rem", [_int + _float, _int + _float], hlo.remainder)
ad.defjvp(rem_p,
          lambda g, x, y: _maybe_broadcast(np.broadcast_shapes(np.shape(x), np.shape(y)),
                                           g),
          lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))


def rem(x, y):
    """Elementwise remainder of truncating division: has the sign of x, like C's fmod."""
    return rem_p.bind(x, y)


def _balanced_eq(x, z, y):
    """1 where x alone equals z, 1/2 where x and y both do (a tie), else 0: how the
    tangent of max/min is shared between their operands."""
    return div(select(eq(x, z), _ones(z), _zeros(z)),
               select(eq(y, z), structural.full_like(z, 2), _ones(z)))


def _minmax_lower(hlo_op, direction):
    """Complex numbers are ordered lexicographically (real part, then imaginary)."""
    def lower(x, y):
        elt = lowering.ir.RankedTensorType(x.type).element_type
        if not isinstance(elt, lowering.ir.ComplexType):
            return hlo_op(x, y)
        rx, ry = hlo.real(x), hlo.real(y)
        real_eq = _compare(rx, ry, "EQ", "FLOAT")
        real_cmp = _compare(rx, ry, direction, "FLOAT")
        imag_cmp = _compare(hlo.imag(x), hlo.imag(y), direction, "FLOAT")
        return hlo.select(hlo.select(real_eq, imag_cmp, real_cmp), x, y)
    return lower


max_p = naryop("max", [_any, _any], _minmax_lower(hlo.maximum, "GT"))
ad.defjvp2(max_p,
           lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))


def max(x, y):  # noqa: A001 - the lax name
    """Elementwise maximum (NaN if either is NaN)."""
    return max_p.bind(x, y)


min_p = naryop("min", [_any, _any], _minmax_lower(hlo.minimum, "LT"))
ad.defjvp2(min_p,
           lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))


def min(x, y):  # noqa: A001 - the lax name
    """Elementwise minimum (NaN if either is NaN)."""
    return min_p.bind(x, y)


nextafter_p = naryop("nextafter", [_float, _float], chlo.next_after)


def nextafter(x1, x2):
    """The next representable number after x1 in the direction of x2."""
    return nextafter_p.bind(x1, x2)


# ----------------------------------------------------------------------------------------
# Bitwise operations (logical ones for booleans)
# ----------------------------------------------------------------------------------------

not_p = unop("not", _bool_or_int, hlo.not_)
_zero_jvp(not_p)


def bitwise_not(x):
    """Elementwise NOT (logical for booleans)."""
    return not_p.bind(x)


and_p = naryop("and", [_bool_or_int, _bool_or_int], hlo.and_)
_zero_jvp(and_p)


def bitwise_and(x, y):
    """Elementwise AND (logical for booleans)."""
    return and_p.bind(x, y)


or_p = naryop("or", [_bool_or_int, _bool_or_int], hlo.or_)
_zero_jvp(or_p)


def bitwise_or(x, y):
    """Elementwise OR (logical for booleans)."""
    return or_p.bind(x, y)


xor_p = naryop("xor", [_bool_or_int, _bool_or_int], hlo.xor)
_zero_jvp(xor_p)


def bitwise_xor(x, y):
    """Elementwise exclusive OR (logical for booleans)."""
    return xor_p.bind(x, y)


population_count_p = unop("population_count", _int, hlo.popcnt)


def population_count(x):
    """Elementwise number of set bits."""
    return population_count_p.bind(x)


clz_p = unop("clz", _int, hlo.count_leading_zeros)


def clz(x):
    """Elementwise number of leading zero bits."""
    return clz_p.bind(x)


shift_left_p = naryop("shift_left", [_int, _int], hlo.shift_left)
_zero_jvp(shift_left_p)


def shift_left(x, y):
    """Elementwise ``x << y``."""
    return shift_left_p.bind(x, y)


shift_right_arithmetic_p = naryop("shift_right_arithmetic", [_int, _int],
                                  hlo.shift_right_arithmetic)
_zero_jvp(shift_right_arithmetic_p)


def shift_right_arithmetic(x, y):
    """Elementwise ``x >> y``, filling with the sign bit."""
    return shift_right_arithmetic_p.bind(x, y)


shift_right_logical_p = naryop("shift_right_logical", [_int, _int],
                               hlo.shift_right_logical)
_zero_jvp(shift_right_logical_p)


def shift_right_logical(x, y):
    """Elementwise ``x >> y``, filling with zeros."""
    return shift_right_logical_p.bind(x, y)


# ----------------------------------------------------------------------------------------
# Comparisons
# ----------------------------------------------------------------------------------------

def _compare_kind(dtype):
    """How ``stablehlo.compare`` orders values of ``dtype``: as floats, or as integers
    with or without a sign (booleans are unsigned)."""
    if dtypes.issubdtype(dtype, np.inexact):
        return "FLOAT"
    return "SIGNED" if dtypes.issubdtype(dtype, np.signedinteger) else "UNSIGNED"


def _compare(x, y, direction, kind):
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


def _comparison(name, direction, accepted):
    def lower(ctx, x, y):
        shape = ctx.avals_out[0].shape
        x, y = (multi_broadcast(v, a, shape) for v, a in zip((x, y), ctx.avals_in))
        return _compare(x, y, direction, _compare_kind(ctx.avals_in[0].dtype))
    prim = naryop(name, [accepted, accepted], None,
                  result_dtype=lambda *d: np.dtype(np.bool_))
    lowering.register_lowering(prim, lower)
    _zero_jvp(prim)
    return prim


eq_p = _comparison("eq", "EQ", _any)
ne_p = _comparison("ne", "NE", _any)
lt_p = _comparison("lt", "LT", _ordered)
le_p = _comparison("le", "LE", _ordered)
gt_p = _comparison("gt", "GT", _ordered)
ge_p = _comparison("ge", "GE", _ordered)


def eq(x, y):
    """Elementwise ``x == y``."""
    return eq_p.bind(x, y)


def ne(x, y):
    """Elementwise ``x != y``."""
    return ne_p.bind(x, y)


def lt(x, y):
    """Elementwise ``x < y``."""
    return lt_p.bind(x, y)


def le(x, y):
    """Elementwise ``x <= y``."""
    return le_p.bind(x, y)


def gt(x, y):
    """Elementwise ``x > y``."""
    return gt_p.bind(x, y)


def ge(x, y):
    """Elementwise ``x >= y``."""
    return ge_p.bind(x, y)


# ----------------------------------------------------------------------------------------
# Selection and clamping
# ----------------------------------------------------------------------------------------

def _select_shape_rule(which, *cases):
    if not cases:
        raise TypeError("select must have at least one case")
    if any(case.shape != cases[0].shape for case in cases[1:]):
        raise TypeError("select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, "
                        f"got `which` shape {which.shape} but case shape {cases[0].shape}.")
    return cases[0].shape


def _select_dtype_rule(which, *cases):
    check_same_dtypes("select", *cases)
    if not dtypes.issubdtype(which.dtype, np.bool_) and \
            not dtypes.issubdtype(which.dtype, np.integer):
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{which.dtype}.")
    if dtypes.issubdtype(which.dtype, np.bool_) and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return cases[0].dtype


def _select_n_lower(ctx, which, *cases):
    """A boolean picks with one ``stablehlo.select``; an integer with a balanced tree of
    them, comparing ``which < mid`` at each level."""
    which_aval = ctx.avals_in[0]
    if which_aval.dtype == np.bool_:
        return cases[0] if len(cases) == 1 else hlo.select(which, cases[1], cases[0])

    def pick(offset, cases):
        if len(cases) == 1:
            return cases[0]
        mid = len(cases) // 2
        pred = _compare(which, lowering.full_like_aval(offset + mid, which_aval), "LT",
                        _compare_kind(which_aval.dtype))
        return hlo.select(pred, pick(offset, cases[:mid]), pick(offset + mid, cases[mid:]))
    return pick(0, cases)


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    case_tangents = tangents[1:]
    out = select_n(which, *cases)
    if all(type(t) is ad.Zero for t in case_tangents):
        return out, ad.Zero(case_tangents[0].aval)
    zero = _zeros(next(t for t in case_tangents if type(t) is not ad.Zero))
    return out, select_n(which, *(zero if type(t) is ad.Zero else t for t in case_tangents))


def _select_n_transpose(ct, which, *cases):
    """Each linear case gets the cotangent where it was selected, zeros elsewhere."""
    if type(ct) is ad.Zero:
        return [None] + [ad.Zero(c.aval) if ad.is_undefined_primal(c) else None
                         for c in cases]
    zeros = structural.full_like(ct, 0)
    if dtypes.dtype(which) == np.bool_:
        return [None,
                select(which, zeros, ct) if ad.is_undefined_primal(cases[0]) else None,
                select(which, ct, zeros) if ad.is_undefined_primal(cases[1]) else None]
    return [None] + [select(eq(which, _const(which, i)), ct, zeros)
                     if ad.is_undefined_primal(case) else None
                     for i, case in enumerate(cases)]


def _select_n_batch(args, dims):
    """Avoid moving axes when ``which`` and the cases are batched alike; otherwise move
    batch axes to the front and broadcast a rank-1 ``which`` along the cases."""
    which, *cases = args
    which_dim, *case_dims = dims
    if all(d is None for d in dims):
        return select_n(which, *cases), None
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    if all(d == which_dim for d in case_dims):
        if np.shape(which) != np.shape(cases[0]):   # the unbatched `which` was a scalar
            which = structural.broadcast_in_dim(which, np.shape(cases[0]), [which_dim])
        return select_n(which, *cases), which_dim
    if np.ndim(which) == 0 and all(d is not None for d in case_dims):
        if all(d == case_dims[0] for d in case_dims[1:]):
            return select_n(which, *cases), case_dims[0]
        if all(np.shape(cases[0]) == np.shape(c) for c in cases):
            moved = [batching.moveaxis(c, d, case_dims[0])
                     for c, d in zip(cases[1:], case_dims[1:])]
            return select_n(which, cases[0], *moved), case_dims[0]
    if np.shape(which):
        which = batching.bdim_at_front(which, which_dim, size)
    if not all(np.shape(c) == () for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
    if 0 < np.ndim(which) < np.ndim(cases[0]):
        which = structural.broadcast_in_dim(which, np.shape(cases[0]), [0])
    if np.ndim(which) > np.ndim(cases[0]):
        cases = [structural.broadcast_in_dim(c, np.shape(which), ()) for c in cases]
    return select_n(which, *cases), 0


select_n_p = standard_primitive(_select_shape_rule, _select_dtype_rule, "select_n",
                                weak_type_rule=lambda which, *cases: all(
                                    c.weak_type for c in cases))
lowering.register_lowering(select_n_p, _select_n_lower)
ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose
batching.primitive_batchers[select_n_p] = _select_n_batch


def select_n(which, *cases):
    """Elementwise ``cases[which]``: ``which`` is boolean (two cases) or an integer in
    ``[0, len(cases))``, a scalar or of the cases' shape."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Elementwise ``on_true if pred else on_false`` (``select_n`` with the cases in
    the opposite order: case 0 is for False)."""
    return select_n_p.bind(pred, on_false, on_true)


def _clamp_shape_rule(min, operand, max):
    if min.shape and min.shape != operand.shape:
        raise TypeError("clamp requires min.shape == operand.shape or min.shape == (), "
                        f"got min.shape={min.shape}, operand.shape={operand.shape}.")
    if max.shape and max.shape != operand.shape:
        raise TypeError("clamp requires max.shape == operand.shape or max.shape == (), "
                        f"got max.shape={max.shape}, operand.shape={operand.shape}.")
    return operand.shape


def _clamp_lower(ctx, min, x, max):
    shape = ctx.avals_out[0].shape
    return hlo.clamp(*(multi_broadcast(v, a, shape)
                       for v, a in zip((min, x, max), ctx.avals_in)))


def _clamp_batch(args, dims):
    """Bounds may be scalars while the operand is batched; bring everything to a common
    layout with the batch axis in front, broadcasting what has to be."""
    min, x, max = args
    min_dim, x_dim, max_dim = dims
    size = next(np.shape(v)[d] for v, d in zip(args, dims) if d is not None)
    if min_dim == x_dim == max_dim:
        if np.shape(min) == np.shape(x) == np.shape(max) or \
                np.ndim(min) == np.ndim(max) == 0:
            return clamp(min, x, max), x_dim
        if np.ndim(min) == np.ndim(max) == 1:
            min = structural.broadcast_in_dim(min, np.shape(x), [min_dim])
            max = structural.broadcast_in_dim(max, np.shape(x), [max_dim])
            return clamp(min, x, max), x_dim
    elif np.ndim(min) == 0 and np.ndim(max) == 0 and x_dim is not None:
        return clamp(min, x, max), x_dim
    min = batching.bdim_at_front(min, min_dim, size) if np.shape(min) else min
    max = batching.bdim_at_front(max, max_dim, size) if np.shape(max) else max
    x = batching.bdim_at_front(x, x_dim, size) if np.shape(x) else x
    if np.ndim(min) == 0 and np.ndim(x) > 0:
        min = structural.broadcast(min, np.shape(x))
    if np.ndim(max) == 0 and np.ndim(x) > 0:
        max = structural.broadcast(max, np.shape(x))
    if 0 < np.ndim(min) < np.ndim(x):
        min = structural.broadcast_in_dim(min, np.shape(x), [0])
    if 0 < np.ndim(max) < np.ndim(x):
        max = structural.broadcast_in_dim(max, np.shape(x), [0])
    if np.ndim(min) > np.ndim(x):
        x = structural.broadcast(x, np.shape(min))
    return clamp(min, x, max), 0


clamp_p = standard_primitive(
    _clamp_shape_rule,
    lambda *avals: naryop_dtype_rule(lambda *d: d[0], [_any] * 3, "clamp", *avals),
    "clamp")
lowering.register_lowering(clamp_p, _clamp_lower)
ad.defjvp(clamp_p,
          lambda g, min, operand, max: select(bitwise_and(gt(min, operand), lt(min, max)),
                                              g, _zeros(operand)),
          lambda g, min, operand, max: select(bitwise_and(gt(operand, min),
                                                          lt(operand, max)),
                                              g, _zeros(operand)),
          lambda g, min, operand, max: select(lt(max, operand), g, _zeros(operand)))
batching.primitive_batchers[clamp_p] = _clamp_batch


def clamp(min, x, max):  # noqa: A002 - the lax names
    """Elementwise ``min(max(x, min), max)``; the bounds may be scalars."""
    return clamp_p.bind(min, x, max)


# ----------------------------------------------------------------------------------------
# Changing the element type
# ----------------------------------------------------------------------------------------

def _convert_lower(ctx, x, *, new_dtype, weak_type, sharding):
    """Complex to real keeps the real part; anything to bool is ``x != 0``."""
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if (dtypes.issubdtype(aval_in.dtype, np.complexfloating) and
            not dtypes.issubdtype(aval_out.dtype, np.complexfloating)):
        x = hlo.real(x)
        aval_in = aval_in.update(dtype=_complex_basetype(aval_in.dtype))
    if aval_out.dtype == np.bool_:
        x = _compare(x, lowering.full_like_aval(0, aval_in), "NE",
                     _compare_kind(aval_in.dtype))
    return lowering.convert(x, aval_out)


def _convert_jvp(t, ans, x, *, new_dtype, weak_type, sharding):
    """The tangent is converted too; to an integer type (float0 tangents) it is zero."""
    tangent_dtype = dtypes.tangent_dtype(new_dtype)
    if tangent_dtype == dtypes.float0:
        return ad.Zero.from_primal_value(ans)
    return convert_element_type_p.bind(t, new_dtype=tangent_dtype, weak_type=weak_type,
                                       sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    old = x.aval
    if type(ct) is ad.Zero:
        return [ad.Zero(old)]
    if dtypes.tangent_dtype(old.dtype) == dtypes.float0:
        return [ad.Zero(old.update(dtype=dtypes.float0, weak_type=False))]
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type,
                                        sharding=None)]


convert_element_type_p = standard_primitive(
    lambda x, **p: x.shape, lambda x, *, new_dtype, **p: np.dtype(new_dtype),
    "convert_element_type", weak_type_rule=lambda x, *, weak_type, **p: weak_type)
batching.defvectorized(convert_element_type_p)
lowering.register_lowering(convert_element_type_p, _convert_lower)
ad.defjvp2(convert_element_type_p, _convert_jvp)
ad.primitive_transposes[convert_element_type_p] = _convert_transpose
def _convert_fold(x, *, new_dtype, weak_type, sharding):
    """Converting a host scalar needs no device: fold it into a typed host constant."""
    host = type(x) in dtypes.python_scalar_dtypes or isinstance(x, (np.ndarray, np.generic))
    if not host or np.shape(x):
        return None
    value = np.asarray(x)
    if (dtypes.issubdtype(value.dtype, np.complexfloating) and
            not dtypes.issubdtype(new_dtype, np.complexfloating)):
        value = value.real
    converted = _host_convert(value, new_dtype)
    return None if converted is None else core.TypedNdArray(
        converted, core.ShapedArray((), new_dtype, weak_type))


staging.const_fold_rules[convert_element_type_p] = _convert_fold
staging.forwarding_rules[convert_element_type_p] = (
    lambda x, *, new_dtype, weak_type, sharding:
    0 if x.dtype == new_dtype and x.weak_type == weak_type and sharding is None else None)
pretty.pp_eqn_rules[convert_element_type_p] = pretty.hide_params(
    lambda p: {k: v for k, v in p.items() if k != "sharding"})


def convert_element_type(operand, new_dtype):
    """Cast ``operand`` to ``new_dtype`` (the result is not weakly typed)."""
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type")
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _host_convert(value, new_dtype, staging_now=True):
    """A Python or NumPy scalar converted on the host, or None where only the device
    can convert it (out-of-range values, float0). NaN/inf to an integer is NumPy's
    answer while staging (JAX's constant folding gives it: ``max(x, initial=-inf)`` on
    ints shows ``-2147483648:i32[]``), XLA's (saturating) when running eagerly."""
    host = np.asarray(value)
    if new_dtype == dtypes.float0:
        return None
    if (dtypes.issubdtype(host.dtype, np.inexact) and not np.isfinite(host) and
            dtypes.issubdtype(new_dtype, np.integer)):
        return host.astype(new_dtype) if staging_now else None
    try:   # Python ints may exceed int64: converted from NumPy's object array
        return (host.astype(new_dtype) if type(value) is int
                else np.asarray(value, dtype=new_dtype))
    except OverflowError:
        return None


def _host_scalar_constant(value, new_dtype, weak_type):
    """``value`` converted on the host (None where only the device can convert it).

    Running eagerly (``core.constants_are_eager``), the result is a device array, as
    every lax function returns one. While staging it is a constant the trace writes as a
    literal: a Python scalar when the result is weakly typed (``1.0`` is a weak float32),
    else a NumPy scalar, or (for a weak type no Python scalar stands for, e.g. a weak
    bool or bfloat16) a host array carrying its aval."""
    converted = _host_convert(value, new_dtype, staging_now=not core.constants_are_eager())
    if converted is None:
        return None
    aval = core.ShapedArray((), new_dtype, weak_type)
    if core.constants_are_eager():
        return runtime.device_put(converted, aval=aval)
    typ = _python_scalar_type(new_dtype) if weak_type else None
    if weak_type and typ is None:       # e.g. a weak bool: a host constant with its aval
        return staging.lift(core.TypedNdArray(converted, aval))
    return staging.lift(typ(converted.item()) if typ is not None else converted)


def _convert_element_type(operand, new_dtype=None, weak_type=False):
    """Cast ``operand`` to ``new_dtype`` with weak type ``weak_type``: what
    ``convert_element_type``, ``full`` and jnp's type promotion use.

    Scalars known while tracing (Python and NumPy scalars) are converted right here into
    constants of the new type, so they stay literals in a jaxpr (``2.0:f32[]``) rather
    than becoming ``convert_element_type`` equations (JAX gets there by constant
    folding); a staging trace lifts them into tracers, so arithmetic on them is staged
    too. An array or tracer already of the requested type is returned as is."""
    if isinstance(operand, core.Tracer):
        # The common case while tracing (jnp functions convert every result to its
        # promoted type, which it nearly always has already): decided by the aval alone.
        aval = operand.aval
        dtype = dtypes.canonicalize_dtype(aval.dtype)
        if (dtype == aval.dtype and (new_dtype is None or dtype == new_dtype) and
                aval.weak_type == bool(weak_type) and operand.to_concrete_value() is None):
            return operand
    if hasattr(operand, "__jax_array__"):
        operand = operand.__jax_array__()
    old_dtype = dtypes.dtype(operand, canonicalize=True)
    new_dtype = old_dtype if new_dtype is None else np.dtype(new_dtype)
    weak_type = bool(weak_type)
    same_type = old_dtype == new_dtype and dtypes.is_weakly_typed(operand) == weak_type
    if (dtypes.issubdtype(old_dtype, np.complexfloating) and
            not dtypes.issubdtype(new_dtype, np.complexfloating)):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
    if type(operand) in dtypes.python_scalar_dtypes or isinstance(operand, np.generic) or (
            isinstance(operand, np.ndarray) and operand.ndim == 0):
        if (same_type and type(operand) in dtypes.python_scalar_dtypes and
                not core.constants_are_eager()):
            return staging.lift(operand)
        constant = _host_scalar_constant(operand, new_dtype, weak_type)
        if constant is not None:
            return constant
    elif same_type and not isinstance(operand, np.ndarray) and not (
            isinstance(operand, core.Tracer) and operand.to_concrete_value() is not None):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type,
                                       sharding=None)


def _bitcast_shape_rule(operand, *, new_dtype):
    """Same-size types keep the shape; a narrower type adds a trailing axis of pieces, a
    wider one consumes the trailing axis."""
    old_bits = np.dtype(operand.dtype).itemsize * 8
    new_bits = np.dtype(new_dtype).itemsize * 8
    if old_bits == new_bits:
        return operand.shape
    if old_bits > new_bits:
        return (*operand.shape, old_bits // new_bits)
    dim_size = operand.shape[-1] if operand.shape else 1
    if dim_size * old_bits != new_bits:
        raise ValueError(f"Attempting to convert array of shape {operand.shape} from "
                         f"{operand.dtype} of size {old_bits} bits to {new_dtype} of size "
                         f"{new_bits}, bits but {dim_size} * {old_bits} != {new_bits}")
    return operand.shape[:-1]


def _bitcast_dtype_rule(operand, *, new_dtype):
    old_dtype = operand.dtype
    if any(dtypes.issubdtype(d, t) for d in (old_dtype, new_dtype)
           for t in (np.bool_, np.complexfloating)) and old_dtype != new_dtype:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={old_dtype}, new_dtype={new_dtype!r}. Consider using the "
                        "arr.view() method instead.")
    return new_dtype


bitcast_convert_type_p = standard_primitive(_bitcast_shape_rule, _bitcast_dtype_rule,
                                            "bitcast_convert_type",
                                            weak_type_rule=lambda *a, **p: False)
batching.defvectorized(bitcast_convert_type_p)
lowering.register_lowering(bitcast_convert_type_p, lambda ctx, x, *, new_dtype: (
    hlo.bitcast_convert(lowering.aval_to_ir_type(ctx.avals_out[0]), x)))
_zero_jvp(bitcast_convert_type_p)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype``."""
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "bitcast_convert_type")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


def _reduce_precision_shape_rule(operand, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got "
                         f"{exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return operand.shape


def _reduce_precision_dtype_rule(operand, **params):
    return unop_dtype_rule(lambda d: d, _float, "reduce_precision", operand)


reduce_precision_p = standard_primitive(_reduce_precision_shape_rule,
                                        _reduce_precision_dtype_rule, "reduce_precision")
batching.defvectorized(reduce_precision_p)
lowering.register_lowering(reduce_precision_p, lambda ctx, x, *, exponent_bits,
                           mantissa_bits: hlo.reduce_precision(x, exponent_bits,
                                                               mantissa_bits))
ad.deflinear(reduce_precision_p, lambda t, **params: [reduce_precision_p.bind(t, **params)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round floats to a narrower format (e.g. 5 exponent and 10 mantissa bits: float16)
    while keeping their dtype."""
    exponent_bits = core.concrete_or_error(
        operator.index, exponent_bits, "exponent_bits argument of lax.reduce_precision")
    mantissa_bits = core.concrete_or_error(
        operator.index, mantissa_bits, "mantissa_bits argument of lax.reduce_precision")
    return reduce_precision_p.bind(operand, exponent_bits=exponent_bits,
                                   mantissa_bits=mantissa_bits)


# ----------------------------------------------------------------------------------------
# Gradients: stopping them, and adding them up
# ----------------------------------------------------------------------------------------

stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)
lowering.register_lowering(stop_gradient_p, lambda ctx, x: x)
# The primal is stopped again so that every enclosing differentiation sees a constant.
ad.primitive_jvps[stop_gradient_p] = lambda primals, tangents: (
    stop_gradient(primals[0]), ad.Zero.from_primal_value(primals[0]))
batching.primitive_batchers[stop_gradient_p] = lambda args, dims: (
    stop_gradient(args[0]), dims[0])


def stop_gradient(x):
    """The identity, except that derivatives treat the result as a constant. Works on
    a pytree of arrays."""
    return tree_util.tree_map(_stop_gradient, x)


def _stop_gradient(x):
    core.typeof(x)          # as JAX, each leaf is typed first (jax.typeof's error)
    return stop_gradient_p.bind(x)


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays, which the compiler may not optimize across:
    what is computed before it is not fused with, or recomputed after, what uses it
    (rematerialization relies on this). Derivatives and batching pass through it."""
    flat, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*flat))


def _optimization_barrier_lower(ctx, *args):
    return list(hlo.OptimizationBarrierOp(list(args)).results)


optimization_barrier_p = core.Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True
optimization_barrier_p.def_impl(
    lambda *args: dispatch.apply_primitive(optimization_barrier_p, *args))
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))
lowering.register_lowering(optimization_barrier_p, _optimization_barrier_lower)
# Primals and tangents (cotangents when transposing) each go through a barrier of their own.
ad.primitive_jvps[optimization_barrier_p] = lambda primals, tangents: (
    optimization_barrier(list(primals)),
    optimization_barrier([ad.instantiate_zeros(t) for t in tangents]))
ad.primitive_transposes[optimization_barrier_p] = lambda cts, *args: optimization_barrier(
    [ad.instantiate_zeros(ct) for ct in cts])
batching.primitive_batchers[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), dims)


def _add_any_batch(args, dims):
    """Both operands have one type, so only the batch axes need to agree."""
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return add_any(x, y), dx
    if dx is None:
        return add_any(batching.broadcast(x, np.shape(y)[dy], dy), y), dy
    if dy is None:
        return add_any(x, batching.broadcast(y, np.shape(x)[dx], dx)), dx
    return add_any(batching.moveaxis(x, dx, dy), y), dy


add_any_p = core.Primitive("add_any")
add_any_p.def_impl(lambda x, y: add(x, y))
add_any_p.def_abstract_eval(lambda x, y: x)
lowering.register_lowering(add_any_p, lambda ctx, x, y: hlo.add(x, y))
ad.deflinear2(add_any_p, lambda ct, x, y: [ct, ct])
batching.primitive_batchers[add_any_p] = _add_any_batch


def add_any(x, y):
    """Add two tangents or cotangents of one type (JAX's ``add_any``, printed as such)."""
    return add_any_p.bind(x, y)

