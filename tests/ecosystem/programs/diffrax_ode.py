"""diffrax: solve dy/dt = -k y (exponential decay) and a damped oscillator with Tsit5 and
an adaptive step size controller; derivative of the solution w.r.t. k."""
import diffrax
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


def solve(k, y0):
    term = diffrax.ODETerm(lambda t, y, args: -args * y)
    saveat = diffrax.SaveAt(ts=jnp.linspace(0.0, 2.0, 5))
    sol = diffrax.diffeqsolve(term, diffrax.Tsit5(), t0=0.0, t1=2.0, dt0=0.1, y0=y0,
                              args=k, saveat=saveat,
                              stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-8))
    return sol


sol = solve(0.5, jnp.array([1.0, 2.0]))
print("ts", r(sol.ts))
print("ys", r(sol.ys))
print("exact", r(np.exp(-0.5 * np.linspace(0.0, 2.0, 5))[:, None] * np.array([1.0, 2.0])))
print("steps", int(sol.stats["num_steps"]))
dk = jax.grad(lambda k: solve(k, jnp.array([1.0, 2.0])).ys[-1].sum())(0.5)
print("d/dk", r(dk), "exact", r(-2.0 * 3.0 * np.exp(-1.0)))


def oscillator(t, y, args):
    x, v = y
    return jnp.stack([v, -x - 0.1 * v])


sol2 = diffrax.diffeqsolve(diffrax.ODETerm(oscillator), diffrax.Dopri5(), 0.0, 5.0, 0.05,
                           jnp.array([1.0, 0.0]), saveat=diffrax.SaveAt(t1=True))
print("oscillator", r(sol2.ys))
