"""The generalized normal distribution: density proportional to ``exp(-|x|^beta)``."""
from __future__ import annotations

from glassjax import lax
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, beta):
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    """``(1 + sign(x) P(1/beta, |x|^beta)) / 2``."""
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    return lax.exp(logpdf(x, beta))
