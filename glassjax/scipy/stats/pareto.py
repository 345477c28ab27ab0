"""The Pareto distribution with shape ``b`` on ``[loc + scale, inf)``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, b, loc=0, scale=1):
    """``log b - log scale - (b + 1) log z`` for ``z = (x - loc) / scale >= 1``."""
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(lax.log(lax.div(scale, b)),
                                lax.mul(lax.add(b, _const(x, 1)), lax.log(z))))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """``1 - z^-b``."""
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    value = lax.sub(_const(x, 1), lax.pow(z, lax.neg(b)))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), _const(x, 0), value)


def logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    value = lax.log1p(lax.neg(lax.pow(z, lax.neg(b))))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), -np.inf, value)


def logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    value = lax.neg(lax.mul(b, lax.log(z)))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), _const(x, 0), value)


def sf(x, b, loc=0, scale=1):
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """``loc + scale (1 - q)^(-1/b)``."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    one = _const(q, 1)
    value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
