"""The benchmark cases: each takes the implementation (``glassjax`` or ``jax``) and returns
a function that performs one measured repetition.

A case is written once against the JAX API; ``worker.py`` runs it with either library,
so both do exactly the same work. Cases that trace build a *fresh* Python function each
repetition: both libraries cache traces per function object, and the point is to measure
tracing, not the cache.
"""
import importlib
import itertools
import tempfile

import numpy as np

SAMPLES = 5         # timed samples per case (``worker.py``), each of a case's repetitions


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


def _sin_chain(jax, n_eqns):
    """A fresh function of a scalar whose jaxpr is ``n_eqns`` ``sin`` equations."""
    def chain(x):
        for _ in range(n_eqns):
            x = jax.numpy.sin(x)
        return x
    return chain


def trace_chain_1000(jax):
    """make_jaxpr of a 1,000-op elementwise chain."""
    return lambda: jax.make_jaxpr(_sin_chain(jax, 1000))(1.0)


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


def trace_grad_mlp(jax):
    """make_jaxpr of grad(MLP loss): linearize + transpose."""
    params, (x, y) = _mlp_params(jax.numpy), _mlp_data(jax.numpy)

    def rep():
        jax.make_jaxpr(jax.grad(_make_mlp_loss(jax)))(params, x, y)
    return rep


def _train_step_first_call(jax):
    """A repetition: jit of a fresh MLP SGD step (grad + update), called once."""
    params, (x, y) = _mlp_params(jax.numpy), _mlp_data(jax.numpy)

    def rep():
        loss = _make_mlp_loss(jax)

        def step(params, x, y):
            grads = jax.grad(loss)(params, x, y)
            return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
        out = jax.jit(step)(params, x, y)
        jax.block_until_ready(out)
    return rep


def jit_train_step_first_call(jax):
    """jit of a fresh MLP SGD step (grad + update): trace + lower + compile + run."""
    return _train_step_first_call(jax)


def first_call_warm_cache(jax):
    """jit of a fresh MLP SGD step, its executable in the persistent compilation cache.

    As after restarting a notebook: trace + lower + load the executable + run. Turns
    the cache on for the rest of the worker process: it runs last."""
    cache = importlib.import_module(
        jax.__name__ + ".experimental.compilation_cache.compilation_cache")
    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="bench-cache-"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    cache.reset_cache()                 # (JAX decided at its first compile: no cache)
    rep = _train_step_first_call(jax)
    rep()                               # compiled once, and written to the cache
    return rep


def trace_per_example_grads(jax):
    """make_jaxpr of vmap(grad(MLP loss)) over examples: per-example gradients."""
    params, (x, y) = _mlp_params(jax.numpy), _mlp_data(jax.numpy)

    def rep():
        loss = _make_mlp_loss(jax)
        per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
        jax.make_jaxpr(per_example)(params, x[:, None, :], y[:, None, :])
    return rep


def _rnn(jax):
    jnp = jax.numpy
    rng = np.random.RandomState(2)
    wh = jnp.asarray(rng.randn(128, 128).astype(np.float32) * 0.05)
    wx = jnp.asarray(rng.randn(32, 128).astype(np.float32) * 0.05)
    xs = jnp.asarray(rng.randn(200, 16, 32).astype(np.float32))
    h0 = jnp.zeros((16, 128), jnp.float32)

    def run(wh, wx, h0, xs):
        def cell(h, x):
            h = jnp.tanh(h @ wh + x @ wx)
            return h, h.sum()
        return jax.lax.scan(cell, h0, xs)
    return run, (wh, wx, h0, xs)


def trace_scan_rnn(jax):
    """make_jaxpr of a scan over an RNN cell."""
    run, args = _rnn(jax)
    return lambda: jax.make_jaxpr(lambda *a: run(*a))(*args)


def run_scan_rnn(jax):
    """Compiled run time of the scan RNN (200 steps).

    Same XLA, so ~1.0 means the lowering is as good as JAX's."""
    run, args = _rnn(jax)
    f = jax.jit(run)
    jax.block_until_ready(f(*args))
    return lambda: jax.block_until_ready(f(*args))


