"""The Poisson distribution with mean ``mu``."""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.lax.elementwise import _const
from glassjax.numpy.util import promote_args_inexact
from glassjax.jit import jit
from glassjax.numpy.util import ensure_arraylike, promote_dtypes_inexact
from glassjax.scipy.special import entr, gammaincc, gammaln, xlogy


def logpmf(k, mu, loc=0):
    """``k log mu - log k! - mu`` for integer ``k - loc >= 0``."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, _const(k, 0)), lax.ne(jnp.round(k), k)),
                     -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``Q(floor(k - loc) + 1, mu)``: the upper regularized incomplete gamma."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


def _entropy_by_sum(mu, max_k, upper_bound):
    """``-sum p log p`` over a static range of ``k``, masked beyond ``upper_bound``."""
    k = jnp.arange(max_k, dtype=mu.dtype)[:, None]
    probs = pmf(k, mu, 0)
    mask = k < jnp.ceil(upper_bound).astype(k.dtype)[None, :]
    return jnp.sum(entr(jnp.where(mask, probs, 0.0)), axis=0)


@jit
def entropy(mu, loc=0):
    """The entropy: summed directly for ``mu < 100``, by the asymptotic expansion
    ``log(2 pi e mu) / 2 - 1 / (12 mu)`` beyond."""
    mu, loc = ensure_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote_dtypes_inexact(mu, loc)
    result_shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    mu_flat = jnp.ravel(mu)
    small = _entropy_by_sum(mu_flat, 35, mu_flat + 20)
    medium = _entropy_by_sum(mu_flat, 250, mu_flat + 10 * jnp.sqrt(mu_flat) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * mu_flat) - 1.0 / (12 * mu_flat)
    result = jnp.where(mu_flat == 0, jnp.zeros_like(mu_flat),
                       jnp.where(mu_flat < 10, small, jnp.where(mu_flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(result, mu.shape), result_shape)
