"""Python memory of tracing and printing big jaxprs, glassjax vs JAX 0.10.2 (tracemalloc).

    python benchmarks/memory_bench.py [--cases NAME ...] [--jax-python PATH] [--no-jax]

For each program of about 10,000 equations, in a fresh process per library:

- ``trace_peak``: the highest Python memory above the starting point while
  ``make_jaxpr`` runs (everything tracing holds at once: the equations, tracers, the
  transformations' intermediate jaxprs);
- ``retained``: what the finished ``ClosedJaxpr`` keeps (memory after the trace, with the
  jaxpr alive and garbage collected, less memory before), also per equation;
- ``print_peak``: the highest memory above the starting point while ``str()`` builds its
  text (the text itself included).

tracemalloc counts every allocation made through Python's allocators, so the numbers are
deterministic: the machine's load does not change them and one run suffices. Both
libraries first trace and print the same program at 1/100 of the size, so the caches
filled once per primitive (abstract evaluation, rule tables) are not counted. Target
(issue 21): peaks <= 0.5x JAX's. Results go to ``benchmarks/results/memory.json``;
``report.py`` puts them in the README.
"""
import argparse
import gc
import importlib
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "memory.json"

sys.path.insert(0, str(HERE))
import cases  # noqa: E402
import run  # noqa: E402


def chain(jax, n_eqns):
    """A chain of sin, mul, add, cos.

    ``cases._four_op_chain``; the add's operand is a literal."""
    jnp = jax.numpy
    x = jnp.ones(3)
    return cases._four_op_chain(jnp, n_eqns), (x, x)


def grad_mlp(jax, n_eqns):
    """grad of an MLP stack.

    Layers ``tanh(x @ w + 1)`` of 4x4 weights, ten equations each: the forward pass,
    then the transposed linearized one."""
    jnp = jax.numpy

    def loss(ws, x):
        for w in ws:
            x = jnp.tanh(x @ w + 1.0)
        return jnp.sum(x ** 2)
    ws = [np.ones((4, 4), np.float32)] * (n_eqns // 10)
    return jax.grad(loss), (ws, np.ones((2, 4), np.float32))


CASES = {"chain_10k": (chain, 10_000), "grad_mlp_10k": (grad_mlp, 10_000)}


def measure(jax, program, n_eqns) -> dict:
    """Bytes above the starting point: peak while tracing, kept by the jaxpr, peak while
    printing (see the module docstring)."""
    small, small_args = program(jax, n_eqns // 100)
    str(jax.make_jaxpr(small)(*small_args))            # warm the per-primitive caches
    fun, args = program(jax, n_eqns)
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    closed = jax.make_jaxpr(fun)(*args)
    trace_peak = tracemalloc.get_traced_memory()[1] - start
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.reset_peak()
    start = tracemalloc.get_traced_memory()[0]
    text = str(closed)
    print_peak = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    n = len(closed.jaxpr.eqns)
    return {"equations": n, "trace_peak": trace_peak, "retained": retained,
            "retained_per_eqn": retained / n, "print_peak": print_peak,
            "text_bytes": len(text)}


def run_worker(impl, names):
    jax = importlib.import_module(impl)
    importlib.import_module(impl + ".numpy")
    json.dump({name: measure(jax, *CASES[name]) for name in names}, sys.stdout)


def kb(n: float) -> str:
    return f"{n / 1e3:,.0f} kB" if n >= 1e4 else f"{n:,.0f} B"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--no-jax", action="store_true", help="measure glassjax alone")
    parser.add_argument("--jax-python", help="an interpreter with JAX 0.10.2 installed")
    parser.add_argument("--glassjax-python", default=sys.executable)
    parser.add_argument("--worker", help=argparse.SUPPRESS)     # (the measuring process)
    args = parser.parse_args()
    if args.worker:
        return run_worker(args.worker, args.cases)
    impls = {"glassjax": args.glassjax_python}
    if not args.no_jax:
        impls["jax"] = run.jax_python(args.jax_python)
    results = {}
    for impl, python in impls.items():
        out = subprocess.run([python, __file__, "--worker", impl, "--cases", *args.cases],
                             check=True, capture_output=True, text=True, env=run._env())
        results[impl] = json.loads(out.stdout)
    print(f"{'case':<14}{'measure':<18}{'glassjax':>12}{'jax 0.10.2':>12}{'ratio':>8}")
    for name in args.cases:
        g, j = results["glassjax"][name], results.get("jax", {}).get(name)
        for key in ("trace_peak", "retained_per_eqn", "print_peak"):
            ratio = f"{g[key] / j[key]:8.2f}" if j else f"{'-':>8}"
            print(f"{name:<14}{key:<18}{kb(g[key]):>12}{kb(j[key]) if j else '-':>12}{ratio}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nsaved {RESULTS}")


if __name__ == "__main__":
    main()
