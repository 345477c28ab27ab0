"""Special functions of ``jax.scipy.special`` defined by integrals and series: the
exponential integrals (``expi``, ``expn``, ``exp1``), the Faddeeva family (``wofz``,
``erfcx``, ``dawsn``), Gauss's hypergeometric ``hyp2f1``, the sine/cosine and Fresnel
integrals and the spherical harmonics ``sph_harm_y``. Cephes' rational approximations
where JAX uses them, each with the ``custom_jvp`` JAX gives it.

Read first: ``special_functions.py`` (the helpers these build on).
"""

from functools import partial

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.numpy.util import const as _const
from glassjax.numpy.util import (promote_args_complex)

from glassjax.scipy.special_functions import (_promote_inexact, digamma, gamma, gammaln)


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
