"""The regularized incomplete gamma functions and their derivatives.

``igamma(a, x) = P(a, x)`` is the probability that a Gamma(a, 1) variable is below ``x``;
``igammac = Q = 1 - P``. XLA has no instruction for them, so (as XLA's own math library
and JAX do) each primitive lowers to a program built from lax operations: for small ``x``
the power series of ``P``, for large ``x`` Legendre's continued fraction for ``Q``, each
summed in a ``while_loop`` until the terms stop mattering. Both loops can carry the
derivative with respect to ``a`` along, which gives

* ``igamma_grad_a``: ``dP/da`` (the JVP of ``igamma`` in ``a``), and
* ``random_gamma_grad``: ``dx/da`` for a sample ``x ~ Gamma(a)`` held at fixed
  probability ``P(a, x)`` (implicit differentiation), the JVP of ``random.gamma``.

All work lane by lane: a lane whose sum has converged stops updating while the others
go on.
"""
from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from glassjax import dtypes
from glassjax.interpreters import ad
from glassjax.lax.control_flow import while_loop
from glassjax.lax.elementwise import (abs, convert_element_type, digamma, div, eq,
                                      exp, ge, gt, le, lgamma, log, lt, mul, ne, neg,
                                      select, sub)
from glassjax.lax.reductions import reduce_or
from glassjax.lax.structural import broadcast_in_dim, broadcast_shapes, full_like
from glassjax.lax.utils import _float, naryop
from glassjax.xla import lowering


class _Mode(enum.Enum):
    VALUE = 1               # P or Q itself
    DERIVATIVE = 2          # dP/da
    SAMPLE_DERIVATIVE = 3   # dx/da at fixed P(a, x)


def _full(like, value):
    return full_like(like, value)


def _any(pred):
    """Is any lane still running? (reduced over every axis)"""
    return reduce_or(pred, tuple(range(pred.ndim)))


def _eps(x):
    return float(np.finfo(x.dtype).eps)


def _finish(mode, ax, x, ans, dans_da, dlogax_da):
    """The requested quantity from a converged sum ``ans`` (to be scaled by ``ax``) and
    its derivative ``dans_da``; ``dlogax_da`` is the derivative of ``log(ax)``."""
    if mode is _Mode.VALUE:
        return ans * ax
    if mode is _Mode.DERIVATIVE:
        return ax * (ans * dlogax_da + dans_da)
    return -(dans_da + ans * dlogax_da) * x


class _SeriesState(NamedTuple):
    running: object
    r: object          # a + n
    c: object          # the n-th term x^n / ((a+1)...(a+n))
    ans: object        # the partial sum
    dc_da: object
    dans_da: object


def _series(ax, x, a, enabled, mode):
    """``P(a, x) = ax / a * sum_n x^n / ((a+1)...(a+n))`` (with ``ax = x^a e^-x /
    Gamma(a)``), converging fast for ``x < a + 1``."""
    eps = _eps(x)

    def body(s):
        r = s.r + 1.
        dc_da = s.dc_da * (x / r) - (s.c * x) / (r * r)
        dans_da = s.dans_da + dc_da
        c = s.c * (x / r)
        ans = s.ans + c
        small = c / ans if mode is _Mode.VALUE else abs(dc_da / dans_da)
        new = _SeriesState(s.running & (small > eps), r, c, ans, dc_da, dans_da)
        return _SeriesState(new.running, *(select(s.running, n, o)
                                           for n, o in zip(new[1:], s[1:])))

    one, zero = _full(a, 1), _full(a, 0)
    s = while_loop(lambda s: _any(s.running), body,
                   _SeriesState(enabled, a, one, one, zero, zero))
    return _finish(mode, ax, x, s.ans, s.dans_da, log(x) - digamma(a + 1.)) / a


class _FractionState(NamedTuple):
    running: object
    ans: object
    t: object                   # relative change of the last step
    y: object
    z: object
    c: object                   # step count (shared by all lanes)
    pkm1: object                # numerators / denominators of the last two convergents
    qkm1: object
    pkm2: object
    qkm2: object
    dpkm2_da: object            # and their derivatives in a
    dqkm2_da: object
    dpkm1_da: object
    dqkm1_da: object
    dans_da: object


