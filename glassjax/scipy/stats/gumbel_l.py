"""The left-skewed Gumbel distribution (of the minimum): ``cdf = 1 - exp(-exp(z))``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import xlog1py, xlogy


def _z(x, loc, scale):
    return lax.gt(scale, _const(scale, 0)), lax.div(lax.sub(x, loc), scale)


def logpdf(x, loc=0, scale=1):
    """``z - exp(z) - log scale`` (NaN for a non-positive scale)."""
    x, loc, scale = promote_args_inexact("gumbel_l.logpdf", x, loc, scale)
    ok, z = _z(x, loc, scale)
    return jnp.where(ok, lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z))), np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_l.logcdf", x, loc, scale)
    ok, z = _z(x, loc, scale)
    return jnp.where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc + scale log(-log(1 - p))``."""
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    quantile = lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p)))))
    return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """``-exp(z)``."""
    x, loc, scale = promote_args_inexact("gumbel_l.logsf", x, loc, scale)
    ok, z = _z(x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(z)), np.nan)
