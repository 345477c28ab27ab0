"""``gaussian_kde``: a kernel density estimate with Gaussian kernels, as SciPy's.

The bandwidth (Scott's or Silverman's rule, a scalar, or a callable) scales the data's
weighted covariance into the kernel covariance. A pytree, so a KDE can be passed through
``jit``/``vmap``/``grad``.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from glassjax import dtypes, random
from glassjax import numpy as jnp
from glassjax.jit import jit
from glassjax.nn.special import logsumexp
from glassjax.numpy.util import check_arraylike, promote_dtypes_inexact
from glassjax.scipy import linalg, special
from glassjax.tree_util import register_pytree_node_class
from glassjax.vmap_api import vmap


@register_pytree_node_class
class gaussian_kde:
    """The density ``sum_i w_i N(x; dataset[:, i], covariance)`` of a ``(d, n)``
    dataset."""
    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method=None, weights=None):
        check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtypes.issubdtype(dataset.dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = jnp.atleast_1d(weights)
            weights /= jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = promote_dtypes_inexact(dataset)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        neff = 1 / jnp.sum(weights ** 2)
        bw_method = "scott" if bw_method is None else bw_method
        if bw_method == "scott":
            factor = jnp.power(neff, -1. / (d + 4))
        elif bw_method == "silverman":
            factor = jnp.power(neff * (d + 2) / 4.0, -1. / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            object.__setattr__(self, "neff", neff)
            object.__setattr__(self, "dataset", dataset)
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False,
                                                 aweights=weights))
        for name, value in (("neff", neff), ("dataset", dataset), ("weights", weights),
                            ("covariance", data_covariance * factor ** 2),
                            ("inv_cov", jnp.linalg.inv(data_covariance) / factor ** 2)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("gaussian_kde is immutable")

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        for name, value in zip(cls.__slots__, children):
            object.__setattr__(kde, name, value)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The density at ``points`` (shape ``(d, m)``)."""
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _gaussian_kernel_eval(False, self.dataset.T, self.weights[:, None], points.T,
                                     self.inv_cov)[:, 0]

    __call__ = pdf = evaluate

    def logpdf(self, x):
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _gaussian_kernel_eval(True, self.dataset.T, self.weights[:, None], x.T,
                                     self.inv_cov)[:, 0]

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times a Gaussian ``N(mean, cov)``."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = linalg.cho_factor(self.covariance + cov)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        return _gaussian_kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The probability mass between ``low`` and ``high`` (1-D KDEs)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of two KDEs."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = linalg.cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))
        sm, lg = (self, other) if self.n < other.n else (other, self)
        result = vmap(partial(_gaussian_kernel_convolve, chol, norm, lg.dataset, lg.weights),
                      in_axes=1)(sm.dataset)
        return jnp.sum(result * sm.weights)

    @jit(static_argnames=("shape",))
    def resample(self, key, shape=()):
        """Samples: a data point drawn by weight plus kernel noise."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype),
                                         self.covariance, shape=shape,
                                         dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        raise NotImplementedError("dynamically changing the bandwidth method is not "
                                  "supported")

    def _reshape_points(self, points):
        if dtypes.issubdtype(jnp.asarray(points).dtype, np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return jnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _gaussian_kernel_convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = linalg.cho_solve(chol, diff)
    return norm * jnp.sum(jnp.exp(-0.5 * jnp.sum(diff * alpha, axis=0)) * weights)


@partial(jit, static_argnums=0)
def _gaussian_kernel_eval(in_log, points, values, xi, precision):
    """``sum_j values_j N(xi; points_j, precision^-1)`` for each ``xi`` (in logs if
    ``in_log``), after whitening by the Cholesky factor of the precision."""
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = linalg.cholesky(precision, lower=True)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
        return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)
    reduce = logsumexp if in_log else jnp.sum
    return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                                 axis=0))(xi)
