"""The gamma distribution with shape ``a``; its cdf is the regularized incomplete gamma
function."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import gammainc, gammaincc, gammaln, xlogy


def logpdf(x, a, loc=0, scale=1):
    """``(a-1) log y - y - log Gamma(a) - log scale`` for ``y = (x - loc) / scale >= 0``."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    log_probs = lax.sub(log_linear_term, lax.add(gammaln(a), lax.log(scale)))
    return jnp.where(ok, log_probs, -np.inf)


def pdf(x, a, loc=0, scale=1):
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale),
                                 _const(x, np.inf)))


def logcdf(x, a, loc=0, scale=1):
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return lax.log(sf(x, a, loc, scale))
