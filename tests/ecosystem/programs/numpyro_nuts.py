"""numpyro: a tiny Bayesian linear regression fitted with NUTS (one chain, few samples)
and with SVI (an AutoNormal guide, Adam), on fixed data."""
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal


def r(x):
    return np.array2string(np.asarray(x), precision=4, floatmode="maxprec")


x = jnp.linspace(-1.0, 1.0, 20)
y = 0.5 + 2.0 * x + 0.1 * jnp.sin(7.0 * x)


def model(x, y=None):
    a = numpyro.sample("a", dist.Normal(0.0, 5.0))
    b = numpyro.sample("b", dist.Normal(0.0, 5.0))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    numpyro.sample("obs", dist.Normal(a + b * x, sigma), obs=y)


print("log density", r(numpyro.infer.util.log_density(
    model, (x, y), {}, {"a": 0.4, "b": 1.9, "sigma": 0.2})[0]))
mcmc = MCMC(NUTS(model), num_warmup=50, num_samples=50, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0), x, y)
samples = mcmc.get_samples()
print("nuts a", r(samples["a"].mean()), "b", r(samples["b"].mean()))
print("nuts first a", r(samples["a"][:3]))

guide = AutoNormal(model)
svi = SVI(model, guide, numpyro.optim.Adam(0.05), Trace_ELBO())
result = svi.run(jax.random.PRNGKey(1), 200, x, y, progress_bar=False)
print("svi losses", r(result.losses[jnp.array([0, 99, 199])]))
print("svi a", r(result.params["a_auto_loc"]), "b", r(result.params["b_auto_loc"]))
