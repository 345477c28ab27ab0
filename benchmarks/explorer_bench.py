"""How long a learner waits for the graph explorer of a big jaxpr.

    python benchmarks/explorer_bench.py [--sizes 1000,10000,100000] [--no-browser]

Kernel side, for programs of 1,000 / 10,000 / 100,000 equations: the time from a traced
jaxpr to its display (``closed_jaxpr_mimebundle``: the folded view, the text, the
highlighted HTML and the static Graphviz picture), the work a ``%jaxpr`` cell does to
show it. Browser side, for 10,000 equations: Chromium
(Debian's, driven by Playwright) loads the built widget from a local server and the time
from receiving the model to the first painted node is measured in the page.

Targets (issue 18): kernel < 0.3 s / < 1 s / < 5 s; first paint < 1 s. Results go to
``benchmarks/results/explorer.json``; ``report.py`` puts them in the README.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

import glassjax
import glassjax.numpy as jnp
from glassjax.notebook import display, explorer

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "explorer.json"


def program(n_eqns: int):
    """``x -> sin(x) * 2 + 1`` repeated: three equations a step, as in the browser test."""
    def f(x):
        for _ in range(n_eqns // 3):
            x = jnp.sin(x) * 2.0 + 1.0
        return x
    return glassjax.make_jaxpr(f)(jnp.ones(3))


def kernel_seconds(closed, repeat: int) -> tuple[float, int]:
    """Median seconds from a jaxpr to its display bundle, and the size in bytes of the
    widget's model (its folded top level: the kernel sends clusters when opened)."""
    times = []
    for _ in range(repeat):
        display._svg.cache_clear()        # as for a new program: Graphviz draws it
        start = time.perf_counter()
        display.closed_jaxpr_mimebundle(closed)
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(json.dumps(explorer.View(closed).root))


PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="graph_widget.css"></head>
<body style="width: 1000px"><div id="w"></div><script type="module">
import widget from "./graph_widget.js";
const raw = await (await fetch("model.json")).text();
const start = performance.now();
const data = JSON.parse(raw);
const model = {get: (k) => data[k], on() {}, off() {}, send() {}};
widget.render({model, el: document.getElementById("w")});
const painted = () => document.querySelector(".gjx-node") ?
  requestAnimationFrame(() => { window.firstPaint = performance.now() - start; }) :
  requestAnimationFrame(painted);
painted();
</script></body></html>"""


def browser_first_paint(closed, repeat: int = 3) -> float | None:
    """Median seconds from model to first painted node in Chromium, or None when
    Playwright or Chromium is missing."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(chromium).exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in ("graph_widget.js", "graph_widget.css"):
            shutil.copy(explorer.STATIC / name, tmp / name)
        (tmp / "model.json").write_text(json.dumps(
            {"model": explorer.View(closed).root, "text": str(closed)}))
        (tmp / "index.html").write_text(PAGE)
        handler = functools.partial(_QuietHandler, directory=str(tmp))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium,
                                            args=["--no-sandbox", "--disable-gpu"])
                times = []
                for _ in range(repeat):
                    page = browser.new_page()
                    page.goto(url)
                    page.wait_for_function("() => window.firstPaint !== undefined",
                                           timeout=60_000)
                    times.append(page.evaluate("window.firstPaint") / 1e3)
                    page.close()
                browser.close()
        finally:
            server.shutdown()
    return statistics.median(times)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    results = {"kernel_s": {}, "model_bytes": {}}
    for n in map(int, args.sizes.split(",")):
        closed = program(n)
        seconds, size = kernel_seconds(closed, repeat=3 if n <= 10_000 else 1)
        results["kernel_s"][str(len(closed.eqns))] = round(seconds, 4)
        results["model_bytes"][str(len(closed.eqns))] = size
        print(f"kernel: {len(closed.eqns):>7,} equations -> display in {seconds:7.3f} s "
              f"(model {size / 1e3:,.0f} kB)")
    if not args.no_browser:
        paint = browser_first_paint(program(10_000))
        results["browser_first_paint_10k_s"] = None if paint is None else round(paint, 4)
        print("browser: 10,000 equations -> first paint in "
              + ("(no Playwright/Chromium)" if paint is None else f"{paint:.3f} s"))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
