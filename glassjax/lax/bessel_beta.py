"""The exponentially scaled modified Bessel functions ``bessel_i0e``/``bessel_i1e`` and
the regularized incomplete beta function ``betainc``.

``bessel_i1e`` is a CHLO instruction. XLA has none for the other two, so (as JAX does)
they lower to programs of lax operations: ``bessel_i0e`` evaluates Cephes' Chebyshev
expansions (one for ``|x| <= 8``, one in ``32/|x|`` beyond), ``betainc`` sums the
continued fraction of DLMF 8.17.22 by the modified Lentz method in a ``while_loop``.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes
from glassjax.interpreters import ad
from glassjax.lax.control_flow import while_loop
from glassjax.lax.elementwise import (abs, add, bitwise_and, bitwise_not, bitwise_or,
                                      convert_element_type, div, eq, exp, ge, gt, lgamma,
                                      log, log1p, lt, mul, ne, reciprocal, select, sign,
                                      sqrt, sub)
from glassjax.lax.reductions import reduce_or
from glassjax.lax.structural import broadcast_in_dim, broadcast_shapes, full_like
from glassjax.lax.utils import _float, naryop, unop
from glassjax.xla import lowering


def _full_like(x, value):
    return full_like(x, value)


def _chebyshev(x, coefficients):
    """Clenshaw's recurrence for a Chebyshev series (Cephes' ``chbevl``)."""
    b0 = b1 = b2 = _full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + _full_like(x, c)
    return 0.5 * (b0 - b2)


# Cephes' coefficients for i0e; float32 uses the tail of each float64 series.
_I0E_A = [-4.41534164647933937950E-18, 3.33079451882223809783E-17,
          -2.43127984654795469359E-16, 1.71539128555513303061E-15,
          -1.16853328779934516808E-14, 7.67618549860493561688E-14,
          -4.85644678311192946090E-13, 2.95505266312963983461E-12,
          -1.72682629144155570723E-11, 9.67580903537323691224E-11,
          -5.18979560163526290666E-10, 2.65982372468238665035E-9,
          -1.30002500998624804212E-8, 6.04699502254191894932E-8,
          -2.67079385394061173391E-7, 1.11738753912010371815E-6,
          -4.41673835845875056359E-6, 1.64484480707288970893E-5,
          -5.75419501008210370398E-5, 1.88502885095841655729E-4,
          -5.76375574538582365885E-4, 1.63947561694133579842E-3,
          -4.32430999505057594430E-3, 1.05464603945949983183E-2,
          -2.37374148058994688156E-2, 4.93052842396707084878E-2,
          -9.49010970480476444210E-2, 1.71620901522208775349E-1,
          -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [-7.23318048787475395456E-18, -4.83050448594418207126E-18,
          4.46562142029675999901E-17, 3.46122286769746109310E-17,
          -2.82762398051658348494E-16, -3.42548561967721913462E-16,
          1.77256013305652638360E-15, 3.81168066935262242075E-15,
          -9.55484669882830764870E-15, -4.15056934728722208663E-14,
          1.54008621752140982691E-14, 3.85277838274214270114E-13,
          7.18012445138366623367E-13, -1.79417853150680611778E-12,
          -1.32158118404477131188E-11, -3.14991652796324136454E-11,
          1.18891471078464383424E-11, 4.94060238822496958910E-10,
          3.39623202570838634515E-9, 2.26666899049817806459E-8,
          2.04891858946906374183E-7, 2.89137052083475648297E-6,
          6.88975834691682398426E-5, 3.36911647825569408990E-3,
          8.04490411014108831608E-1]
_I0E_32 = (_I0E_A[-18:], _I0E_B[-7:])


def _i0e_impl(x):
    dtype = x.dtype
    if dtype != np.float64 and dtype != np.float32:
        # 16-bit floats: the coefficients need float32 precision.
        return convert_element_type(_i0e_impl(convert_element_type(x, np.float32)), dtype)
    coeffs_a, coeffs_b = (_I0E_A, _I0E_B) if dtype == np.float64 else _I0E_32
    x = abs(x)
    small = _chebyshev(_full_like(x, 0.5) * x - _full_like(x, 2.0), np.array(coeffs_a))
    large = div(_chebyshev(_full_like(x, 32.0) / x - _full_like(x, 2.0),
                           np.array(coeffs_b)), sqrt(x))
    return select(x <= 8.0, small, large)


bessel_i0e_p = unop("bessel_i0e", _float, None)
lowering.register_lowering(bessel_i0e_p, lowering.lower_fun(_i0e_impl))
ad.defjvp2(bessel_i0e_p, lambda g, y, x: g * (bessel_i1e(x) - sign(x) * y))


def bessel_i0e(x):
    """``exp(-|x|) I0(x)``: the modified Bessel function of order 0, scaled so that it
    does not overflow."""
    return bessel_i0e_p.bind(x)


def _bessel_i1e_jvp(g, y, x):
    """``i1e' = i0e - i1e (sign(x) + 1/x)``, whose limit at 0 is 1/2."""
    eps = dtypes.finfo(x.dtype).eps
    x_is_not_tiny = abs(x) > eps
    safe_x = select(x_is_not_tiny, x, _full_like(x, eps))
    dy_dx = bessel_i0e(safe_x) - y * (sign(safe_x) + reciprocal(safe_x))
    return g * select(x_is_not_tiny, dy_dx, _full_like(x, 0.5))


