"""The beta-binomial distribution: binomial with a Beta(a, b) success probability."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.jit import jit
from glassjax.scipy.special import betaln


@jit
def logpmf(k, n, a, b, loc=0):
    """``log C(n, y) + log B(y + a, n - y + b) - log B(a, b)``, the binomial coefficient
    written with ``betaln``."""
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = _const(y, 1), _const(y, 0)
    combiln = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one),
                                                   lax.add(y, one))))
    beta_lns = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    log_probs = lax.add(combiln, beta_lns)
    log_probs = jnp.where(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), 0., log_probs)
    y_cond = jnp.logical_or(jnp.logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, n)),
                            lax.le(lax.add(y, a), zero))
    log_probs = jnp.where(y_cond, -np.inf, log_probs)
    n_a_b_cond = jnp.logical_or(jnp.logical_or(lax.lt(n, zero), lax.le(a, zero)),
                                lax.le(b, zero))
    return jnp.where(n_a_b_cond, np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    return lax.exp(logpmf(k, n, a, b, loc))
