"""The beta distribution on [loc, loc + scale] with shapes ``a``, ``b``; its cdf is
the regularized incomplete beta function."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import betainc, betaln, xlog1py, xlogy


def logpdf(x, a, b, loc=0, scale=1):
    """``(a-1) log y + (b-1) log(1-y) - log B(a, b) - log scale`` for ``y = (x-loc)/scale``."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = _const(x, 1), _const(a, 0)
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(lax.neg(betaln(a, b)), log_linear_term), lax.log(scale))
    result = jnp.where(jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)),
                       -np.inf, log_probs)
    invalid = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)),
                             lax.le(scale, zero))
    return jnp.where(invalid, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    return lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """``1 - cdf`` by the symmetry ``I_{1-y}(b, a)`` (accurate in the upper tail)."""
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    return lax.log(sf(x, a, b, loc, scale))