bessel_i1e_p = unop("bessel_i1e", _float, "chlo.bessel_i1e")
ad.defjvp2(bessel_i1e_p, _bessel_i1e_jvp)


def bessel_i1e(x):
    """``exp(-|x|) I1(x)``: the scaled modified Bessel function of order 1."""
    return bessel_i1e_p.bind(x)


def _lentz(num_iterations, small, threshold, numerator, denominator):
    """The modified Lentz evaluation of ``b0 + a1/(b1 + a2/(b2 + ...))`` with the n-th
    partial numerator ``numerator(n)`` and denominator ``denominator(n)``, iterated
    while any lane changes by more than ``threshold`` (XLA's math.cc algorithm)."""

    def cond(values):
        iteration, unconverged = values[0], values[1]
        return bitwise_and(lt(iteration, num_iterations), unconverged)

    def body(values):
        iteration, _, c_prev, d_prev, h_prev = values
        a, b = numerator(iteration), denominator(iteration)
        small_constant = _full_like(b, small)
        c = add(b, div(a, c_prev))
        c = select(lt(abs(c), small_constant), small_constant, c)
        d = add(b, mul(a, d_prev))
        d = reciprocal(select(lt(abs(d), small_constant), small_constant, d))
        delta = mul(c, d)
        unconverged = ge(abs(sub(delta, _full_like(delta, 1.0))), threshold)
        return [iteration + 1, reduce_or(unconverged, tuple(range(unconverged.ndim))),
                c, d, mul(h_prev, delta)]

    b0 = denominator(0)
    h = select(lt(abs(b0), small), _full_like(b0, small), b0)
    return while_loop(cond, body, [1, True, h, _full_like(h, 0), h])[4]


