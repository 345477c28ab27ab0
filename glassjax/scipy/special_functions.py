"""Special functions of ``jax.scipy.special`` built from one primitive or a short
composition: the error and gamma families, ``xlogy`` and friends, the normal distribution's
``ndtr`` / ``ndtri`` / ``log_ndtr``, Hurwitz zeta, Bessel ``i0``/``i1``/``jn``, Spence's
function, ``hyp1f1`` and Owen's T. A ``custom_jvp`` wherever the naive derivative would be
NaN or inaccurate, rational approximations from Cephes where JAX uses them, so values and
jaxprs match JAX's.

Read next: ``special_integrals.py`` (functions defined by integrals and series);
``special.py`` is the public module gathering both.
"""

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
from glassjax.numpy.util import const as _const
from glassjax.numpy.util import (promote_args_inexact, promote_dtypes,
                                 promote_dtypes_inexact)
from glassjax.vmap_api import vmap




def _promote_inexact(name, *args):
    """``promote_args_inexact`` with every result an array (a Python scalar argument
    stays a Python scalar through glassjax's promotion)."""
    return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]


# ----------------------------------------------------------------------------------------
# One primitive each
# ----------------------------------------------------------------------------------------

def gammaln(x):
    """``log|Gamma(x)|``."""
    return lax.lgamma(*_promote_inexact("gammaln", x))


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
    return lax.digamma(*_promote_inexact("digamma", x))


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
    return lax.erf(*_promote_inexact("erf", x))


def erfc(x):
    """``1 - erf(x)``, accurate where ``erf(x)`` is close to 1."""
    return lax.erfc(*_promote_inexact("erfc", x))


def erfinv(x):
    """The inverse of ``erf`` on (-1, 1)."""
    return lax.erf_inv(*_promote_inexact("erfinv", x))


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return lax.logistic(*_promote_inexact("expit", x))


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

def _x_times(name, log, x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    x, y = _promote_inexact(name, x, y)
    return jnp.where((x != 0.) | jnp.isnan(y), lax.mul(x, log(y)), jnp.zeros_like(x))


def _x_times_jvp(fun, log, log_argument, primals, tangents):
    """The tangent of ``fun(x, y) = x * log(y)``: ``dx log(y) + dy x / log_argument(y)``
    (no ``0 * inf`` where ``x`` is 0)."""
    (x, y), (x_dot, y_dot) = primals, tangents
    result = fun(x, y)
    return result, (x_dot * log(y) + y_dot * x / log_argument(y)).astype(result.dtype)


@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    return _x_times("xlogy", lax.log, x, y)


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    return _x_times_jvp(xlogy, lax.log, lambda y: y, primals, tangents)


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    return _x_times("xlog1py", lax.log1p, x, y)


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    return _x_times_jvp(xlog1py, lax.log1p, lambda y: 1 + y, primals, tangents)


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
    return lax.bessel_i0e(*_promote_inexact("i0e", x))


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    x, = _promote_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
    """``exp(-|x|) I1(x)``."""
    return lax.bessel_i1e(*_promote_inexact("i1e", x))


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
