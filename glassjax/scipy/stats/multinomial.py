"""The multinomial distribution: counts ``x`` (last axis) of ``n`` draws over categories
of probabilities ``p``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.numpy.util import promote_args_inexact
from glassjax import dtypes
from glassjax.numpy.util import promote_args_numeric
from glassjax.scipy.special import gammaln, xlogy


def logpmf(x, n, p):
    """``log n! + sum(x log p - log x!)``, -inf unless the counts sum to ``n``."""
    p, = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -np.inf)


def pmf(x, n, p):
    return lax.exp(logpmf(x, n, p))
