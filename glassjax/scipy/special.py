"""``glassjax.scipy.special``: special functions as ``jax.scipy.special``.

Most are one lax primitive after dtype promotion (``erf``, ``gammaln``, ``digamma``...), the
XLA/CHLO kernels doing the numerics. The rest are compositions written the way JAX writes
them -- a ``custom_jvp`` where the naive derivative would be NaN or inaccurate (``xlogy`` at
0, ``logit``, ``log_ndtr`` in the far tail), rational approximations from Cephes for the
normal quantile (``ndtri``) -- so values and jaxprs match JAX's.
"""
from __future__ import annotations

import math
import operator
from fractions import Fraction
from functools import partial

import numpy as np

from glassjax import core, dtypes, lax, nn
from glassjax import numpy as jnp
from glassjax.ad_api import jvp
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.nn.special import logsumexp
from glassjax.numpy.util import const as _const
from glassjax.numpy.util import (promote_args_complex, promote_args_inexact, promote_dtypes,
                                 promote_dtypes_inexact)
from glassjax.vmap_api import vmap

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p",
           "comb", "dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1",
           "expi", "expit", "expn", "factorial", "fresnel", "gamma", "gammainc", "gammaincc",
           "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "kl_div",
           "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln",
           "ndtr", "ndtri", "owens_t", "poch", "polygamma", "rel_entr", "sici", "softmax", "sph_harm_y",
           "spence", "wofz", "xlog1py", "xlogy", "zeta"]


def _promote_inexact(name, *args):
    """``promote_args_inexact`` with every result an array (a Python scalar argument
    stays a Python scalar through glassjax's promotion)."""
    return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]


# ----------------------------------------------------------------------------------------
# One primitive each
# ----------------------------------------------------------------------------------------

