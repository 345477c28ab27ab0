"""``glassjax.scipy.stats``: probability distributions (JAX's ``jax.scipy.stats``), one
module per distribution with its ``logpdf``/``pdf``/``cdf``/... as JAX has them, plus
``gaussian_kde``, ``mode``, ``rankdata`` and ``sem``."""
from glassjax.scipy.stats import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet,
                                  expon, gamma, gennorm, geom, gumbel_l, gumbel_r, laplace,
                                  logistic, multinomial, multivariate_normal, nbinom, norm,
                                  pareto, poisson, t, truncnorm, uniform, vonmises,
                                  wrapcauchy)
from glassjax.scipy.stats.descriptive import mode, rankdata, sem
from glassjax.scipy.stats.kde import gaussian_kde
