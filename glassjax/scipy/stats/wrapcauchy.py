"""The wrapped Cauchy distribution on [0, 2 pi], with shape ``0 < c < 1``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, c):
    """``log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos x)))``."""
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    on_circle = lax.ge(x, _const(x, 0)) & lax.le(x, _const(x, np.pi * 2))
    value = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    return jnp.where(lax.gt(c, _const(c, 0)) & lax.lt(c, _const(c, 1)),
                     jnp.where(on_circle, value, -np.inf), np.nan)


def pdf(x, c):
    return lax.exp(logpdf(x, c))
