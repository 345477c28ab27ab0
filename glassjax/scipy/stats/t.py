"""Student's t distribution with ``df`` degrees of freedom."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact


def logpdf(x, df, loc=0, scale=1):
    """``log Gamma((df+1)/2) - log Gamma(df/2) - log(pi df scale^2) / 2
    - (df+1)/2 log(1 + z^2/df)``."""
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = _const(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, _const(x, 0.5))
    normalize_term_const = lax.mul(lax.mul(scale, scale), _const(x, np.pi))
    normalize_term_tmp = lax.div(lax.log(lax.mul(normalize_term_const, df)), two)
    normalize_term = lax.sub(lax.add(lax.lgamma(df_over_two), normalize_term_tmp),
                             lax.lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(normalize_term, lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))