def _continued_fraction(ax, x, a, enabled, mode):
    """``Q(a, x) = ax * 1/(x + 1 - a - 1(1-a)/(x + 3 - a - ...))``, Legendre's continued
    fraction, converging fast for large ``x`` (at most 2000 steps). Convergents whose
    numbers grow too large are rescaled by ``eps``."""
    eps = _eps(x)

    def body(s):
        c, y, z = s.c + 1., s.y + 1., s.z + 2.
        yc = y * c
        pk = s.pkm1 * z - s.pkm2 * yc
        qk = s.qkm1 * z - s.qkm2 * yc
        nonzero = ne(qk, _full(qk, 0))
        r = pk / qk
        t = select(nonzero, abs(div(sub(s.ans, r), r)), _full(r, 1))
        ans = select(nonzero, r, s.ans)
        dpk_da = s.dpkm1_da * z - s.pkm1 - s.dpkm2_da * yc + s.pkm2 * c
        dqk_da = s.dqkm1_da * z - s.qkm1 - s.dqkm2_da * yc + s.qkm2 * c
        dans_da = select(nonzero, div(dpk_da - ans * dqk_da, qk), s.dans_da)
        grad_change = select(nonzero, abs(dans_da - s.dans_da), _full(dans_da, 1))
        rescale = gt(abs(pk), _full(pk, 1 / eps))
        scaled = [select(rescale, v * eps, v) for v in
                  (s.pkm1, pk, s.qkm1, qk, s.dpkm1_da, dpk_da, s.dqkm1_da, dqk_da)]
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dpkm1_da, dqkm2_da, dqkm1_da = scaled
        change = t if mode is _Mode.VALUE else grad_change
        new = _FractionState(s.running & (change > eps), ans, t, y, z, c, pkm1, qkm1,
                             pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)
        kept = [n if name == "c" else select(s.running, n, o)
                for name, n, o in zip(_FractionState._fields[1:], new[1:], s[1:])]
        return _FractionState(new.running, *kept)

    y = 1. - a
    z = x + y + 1.
    pkm1, qkm1 = x + 1., z * x
    ans = pkm1 / qkm1
    zero = _full(x, 0)
    dqkm1_da = neg(x)
    steps = np.zeros((), x.dtype)
    init = _FractionState(enabled, ans, _full(x, 1), y, z, steps, pkm1, qkm1, _full(x, 1),
                          x, zero, zero, zero, dqkm1_da, (zero - ans * dqkm1_da) / qkm1)
    s = while_loop(lambda s: (s.c < 2000.) & _any(s.running), body, init)
    return _finish(mode, ax, x, s.ans, s.dans_da, log(x) - digamma(a))


def _prefactor(a, x):
    """``ax = x^a e^-x / Gamma(a)`` and whether it underflows."""
    log_ax = a * log(x) - x - lgamma(a)
    return exp(log_ax), lt(log_ax, _full(log_ax, -np.log(np.finfo(a.dtype).max)))


def _isnan(x):
    return ne(x, x)


def _igamma_impl(a, x):
    """``P(a, x)``: the series where it converges fast, else one minus the continued
    fraction; the edge cases (x = 0 or inf, outside the domain) explicitly."""
    is_nan = _isnan(a) | _isnan(x)
    x_is_zero, x_is_inf = eq(x, _full(x, 0)), eq(x, _full(x, np.inf))
    domain_error = (lt(x, _full(x, 0)) | lt(a, _full(a, 0)) |
                    (eq(a, _full(a, 0)) & x_is_zero) | is_nan)
    use_fraction = ge(x, _full(x, 1)) & gt(x, a)
    ax, underflow = _prefactor(a, x)
    enabled = ~(x_is_zero | domain_error | underflow | x_is_inf)
    out = select(use_fraction,
                 1. - _continued_fraction(ax, x, a, enabled & use_fraction, _Mode.VALUE),
                 _series(ax, x, a, enabled & ~use_fraction, _Mode.VALUE))
    out = select(x_is_zero, _full(out, 0), out)
    out = select(x_is_inf, _full(out, 1), out)
    return select(domain_error, _full(out, np.nan), out)


