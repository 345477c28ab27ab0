"""The negative binomial distribution: failures before the ``n``-th success."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import gammaln, xlogy


def logpmf(k, n, p, loc=0):
    """``log C(y + n - 1, y) + n log p + y log(1 - p)`` for ``y = k - loc >= 0``."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = _const(k, 1)
    y = lax.sub(k, loc)
    comb_term = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_linear_term = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    return jnp.where(lax.lt(k, loc), -np.inf, lax.add(comb_term, log_linear_term))


def pmf(k, n, p, loc=0):
    return lax.exp(logpmf(k, n, p, loc))
