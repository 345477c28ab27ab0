"""Transcendental and special functions: exponentials and logarithms, trigonometric
and hyperbolic functions, powers and roots, and ``erf``, ``lgamma``, ``digamma``,
``polygamma``, ``zeta``; with the ``accuracy`` parameter some of them take.

The JVP rules use the same operations in the same order as JAX's, so ``make_jaxpr`` of a
``grad`` prints the same equations (e.g. tanh' is ``(g + g*ans) * (1 - ans)``).
Read next: lax/elementwise.py (the index of all elementwise families), then
lax/reductions.py.
"""
from __future__ import annotations

import enum

import numpy as np

from glassjax import dtypes, pretty
from glassjax.interpreters import ad
from glassjax.lax.arithmetic import (_maybe_broadcast, _replace_zero, add, complex, div,
                                     imag, integer_pow, mul, neg, real, sub)
from glassjax.lax.comparison import eq, select
from glassjax.lax.conversion import _const, convert_element_type
from glassjax.lax.structural import _one, _ones, _zeros
from glassjax.lax.utils import (_float, _hide_none, _inexact, _int, _num, broadcast_operands,
                                naryop, unop)
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo
from jaxlib.mlir.dialects import chlo


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


def _accurate(op_name, complex_expr=None):
    """The rule lowering to the op named ``op_name``, its ``result_accuracy`` attribute
    set from the ``accuracy`` param (when not None); with ``complex_expr``, complex
    inputs are lowered as that expression in other lax ops instead. (One flat function:
    programs lower many of these ops.)"""
    complex_rule = None if complex_expr is None else lowering.lower_fun(complex_expr)

    def rule(ctx, x, *, accuracy):
        if complex_rule is not None and ctx.avals_in[0].dtype.kind == "c":
            return complex_rule(ctx, x)
        return lowering.result(ctx, op_name, [x], None if accuracy is None else
                               {"result_accuracy": _accuracy_attr(accuracy)})
    return rule


def _accuracy_unop(name, op_name, accepted=_inexact, complex_expr=None):
    """A unary op with an ``accuracy`` param (hidden in jaxprs when None), lowered to the
    op named ``op_name`` (see ``_accurate``; with ``None`` by a rule the caller
    registers)."""
    prim = unop(name, accepted, None)
    if op_name is not None:
        lowering.register_lowering(prim, _accurate(op_name, complex_expr), single_op=op_name)
    pretty.pp_eqn_rules[prim] = _hide_none("accuracy")
    return prim


# ----------------------------------------------------------------------------------------
# Exponentials and logarithms
# ----------------------------------------------------------------------------------------

exp_p = _accuracy_unop("exp", "stablehlo.exponential")
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


log_p = _accuracy_unop("log", "stablehlo.log")
ad.defjvp(log_p, lambda g, x, accuracy: div(g, x))


def log(x, *, accuracy=None):
    """Elementwise natural logarithm."""
    return log_p.bind(x, accuracy=accuracy)


expm1_p = _accuracy_unop("expm1", "stablehlo.exponential_minus_one")
ad.defjvp2(expm1_p, lambda g, ans, x, accuracy: (
    mul(g, exp(x, accuracy=accuracy)) if accuracy is AccuracyMode.HIGHEST
    else mul(g, add(ans, _one(ans)))))


def expm1(x, *, accuracy=None):
    """Elementwise e**x - 1, accurate for small x."""
    return expm1_p.bind(x, accuracy=accuracy)


log1p_p = _accuracy_unop("log1p", "stablehlo.log_plus_one")
ad.defjvp(log1p_p, lambda g, x, accuracy: div(g, add(x, _one(x))))


def log1p(x, *, accuracy=None):
    """Elementwise log(1 + x), accurate for small x."""
    return log1p_p.bind(x, accuracy=accuracy)


tanh_p = _accuracy_unop("tanh", "stablehlo.tanh")
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


sin_p = _accuracy_unop("sin", "stablehlo.sine", complex_expr=_sin_complex)
ad.defjvp(sin_p, lambda g, x, accuracy: mul(g, cos(x, accuracy=accuracy)))


def sin(x, *, accuracy=None):
    """Elementwise sine."""
    return sin_p.bind(x, accuracy=accuracy)


cos_p = _accuracy_unop("cos", "stablehlo.cosine", complex_expr=_cos_complex)
ad.defjvp(cos_p, lambda g, x, accuracy: neg(mul(g, sin(x, accuracy=accuracy))))


def cos(x, *, accuracy=None):
    """Elementwise cosine."""
    return cos_p.bind(x, accuracy=accuracy)


tan_p = _accuracy_unop("tan", "stablehlo.tan")
ad.defjvp2(tan_p, lambda g, ans, x, accuracy: mul(g, add(_const(x, 1), square(ans))))


def tan(x, *, accuracy=None):
    """Elementwise tangent."""
    return tan_p.bind(x, accuracy=accuracy)