def _igamma_derivative_impl(a, x, mode):
    """``dP/da`` (``_Mode.DERIVATIVE``) or a Gamma sample's ``dx/da``
    (``_Mode.SAMPLE_DERIVATIVE``), from the same two sums."""
    is_nan = _isnan(a) | _isnan(x)
    x_is_zero = eq(x, _full(x, 0))
    domain_error = lt(x, _full(x, 0)) | le(a, _full(a, 0))
    use_fraction = gt(x, _full(x, 1)) & gt(x, a)
    ax, underflow = _prefactor(a, x)
    enabled = ~(x_is_zero | domain_error | underflow | is_nan)
    out = select(use_fraction,
                 neg(_continued_fraction(ax, x, a, enabled & use_fraction, mode)),
                 _series(ax, x, a, enabled & ~use_fraction, mode))
    out = select(x_is_zero, _full(out, 0), out)
    return select(domain_error | is_nan, _full(out, np.nan), out)


def _igammac_impl(a, x):
    """``Q(a, x)``: the continued fraction where it converges fast, else one minus the
    series."""
    is_nan = _isnan(a) | _isnan(x)
    a_is_zero, x_is_zero = eq(a, _full(a, 0)), eq(x, _full(x, 0))
    x_is_inf = eq(x, _full(x, np.inf))
    domain_error = (lt(x, _full(x, 0)) | lt(a, _full(a, 0)) | (a_is_zero & x_is_zero) |
                    is_nan)
    use_series = lt(x, _full(x, 1)) | lt(x, a)
    ax, underflow = _prefactor(a, x)
    enabled = ~(domain_error | underflow | x_is_inf | a_is_zero)
    series = _series(ax, x, a, enabled & use_series, _Mode.VALUE)
    fraction = _continued_fraction(ax, x, a, enabled & ~use_series, _Mode.VALUE)
    out = select(use_series, 1. - series, fraction)
    out = select(x_is_inf | a_is_zero, _full(out, 0), out)
    return select(domain_error, _full(out, np.nan), out)


def _in_float32_at_least(impl):
    """Lower ``impl`` on operands broadcast to one shape, and computed in float32 when
    they are 16-bit floats (the sums need the precision)."""
    def lowered(a, x):
        shape = broadcast_shapes(a.shape, x.shape)
        a, x = (broadcast_in_dim(v, shape, tuple(range(len(shape) - v.ndim, len(shape))))
                for v in (a, x))
        dtype = a.dtype
        if dtype in (dtypes.bfloat16, np.dtype(np.float16)):
            out = impl(convert_element_type(a, np.float32), convert_element_type(x, np.float32))
            return convert_element_type(out, dtype)
        return impl(a, x)
    return lowering.lower_fun(lowered)


def _dx_rule(sign):
    """``d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)`` (``Q`` has the opposite sign)."""
    return lambda g, a, x: mul(g, sign * exp(neg(x) + (a - 1.) * log(x) - lgamma(a)))


igamma_grad_a_p = naryop("igamma_grad_a", [_float, _float], None)
lowering.register_lowering(
    igamma_grad_a_p, _in_float32_at_least(
        lambda a, x: _igamma_derivative_impl(a, x, _Mode.DERIVATIVE)))


def igamma_grad_a(a, x):
    """``dP(a, x)/da``."""
    return igamma_grad_a_p.bind(a, x)


igamma_p = naryop("igamma", [_float, _float], None)
lowering.register_lowering(igamma_p, _in_float32_at_least(_igamma_impl))
ad.defjvp(igamma_p, lambda g, a, x: mul(g, igamma_grad_a(a, x)), _dx_rule(1.))


def igamma(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return igamma_p.bind(a, x)


igammac_p = naryop("igammac", [_float, _float], None)
lowering.register_lowering(igammac_p, _in_float32_at_least(_igammac_impl))
ad.defjvp(igammac_p, lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))), _dx_rule(-1.))


def igammac(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(a, x)


def random_gamma_grad(a, x, *, dtype=None):
    """``dx/da`` for a Gamma(a, 1) sample ``x`` (traced inline, as in JAX)."""
    del dtype
    return _igamma_derivative_impl(a, x, _Mode.SAMPLE_DERIVATIVE)
