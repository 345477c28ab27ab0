"""numpyro's dependency analysis (its provenance interpreter reads call/closed_call
equations), lineax's LU solve, diffrax with an implicit solver, a backsolve adjoint and
an SDE driven by a virtual Brownian tree."""
import jax, jax.numpy as jnp, numpy as np
import numpyro, numpyro.distributions as dist
from numpyro.infer.inspect import get_dependencies
def model(x):
    a = numpyro.sample("a", dist.Normal(0, 1))
    b = numpyro.sample("b", dist.Normal(a, 1))
    numpyro.sample("obs", dist.Normal(b * x, 1), obs=jnp.ones(3))
print("deps", get_dependencies(model, model_args=(jnp.arange(3.0),)))
import diffrax, lineax as lx
A = jnp.array([[3.0, 1.0], [1.0, 2.0]])
sol = lx.linear_solve(lx.MatrixLinearOperator(A), jnp.array([1.0, 1.0]))
print("lineax", np.round(np.asarray(sol.value), 5))
term = diffrax.ODETerm(lambda t, y, args: -y)
s = diffrax.diffeqsolve(term, diffrax.Kvaerno5(), 0.0, 1.0, 0.1, jnp.array([1.0]),
                        stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5))
print("implicit", np.round(np.asarray(s.ys), 5))
g = jax.grad(lambda y0: diffrax.diffeqsolve(term, diffrax.Tsit5(), 0.0, 1.0, 0.1, y0, adjoint=diffrax.BacksolveAdjoint()).ys.sum())(jnp.array([1.0]))
print("backsolve", np.round(np.asarray(g), 5))
bm = diffrax.VirtualBrownianTree(0.0, 1.0, tol=1e-3, shape=(), key=jax.random.PRNGKey(0))
sde = diffrax.MultiTerm(diffrax.ODETerm(lambda t, y, a: -y), diffrax.ControlTerm(lambda t, y, a: 0.1, bm))
s2 = diffrax.diffeqsolve(sde, diffrax.Euler(), 0.0, 1.0, 0.01, 1.0)
print("sde", np.round(np.asarray(s2.ys), 5))
