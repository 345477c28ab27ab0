"""The binomial distribution: successes in ``n`` trials of probability ``p``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import gammaln, xlog1py, xlogy


def logpmf(k, n, p, loc=0):
    """``log C(n, y) + y log p + (n - y) log(1 - p)`` for ``y = k - loc`` in [0, n]."""
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _const(y, 0)
    comb_term = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    log_linear_term = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb_term, log_linear_term)
    certain = jnp.logical_or(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)),
                             lax.eq(log_linear_term, zero))
    log_probs = jnp.where(certain, 0., log_probs)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
