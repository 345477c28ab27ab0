"""Rich display: ClosedJaxpr in a notebook, results tables, and the bundled styles."""
import html
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
from IPython.core.interactiveshell import InteractiveShell

import glassjax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook import display

ROOT = pathlib.Path(__file__).resolve().parent.parent


def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def _text_of(page):
    """The jaxpr text of a display page, its markup removed."""
    jaxpr_html = page[page.index('<pre class="gj-jaxpr">'):page.index("</pre>")]
    text = html.unescape(jaxpr_html.replace("<span class=gj-prim>", "")
                         .replace('<pre class="gj-jaxpr">', ""))
    return re.sub(r"<[^>]+>", "", text)


def test_closed_jaxpr_displays_as_highlighted_text_and_graph():
    closed = make_jaxpr(selu)(jnp.arange(5.0))
    shell = InteractiveShell.instance()
    glassjax.load_ipython_extension(shell)      # registers the rich display
    data, _ = shell.display_formatter.format(closed)
    assert data["text/plain"] == str(closed)
    page = data["text/html"]
    assert page.startswith('<div class="glassjax"><style>')
    assert '<span class="ansi-fg-34 ansi-intensity-1">lambda </span>' in page
    assert "<span class=gj-prim>select_n</span>" in page
    assert '<div class="gj-graph"><svg' in page
    assert _text_of(page) == str(closed)        # exactly the jaxpr


def test_a_huge_jaxpr_is_printed_once_and_shown_as_the_same_text():
    """Past COLOUR_LIMIT equations the display lays out the explorer's own printed
    document (keywords and types uncoloured); the text stays character-identical."""
    def chain(x):
        for _ in range(display.COLOUR_LIMIT):
            x = lax.cond(x > 0, lax.sin, lax.cos, x) * 2.0
        return x
    closed = make_jaxpr(chain)(1.0)
    data = display.closed_jaxpr_mimebundle(closed)
    assert data["text/plain"] == str(closed)
    page = data["text/html"]
    assert 'class="ansi-fg-34' not in page and "<span class=gj-prim>cond</span>" in page
    assert _text_of(page) == str(closed)


def test_big_jaxprs_are_drawn_folded():
    """Every program gets a picture: past the explorer's budget it is drawn folded."""
    def chain(x):
        for _ in range(500):
            x = lax.sin(lax.cos(x))
        return x
    closed = make_jaxpr(chain)(1.0)
    page = display.closed_jaxpr_mimebundle(closed)["text/html"]
    assert "<svg" in page
    assert "500 × [cos, sin]" in html.unescape(page)     # one run, folded


def test_missing_dot_gives_a_note(monkeypatch):
    monkeypatch.setenv("PATH", "")
    display._svg.cache_clear()             # (pictures drawn before are remembered)
    page = display.graph_html(make_jaxpr(selu)(jnp.arange(5.0)))
    assert "Graphviz&#x27;s &#x27;dot&#x27; program is not installed" in page


def test_a_picture_drawn_again_does_not_wait_for_dot(monkeypatch):
    first = display.graph_html(make_jaxpr(selu)(jnp.arange(5.0)))
    assert "<svg" in first
    monkeypatch.setenv("PATH", "")                       # no dot from here on
    assert display.graph_html(make_jaxpr(selu)(jnp.arange(5.0))) == first


def test_results_table_shows_value_shape_dtype_device():
    out = glassjax.jit(lambda x: {"y": x * 2, "n": (x > 1).sum()})(jnp.arange(3.0))
    leaves = [out["n"], out["y"]]
    page = display.results_html(["result['n']", "result['y']"], leaves)
    assert ("<tr><td>result[&#x27;n&#x27;]</td><td><pre class=\"gj-code\">1</pre></td>"
            "<td>()</td><td>int32</td><td>CpuDevice(id=0)</td></tr>") in page
    assert "<pre class=\"gj-code\">[0., 2., 4.]</pre></td><td>(3,)</td><td>float32</td>" in page
    text = display.results_text(["result['y']"], [out["y"]])
    assert text == ("result['y'] = Array([0., 2., 4.], dtype=float32)  "
                    "(on CpuDevice(id=0))")
    # host values (as in the step-through view) say so
    assert "<td>()</td><td>float32</td><td>host</td>" in display.results_html(["x"], [2.0])


def test_sharded_results_show_a_table_of_shards():
    code = """
import numpy as np
from glassjax.xla import runtime
from glassjax.notebook import display
devices = runtime.devices()
x = runtime.device_put(np.arange(4.0, dtype=np.float32), runtime.split_sharding(devices, 1))
print(display.results_html(["result"], [x]))
print(display.results_text(["result"], [x]))
"""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True).stdout
    assert "<tr><th>device</th><th>index</th><th>value</th></tr>" in out
    assert ("<tr><td>CpuDevice(id=0)</td><td>(slice(0, 2, None),)</td>"
            "<td><pre class=\"gj-code\">[0., 1.]</pre></td></tr>") in out
    assert ("<tr><td>CpuDevice(id=1)</td><td>(slice(2, 4, None),)</td>"
            "<td><pre class=\"gj-code\">[2., 3.]</pre></td></tr>") in out
    assert "(on CpuDevice(id=0), CpuDevice(id=1))" in out


def test_bundled_styles_are_built_from_the_extension_sources():
    result = subprocess.run([sys.executable, str(ROOT / "extension" / "build.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert ".glassjax .gj-prim{" in display.css()
