"""The Bernoulli distribution: 1 with probability ``p``, else 0."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import xlog1py, xlogy


def logpmf(k, p, loc=0):
    """``k log p + (1 - k) log(1 - p)`` on {0, 1} (shifted by ``loc``), -inf off it."""
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    zero, one = _const(k, 0), _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on (NaN for invalid ``p``)."""
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    zero, one = _const(k, 0), _const(k, 1)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one), lax.lt(k, zero),
             jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    return jnp.select(conds, [jnp.nan, zero, one - p, one])


def ppf(q, p):
    """The smallest ``k`` with ``cdf(k) >= q``."""
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    zero, one = _const(q, 0), _const(q, 1)
    invalid = jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return jnp.where(invalid, jnp.nan, jnp.where(lax.le(q, one - p), zero, one))
