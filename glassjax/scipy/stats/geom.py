"""The geometric distribution: the number of trials up to the first success."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.special import xlog1py


def logpmf(k, p, loc=0):
    """``(k - 1) log(1 - p) + log p`` for ``k >= 1`` (shifted by ``loc``)."""
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    zero, one = _const(k, 0), _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return jnp.where(lax.le(x, zero), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
