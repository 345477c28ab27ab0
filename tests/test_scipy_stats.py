"""``jax.scipy.stats`` distributions and statistics against SciPy, over random
parameters: every function JAX 0.10.2 has for each distribution, plus gradients of the
log densities against finite differences and vmap against a loop."""
import numpy as np
import pytest
import scipy.special as osp_special
import scipy.stats as osp

import glassjax
import glassjax.numpy as jnp
from glassjax.scipy import stats
from glassjax.test_util import check_grads

rng = np.random.default_rng(5)
F32 = np.float32


def _u(lo, hi, n=7):
    return rng.uniform(lo, hi, n).astype(F32)


# (name, argument makers, scipy frozen constructor from the shape parameters, functions)
CONTINUOUS = [
    ("beta", lambda: (_u(0.05, 0.95), _u(0.5, 4), _u(0.5, 4)),
     lambda a, b: osp.beta(a, b), ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("cauchy", lambda: (_u(-5, 5), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.cauchy(loc, scale),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("chi2", lambda: (_u(0.1, 8), _u(1, 6)), lambda df: osp.chi2(df),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("expon", lambda: (_u(0.01, 5), _u(-0.5, 0), _u(0.5, 2)),
     lambda loc, scale: osp.expon(loc, scale),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("gamma", lambda: (_u(0.1, 6), _u(0.5, 4)), lambda a: osp.gamma(a),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("gennorm", lambda: (_u(-3, 3), _u(0.5, 3)), lambda b: osp.gennorm(b),
     ["logpdf", "pdf", "cdf"]),
    ("gumbel_l", lambda: (_u(-3, 3), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.gumbel_l(loc, scale),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("gumbel_r", lambda: (_u(-3, 3), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.gumbel_r(loc, scale),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("laplace", lambda: (_u(-3, 3), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.laplace(loc, scale), ["logpdf", "pdf", "cdf"]),
    ("logistic", lambda: (_u(-4, 4), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.logistic(loc, scale), ["logpdf", "pdf", "cdf", "sf"]),
    ("norm", lambda: (_u(-3, 3), _u(-1, 1), _u(0.5, 2)),
     lambda loc, scale: osp.norm(loc, scale),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("pareto", lambda: (_u(1.5, 6), _u(0.5, 3)), lambda b: osp.pareto(b),
     ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("t", lambda: (_u(-4, 4), _u(1, 10), _u(-1, 1), _u(0.5, 2)),
     lambda df, loc, scale: osp.t(df, loc, scale), ["logpdf", "pdf"]),
    ("truncnorm", lambda: (_u(-0.9, 1.9), np.full(7, -1., F32), np.full(7, 2., F32)),
     lambda a, b: osp.truncnorm(a, b), ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]),
    ("uniform", lambda: (_u(-1, 3), _u(-0.5, 0.5), _u(1, 2)),
     lambda loc, scale: osp.uniform(loc, scale), ["logpdf", "pdf", "cdf"]),
    ("vonmises", lambda: (_u(-3, 3), _u(0.5, 5)), lambda kappa: osp.vonmises(kappa),
     ["logpdf", "pdf"]),
    ("wrapcauchy", lambda: (_u(0.1, 6), _u(0.1, 0.9)), lambda c: osp.wrapcauchy(c),
     ["logpdf", "pdf"]),
]


@pytest.mark.parametrize("name,make,frozen,fns", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous(name, make, frozen, fns):
    x, *params = make()
    dist = frozen(*(p.astype(np.float64) for p in params))
    for fn in fns:
        got = getattr(getattr(stats, name), fn)(x, *params)
        want = getattr(dist, fn)(x.astype(np.float64))
        assert got.dtype == np.float32, (fn, got.dtype)
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4, atol=1e-5,
                                   err_msg=f"{name}.{fn}")


QUANTILES = [("cauchy", ["ppf", "isf"], (0.3, 1.5)), ("expon", ["ppf"], (0.2, 2.)),
             ("gumbel_l", ["ppf"], (0.1, 1.5)), ("gumbel_r", ["ppf"], (0.1, 1.5)),
             ("logistic", ["ppf", "isf"], (-0.5, 2.)), ("norm", ["ppf", "isf"], (0.3, 1.5)),
             ("uniform", ["ppf"], (-1., 3.)), ("pareto", ["ppf"], (2.5, 0., 1.))]


@pytest.mark.parametrize("name,fns,params", QUANTILES, ids=[q[0] for q in QUANTILES])
def test_quantile_functions(name, fns, params):
    q = _u(0.02, 0.98)
    dist = getattr(osp, name)(*params)
    for fn in fns:
        np.testing.assert_allclose(np.asarray(getattr(getattr(stats, name), fn)(q, *params)),
                                   getattr(dist, fn)(q.astype(np.float64)), rtol=2e-4,
                                   atol=1e-5)


DISCRETE = [
    ("bernoulli", lambda: (rng.integers(-1, 3, 7).astype(F32), _u(0.1, 0.9)),
     lambda p: osp.bernoulli(p), ["logpmf", "pmf", "cdf"]),
    ("betabinom", lambda: (rng.integers(0, 9, 7).astype(F32), np.full(7, 8., F32),
                           _u(0.5, 3), _u(0.5, 3)),
     lambda n, a, b: osp.betabinom(n, a, b), ["logpmf", "pmf"]),
    ("binom", lambda: (rng.integers(0, 11, 7).astype(F32), np.full(7, 10., F32),
                       _u(0.1, 0.9)), lambda n, p: osp.binom(n, p), ["logpmf", "pmf"]),
    ("geom", lambda: (rng.integers(1, 9, 7).astype(F32), _u(0.1, 0.9)),
     lambda p: osp.geom(p), ["logpmf", "pmf"]),
    ("nbinom", lambda: (rng.integers(0, 9, 7).astype(F32), _u(1, 5), _u(0.2, 0.8)),
     lambda n, p: osp.nbinom(n, p), ["logpmf", "pmf"]),
    ("poisson", lambda: (rng.integers(0, 12, 7).astype(F32), _u(0.5, 8)),
     lambda mu: osp.poisson(mu), ["logpmf", "pmf", "cdf"]),
]


@pytest.mark.parametrize("name,make,frozen,fns", DISCRETE, ids=[d[0] for d in DISCRETE])
def test_discrete(name, make, frozen, fns):
    k, *params = make()
    dist = frozen(*(p.astype(np.float64) for p in params))
    for fn in fns:
        got = getattr(getattr(stats, name), fn)(k, *params)
        np.testing.assert_allclose(np.asarray(got), getattr(dist, fn)(k), rtol=2e-4,
                                   atol=1e-6, err_msg=f"{name}.{fn}")


def test_bernoulli_ppf_and_poisson_entropy():
    q, p = _u(0, 1), _u(0.1, 0.9)
    np.testing.assert_allclose(np.asarray(stats.bernoulli.ppf(q, p)), osp.bernoulli(p).ppf(q))
    mu = np.array([0., 0.5, 3., 25., 150.], F32)
    np.testing.assert_allclose(np.asarray(stats.poisson.entropy(mu)),
                               osp.poisson(mu.astype(np.float64)).entropy(), rtol=1e-4,
                               atol=1e-6)


def test_multivariate_distributions():
    alpha = np.array([1.5, 2., 3.], F32)
    x = rng.dirichlet(alpha, 4).T.astype(F32)
    x64 = x.astype(np.float64) / x.astype(np.float64).sum(0)
    np.testing.assert_allclose(np.asarray(stats.dirichlet.logpdf(x, alpha)),
                               osp.dirichlet(alpha).logpdf(x64), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(stats.dirichlet.pdf(x[:2], alpha)),
                               osp.dirichlet(alpha).pdf(x64), rtol=1e-3)
    counts = np.array([[2, 1, 3], [0, 0, 6]])
    p = np.array([0.2, 0.3, 0.5], F32)
    for c in counts:     # (JAX checks the total over all of x, so one vector at a time)
        np.testing.assert_allclose(np.asarray(stats.multinomial.logpmf(c, 6, p)),
                                   osp.multinomial(6, p).logpmf(c), rtol=1e-5)
    assert stats.multinomial.logpmf(counts[0], 5, p) == -np.inf
    np.testing.assert_allclose(np.asarray(stats.multinomial.pmf(counts[0], 6, p)),
                               osp.multinomial(6, p).pmf(counts[0]), rtol=1e-5)
    mean = np.array([0.5, -1., 2.], F32)
    a = rng.standard_normal((3, 3))
    cov = (a @ a.T + np.eye(3)).astype(F32)
    xs = rng.standard_normal((5, 3)).astype(F32)
    np.testing.assert_allclose(np.asarray(stats.multivariate_normal.logpdf(xs, mean, cov)),
                               osp.multivariate_normal(mean, cov).logpdf(xs), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(stats.multivariate_normal.pdf(xs, mean, 2.0)),
                               osp.multivariate_normal(mean, 2.0).pdf(xs), rtol=1e-4)


@pytest.mark.parametrize("name,args", [("beta", (0.3, 2., 3.)), ("gamma", (1.7, 2.5)),
                                       ("t", (0.4, 3.)), ("logistic", (0.3,)),
                                       ("gumbel_r", (0.2,)), ("cauchy", (0.7,)),
                                       ("truncnorm", (0.5, -1., 2.))])
def test_logpdf_gradients(name, args):
    check_grads(lambda x: getattr(stats, name).logpdf(x, *args[1:]), (F32(args[0]),),
                order=1, atol=1e-2, rtol=1e-2)


def test_vmap_matches_loop():
    x, a = _u(0.1, 5), _u(0.5, 3)
    batched = glassjax.vmap(stats.gamma.cdf)(x, a)
    looped = np.array([stats.gamma.cdf(xi, ai) for xi, ai in zip(x, a)])
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-6)


# -- statistics ---------------------------------------------------------------------------

def test_mode_rankdata_sem():
    x = rng.integers(0, 4, (5, 6))
    m = stats.mode(x, axis=0)
    want = osp.mode(x, axis=0)
    np.testing.assert_array_equal(np.asarray(m.mode), want.mode)
    np.testing.assert_array_equal(np.asarray(m.count), want.count)
    assert stats.mode(x, axis=None, keepdims=True).mode.shape == (1, 1)
    data = np.array([3., 1., 4., 1., 5., 9., 2., 6., 5.], F32)
    for method in ("average", "min", "max", "dense", "ordinal"):
        np.testing.assert_allclose(np.asarray(stats.rankdata(data, method)),
                                   osp.rankdata(data, method))
    np.testing.assert_allclose(np.asarray(stats.rankdata(x, axis=1)),
                               osp.rankdata(x, axis=1))
    assert np.all(np.isnan(np.asarray(stats.rankdata(np.array([1., np.nan])))))
    y = rng.standard_normal((4, 6)).astype(F32)
    np.testing.assert_allclose(np.asarray(stats.sem(y, axis=1)), osp.sem(y, axis=1),
                               rtol=1e-5)
    y[0, 1] = np.nan
    np.testing.assert_allclose(np.asarray(stats.sem(y, axis=1, nan_policy="omit")),
                               osp.sem(y, axis=1, nan_policy="omit"), rtol=1e-5)


def test_gaussian_kde():
    data = rng.standard_normal((2, 40)).astype(F32)
    w = rng.random(40).astype(F32)
    points = rng.standard_normal((2, 5)).astype(F32)
    for kw in [{}, {"bw_method": "silverman"}, {"bw_method": 0.4}, {"weights": w}]:
        kde, want = stats.gaussian_kde(data, **kw), osp.gaussian_kde(data, **kw)
        np.testing.assert_allclose(np.asarray(kde.evaluate(points)), want.evaluate(points),
                                   rtol=1e-4)
        np.testing.assert_allclose(np.asarray(kde.logpdf(points)), want.logpdf(points),
                                   rtol=1e-4)
    kde, want = stats.gaussian_kde(data), osp.gaussian_kde(data)
    np.testing.assert_allclose(np.asarray(kde.integrate_gaussian(np.zeros(2), np.eye(2))),
                               want.integrate_gaussian(np.zeros(2), np.eye(2)), rtol=1e-4)
    other = stats.gaussian_kde(points)
    np.testing.assert_allclose(np.asarray(kde.integrate_kde(other)),
                               want.integrate_kde(osp.gaussian_kde(points)), rtol=1e-4)
    k1, w1 = stats.gaussian_kde(data[0]), osp.gaussian_kde(data[0])
    np.testing.assert_allclose(np.asarray(k1.integrate_box_1d(-0.5, 1.)),
                               w1.integrate_box_1d(-0.5, 1.), rtol=1e-4)
    samples = kde.resample(glassjax.random.key(0), (500,))
    assert samples.shape == (2, 500)
    # A KDE is a pytree: it passes through jit.
    np.testing.assert_allclose(np.asarray(glassjax.jit(lambda k, p: k(p))(kde, points)),
                               want(points), rtol=1e-4)


def test_special_additions():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 3.2, 7.], F32)
    np.testing.assert_allclose(np.asarray(glassjax.scipy.special.gamma(x)),
                               osp_special.gamma(x), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(glassjax.scipy.special.gammasgn(x)),
                               osp_special.gammasgn(x))
    np.testing.assert_allclose(np.asarray(glassjax.scipy.special.loggamma(x[3:])),
                               osp_special.loggamma(x[3:]), rtol=1e-5)
    a, b, z = _u(0.5, 5), _u(0.5, 5), _u(0, 1)
    for fn, args in [("beta", (a, b)), ("betainc", (a, b, z)), ("poch", (a, b)),
                     ("comb", (np.floor(a * 3), np.floor(b))), ("factorial", (a,)),
                     ("boxcox", (a, b - 2)), ("boxcox1p", (z, b - 2)), ("kl_div", (z, a)),
                     ("rel_entr", (z, a)), ("i0", (a,)), ("i0e", (a,)), ("i1", (a - 2,)),
                     ("i1e", (a - 2,))]:
        np.testing.assert_allclose(np.asarray(getattr(glassjax.scipy.special, fn)(*args)),
                                   getattr(osp_special, fn)(*args), rtol=1e-4, atol=1e-6,
                                   err_msg=fn)
    np.testing.assert_allclose(np.asarray(glassjax.scipy.special.bernoulli(10)),
                               osp_special.bernoulli(10), rtol=1e-6, atol=1e-7)
    check_grads(lambda z: glassjax.scipy.special.poch(z, 2.5), (F32(1.3),), order=1,
                atol=1e-2, rtol=1e-2)