def gammaln(x):
    """``log|Gamma(x)|``."""
    x, = _promote_inexact("gammaln", x)
    return lax.lgamma(x)


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x = _promote_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = _promote_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def digamma(x):
    """``d/dx log Gamma(x)``."""
    x, = _promote_inexact("digamma", x)
    return lax.digamma(x)


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` (``n`` an integer)."""
    if not dtypes.issubdtype(dtypes.dtype(n), np.integer):
        raise ValueError("Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{dtypes.dtype(n)}.")
    n_arr, x_arr = _promote_inexact("polygamma", n, x)
    if dtypes.issubdtype(x_arr.dtype, np.complexfloating):
        raise ValueError("polygamma does not support complex-valued inputs.")
    return lax.polygamma(n_arr, x_arr)


def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    x, = _promote_inexact("erf", x)
    return lax.erf(x)


def erfc(x):
    """``1 - erf(x)``, accurate where ``erf(x)`` is close to 1."""
    x, = _promote_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x):
    """The inverse of ``erf`` on (-1, 1)."""
    x, = _promote_inexact("erfinv", x)
    return lax.erf_inv(x)


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    x, = _promote_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def logit(x):
    """``log(x / (1 - x))``, the inverse of ``expit``; its derivative is written
    directly as ``1 / (x (1 - x))``."""
    x, = _promote_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


def softmax(x, /, *, axis=None):
    """``jax.nn.softmax`` with SciPy's default: normalize over all axes."""
    return nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``jax.nn.log_softmax`` with SciPy's default: normalize over all axes."""
    return nn.log_softmax(x, axis=axis)


# ----------------------------------------------------------------------------------------
# x log y and entropy: 0 * log 0 is 0, and the derivative avoids 0 * inf
# ----------------------------------------------------------------------------------------

@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    x, y = _promote_inexact("xlogy", x, y)
    return jnp.where((x != 0.) | jnp.isnan(y), lax.mul(x, lax.log(y)), jnp.zeros_like(x))


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlogy(x, y)
    return result, (x_dot * lax.log(y) + y_dot * x / y).astype(result.dtype)


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    x, y = _promote_inexact("xlog1py", x, y)
    return jnp.where((x != 0.) | jnp.isnan(y), lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlog1py(x, y)
    return result, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(result.dtype)


@custom_jvp
def _xlogx(x):
    """``x * log(x)`` with the derivative ``log(x) + 1`` (one term, not two)."""
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def entr(x):
    """The elementwise entropy ``-x log x`` (0 at 0, -inf for negative x)."""
    x, = _promote_inexact("entr", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("entr does not support complex-valued inputs.")
    return lax.select(lax.lt(x, _const(x, 0)), lax.full_like(x, -np.inf),
                      lax.neg(_xlogx(x)))


# ----------------------------------------------------------------------------------------
# Gamma and beta functions
# ----------------------------------------------------------------------------------------

def _algdiv(a, b):
    """``log(Gamma(b) / Gamma(a + b))`` for ``b >= 8`` (and ``a <= b``), from an
    asymptotic series (CDFLIB's ``algdiv``), avoiding the cancellation between two huge
    lgammas."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """``log|B(a, b)|``: ``lgamma(a) + lgamma(b) - lgamma(a + b)``, with the last two
    replaced by ``_algdiv`` once the larger argument reaches 8."""
    a, b = _promote_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d``:
    ``d (d - 1) / 4 * log(pi) + sum_j gammaln(a - j / 2)`` for ``j < d``."""
    d = core.concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = _promote_inexact("multigammaln", a, d)
    constant = lax.mul(lax.mul(lax.mul(_const(a, 0.25), d_), lax.sub(d_, _const(a, 1))),
                       lax.log(_const(a, np.pi)))
    b = lax.div(jnp.arange(d, dtype=d_.dtype), _const(a, 2))
    res = jnp.sum(gammaln(jnp.expand_dims(a, axis=-1)
                          - jnp.expand_dims(b, axis=tuple(range(a.ndim)))), axis=-1)
    return res + constant


# ----------------------------------------------------------------------------------------
# Hurwitz zeta
# ----------------------------------------------------------------------------------------

def _bernoulli_even(count):
    """B_2, B_4, ..., B_2count as exact fractions (Akiyama-Tanigawa algorithm)."""
    n_max = 2 * count
    numbers, row = [], []
    for m in range(n_max + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return numbers[2::2]


# (2k)! / B_2k for k = 1..16: the coefficients of the Euler-Maclaurin correction terms.
_EULER_MACLAURIN_COEFS = np.array([float(math.factorial(2 * k) / b)
                                   for k, b in enumerate(_bernoulli_even(16), start=1)])


@custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_{n >= 0} (n + q)**-x``."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = _promote_inexact("zeta", x, q)
    return lax.zeta(x, q)


def _zeta_series_expansion(x, q=None):
    """Hurwitz zeta by Euler-Maclaurin summation (Johansson 2015, eq. 5): N direct
    terms, the integral of the tail, and M correction terms. Built from differentiable
    operations, so its JVP is ``zeta``'s derivative (which has no closed form)."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    s, a = _promote_inexact("zeta", x, q)
    dtype = a.dtype.type
    s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    N = M = dtype(8) if a.dtype == np.float32 else dtype(16)
    k = jnp.expand_dims(np.arange(N, dtype=N.dtype), tuple(range(a.ndim)))
    S = jnp.sum((a_ + k) ** -s_, -1)
    I = lax.div((a + N) ** (dtype(1) - s), s - dtype(1))
    T0 = (a + N) ** -s
    m = jnp.expand_dims(np.arange(2 * M, dtype=M.dtype), tuple(range(s.ndim)))
    T1 = jnp.cumprod((s_ + m) / (a_ + N), -1)[..., ::2]
    T1 = jnp.clip(T1, max=dtypes.finfo(dtype).max)
    coefs = np.expand_dims(np.array(_EULER_MACLAURIN_COEFS[:T1.shape[-1]], dtype=dtype),
                           tuple(range(a.ndim)))
    T = T0 * (dtype(0.5) + (T1 / coefs).sum(-1))
    return S + I + T


zeta.defjvp(partial(jvp, _zeta_series_expansion))


# ----------------------------------------------------------------------------------------
# The standard normal distribution: CDF, its log and its inverse
# ----------------------------------------------------------------------------------------

def _check_normal_dtype(dtype):
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported "
                        "types.")


def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2``."""
    x = jnp.asarray(x)
    _check_normal_dtype(x.dtype)
    return _ndtr(x)


def _ndtr(x):
    """``erf`` near 0, ``erfc`` in the tails, where ``1 + erf`` would cancel."""
    dtype = dtypes.dtype(x).type
    half_sqrt_2 = dtype(0.5) * np.sqrt(2., dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = lax.select(lax.lt(z, half_sqrt_2), dtype(1.) + lax.erf(w),
                   lax.select(lax.gt(w, dtype(0.)), dtype(2.) - lax.erfc(z), lax.erfc(z)))
    return dtype(0.5) * y


@jit(static_argnames=("unroll",))
def polyval(p, x, *, unroll=16):
    """Horner's rule ``(...(p[0] x + p[1]) x + ...) + p[-1]`` as a scan: JAX's
    ``jnp.polyval`` (which glassjax.numpy does not provide yet; not exported here)."""
    p_arr, x_arr = promote_dtypes(jnp.asarray(p), jnp.asarray(x))
    shape = np.broadcast_shapes(p_arr.shape[1:], x_arr.shape)
    y = lax.full_like(x_arr, 0, shape=shape, dtype=x_arr.dtype)
    y, _ = lax.scan(lambda y, p: (y * x_arr + p, None), y, p_arr, unroll=unroll)
    return y

# Cephes' rational approximations of the normal quantile (ndtri.c): x = w + w^3 P0/Q0 for
# p > exp(-2), else x = z - log(z)/z - P/Q(1/z) / z with z = sqrt(-2 log p), (P1, Q1) down
# to exp(-32) and (P2, Q2) below.
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0,
             8.63602421390890590575E1, -2.25462687854119370527E2, 2.00260212380060660359E2,
             -8.20372256168333339912E1, 1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2,
             -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1,
             4.13172038254672030440E1, 1.50425385692907503408E1, 2.50464946208309415979E0,
             -1.42182922854787788574E-1, -3.80806407691578277194E-2,
             -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0,
             1.37702099489081330271E0, 2.16236993594496635890E-1, 1.34204006088543189037E-2,
             3.28014464682127739104E-4, 2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
    """The inverse of ``ndtr``: the ``x`` with ``P[N(0, 1) < x] = p``."""
    _check_normal_dtype(dtypes.dtype(p))
    return _ndtri(p)


def _ndtri(p):
    dtype = dtypes.dtype(p).type
    shape = np.shape(p)
    p0, q0, p1, q1, p2, q2 = (np.array(c, dtype=dtype) for c in (
        _NDTRI_P0, _NDTRI_Q0, _NDTRI_P1, _NDTRI_Q1, _NDTRI_P2, _NDTRI_Q2))
    # Work with the smaller of p and 1 - p; 0 is replaced by anything harmless (its
    # result, -inf or inf, is written in at the end).
    maybe_complement_p = jnp.where(p > dtype(-np.expm1(-2.)), dtype(1.) - p, p)
    sanitized_mcp = jnp.where(maybe_complement_p == dtype(0.), jnp.full(shape, dtype(0.5)),
                              maybe_complement_p)

    w = sanitized_mcp - dtype(0.5)
    ww = lax.square(w)
    x_for_big_p = w + w * ww * (polyval(p0, ww) / polyval(q0, ww))
    x_for_big_p *= -dtype(np.sqrt(2. * np.pi))

    z = lax.sqrt(dtype(-2.) * lax.log(sanitized_mcp))
    first_term = z - lax.log(z) / z
    second_term_small_p = polyval(p2, 1 / z) / polyval(q2, 1 / z) / z
    second_term_otherwise = polyval(p1, 1 / z) / polyval(q1, 1 / z) / z
    x_for_small_p = first_term - second_term_small_p
    x_otherwise = first_term - second_term_otherwise

    x = jnp.where(sanitized_mcp > dtype(np.exp(-2.)), x_for_big_p,
                  jnp.where(z >= dtype(8.0), x_for_small_p, x_otherwise))
    x = jnp.where(p > dtype(1. - np.exp(-2.)), x, -x)
    infinity = jnp.full(shape, dtype(np.inf))
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


# Where log_ndtr switches method, per dtype: below LOWER the asymptotic series, above
# UPPER log(1 - ndtr(-x)) ~ -ndtr(-x), between them log(ndtr(x)).
_LOG_NDTR_BOUNDS = {np.dtype(np.float64): (np.array(-20, np.float64), np.array(8, np.float64)),
                    np.dtype(np.float32): (np.array(-10, np.float32), np.array(5, np.float32))}


@partial(custom_jvp, nondiff_argnums=(1,))
def log_ndtr(x, series_order: int = 3):
    """``log(ndtr(x))``, accurate far into both tails: ``-ndtr(-x)`` for large x, an
    asymptotic series of ``series_order`` terms for very negative x."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x_arr = jnp.asarray(x)
    if x_arr.dtype not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={np.dtype(x_arr.dtype)} is not supported.")
    lower, upper = _LOG_NDTR_BOUNDS[x_arr.dtype]
    above_upper = lax.gt(x_arr, upper)
    # One ndtr call for both outer segments; the max keeps the unused lower branch
    # finite (a NaN there would leak into the gradient through the select).
    ndtr_res = _ndtr(jnp.where(above_upper, -x_arr, lax.max(x_arr, lower)))
    return jnp.where(above_upper, -ndtr_res,
                     jnp.where(lax.gt(x_arr, lower), lax.log(ndtr_res),
                               _log_ndtr_lower(lax.min(x_arr, lower), series_order)))


@log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x, series_order=series_order)
    return ans, lax.mul(t, lax.exp(lax.sub(_norm_logpdf(x), ans)))


def _log_ndtr_lower(x, series_order):
    """``log(ndtr(x))`` for x << 0: ``log(pdf(x) / -x) + log(1 + series)``."""
    dtype = dtypes.dtype(x).type
    x_2 = lax.square(x)
    log_scale = -dtype(0.5) * x_2 - lax.log(-x) - dtype(0.5 * np.log(2. * np.pi))
    return log_scale + lax.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    """``1 + sum_n (-1)^n (2n-1)!! / x^2n`` for n = 1..series_order."""
    dtype = dtypes.dtype(x).type
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = lax.square(x)
    even_sum = jnp.zeros_like(x)
    odd_sum = jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return dtype(1.) + even_sum - odd_sum


def _norm_logpdf(x):
    return lax.sub(lax.mul(_const(x, -0.5), lax.square(x)),
                   _const(x, np.log(np.sqrt(2 * np.pi))))


# ----------------------------------------------------------------------------------------
# The gamma function family and combinatorics
# ----------------------------------------------------------------------------------------

@jit
def gammasgn(x):
    """The sign of ``Gamma(x)``: -1 between the negative odd and even integers (and at
    -0.0), NaN at the poles, else 1."""
    x, = _promote_inexact("gammasgn", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("gammasgn does not support complex-valued inputs.")
    typ = x.dtype.type
    floor_x = lax.floor(x)
    x_negative = x < 0
    return jnp.select([(x_negative & (x == floor_x)) | jnp.isnan(x),
                       (x_negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))],
                      [typ(np.nan), typ(-1.0)], typ(1.0))


def gamma(x):
    """``Gamma(x) = gammasgn(x) exp(log|Gamma(x)|)`` (real arguments)."""
    x, = _promote_inexact("gamma", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("glassjax's gamma supports real arguments only")
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x):
    """The principal branch of ``log Gamma``: for real ``x``, ``log Gamma(x)`` where it
    is positive and NaN for ``x <= 0``."""
    x, = _promote_inexact("loggamma", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("glassjax's loggamma supports real arguments only")
    return jnp.where(x > 0, lax.lgamma(x), jnp.nan)


def factorial(n, exact=False):
    """``n! = Gamma(n + 1)`` (0 for negative ``n``)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = _promote_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition=False):
    """The binomial coefficient ``N choose k`` through log-gamma (0 outside
    ``0 <= k <= N``); with ``repetition``, multisets: ``(N + k - 1) choose k``."""
    N, k = _promote_inexact("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k, repetition=False))
    cond = (k <= N) & (N >= 0) & (k >= 0)
    safe_N, safe_k = jnp.where(cond, N, 0.0), jnp.where(cond, k, 0.0)
    result = lax.exp(gammaln(safe_N + 1) - gammaln(safe_k + 1)
                     - gammaln(safe_N + 1 - safe_k))
    return jnp.where(cond, result, 0.0)


def beta(a, b):
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``."""
    a, b = _promote_inexact("beta", a, b)
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        raise ValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    a, b, x = _promote_inexact("betainc", a, b, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("betainc does not support complex-valued inputs.")
    return lax.betainc(a, b, x)


@custom_jvp
def poch(z, m):
    """The Pochhammer symbol (rising factorial) ``Gamma(z + m) / Gamma(z)``."""
    z, m = _promote_inexact("poch", z, m)
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return jnp.where(m == 0., jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


poch.defjvps(lambda z_dot, primal_out, z, m: (digamma(z + m) - digamma(z)) * primal_out
             * z_dot,
             lambda m_dot, primal_out, z, m: digamma(z + m) * primal_out * m_dot)


def bernoulli(n):
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``), the even ones from
    ``zeta``: ``B_2k = (-1)^(k+1) 2 (2k)! zeta(2k) / (2 pi)^(2k)``."""
    n = core.concrete_or_error(operator.index, n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[:n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(b3)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = jnp.arange(2, 50, dtype=bn.dtype)        # 2 ** -50 < 1e-15: zeta to precision
    q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))


# ----------------------------------------------------------------------------------------
# Transforms, divergences, Bessel functions
# ----------------------------------------------------------------------------------------

def _boxcox(name, log_fn, x, lmbda):
    x, lmbda = _promote_inexact(name, x, lmbda)
    lmbda_is_zero = lmbda == 0
    safe_lmbda = jnp.where(lmbda_is_zero, jnp.ones_like(lmbda), lmbda)
    log_x = log_fn(x)
    return jnp.where(lmbda_is_zero, log_x, jnp.expm1(safe_lmbda * log_x) / safe_lmbda)


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x^lmbda - 1) / lmbda`` (``log x`` at ``lmbda = 0``)."""
    return _boxcox("boxcox", jnp.log, x, lmbda)


def boxcox1p(x, lmbda):
    """``boxcox(1 + x, lmbda)``, accurate for small ``x``."""
    return _boxcox("boxcox1p", jnp.log1p, x, lmbda)


def rel_entr(p, q):
    """The elementwise relative entropy ``p log(p / q)`` (0 at ``p = 0``, inf where
    ``q = 0 < p`` or an argument is negative)."""
    p, q = _promote_inexact("rel_entr", p, q)
    if dtypes.issubdtype(p.dtype, np.complexfloating):
        raise ValueError("rel_entr does not support complex-valued inputs.")
    zero = _const(p, 0.0)
    both_positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p, safe_q = jnp.where(both_positive, p, 1), jnp.where(both_positive, q, 1)
    log_val = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_positive, log_val, jnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """The elementwise Kullback-Leibler divergence ``p log(p/q) - p + q``."""
    p, q = _promote_inexact("kl_div", p, q)
    if dtypes.issubdtype(p.dtype, np.complexfloating):
        raise ValueError("kl_div does not support complex-valued inputs.")
    return rel_entr(p, q) - p + q


def i0e(x):
    """``exp(-|x|) I0(x)``."""
    x, = _promote_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    x, = _promote_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
    """``exp(-|x|) I1(x)``."""
    x, = _promote_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    x, = _promote_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


# ----------------------------------------------------------------------------------------
# Bessel J, Spence's function, the confluent hypergeometric function, Owen's T
# ----------------------------------------------------------------------------------------

def _bessel_jn_step(carry, k):
    """One step of Miller's backward recurrence ``J_k = 2(k+1)/z J_{k+1} - J_{k+2}``,
    summing the even orders for the normalization ``J_0 + 2 sum J_2k = 1``."""
    f0, f1, bs, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    bs = lax.cond(jnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (bs, f))
    return (f1, f, bs, z), f


def _bessel_jn(z, *, v, n_iter=50):
    zero = _const(z, 0.0)
    (_, _, bs, _), j_vals = lax.scan(_bessel_jn_step, (zero, _const(z, 1e-16), zero, z),
                                     lax.iota(z.dtype, n_iter + 1), reverse=True)
    return j_vals[:v + 1] / (bs - j_vals[0])


@partial(jit, static_argnames=["v", "n_iter"])
def bessel_jn(z, *, v, n_iter=50):
    """The Bessel functions of the first kind ``J_0(z) .. J_v(z)`` (stacked on a new
    leading axis), by Miller's backward recurrence from order ``n_iter``."""
    z, = promote_dtypes_inexact(jnp.asarray(z))
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("complex input not supported.")
    v = core.concrete_or_error(operator.index, v, "Argument v of bessel_jn.")
    n_iter = core.concrete_or_error(int, n_iter, "Argument n_iter of bessel_jn.")
    fun = partial(_bessel_jn, v=v, n_iter=n_iter)
    for _ in range(z.ndim):
        fun = vmap(fun)
    return jnp.moveaxis(fun(z), -1, 0)


def _spence_calc(x):
    """Cephes' ``spence``: a rational approximation in ``w`` after mapping ``x`` to
    [0.5, 1.5] with the reflection and inversion formulas."""
    A = np.array([4.65128586073990045278E-5, 7.31589045238094711071E-3,
                  1.33847639578309018650E-1, 8.79691311754530315341E-1,
                  2.71149851196553469920E0, 4.25697156008121755724E0,
                  3.29771340985225106936E0, 1.00000000000000000126E0])
    B = np.array([6.90990488912553276999E-4, 2.54043763932544379113E-2,
                  2.82974860602568089943E-1, 1.41172597751831069617E0,
                  3.63800533345137075418E0, 5.03278880143316990390E0,
                  3.54771340985225096217E0, 9.99999999999999998740E-1])
    inverted = x > 2.0
    x = jnp.piecewise(x, [inverted], [lambda x: 1.0 / x, lambda x: x])
    above, below = x > 1.5, x < 0.5
    inverted = inverted | above
    w = jnp.piecewise(x, [above, below], [lambda x: 1.0 / x - 1.0, lambda x: -x,
                                          lambda x: x - 1.0])
    y = -w * jnp.polyval(A.astype(w.dtype), w) / jnp.polyval(B.astype(w.dtype), w)
    y = jnp.where(below, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function (the dilogarithm) ``-int_1^x log(t) / (t - 1) dt`` for
    ``x >= 0`` (NaN below)."""
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0],
                         [np.nan, 0, np.pi ** 2 / 6, _spence_calc])


def _summed_series(first_term, next_term, start=1):
    """``start + sum_k term_k`` with ``term_{k+1} = next_term(term_k, k)``, summed in a
    ``while_loop`` until a term is below machine precision relative to the sum (at most
    250 terms)."""
    precision = dtypes.finfo(first_term.dtype).eps

    def body(state):
        serie, k, term = state
        return serie + term, k + 1, next_term(term, k)

    def cond(state):
        serie, k, term = state
        return (k < 250) & (lax.abs(term) / lax.abs(serie) > precision)
    return lax.while_loop(cond, body, (start, 1, first_term))[0]


def _hyp1f1_series(a, b, x):
    return _summed_series(a / b * x, lambda term, k: term * ((a + k) / (b + k) * x / (k + 1)))


def _hyp1f1_asymptotic(a, b, x):
    """For large ``|x|``: ``Gamma(b)/Gamma(a) e^x x^(a-b) sum ...`` (DLMF 13.7.2)."""
    serie = _summed_series((b - a) * (1 - a) / x,
                           lambda term, k: term * ((b - a + k) * (1 - a + k) / (k + 1) / x))
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * serie


def _hyp1f1_parameter_derivative(a, b, x, weight):
    """``sum_k term_k * weight(k)``: the derivative of the series in ``a`` or ``b``."""
    precision = dtypes.finfo(x.dtype).eps

    def body(state):
        serie, k, term = state
        return serie + term * weight(k), k + 1, term * ((a + k) / (b + k) * x / (k + 1))

    def cond(state):
        serie, k, term = state
        return (k < 250) & (lax.abs(term) / lax.abs(serie) > precision)
    return lax.while_loop(cond, body, (0, 1, a / b * x))[0]


@custom_jvp
@jit
@jnp.vectorize
def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)``: its power series
    for ``|x| < 100``, the asymptotic expansion beyond."""
    a, b, x = _promote_inexact("hyp1f1", a, b, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    result = lax.cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    return lax.select_n(index, result, jnp.array(1, dtype=x.dtype), jnp.exp(x),
                        jnp.array(np.inf, dtype=x.dtype))


hyp1f1.defjvps(
    lambda a_dot, primal_out, a, b, x: jnp.vectorize(
        lambda a, b, x: _hyp1f1_parameter_derivative(
            a, b, x, lambda k: digamma(a + k) - digamma(a)))(a, b, x) * a_dot,
    lambda b_dot, primal_out, a, b, x: jnp.vectorize(
        lambda a, b, x: _hyp1f1_parameter_derivative(
            a, b, x, lambda k: digamma(b) - digamma(b + k)))(a, b, x) * b_dot,
    lambda x_dot, primal_out, a, b, x: a / b * hyp1f1(a + 1, b + 1, x) * x_dot)


# Gauss-Legendre nodes (squared) and weights on [0, 1] for Owen's T integral.
_OWENS_T_QUAD_PTS = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451,
    0.16245071730812277, 0.25851196049125435, 0.36807553840697534, 0.48501092905604697,
    0.60277514152618577, 0.71477884217753227, 0.81475510988760099, 0.89711029755948966,
    0.95723808085944262, 0.99178832974629704])
_OWENS_T_QUAD_WTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386,
    0.017263829606398753, 0.016243219975989857, 0.014994592034116705,
    0.013535474469662088, 0.011886351605820165, 0.010070377242777432,
    0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090])


@custom_jvp
def _owens_t(h, a):
    """Owen's T by quadrature of ``int_0^a exp(-h^2 (1+x^2)/2) / (1+x^2) dx / 2pi``,
    using ``T(h, a) = ... - T(ah, 1/a)`` to keep ``|a| <= 1``."""
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root_2 = _const(h, np.sqrt(2))
    h_normed = h / root_2
    ma = jnp.where(abs_a <= 1., abs_a, jnp.reciprocal(abs_a))
    mh = jnp.where(abs_a <= 1., h, abs_a * h)
    r = jnp.square(ma)[..., None] * jnp.expand_dims(_OWENS_T_QUAD_PTS, tuple(range(ma.ndim)))
    integrand = jnp.exp(-0.5 * jnp.square(mh)[..., None] * (1. + r)) / (1. + r)
    result = ma * (integrand @ _OWENS_T_QUAD_WTS)
    result = jnp.where(mh == 0., jnp.arctan(ma) / (2 * np.pi), result)
    result = jnp.where(ma == 1., 0.125 * lax.erfc(-mh / root_2) * lax.erfc(mh / root_2),
                       result)
    normh, normah = lax.erfc(h_normed), lax.erfc(abs_a * h_normed)
    result = jnp.where(abs_a > 1., jnp.where(
        abs_a * h <= 0.67,
        0.25 - 0.25 * lax.erf(h_normed) * lax.erf(abs_a * h_normed) - result,
        0.25 * (normh + normah - normh * normah) - result), result)
    result = lax.sign(a) * result
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, jnp.nan), result)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    h, a = primals
    dh, da = tangents
    root_2 = _const(h, np.sqrt(2))
    dout_dh = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root_2)
               / (2. * _const(h, np.sqrt(2. * np.pi))))
    dout_da = (lax.exp(-0.5 * (lax.square(a) + 1.) * lax.square(h))
               / (2. * np.pi * (lax.square(a) + 1.)))
    result = _owens_t(h, a)
    return result, (dout_dh * dh + dout_da * da).astype(result.dtype)


def owens_t(h, a):
    """Owen's T function ``T(h, a)``: the probability that a standard bivariate normal
    falls in the wedge between ``y = 0`` and ``y = a x``, beyond ``x = h``."""
    h, a = _promote_inexact("owens_t", h, a)
    return _owens_t(h, a)


# ----------------------------------------------------------------------------------------
# Exponential integrals
# ----------------------------------------------------------------------------------------

# Cephes' rational approximations of Ei(x): on (0, 2] ``x A(x)/B(x) + gamma + log x``;
# on (2, 4], (4, 8], ..., (32, 64] ``e^x/x (1 + w A(w)/B(w))`` with ``w = 1/x``.
_EXPI_COEFFS = [
    ([-5.350447357812543, 218.50491688166133, -4176.572384826693,
      55411.76756393557, -331338.13311781443, 1592627.1633849454],
     [1.0, -52.505479591128626, 1259.6161867867906, -17565.495819735348,
      149306.2117002726, -729494.9239640528, 1592627.1633849454]),
    ([0.019818085032596897, -1.2716456259849176, -2.0881603356812284,
      2.7555445091879367, -0.44095070487016, 0.046656238059358916,
      -0.0015450426796734852, 7.059980605299618e-05],
     [1.0, 1.4764986709149215, 0.5629177174822436, 0.16990178978793072,
      0.02291647179034212, 0.0044501504397287525, 0.00017274396122065214,
      3.953167195549672e-05]),
    ([-1.3732153758712087, -0.7084559133740839, 1.580806855547941,
      -0.2601500427425623, 0.029946746941137137, -0.001038086040188744,
      4.371064420753005e-05, 2.141783679522603e-06],
     [1.0, 0.8585231423622028, 0.4483285822873995, 0.07687932158124476,
      0.024498682410218877, 0.0008832165941927797, 0.00045909522995113536,
      -4.729848351866523e-06, 2.66519553739071e-06]),
    ([-2.1069346016919166, 1.7327338696646881, -0.2423619178935842,
      0.02322724180937566, 0.00023728804404931798, -8.343219561192553e-05,
      1.3634087956052505e-05, -3.655412321999254e-07, 1.4649417339759612e-08,
      6.17640786371036e-10],
     [1.0, -0.2298062239901678, 0.11050770414740378, -0.015665429666307924,
      0.002761106850817353, -0.00020891480122840484, 1.7085289388076754e-05,
      -4.4593117963566865e-07, 1.3946349303538475e-08, 6.150865933977338e-10]),
    ([-0.24581193676740204, -0.14833822533220778, 0.07248291795735552,
      -0.013483156873809405, 0.001342775069788637, -7.942465637159712e-05,
      2.644179518984236e-06, -4.239473659313765e-08],
     [1.0, -0.10442259084438711, -0.26764531281014026, 0.09695000254621984,
      -0.01601745692712991, 0.001496414899205908, -8.462452563778485e-05,
      2.7289384034767266e-06, -4.239462431819542e-08]),
    ([0.12125611181054567, -0.5823133179043894, 0.2348887314557017,
      -0.030400343181132484, 0.0015100821468651906, -2.5231370954995714e-05],
     [1.0, -1.002252150365854, 0.2928709694872224, -0.03337004338674008,
      0.0015605448811273888, -2.5231370936032347e-05]),
    ([-0.7657847078286127, 0.6886192415566705, -0.2132598113545206,
      0.033461075523841935, -0.003076541477344756, 0.00017471193164549074,
      -6.1037116822741705e-06, 1.218032765428652e-07, -1.0860761027932903e-09],
     [1.0, -1.8888028686623086, 1.066691687211409, -0.27519159823063805,
      0.039308526882338234, -0.003414684558602365, 0.00018668443707035555,
      -6.345146083130515e-06, 1.239754287483207e-07, -1.0860761027931265e-09]),
]


def _expi_positive(x):
    """Ei on x > 0, piecewise over the octaves of ``_EXPI_COEFFS``."""
    def first(x):
        A, B = _EXPI_COEFFS[0]
        return x * (jnp.polyval(np.array(A, x.dtype), x) / jnp.polyval(np.array(B, x.dtype), x)) \
            + np.euler_gamma + jnp.log(x)

    def octave(A, B):
        def f(x):
            w = _const(x, 1.0) / x
            r = jnp.polyval(np.array(A, x.dtype), w) / jnp.polyval(np.array(B, x.dtype), w)
            return jnp.exp(x) * w * (w * r + _const(x, 1.0))
        return f
    conds = [(_const(x, 0) < x) & (x <= _const(x, 2))] + [
        (_const(x, 2 ** i) < x) & (x <= _const(x, 2 ** (i + 1))) for i in range(1, 6)]
    return jnp.piecewise(x, conds, [first] + [octave(A, B) for A, B in _EXPI_COEFFS[1:]])


@custom_jvp
@jit
def expi(x):
    """The exponential integral ``Ei(x) = -PV int_{-x}^inf e^-t / t dt``
    (``-E1(-x)`` for negative ``x``)."""
    x_arr, = _promote_inexact("expi", x)
    if dtypes.issubdtype(x_arr.dtype, np.complexfloating):
        raise ValueError("expi does not support complex-valued inputs.")
    return jnp.piecewise(x_arr, [x_arr < 0], [lambda x: -exp1(-x), _expi_positive])


@expi.defjvp
@jit
def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


def _expn_series(x, n):
    """E_n for ``x <= 1``: the power series with the digamma term (Cephes)."""
    machep = dtypes.finfo(x.dtype).eps
    zero, one = _const(x, 0.0), _const(x, 1.0)
    psi = -np.euler_gamma - jnp.log(x)
    psi = lax.fori_loop(_const(n, 1), n, lambda i, psi: psi + one / i, psi)
    n1 = jnp.where(n == _const(n, 1), one + one, n)
    init = dict(x=x, z=-x, xk=zero, yk=one, pk=one - n,
                ans=jnp.where(n == _const(n, 1), zero, one / (one - n1)), t=np.inf)

    def body(d):
        d = dict(d)
        d["xk"] += one
        d["yk"] *= d["z"] / d["xk"]
        d["pk"] += one
        d["ans"] += jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d
    d = lax.while_loop(lambda d: (d["x"] > _const(d["x"], 0.0)) & (d["t"] > machep), body,
                       init)
    return d["z"] ** (n - _const(n, 1)) * psi / jnp.exp(gammaln(n)) - d["ans"]


def _expn_continued_fraction(x, n):
    """E_n for ``x > 1``: the continued fraction, with rescaling against overflow."""
    big = _const(x, 1.44115188075855872e17)
    machep = dtypes.finfo(x.dtype).eps
    zero, one = _const(x, 0.0), _const(x, 1.0)
    init = dict(k=_const(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                t=_const(x, np.inf), r=zero, x=x)

    def body(d):
        d = dict(d)
        d["k"] += _const(d["k"], 1)
        k = d["k"]
        odd = k % _const(k, 2) == _const(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - _const(k, 1)) / _const(k, 2), k / _const(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        d["r"] = r = jnp.where(nz, pk / qk, d["r"])
        d["t"] = jnp.where(nz, abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nz, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        is_big = abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = jnp.where(is_big, d[key] / big, d[key])
        return d
    d = lax.while_loop(lambda d: (d["x"] > _const(d["k"], 0)) & (d["t"] > machep), body, init)
    return d["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    """E_n for very large ``n``: the first terms of the asymptotic expansion in 1/n."""
    one = _const(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (_const(x, 6) * x * x - _const(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - _const(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + one) * jnp.exp(-x) / xk


@partial(custom_jvp, nondiff_argnums=(0,))
@jnp.vectorize
@jit
def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf e^(-xt) / t^n dt``."""
    n, x = _promote_inexact("expn", n, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("expn does not support complex-valued inputs.")
    zero, one = _const(x, 0), _const(x, 1)
    conds = [(n < _const(n, 0)) | (x < zero), (x == zero) & (n < _const(n, 2)),
             (x == zero) & (n >= _const(n, 2)), (n == _const(n, 0)) & (x >= zero),
             n >= _const(n, 5000), x > one]
    n1 = jnp.where(n == _const(n, 1), n + n, n)
    vals = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn_large_n,
            _expn_continued_fraction, _expn_series]
    return jnp.piecewise(x, conds, vals, n=n)


@expn.defjvp
@jit
def _expn_jvp(n, primals, tangents):
    """``dE_n/dx = -E_{n-1}``."""
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, _const(n, 1)), x))


def exp1(x):
    """The exponential integral ``E_1(x) = int_x^inf e^-t / t dt``."""
    x, = _promote_inexact("exp1", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# ----------------------------------------------------------------------------------------
# The Faddeeva function and its relatives: wofz, erfcx, dawsn
# ----------------------------------------------------------------------------------------

# Weideman's rational expansion of w(z) in the upper half plane: 32 coefficients of a
# polynomial in Z = (L + iz) / (L - iz).
_WOFZ_L = 4.756828460010884
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.741183837373847e-12, 8.030427700497756e-12,
    -2.154359355749088e-11, -5.544244996323793e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.231020211492061e-10, -3.2080151339721323e-09,
    8.124886421653591e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.401531731283225e-06, 6.821031944357515e-06, -2.1409619201999998e-05,
    -0.0001307544925457942, -0.00024532980270038237, 0.00039259136070109705,
    0.004519541105349309, 0.0190061557848455, 0.05730440352983728,
    0.14060716226893755, 0.2954445107150874, 0.5460139720639338, 0.9019254893648001,
    1.345544169234545, 1.8256696296324815, 2.2635372999002676, 2.5722534081245696])


def _wofz_upper(z):
    re = lax.real(z)
    L = lax.complex(_const(re, _WOFZ_L), _const(re, 0.))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = L - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=z.dtype), (L + iz) / denom)
    one_over_sqrtpi = lax.complex(_const(re, 1. / np.sqrt(np.pi)), _const(re, 0.))
    return 2 * p / (denom * denom) + one_over_sqrtpi / denom


@custom_jvp
def _wofz(z):
    """Weideman's expansion above the real axis, ``w(-z) = 2 exp(-z^2) - w(z)`` below."""
    upper = lax.ge(lax.imag(z), _const(lax.real(z), 0.))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_upper, 2 * lax.exp(lax.neg(z * z)) - w_upper)


_wofz.defjvps(lambda g, ans, z: g * (lax.neg(2 * z * ans) + lax.complex(
    _const(lax.real(z), 0.), _const(lax.real(z), 2. / np.sqrt(np.pi)))))


def wofz(z):
    """The Faddeeva function ``w(z) = exp(-z^2) erfc(-iz)``."""
    z, = promote_args_complex("wofz", z)
    return _wofz(z)


def _erfcx_impl(x, nterms):
    """``exp(x^2) erfc(x)`` directly while ``exp(x^2)`` fits the dtype, then its
    asymptotic series ``1/(x sqrt(pi)) (1 - 1/(2x^2) + ...)``."""
    coeffs = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, .75, -.5,
              1.]
    large = x > _const(x, np.sqrt(np.log(dtypes.finfo(x.dtype).max)))
    safe_x = lax.select(large, lax.full_like(x, 1.), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    t = _const(x, 1.) / lax.square(x)
    asymp = jnp.polyval(np.array(coeffs[-nterms:], dtype=x.dtype), t) / (
        x * _const(x, np.sqrt(np.pi)))
    return lax.select(large, asymp, direct)


@custom_jvp
def _erfcx(x):
    if x.dtype == np.float64:
        return _erfcx_impl(x, nterms=9)
    if x.dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - _const(x, 2. / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)`` (``w(ix)`` for
    complex ``x``)."""
    x, = _promote_inexact("erfcx", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
    return _erfcx(x)


# Cephes' rational approximations of Dawson's integral on |x| < 3.25 (in x^2), on
# [3.25, 6.25) and beyond (in 1/x^2).
_DAWSN_AN = np.array([
    1.1368149897175597e-11, 8.492622676674738e-10, 1.9443420417555306e-08,
    9.531517412544844e-07, 3.078283098749132e-06, 0.00035251336852028877,
    -0.0008501498467244109, 0.04226182230055466, -0.09174803717734524, 1.0])
_DAWSN_AD = np.array([
    2.403720730667626e-11, 1.488646813684934e-09, 5.212652810105416e-08,
    1.2725847827318697e-06, 2.324902498207895e-05, 0.00032552474182605793,
    0.003488058146571626, 0.027944853119882897, 0.15887424196012057,
    0.5749186294893204, 1.0])
_DAWSN_BN = np.array([
    0.5089551564179009, -0.24475441814269785, 0.09415123353035344,
    -0.021871125514203903, 0.003662076123295692, -0.0004232091144603888,
    3.5964130479389666e-05, -2.1464035171996896e-06, 9.100107800763914e-08,
    -2.4027452082825098e-09, 3.592333854409284e-11])
_DAWSN_BD = np.array([
    1.0, -0.6318398698733682, 0.2367067882282487, -0.053180636700322324,
    0.008480417185862954, -0.0009479967684866654, 7.810255929445524e-05,
    -4.558751532524426e-06, 1.8910035811142186e-07, -4.913246913319206e-09,
    7.184664032357345e-11])
_DAWSN_CN = np.array([
    -0.5905928605347732, 0.6292352427243688, -0.17285897538038814,
    0.016483704782518965, -0.0004868276130204627])
_DAWSN_CD = np.array([
    1.0, -2.698200571975449, 1.7327079904594784, -0.3937085822819395,
    0.03442789240412334, -0.0009736552260409412])


def _dawsn_impl(x):
    sign = jnp.sign(x)
    ax = lax.abs(x)
    coeffs = {k: np.array(v, dtype=x.dtype) for k, v in (
        ("AN", _DAWSN_AN), ("AD", _DAWSN_AD), ("BN", _DAWSN_BN), ("BD", _DAWSN_BD),
        ("CN", _DAWSN_CN), ("CD", _DAWSN_CD))}
    t = _const(x, 1.) / lax.square(ax)
    # Each range evaluates at a safe point outside itself (no inf/NaN in any branch).
    in_r1 = ax < _const(x, 3.25)
    in_r2 = (ax >= _const(x, 3.25)) & (ax < _const(x, 6.25))
    in_r3 = ax >= _const(x, 6.25)
    ax_r1 = lax.select(in_r1, ax, lax.full_like(ax, 1.))
    val_r1 = ax_r1 * jnp.polyval(coeffs["AN"], lax.square(ax_r1)) / jnp.polyval(
        coeffs["AD"], lax.square(ax_r1))

    def tail(in_range, num, den):
        safe_t = lax.select(in_range, t, lax.full_like(t, 1.))
        safe_ax = lax.select(in_range, ax, lax.full_like(ax, 1.))
        return (_const(x, 0.5) / safe_ax) * (
            _const(x, 1.) + safe_t * jnp.polyval(num, safe_t) / jnp.polyval(den, safe_t))
    val_r2 = tail(in_r2, coeffs["BN"], coeffs["BD"])
    val_r3 = tail(in_r3, coeffs["CN"], coeffs["CD"])
    return sign * lax.select(in_r1, val_r1, lax.select(ax < _const(x, 6.25), val_r2, val_r3))


@custom_jvp
def _dawsn(x):
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)


_dawsn.defjvps(lambda g, ans, x: g * (_const(x, 1.) - _const(x, 2.) * x * ans))


def dawsn(x):
    """Dawson's integral ``exp(-x^2) int_0^x exp(t^2) dt``."""
    x, = _promote_inexact("dawsn", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("dawsn does not support complex-valued inputs.")
    return _dawsn(x)


# ----------------------------------------------------------------------------------------
# The Gauss hypergeometric function 2F1
# ----------------------------------------------------------------------------------------

def _hyp2f1_terminal(a, b, c, x):
    """The polynomial 2F1 when ``a`` (or ``b``) is a non-positive integer: finitely many
    terms (the negative integer parameter is moved to ``a``)."""
    eps = dtypes.finfo(x.dtype).eps * 50
    ib = jnp.round(b)
    swap = (b < a) & (jnp.abs(b - ib) < eps) & ~((c % 1 == 0) & (c <= 0) & (c > b))
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    a = jnp.abs(a)

    def body(i, state):
        serie, term = state
        term *= -(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x
        return serie + term, term
    one = jnp.array(1, dtype=x.dtype)
    return lax.fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, (one, one))[0]


def _hyp2f1_series(a, b, c, x):
    rtol = dtypes.finfo(x.dtype).eps

    def body(state):
        serie, k, term = state
        return serie + term, k + 1, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

    def cond(state):
        serie, k, term = state
        return (k < 250) & (lax.abs(term) > rtol * lax.abs(serie))
    return lax.while_loop(cond, body, (jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype),
                                       jnp.array(1, dtype=x.dtype)))[0]


def _hyp2f1_digamma_transform(a, b, c, x):
    """Near ``x = 1`` with ``c - a - b`` an integer: the logarithmic case of the
    ``1 - x`` transformation (Abramowitz & Stegun 15.3.10-12, as Cephes)."""
    rtol = dtypes.finfo(x.dtype).eps
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, jnp.array(0, dtype=d.dtype))
    d2 = jnp.where(rd >= 0, jnp.array(0, dtype=d.dtype), d)
    ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
    ax = jnp.log(s)
    y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax
    y /= gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def cond(state):
        p, q, t, y = state
        return (t < 250) & (jnp.abs(q) >= rtol * jnp.abs(y))

    def body(state):
        p, q, t, y = state
        r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1) \
            - digamma(b + t + d1) - ax
        q = p * r
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y + q
    _, _, _, y = lax.while_loop(cond, body, (p, y, jnp.array(1, dtype=x.dtype), y))

    def compute_sum(y):
        def for_body(i, state):
            p, t, y1 = state
            p *= s * (a + t + d2) * (b + t + d2) / (1.0 - e + t)
            t += 1.0
            p /= t
            return p, t, y1 + p
        y1 = lax.fori_loop(1, ard, for_body, (jnp.array(1, dtype=x.dtype),
                                              jnp.array(0, dtype=x.dtype),
                                              jnp.array(1, dtype=x.dtype)))[-1]
        gc = gamma(c)
        y1 *= gamma(e) * gc / (gamma(a + d1) * gamma(b + d1))
        y = y * (gc / (gamma(a + d2) * gamma(b + d2)))
        y = jnp.where((ard & 1) != 0, -y, y)
        q = s ** rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)
    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), compute_sum(y))


def _hyp2f1_terminal_or_series(a, b, c, x):
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    neg_int_a_or_b = ((a <= 0) & (jnp.abs(a - jnp.round(a)) < eps)) | \
        ((b <= 0) & (jnp.abs(b - jnp.round(b)) < eps))
    index = jnp.where((x > 0.9) & ~neg_int_a_or_b,
                      jnp.where(jnp.abs(d - jnp.round(d)) >= eps, 0, 1),
                      jnp.where(neg_int_a_or_b, 2, 0))
    return lax.select_n(index, _hyp2f1_series(a, b, c, x),
                        _hyp2f1_digamma_transform(a, b, c, x), _hyp2f1_terminal(a, b, c, x))


def _hyp2f1_parameter_derivative(a, b, c, x, weight):
    precision = dtypes.finfo(x.dtype).eps

    def body(state):
        serie, k, term = state
        return (serie + term * weight(k), k + 1,
                term * ((a + k) * (b + k) / (c + k) / (k + 1) * x))

    def cond(state):
        serie, k, term = state
        return (k < 250) & (lax.abs(term) / lax.abs(serie) > precision)
    return lax.while_loop(cond, body, (0, 1, a * b / c * x))[0]


@custom_jvp
@jit
@jnp.vectorize
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function ``2F1(a, b; c; x)`` for real ``x <= 1``
    (Cephes' special cases, the ``1 - x`` transformation near 1, else the series)."""
    a, b, c, x = _promote_inexact("hyp2f1", a, b, c, x)
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    id_ = jnp.round(d)
    index = jnp.where(
        (x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0,
        jnp.where((c == 0) | ((c < 0) & (c % 1 == 0)), 1,
                  jnp.where((d <= -1) & ~((jnp.abs(d - id_) >= eps) & (s < 0)), 2,
                            jnp.where((d <= 0) & (x == 1), 1,
                                      jnp.where((x < 1) & (b == c), 3,
                                                jnp.where((x < 1) & (a == c), 4,
                                                          jnp.where(x > 1, 1,
                                                                    jnp.where(x == 1, 5,
                                                                              6))))))))
    return lax.select_n(index, jnp.array(1, dtype=x.dtype), jnp.array(np.inf, dtype=x.dtype),
                        s ** d * _hyp2f1_terminal_or_series(ca, cb, c, x), s ** (-a),
                        s ** (-b), gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
                        _hyp2f1_terminal_or_series(a, b, c, x))


def _hyp2f1_derivative_in(which):
    weights = {"a": lambda a, b, c: lambda k: digamma(a + k) - digamma(a),
               "b": lambda a, b, c: lambda k: digamma(b + k) - digamma(b),
               "c": lambda a, b, c: lambda k: digamma(c) - digamma(c + k)}[which]
    derivative = jnp.vectorize(lambda a, b, c, x: _hyp2f1_parameter_derivative(
        a, b, c, x, weights(a, b, c)))
    return lambda g, ans, a, b, c, x: derivative(a, b, c, x) * g


hyp2f1.defjvps(_hyp2f1_derivative_in("a"), _hyp2f1_derivative_in("b"),
               _hyp2f1_derivative_in("c"),
               lambda g, ans, a, b, c, x: a * b / c * hyp2f1(a + 1, b + 1, c + 1, x) * g)



# ----------------------------------------------------------------------------------------
# Sine and cosine integrals
# ----------------------------------------------------------------------------------------

# Cephes' rational approximations: Si and Ci as series in x^2 for x <= 4; beyond, the
# auxiliary functions f and g (in 1/x^2, separately below and above 8).
_SICI_SN = np.array([
    -8.391678279103039e-11, 4.625917144270128e-08, -9.757593038436328e-06,
    0.0009769454381704354, -0.04134703162294066, 1.0])
_SICI_SD = np.array([
    2.0326926619595193e-12, 1.279978911799433e-09, 4.418278428012189e-07,
    9.964121220438756e-05, 0.01420852393261499, 1.0])
_SICI_CN = np.array([
    2.0252400238910228e-11, -1.3524950491579076e-08, 3.593250514199931e-06,
    -0.0004740072068734079, 0.028915965260755523, -1.0])
_SICI_CD = np.array([
    4.077460400618806e-12, 3.067809975818878e-09, 1.2321035568588342e-06,
    0.00031744202477503275, 0.051002805623644606, 4.0])
_SICI_FN4 = np.array([
    4.236128628922166, 5.4593771716181285, 1.6208328770153833, 0.16700661183132304,
    0.006810201324725182, 0.00010893658065032867, 5.489002234213736e-07])
_SICI_FD4 = np.array([
    1.0, 8.16496634205391, 7.308288225055645, 1.867922579501842, 0.1787920529631499,
    0.007017106683227897, 0.00011003435715391573, 5.489002527562557e-07])
_SICI_GN4 = np.array([
    0.08710016989731142, 0.6113791099522193, 0.3971802963923375,
    0.07485277376284691, 0.005388686814621773, 0.00016199979459893403,
    1.9796387414096365e-06, 7.825790407440903e-09])
_SICI_GD4 = np.array([
    1.0, 1.6440220241335535, 0.666296701268988, 0.09887717612776888,
    0.006223963454417684, 0.0001732210814741771, 2.0265918208634397e-06,
    7.825792189335346e-09])
_SICI_FN8 = np.array([
    0.4558808734704653, 0.7137152741001467, 0.16030015822231947,
    0.01160642294081244, 0.00034955644244785906, 4.8621543082645475e-06,
    3.200927900910049e-08, 9.41779576128513e-11, 9.70507110881952e-14])
_SICI_FD8 = np.array([
    1.0, 0.9174636118736841, 0.17868554533207454, 0.012225359477197129,
    0.00035869648188185157, 4.924350643178815e-06, 3.21956939101046e-08,
    9.437205903502767e-11, 9.70507110881952e-14])
_SICI_GN8 = np.array([
    0.6973599534432762, 0.33041097930563207, 0.03848787676499743,
    0.001717182390523479, 3.4894116550227946e-05, 3.471311670841167e-07,
    1.7040445278204452e-09, 3.859459254302766e-12, 3.1404009894636335e-15])
_SICI_GD8 = np.array([
    1.0, 1.6854889881101165, 0.48785225869530496, 0.04679131942596258,
    0.0019028442667439953, 3.684755044425611e-05, 3.5704322344374083e-07,
    1.7269374896631615e-09, 3.878301660239547e-12, 3.1404009894636335e-15])


def _sici_series(x):
    t = x * x
    si = x * jnp.polyval(_SICI_SN.astype(x.dtype), t) / jnp.polyval(_SICI_SD.astype(x.dtype), t)
    ci = np.euler_gamma + jnp.log(x) + t * jnp.polyval(_SICI_CN.astype(x.dtype), t) / \
        jnp.polyval(_SICI_CD.astype(x.dtype), t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asymptotic(x):
    """``Si = pi/2 - f cos x - g sin x``, ``Ci = f sin x - g cos x``."""
    z = 1.0 / (x * x)
    poly = lambda coeffs: jnp.polyval(coeffs.astype(x.dtype), z)
    f = jnp.where(x < 8.0, poly(_SICI_FN4) / (x * poly(_SICI_FD4)),
                  poly(_SICI_FN8) / (x * poly(_SICI_FD8)))
    g = jnp.where(x < 8.0, z * poly(_SICI_GN4) / poly(_SICI_GD4),
                  z * poly(_SICI_GN8) / poly(_SICI_GD8))
    s, c = jnp.sin(x), jnp.cos(x)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_huge(x):
    si = jnp.where(jnp.isposinf(x), np.pi / 2, (np.pi / 2) - jnp.cos(x) / x)
    ci = jnp.where(jnp.isposinf(x), 0.0, jnp.sin(x) / x)
    return si, ci


@custom_jvp
@jit
def sici(x):
    """``(Si(x), Ci(x))``: the sine integral ``int_0^x sin t / t dt`` and the cosine
    integral ``gamma + log x + int_0^x (cos t - 1) / t dt``."""
    x, = _promote_inexact("sici", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    x_abs = jnp.abs(x)
    (si_s, ci_s), (si_a, ci_a), (si_h, ci_h) = (
        _sici_series(x_abs), _sici_asymptotic(x_abs), _sici_huge(x_abs))
    small, middle = x_abs <= 4, (x_abs > 4) & (x_abs <= 1e9)
    si = jnp.sign(x) * jnp.select([small, middle], [si_s, si_a], si_h)
    ci = jnp.where(jnp.isneginf(x), np.nan, jnp.select([small, middle], [ci_s, ci_a], ci_h))
    return si, ci


@sici.defjvp
@jit
def _sici_jvp(primals, tangents):
    (p,), (t,) = primals, tangents
    return sici(p), (jnp.sinc(p / np.pi) * t, jnp.cos(p) / p * t)



# ----------------------------------------------------------------------------------------
# Fresnel integrals
# ----------------------------------------------------------------------------------------

# Cephes' approximations: S and C as (rational) polynomials in x^4 for x^2 < 2.5625,
# beyond through the auxiliary functions f and g in 1/(pi x^2)^2. Single precision has
# its own shorter polynomials (no denominators).
_FRESNEL32_SN = np.array([
    1.6476294637887e-09, -1.522754752581096e-07, 8.4247488085024e-06,
    -0.0003120693124703272, 0.007244727626597022, -0.09228055941124598,
    0.5235987735681432])
_FRESNEL32_CN = np.array([
    1.416802502367354e-08, -1.157231412229871e-06, 5.387223446683264e-05,
    -0.001604381798862293, 0.02818489036795073, -0.2467398198317899,
    0.9999999760004487])
_FRESNEL32_FN = np.array([
    -1903009855649.792, 135594238805.0252, -4158143148.511033, 73438484.63587323,
    -873235.6681548485, 8560.51546627547, -103.2877601091159, 2.999401847870011])
_FRESNEL32_GN = np.array([
    -186084399762.465, 12783506733.93208, -377938771.3202229, 6492611.570598858,
    -77877.89623358162, 860.2931494734327, -14.93439396592284, 0.9999841934744914])
_FRESNEL64_SN = np.array([
    -2991.8191940101983, 708840.0452577386, -62974148.62058625, 2548908805.7337637,
    -44297951805.96978, 318016297876.5678])
_FRESNEL64_SD = np.array([
    1.0, 281.3762688899943, 45584.78108065326, 5173438.887700964, 419320245.8981112,
    22441179564.534092, 607366389490.0846])
_FRESNEL64_CN = np.array([
    -4.9884311457357354e-08, 9.504280628298596e-06, -0.0006451914356839651,
    0.018884331939670384, -0.20552590095501388, 1.0])
_FRESNEL64_CD = np.array([
    3.99982968972496e-12, 9.154392157746574e-10, 1.2500186247959882e-07,
    1.2226278902417902e-05, 0.0008680295429417843, 0.04121420907221998, 1.0])
_FRESNEL64_FN = np.array([
    0.4215435550436775, 0.1434079197807589, 0.011522095507358577,
    0.000345017939782574, 4.6361374928786735e-06, 3.055689837902576e-08,
    1.0230451416490724e-10, 1.7201074326816183e-13, 1.3428327623306275e-16,
    3.763297112699879e-20])
_FRESNEL64_FD = np.array([
    1.0, 0.7515863983533789, 0.11688892585919138, 0.0064405152650885865,
    0.00015593440916415301, 1.8462756734893055e-06, 1.1269922476399903e-08,
    3.6014002958937136e-11, 5.887545336215784e-14, 4.5200143407412973e-17,
    1.2544323709001127e-20])
_FRESNEL64_GN = np.array([
    0.5044420736433832, 0.1971028335255234, 0.018764858409257526,
    0.0006840793809153931, 1.1513882611188428e-05, 9.828524436884223e-08,
    4.4534441586175015e-10, 1.0826804113902088e-12, 1.375554606332618e-15,
    8.363544356306774e-19, 1.8695871016278324e-22])
_FRESNEL64_GD = np.array([
    1.0, 1.4749575992512833, 0.33774898912002, 0.02536037414203388,
    0.0008146791071843061, 1.2754507566772912e-05, 1.0431458965757199e-07,
    4.6068072814652043e-10, 1.1027321506624028e-12, 1.3879653125957886e-15,
    8.391588162831187e-19, 1.8695871016278324e-22])


@jit
def _sincospisquaredhalf(x):
    """``(sin(pi x^2 / 2), cos(pi x^2 / 2))`` with the argument reduced modulo 2 first,
    so that large ``x`` keeps its accuracy."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                      jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)),
                                -jnp.sin(np.pi * (r - 1.0))))
    cospi = jnp.where(r == 0.5, 0.0, jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)),
                                               jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


@custom_jvp
def fresnel(x):
    """The Fresnel integrals ``(S(x), C(x)) = int_0^x (sin, cos)(pi t^2 / 2) dt``."""
    xxa, = _promote_inexact("fresnel", x)
    original_dtype = xxa.dtype
    if dtypes.issubdtype(xxa.dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented "
                                  "yet.")
    if xxa.dtype in (np.float16, dtypes.bfloat16):
        xxa = xxa.astype(np.float32)
    if xxa.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"Support for {xxa.dtype} dtype is not implemented yet.")
    single = xxa.dtype == np.float32
    x = jnp.abs(xxa)
    x2 = x * x
    t = x2 * x2
    sinpi, cospi = _sincospisquaredhalf(x)
    if single:
        s_small = x * x2 * jnp.polyval(jnp.array(_FRESNEL32_SN, np.float32), t)
        c_small = x * jnp.polyval(jnp.array(_FRESNEL32_CN, np.float32), t)
        c_large = s_large = 0.5
    else:
        s_small = x * x2 * jnp.polyval(_FRESNEL64_SN, t) / jnp.polyval(_FRESNEL64_SD, t)
        c_small = x * jnp.polyval(_FRESNEL64_CN, t) / jnp.polyval(_FRESNEL64_CD, t)
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * jnp.polyval(jnp.array(_FRESNEL32_FN, np.float32), u)
        g = t * jnp.polyval(jnp.array(_FRESNEL32_GN, np.float32), u)
    else:
        f = 1.0 - u * jnp.polyval(_FRESNEL64_FN, u) / jnp.polyval(_FRESNEL64_FD, u)
        g = t * jnp.polyval(_FRESNEL64_GN, u) / jnp.polyval(_FRESNEL64_GD, u)
    t = np.pi * x
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t
    isinf, small, large = jnp.isinf(xxa), x2 < 2.5625, x > 36974.0
    s = jnp.where(isinf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
    c = jnp.where(isinf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
    neg = xxa < 0.0
    s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
    return s.astype(original_dtype), c.astype(original_dtype)


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    sinpi, cospi = _sincospisquaredhalf(x)
    return fresnel(x), (sinpi * x_dot, cospi * x_dot)


# ----------------------------------------------------------------------------------------
# Spherical harmonics
# ----------------------------------------------------------------------------------------

def _legendre_recurrence_masks(l_max, is_normalized, dtype):
    """The coefficients of the three-term recurrence in the degree ``l``, laid out as
    ``(step, m, l)`` arrays so that one fori_loop step updates the diagonal band
    ``l = m + step`` of every order at once."""
    m_mat, l_mat = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype),
                                jnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    if is_normalized:
        c0, c1 = l_mat * l_mat, m_mat * m_mat
        c2, c3 = 2.0 * l_mat, (l_mat - 1.0) * (l_mat - 1.0)
        d0 = jnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
        d1 = jnp.sqrt(((c2 + 1.0) * (c3 - c1)) / ((c2 - 3.0) * (c0 - c1)))
    else:
        d0 = (2.0 * l_mat - 1.0) / (l_mat - m_mat)
        d1 = (l_mat + m_mat - 1.0) / (l_mat - m_mat)
    zeros = jnp.zeros((l_max + 1, l_max + 1), dtype=dtype)
    i0, i1 = jnp.triu_indices(l_max + 1, 1), jnp.triu_indices(l_max + 1, 2)
    d0_mask = zeros.at[i0].set(d0[i0])
    d1_mask = zeros.at[i1].set(d1[i1])
    i, j, k = jnp.ogrid[:l_max + 1, :l_max + 1, :l_max + 1]
    band = (i + j - k == 0).astype(dtype)
    return (jnp.einsum("jk,ijk->ijk", d0_mask, band), jnp.einsum("jk,ijk->ijk", d1_mask, band))


@partial(jit, static_argnums=(0, 2))
def _associated_legendre(l_max, x, is_normalized):
    """``P[m, l, i]``: the associated Legendre functions of order ``m`` and degree ``l``
    at ``x[i]`` (orthonormalized for spherical harmonics if ``is_normalized``): the
    diagonal ``l = m`` in closed form, then the recurrence in ``l``."""
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
    a_idx = jnp.arange(1, l_max + 1, dtype=x.dtype)
    b_idx = jnp.arange(l_max, dtype=x.dtype)
    if is_normalized:
        initial_value = 0.5 / jnp.sqrt(np.pi)
        f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a_idx))
        f_b = jnp.sqrt(2.0 * b_idx + 3.0)
    else:
        initial_value = 1.0
        f_a = jnp.cumprod(1.0 - 2.0 * a_idx)
        f_b = 2.0 * b_idx + 1.0
    p = p.at[(0, 0)].set(initial_value)
    y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    diag = jnp.diag_indices(l_max + 1)
    p = p.at[(diag[0][1:], diag[1][1:])].set(initial_value * jnp.einsum("i,ij->ij", f_a, y))
    p_offdiag = jnp.einsum("ij,ij->ij", jnp.einsum("i,j->ij", f_b, x),
                           p[jnp.diag_indices(l_max)])
    p = p.at[(diag[0][:l_max], diag[1][:l_max] + 1)].set(p_offdiag)
    d0_mask, d1_mask = _legendre_recurrence_masks(l_max, is_normalized, x.dtype)

    def step(i, p_val):
        h = (jnp.einsum("ij,ijk->ijk", d0_mask[i],
                        jnp.einsum("ijk,k->ijk", jnp.roll(p_val, shift=1, axis=1), x))
             - jnp.einsum("ij,ijk->ijk", d1_mask[i], jnp.roll(p_val, shift=2, axis=1)))
        return p_val + h
    p = p.astype(dtypes.result_type(p, x, d0_mask))
    if l_max > 1:
        p = lax.fori_loop(2, l_max + 1, step, p)
    return p


@partial(jit, static_argnums=(4,))
def _sph_harm(n, m, theta, phi, n_max):
    legendre = _associated_legendre(n_max, jnp.cos(theta), True)
    legendre_val = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    harmonics = lax.complex(legendre_val * jnp.cos(angle), legendre_val * jnp.sin(angle))
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics ``Y_n^m(theta, phi)`` (``theta`` the polar angle,
    SciPy's ``sph_harm_y`` convention); ``n_max`` (the largest degree) must be static
    under transformations."""
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to jax.scipy.special.sph_harm_y "
                                  "is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    n_max = core.concrete_or_error(
        int, n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be "
        "statically specified to use `sph_harm` within JAX transformations.")
    return _sph_harm(n, m, theta, phi, n_max)
