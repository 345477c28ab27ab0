"""The benchmark cases: each takes the implementation (``glassjax`` or ``jax``) and returns
a function that performs one measured repetition.

A case is written once against the JAX API; ``worker.py`` runs it with either library,
so both do exactly the same work. Cases that trace build a *fresh* Python function each
repetition: both libraries cache traces per function object, and the point is to measure
tracing, not the cache.
"""
import numpy as np


def _mlp_params(jnp, sizes=(64, 128, 128, 10)):
    rng = np.random.RandomState(0)
    return [(jnp.asarray(rng.randn(m, n).astype(np.float32) * 0.1),
             jnp.asarray(np.zeros(n, np.float32))) for m, n in zip(sizes[:-1], sizes[1:])]


def _make_mlp_loss(jax):
    jnp = jax.numpy

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(h @ w + b)
        w, b = params[-1]
        out = h @ w + b
        return jnp.mean((out - y) ** 2)
    return loss


def _mlp_data(jnp):
    rng = np.random.RandomState(1)
    return (jnp.asarray(rng.randn(32, 64).astype(np.float32)),
            jnp.asarray(rng.randn(32, 10).astype(np.float32)))


def trace_chain_1000(jax):
    """make_jaxpr of a 1,000-op elementwise chain."""
    jnp = jax.numpy

    def rep():
        def chain(x):
            for _ in range(1000):
                x = jnp.sin(x)
            return x
        jax.make_jaxpr(chain)(1.0)
    return rep


def trace_mlp_loss(jax):
    """make_jaxpr of an MLP loss (3 layers)."""
    params, (x, y) = _mlp_params(jax.numpy), _mlp_data(jax.numpy)

    def rep():
        jax.make_jaxpr(_make_mlp_loss(jax))(params, x, y)
    return rep


def jit_first_call(jax):
    """jit of a fresh MLP loss: trace + lower + compile + run."""
    params, (x, y) = _mlp_params(jax.numpy), _mlp_data(jax.numpy)

    def rep():
        jax.jit(_make_mlp_loss(jax))(params, x, y).block_until_ready()
    return rep


def _small_fn(jax):
    return jax.jit(lambda x, y: x * y + 1.0)


def dispatch_device(jax):
    """Cached jit call of a small function on device arrays."""
    f = _small_fn(jax)
    x = jax.numpy.ones(16)
    f(x, x).block_until_ready()
    return lambda: f(x, x)


def dispatch_numpy(jax):
    """Cached jit call of a small function on NumPy arrays."""
    f = _small_fn(jax)
    x = np.ones(16, np.float32)
    f(x, x).block_until_ready()
    return lambda: f(x, x)


def eager_op(jax):
    """One eager primitive (jnp.sin) on a device array."""
    x = jax.numpy.ones(16)
    jax.numpy.sin(x).block_until_ready()
    return lambda: jax.numpy.sin(x)


# name -> (case, repetitions per sample)
CASES = {
    "trace_chain_1000": (trace_chain_1000, 3),
    "trace_mlp_loss": (trace_mlp_loss, 20),
    "jit_first_call": (jit_first_call, 2),
    "dispatch_device": (dispatch_device, 2000),
    "dispatch_numpy": (dispatch_numpy, 2000),
    "eager_op": (eager_op, 500),
}
