"""The von Mises distribution on the circle, with concentration ``kappa``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, kappa):
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (the scaled Bessel function keeps
    large ``kappa`` finite)."""
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    return jnp.where(lax.gt(kappa, _const(kappa, 0)),
                     kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa)),
                     np.nan)


def pdf(x, kappa):
    return lax.exp(logpdf(x, kappa))
