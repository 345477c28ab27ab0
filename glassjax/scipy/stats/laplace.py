"""The Laplace (double exponential) distribution."""
from __future__ import annotations

from glassjax import lax
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    """``-|x - loc| / scale - log(2 scale)``."""
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(_const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``exp(z) / 2`` below ``loc``, ``1 - exp(-z) / 2`` above."""
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one, zero = _const(x, 0.5), _const(x, 1), _const(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero), lax.mul(half, lax.exp(diff)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))
