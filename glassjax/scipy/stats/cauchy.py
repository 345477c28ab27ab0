"""The Cauchy distribution (location ``loc``, half-width ``scale``)."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.stats.symmetric import mirrored_tails


def logpdf(x, loc=0, scale=1):
    """``-log(pi scale (1 + z^2))`` for ``z = (x - loc) / scale``."""
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(_const(x, np.pi), scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1/2 + arctan(z) / pi``."""
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.add(_const(x, 0.5), lax.mul(lax.div(_const(x, 1.), _const(x, np.pi)),
                                           lax.atan(z)))


def logcdf(x, loc=0, scale=1):
    return lax.log(cdf(x, loc, scale))


sf, logsf = mirrored_tails("cauchy", cdf, logcdf)


def isf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    unscaled = lax.tan(lax.sub(_const(q, np.pi / 2), lax.mul(_const(q, np.pi), q)))
    return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q, loc=0, scale=1):
    """``loc + scale tan(pi (q - 1/2))``."""
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    unscaled = lax.tan(lax.sub(lax.mul(_const(q, np.pi), q), _const(q, np.pi / 2)))
    return lax.add(lax.mul(unscaled, scale), loc)
