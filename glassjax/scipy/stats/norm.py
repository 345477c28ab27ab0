"""The normal distribution with mean ``loc`` and standard deviation ``scale``
(``jax.scipy.stats.norm``): densities with lax, distribution functions with
``scipy.special``'s ``ndtr`` family."""
import numpy as np

from glassjax import lax
from glassjax.lax.elementwise import _const
from glassjax.numpy.array_creation import asarray
from glassjax.numpy.util import promote_args_inexact
from glassjax.scipy.stats.symmetric import mirrored_tails
from glassjax.scipy import special


def logpdf(x, loc=0, scale=1):
    """``-(log(2 pi scale^2) + ((x - loc) / scale)^2) / 2``."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = lax.square(scale)
    log_normalizer = lax.log(lax.mul(_const(x, 2 * np.pi), scale_sqrd))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), _const(x, -2))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return special.ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q, loc=0, scale=1):
    """The quantile function: the inverse of ``cdf``."""
    return asarray(special.ndtri(q) * scale + loc, float)


sf, logsf = mirrored_tails("norm", cdf, logcdf)


def isf(q, loc=0, scale=1):
    """The inverse of ``sf``."""
    return ppf(lax.sub(_const(q, 1), q), loc, scale)
