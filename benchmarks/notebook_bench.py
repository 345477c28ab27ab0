"""How long the notebook layer takes: ``%jaxpr`` end to end, and drawing big jaxprs.

    python benchmarks/notebook_bench.py

Prints, for a small function, the latency of ``%jaxpr f(x)`` in a real IPython shell
(trace, lower, compile, run, text, graph and SVG), and for a chain of 2,000 equations
the time to trace it, to print it, to build its DOT and to lay it out as SVG with
Graphviz's ``dot``. Numbers only: nothing is asserted.
"""
from __future__ import annotations

import statistics
import time

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


if __name__ == "__main__":
    magic_latency()
    big_graph()
