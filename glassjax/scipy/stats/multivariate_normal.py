"""The multivariate normal distribution (``cov`` a scalar or a full matrix)."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.numpy.util import promote_dtypes_inexact


def logpdf(x, mean, cov, allow_singular=None):
    """``-(y^T cov^-1 y + n log(2 pi) + log det cov) / 2``, with ``y = x - mean``
    whitened by the Cholesky factor of ``cov``."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    if not mean.shape:
        return (-1 / 2 * jnp.square(x - mean) / cov
                - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    n = mean.shape[-1]
    if not np.shape(cov):
        y = x - mean
        return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov
                - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    L = lax.linalg.cholesky(cov)
    y = jnp.vectorize(lambda L, v: lax.linalg.triangular_solve(L, v, lower=True,
                                                               transpose_a=True),
                      signature="(n,n),(n)->(n)")(L, x - mean)
    return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi)
            - jnp.log(L.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
    return lax.exp(logpdf(x, mean, cov))