def _four_op_chain(jnp, n_eqns):
    """A fresh function of two arrays whose jaxpr has ``n_eqns`` equations (sin, mul,
    add, cos repeated)."""
    def chain(x, y):
        for _ in range(n_eqns // 4):
            x = jnp.sin(x) * y + 1.0
            y = jnp.cos(y)
        return x, y
    return chain


def _printing(n_eqns):
    def case(jax):
        jnp = jax.numpy
        closed = jax.make_jaxpr(_four_op_chain(jnp, n_eqns))(jnp.ones(3), jnp.ones(3))
        return lambda: str(closed)
    case.__doc__ = f"str() of a {n_eqns:,}-equation jaxpr."
    return case


def _lowering(n_eqns, reps):
    """A ``CASES`` entry: ``(case, reps)``; the case traces one jaxpr per repetition."""
    def case(jax):
        # Each repetition lowers a jaxpr never lowered before (JAX caches lowerings per
        # jaxpr): all are traced here, outside the timing.
        jnp = jax.numpy
        x = jnp.ones(3)
        pending = [jax.jit(_four_op_chain(jnp, n_eqns)).trace(x, x)
                   for _ in range(1 + SAMPLES * reps)]
        return lambda: pending.pop().lower().as_text()
    case.__doc__ = (f"jit(f).trace(x).lower().as_text() of a {n_eqns:,}-equation "
                    "jaxpr: lowering to StableHLO text alone.")
    return case, reps


def _chain(jax, n_eqns):
    """A fresh function whose jaxpr has ``n_eqns`` equations (sin and cos alternating)."""
    def chain(x):
        for _ in range(n_eqns // 2):
            x = jax.numpy.cos(jax.numpy.sin(x))
        return x
    return chain


def first_call_1k(jax):
    """jit of a fresh 1,000-equation chain: trace + lower + compile + run."""
    def rep():
        jax.jit(_chain(jax, 1000))(1.0).block_until_ready()
    return rep


def jaxpr_magic_1k(jax):
    """%jaxpr of a fresh 1,000-equation chain in IPython, end to end (glassjax only).

    Traces, lowers, compiles and runs it, and shows its text and graph. The notebook layer's own cost is this less ``first_call_1k`` (see ``DIFFERENCES``)."""
    if jax.__name__ != "glassjax":        # JAX has no notebook layer
        return None
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from glassjax.notebook import display
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext glassjax")
    counter = itertools.count()

    def rep():
        name = f"chain{next(counter)}"
        shell.user_ns[name] = _chain(jax, 1000)
        display._svg.cache_clear()      # a new program's picture: Graphviz draws it
        with capture_output():
            result = shell.run_cell(f"%jaxpr {name}(1.0)")
        result.raise_error()
    return rep


def pmap_psum_dispatch(jax):
    """Cached pmap call of a psum over 8 CPU devices, waited for each time.

    The inputs already live on the devices. Each call is waited for: XLA:CPU deadlocks
    its collectives' rendezvous when many unwaited executions pile up on a 2-core
    machine, in JAX as in glassjax."""
    f = jax.pmap(lambda v: jax.lax.psum(v, 'i'), axis_name='i')
    x = f(np.ones((8, 128), np.float32))          # device-resident, split over devices

    def rep():
        return f(x).block_until_ready()
    return rep


def jit_sharded_matmul(jax):
    """Cached jit of a (512, 512) matmul whose left operand is split over a 4x2 mesh."""
    Mesh, NamedSharding, P = (jax.sharding.Mesh, jax.sharding.NamedSharding,
                              jax.sharding.PartitionSpec)
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ('x', 'y'))
    rng = np.random.RandomState(0)
    a = jax.device_put(rng.randn(512, 512).astype(np.float32), NamedSharding(mesh, P('x')))
    b = jax.device_put(rng.randn(512, 512).astype(np.float32), NamedSharding(mesh, P()))
    f = jax.jit(lambda u, v: u @ v)

    def rep():
        return f(a, b)
    return rep


# -- tracing at every size -----------------------------------------------------------------
# Four kinds of program, each traced (make_jaxpr of a fresh function) at about 10, 1,000,
# 10,000 and 100,000 equations (counted with the equations inside scan bodies). Named
# ``trace_<kind>_<size>`` so that report.py draws time against size per kind; the sin
# chain's 1,000-equation point is ``trace_chain_1000`` above.

def _trace_chain(n_eqns):
    def case(jax):
        return lambda: jax.make_jaxpr(_sin_chain(jax, n_eqns))(1.0)
    case.__doc__ = f"make_jaxpr of a {n_eqns:,}-equation sin chain."
    return case


def _mlp_stack(jax, n_layers):
    """A fresh MLP of ``n_layers`` tanh layers (4 equations each: dot_general,
    broadcast_in_dim, add, tanh), the weights of one layer shared by all (tracing costs
    the same per layer either way, and the arguments stay small)."""
    jnp = jax.numpy

    def mlp(w, b, x):
        for _ in range(n_layers):
            x = jnp.tanh(x @ w + b)
        return x
    return mlp


def _trace_mlp(n_eqns):
    def case(jax):
        jnp = jax.numpy
        w, b = jnp.ones((16, 16)) * 0.1, jnp.zeros(16)
        x = jnp.ones((8, 16))
        return lambda: jax.make_jaxpr(_mlp_stack(jax, n_eqns // 4))(w, b, x)
    case.__doc__ = f"make_jaxpr of a {n_eqns:,}-equation MLP stack (tanh layers)."
    return case


def _scans(jax, n_scans):
    """A fresh function running ``n_scans`` RNN scans one after the other, each scan
    equation with a 5-equation body (two products, add, tanh, a sum)."""
    jnp = jax.numpy

    def run(wh, wx, h, xs):
        def cell(h, x):
            h = jnp.tanh(h @ wh + x @ wx)
            return h, h.sum()
        for _ in range(n_scans):
            h, _ = jax.lax.scan(cell, h, xs)
        return h
    return run


def _trace_scan(n_eqns):
    def case(jax):
        jnp = jax.numpy
        args = (jnp.ones((16, 16)) * 0.1, jnp.ones((8, 16)) * 0.1, jnp.zeros((4, 16)),
                jnp.ones((10, 4, 8)))
        return lambda: jax.make_jaxpr(_scans(jax, max(1, n_eqns // 6)))(*args)
    case.__doc__ = f"make_jaxpr of a scan-heavy program of {n_eqns:,} equations."
    return case


def _vmap_grad(jax, n_layers):
    """A fresh per-example gradient (vmap of grad) of the loss of a ``n_layers`` tanh
    stack: 11 equations per layer once linearized, transposed and batched."""
    jnp = jax.numpy

    def loss(w, x):
        for _ in range(n_layers):
            x = jnp.tanh(x * w)
        return jnp.sum(x)
    return jax.vmap(jax.grad(loss), in_axes=(None, 0))


def _trace_vmap_grad(n_eqns):
    def case(jax):
        jnp = jax.numpy
        w, xs = jnp.ones(16) * 0.5, jnp.ones((8, 16))
        return lambda: jax.make_jaxpr(_vmap_grad(jax, max(1, n_eqns // 11)))(w, xs)
    case.__doc__ = f"make_jaxpr of vmap(grad) of a {n_eqns:,}-equation program."
    return case


# -- heavy library functions, eager and jitted ------------------------------------------
# ``eager`` calls the function as a user does outside jit (op by op, or through whatever
# jit the library applies inside); ``jit`` is a cached compiled call of it. Both wait for
# every result, so the time is the computation's and not only its dispatch.

def _histogram(jax):
    x = jax.numpy.asarray(np.random.RandomState(3).randn(100_000).astype(np.float32))
    return lambda a: jax.numpy.histogram(a, bins=50), (x,)


def _eig(n):
    def make(jax):
        a = jax.numpy.asarray(np.random.RandomState(4).randn(n, n).astype(np.float32))
        return jax.numpy.linalg.eig, (a,)
    return make


def _stft(jax):
    x = jax.numpy.asarray(np.random.RandomState(5).randn(16_384).astype(np.float32))
    return lambda s: jax.scipy.signal.stft(s, nperseg=256), (x,)


def _heavy(make, what):
    """Two cases of one function: called eagerly, and as a cached jit call."""
    def eager(jax):
        f, args = make(jax)
        return lambda: jax.block_until_ready(f(*args))

    def jitted(jax):
        f, args = make(jax)
        f = jax.jit(f)
        return lambda: jax.block_until_ready(f(*args))
    eager.__doc__ = f"Eager {what}."
    jitted.__doc__ = f"Cached jit call of {what}."
    return eager, jitted


histogram_eager, histogram_jit = _heavy(
    _histogram, "jnp.histogram of 100,000 float32 values into 50 bins")
eig64_eager, eig64_jit = _heavy(
    _eig(64), "jnp.linalg.eig of a 64x64 float32 matrix (LAPACK geev)")
eig256_eager, eig256_jit = _heavy(
    _eig(256), "jnp.linalg.eig of a 256x256 float32 matrix (LAPACK geev)")
stft_eager, stft_jit = _heavy(
    _stft, "jax.scipy.signal.stft of 16,384 float32 samples (nperseg=256)")

# name -> (case, repetitions per sample); a case returning None does not apply to that
# implementation.
CASES = {
    "trace_chain_1000": (trace_chain_1000, 3),
    "trace_mlp_loss": (trace_mlp_loss, 20),
    "jit_first_call": (jit_first_call, 2),
    "dispatch_device": (dispatch_device, 2000),
    "dispatch_numpy": (dispatch_numpy, 2000),
    "eager_op": (eager_op, 500),
    "trace_grad_mlp": (trace_grad_mlp, 10),
    "jit_train_step": (jit_train_step_first_call, 2),
    "trace_vmap_grad_mlp": (trace_per_example_grads, 5),
    "trace_scan_rnn": (trace_scan_rnn, 20),
    "run_scan_rnn": (run_scan_rnn, 20),
    "print_1k": (_printing(1_000), 20),
    "print_10k": (_printing(10_000), 3),
    "print_100k": (_printing(100_000), 1),
    "lower_1k": _lowering(1_000, 5),
    "lower_10k": _lowering(10_000, 1),
    "pmap_psum_dispatch": (pmap_psum_dispatch, 500),
    "jit_sharded_matmul": (jit_sharded_matmul, 50),
    "trace_chain_10": (_trace_chain(10), 200),
    "trace_chain_10k": (_trace_chain(10_000), 1),
    "trace_chain_100k": (_trace_chain(100_000), 1),
    "trace_mlp_10": (_trace_mlp(10), 200),
    "trace_mlp_1k": (_trace_mlp(1_000), 3),
    "trace_mlp_10k": (_trace_mlp(10_000), 1),
    "trace_mlp_100k": (_trace_mlp(100_000), 1),
    "trace_scan_10": (_trace_scan(10), 100),
    "trace_scan_1k": (_trace_scan(1_000), 3),
    "trace_scan_10k": (_trace_scan(10_000), 1),
    "trace_scan_100k": (_trace_scan(100_000), 1),
    # (no 100k point: JAX takes about 9 s per repetition there, a minute per round)
    "trace_vmap_grad_10": (_trace_vmap_grad(10), 50),
    "trace_vmap_grad_1k": (_trace_vmap_grad(1_000), 3),
    "trace_vmap_grad_10k": (_trace_vmap_grad(10_000), 1),
    "first_call_1k": (first_call_1k, 1),
    "jaxpr_magic_1k": (jaxpr_magic_1k, 1),
    "histogram_eager": (histogram_eager, 20),
    "histogram_jit": (histogram_jit, 20),
    "eig64_eager": (eig64_eager, 20),
    "eig64_jit": (eig64_jit, 20),
    "eig256_eager": (eig256_eager, 2),
    "eig256_jit": (eig256_jit, 2),
    "stft_eager": (stft_eager, 20),
    "stft_jit": (stft_jit, 20),
    "first_call_warm_cache": (first_call_warm_cache, 2),    # (last: see its docstring)
}

# name -> (case, baseline case, limit in seconds): reported as glassjax's time of the
# case less that of the baseline, against the target.
DIFFERENCES = {
    "jaxpr_magic_overhead": ("jaxpr_magic_1k", "first_call_1k", 0.050),
}
