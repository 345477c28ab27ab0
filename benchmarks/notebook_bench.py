"""How long the notebook layer takes: ``%jaxpr`` end to end, and drawing big jaxprs; and
whether a long-running kernel keeps its memory bounded.

    python benchmarks/notebook_bench.py
    python benchmarks/notebook_bench.py --kernel-memory [--calls 10000]

Prints, for a small function, the latency of ``%jaxpr f(x)`` in a real IPython shell
(trace, lower, compile, run, text, graph and SVG), and for a chain of 2,000 equations
the time to trace it, to print it, to build its DOT and to lay it out as SVG with
Graphviz's ``dot``. With ``--kernel-memory`` it instead runs ``--calls`` ``%jaxpr``
calls, each on a freshly defined function (kept alive in the shell's namespace, as a
notebook keeps them), and reports resident memory and Python allocations along the way.
Numbers only: nothing is asserted.
"""
from __future__ import annotations

import argparse
import gc
import resource
import statistics
import time
import tracemalloc

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import glassjax
from glassjax import lax
from glassjax.notebook import display, graph


def timed(fn, repeat=5) -> float:
    """Median wall time of ``fn()`` in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def chain(n):
    """A function whose jaxpr has ``n`` equations: alternating sin and cos."""
    def f(x):
        for i in range(n // 2):
            x = lax.cos(lax.sin(x))
        return x
    return f


def magic_latency():
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext glassjax")
    shell.run_cell("from glassjax import lax\n"
                   "def f(x, y):\n    return lax.add(lax.mul(lax.sin(x), y), 1.0)")
    counter = iter(range(10**6))

    def run(view):
        # A fresh function each time, so every stage (trace, compile, ...) really runs.
        shell.run_cell(f"def f{next(counter)}(x, y): return f(x, y)")
        with capture_output():
            result = shell.run_cell(f"%jaxpr --view {view} f{next(counter) - 1}(1.0, 2.0)")
        result.raise_error()

    for view in ("text", "both"):
        print(f"%jaxpr --view {view:<5} f(x, y)   {timed(lambda: run(view)):8.1f} ms"
              "   (trace + lower + compile + run + display)")


def big_graph(n=2000):
    f = chain(n)
    trace = timed(lambda: glassjax.make_jaxpr(f)(1.0), repeat=3)
    closed = glassjax.make_jaxpr(f)(1.0)
    assert len(closed.eqns) == n
    text = timed(lambda: str(closed), repeat=3)
    dot = timed(lambda: graph.to_graphviz(closed).source, repeat=3)
    g = graph.to_graphviz(closed)
    svg = timed(lambda: display.svg(g), repeat=1)
    print(f"\n{n}-equation jaxpr:")
    print(f"  trace (make_jaxpr)        {trace:8.1f} ms")
    print(f"  print (str)               {text:8.1f} ms")
    print(f"  build the graph (DOT)     {dot:8.1f} ms")
    print(f"  lay out and render (SVG)  {svg:8.1f} ms")


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0]) / 1024


def kernel_memory(calls=10_000, warmup=200, report_every=1000):
    """``calls`` ``%jaxpr --view text`` calls (trace, lower, compile, run, print) on fresh
    functions. Cells run without history (``store_history=False``), so what grows is
    glassjax's (and IPython's per-cell compile cache), not the shell's ``Out`` history.
    The Python heap is traced with tracemalloc after the warm-up (that slows the calls)."""
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext glassjax")
    shell.run_cell("from glassjax import lax")

    def call(i):
        shell.run_cell(f"def f{i}(x, y): return lax.add(lax.mul(lax.sin(x), y), {i}.0)",
                       store_history=False)
        with capture_output():
            result = shell.run_cell(f"%jaxpr --view text f{i}(1.0, 2.0)",
                                    store_history=False)
        result.raise_error()

    for i in range(warmup):
        call(i)
    gc.collect()
    tracemalloc.start()
    rss0, heap0 = _rss_mb(), tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    print(f"after {warmup} warm-up calls: RSS {rss0:.0f} MB")
    print(f"{'calls':>7} {'RSS MB':>8} {'RSS growth':>11} {'heap growth':>12} {'s/call':>8}")
    for n in range(1, calls + 1):
        call(warmup + n)
        if n % report_every == 0 or n == calls:
            gc.collect()
            heap = tracemalloc.get_traced_memory()[0]
            rss = _rss_mb()
            print(f"{n:7d} {rss:8.0f} {rss - rss0:+10.0f}M {(heap - heap0) / 2**20:+11.1f}M "
                  f"{(time.perf_counter() - start) / n:8.3f}", flush=True)
    peak_heap = (tracemalloc.get_traced_memory()[1] - heap0) / 2**20
    glassjax.clear_caches()
    gc.collect()
    heap = tracemalloc.get_traced_memory()[0]
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
          f"peak heap growth {peak_heap:+.1f} MB; after glassjax.clear_caches(): RSS "
          f"{_rss_mb():.0f} MB, heap growth {(heap - heap0) / 2**20:+.1f} MB")
    tracemalloc.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel-memory", action="store_true")
    parser.add_argument("--calls", type=int, default=10_000)
    opts = parser.parse_args()
    if opts.kernel_memory:
        kernel_memory(opts.calls, report_every=max(1, min(1000, opts.calls // 5)))
    else:
        magic_latency()
        big_graph()