asin_p = unop("asin", _inexact, "chlo.asin")
ad.defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(_const(x, 1), square(x)))))


def asin(x):
    """Elementwise arc sine."""
    return asin_p.bind(x)


acos_p = unop("acos", _inexact, "chlo.acos")
ad.defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(_const(x, 1), square(x))))))


def acos(x):
    """Elementwise arc cosine."""
    return acos_p.bind(x)


atan_p = unop("atan", _inexact, "chlo.atan")
ad.defjvp(atan_p, lambda g, x: div(g, add(_const(x, 1), square(x))))


def atan(x):
    """Elementwise arc tangent."""
    return atan_p.bind(x)


atan2_p = naryop("atan2", [_inexact, _inexact], "stablehlo.atan2")
ad.defjvp(atan2_p,
          lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),
          lambda g, x, y: mul(g, div(neg(x), add(square(x), square(y)))))


def atan2(x, y):
    """Elementwise arc tangent of x / y, in the quadrant of (y, x)."""
    return atan2_p.bind(x, y)


sinh_p = unop("sinh", _inexact, "chlo.sinh")
ad.defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


cosh_p = unop("cosh", _inexact, "chlo.cosh")
ad.defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


asinh_p = unop("asinh", _inexact, "chlo.asinh")
ad.defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _one(x)))))


def asinh(x):
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


acosh_p = unop("acosh", _inexact, "chlo.acosh")
ad.defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _one(x)))))


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


atanh_p = unop("atanh", _inexact, "chlo.atanh")
ad.defjvp(atanh_p, lambda g, x: mul(reciprocal(add(_one(x), x)),
                                    div(g, sub(_one(x), x))))


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


# ----------------------------------------------------------------------------------------
# Powers and roots
# ----------------------------------------------------------------------------------------

sqrt_p = _accuracy_unop("sqrt", "stablehlo.sqrt")
ad.defjvp2(sqrt_p, lambda g, ans, x, accuracy: mul(g, div(_const(x, 0.5), ans)))


def sqrt(x, *, accuracy=None):
    """Elementwise square root."""
    return sqrt_p.bind(x, accuracy=accuracy)


rsqrt_p = _accuracy_unop("rsqrt", "stablehlo.rsqrt")
ad.defjvp2(rsqrt_p, lambda g, ans, x, accuracy: mul(g, mul(_const(x, -0.5), div(ans, x))))


def rsqrt(x, *, accuracy=None):
    """Elementwise reciprocal square root: 1 / sqrt(x)."""
    return rsqrt_p.bind(x, accuracy=accuracy)


cbrt_p = _accuracy_unop("cbrt", "stablehlo.cbrt", accepted=_float)
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
    return hlo.power(*broadcast_operands(ctx, (x, y), (x_aval, y_aval)))


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


# ----------------------------------------------------------------------------------------
# Special functions
# ----------------------------------------------------------------------------------------

erf_p = unop("erf", _float, "chlo.erf")
ad.defjvp(erf_p, lambda g, x: mul(_const(x, 2 / np.sqrt(np.pi)),
                                  mul(g, exp(neg(square(x))))))


def erf(x):
    """Elementwise error function."""
    return erf_p.bind(x)


erfc_p = unop("erfc", _float, "chlo.erfc")
ad.defjvp(erfc_p, lambda g, x: mul(_const(x, -2 / np.sqrt(np.pi)),
                                   mul(g, exp(neg(square(x))))))


def erfc(x):
    """Elementwise complementary error function: 1 - erf(x)."""
    return erfc_p.bind(x)


erf_inv_p = unop("erf_inv", _float, "chlo.erf_inv")
ad.defjvp2(erf_inv_p, lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2),
                                            mul(g, exp(square(ans)))))


def erf_inv(x):
    """Elementwise inverse of the error function."""
    return erf_inv_p.bind(x)


lgamma_p = unop("lgamma", _float, "chlo.lgamma")
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))


def lgamma(x):
    """Elementwise log of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


digamma_p = unop("digamma", _float, "chlo.digamma")
ad.defjvp(digamma_p, lambda g, x: mul(g, polygamma(_const(x, 1), x)))


def digamma(x):
    """Elementwise digamma: the derivative of lgamma."""
    return digamma_p.bind(x)


def _polygamma_jvp_m(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


polygamma_p = naryop("polygamma", [_float, _float], "chlo.polygamma")
ad.defjvp(polygamma_p, _polygamma_jvp_m,
          lambda g, m, x: mul(g, polygamma(add(m, _const(m, 1)), x)))


def polygamma(m, x):
    """Elementwise polygamma: the m-th derivative of digamma (m a whole number)."""
    return polygamma_p.bind(m, x)


zeta_p = naryop("zeta", [_float, _float], "chlo.zeta")


def zeta(x, q):
    """Elementwise Hurwitz zeta function: the sum over n >= 0 of (n + q)**-x."""
    return zeta_p.bind(x, q)
