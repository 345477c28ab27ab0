"""The right-skewed Gumbel distribution (of the maximum): ``cdf = exp(-exp(-z))``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.nn.functions import log1mexp
from glassjax.scipy.special import xlogy


def _z(x, loc, scale):
    return lax.gt(scale, _const(scale, 0)), lax.div(lax.sub(x, loc), scale)


def logpdf(x, loc=0, scale=1):
    """``-(z + exp(-z)) - log scale`` (NaN for a non-positive scale)."""
    x, loc, scale = promote_args_inexact("gumbel_r.logpdf", x, loc, scale)
    ok, z = _z(x, loc, scale)
    t2 = lax.neg(lax.add(z, lax.exp(lax.neg(z))))
    return jnp.where(ok, lax.add(xlogy(-1, scale), t2), np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.logcdf", x, loc, scale)
    ok, z = _z(x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc - scale log(-log p)``."""
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    quantile = lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p))))
    return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, lax.sub(_const(x, 1), lax.exp(lax.neg(lax.exp(neg_z)))), np.nan)


def logsf(x, loc=0, scale=1):
    """``log(1 - exp(-exp(-z)))``, by ``log1mexp``."""
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, log1mexp(lax.exp(neg_z)), np.nan)