def _betainc_impl(a, b, x):
    dtype = a.dtype
    shape = a.shape
    one, two = _full_like(a, 1), _full_like(a, 2.0)

    def numerator(iteration):
        """DLMF 8.17.23 (the first partial numerator is one)."""
        n = broadcast_in_dim(iteration, shape, ())
        m = (n - 1) // 2
        m_is_zero = eq(m, _full_like(m, 0))
        m = convert_element_type(m, dtype)
        # For m == 0 this form avoids cancellation when a is tiny.
        zero_numerator = -(a + b) * x / (a + one)
        even = select(m_is_zero, zero_numerator,
                      -(a + m) * (a + b + m) * x / ((a + two * m) * (a + two * m + one)))
        odd = m * (b - m) * x / ((a + two * m - one) * (a + two * m))
        numerator = select(eq(n % 2, _full_like(n, 0)), even, odd)
        return select(eq(n, _full_like(n, 1)), _full_like(x, 1.0), numerator)

    def denominator(iteration):
        n = broadcast_in_dim(iteration, shape, ())
        return select(eq(n, _full_like(n, 0)), _full_like(x, 0), _full_like(x, 1))

    # The fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use the
    # symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
    converges_rapidly = lt(x, (a + one) / (a + b + two))
    a_orig, b_orig, x_orig = a, b, x
    a = select(converges_rapidly, a, b_orig)
    b = select(converges_rapidly, b_orig, a_orig)
    x = select(converges_rapidly, x, sub(_full_like(x, 1), x))
    tol = np.array(dtypes.finfo(dtype).eps / 2, dtype)
    continued_fraction = _lentz(200 if dtype == np.float32 else 600, tol, tol,
                                numerator, denominator)
    # For tiny a, a * Gamma(a) = Gamma(a + 1) -> 1 avoids dividing by zero.
    very_small = np.array(dtypes.finfo(dtype).tiny * 2, dtype)
    lbeta_small_a = lgamma(b) - lgamma(a + b)
    lbeta = lgamma(a) + lbeta_small_a
    factor = select(lt(a, _full_like(a, very_small)), exp(log1p(-x) * b - lbeta_small_a),
                    exp(log(x) * a + log1p(-x) * b - lbeta) / a)
    result = continued_fraction * factor
    result = select(converges_rapidly, result, sub(_full_like(result, 1), result))
    # Edge cases: outside the domain NaN; the degenerate parameters as scipy has them.
    a, b, x = a_orig, b_orig, x_orig
    is_nan = bitwise_or(bitwise_or(ne(a, a), ne(b, b)), ne(x, x))
    a_is_zero = bitwise_or(eq(a, _full_like(a, 0)), eq(b, _full_like(b, np.inf)))
    b_is_zero = bitwise_or(eq(b, _full_like(b, 0)), eq(a, _full_like(a, np.inf)))
    x_is_zero, x_is_one = eq(x, _full_like(x, 0)), eq(x, _full_like(x, 1))
    result_is_zero = bitwise_or(bitwise_and(b_is_zero, bitwise_not(x_is_one)),
                                bitwise_and(a_is_zero, x_is_zero))
    result_is_one = bitwise_or(bitwise_and(a_is_zero, bitwise_not(x_is_zero)),
                               bitwise_and(b_is_zero, x_is_one))
    result_is_nan = bitwise_or(bitwise_or(lt(a, _full_like(a, 0)), lt(b, _full_like(b, 0))),
                               bitwise_or(lt(x, _full_like(x, 0)), gt(x, _full_like(x, 1))))
    result_is_nan = bitwise_or(result_is_nan, bitwise_or(
        bitwise_and(a_is_zero, b_is_zero), is_nan))
    result = select(result_is_zero, _full_like(result, 0), result)
    result = select(result_is_one, _full_like(result, 1), result)
    return select(result_is_nan, _full_like(result, np.nan), result)


def _up_and_broadcast(impl):
    """``impl`` on operands broadcast to one shape, in float32 for 16-bit floats."""
    def lowered(*args):
        shape = broadcast_shapes(*(v.shape for v in args))
        args = [broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))
                for v in args]
        dtype = args[0].dtype
        if dtype in (dtypes.bfloat16, np.dtype(np.float16)):
            out = impl(*(convert_element_type(v, np.float32) for v in args))
            return convert_element_type(out, dtype)
        return impl(*args)
    return lowered


def _betainc_grad_ab(g, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_grad_x(g, a, b, x):
    """``d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b)``."""
    lbeta = lgamma(a) + lgamma(b) - lgamma(a + b)
    return exp((b - 1) * log1p(-x) + (a - 1) * log(x) - lbeta) * g


regularized_incomplete_beta_p = naryop("regularized_incomplete_beta",
                                       [_float, _float, _float], None)
lowering.register_lowering(regularized_incomplete_beta_p,
                           lowering.lower_fun(_up_and_broadcast(_betainc_impl)))
ad.defjvp(regularized_incomplete_beta_p, _betainc_grad_ab, _betainc_grad_ab,
          _betainc_grad_x)


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    return regularized_incomplete_beta_p.bind(a, b, x)
