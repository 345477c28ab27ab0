"""%jaxpr / %%jaxpr, driven through a real IPython shell (``run_cell``).

We look at what a notebook would receive: the published display data (text/plain and
text/html with the SVG graph and the results table), what is printed for errors, and
that the shell keeps working afterwards.
"""
import html
import os
import re

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import glassjax
import glassjax.numpy as jnp
from glassjax import make_jaxpr

SETUP = """
import numpy as np
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax

def f(x, y):
    return jnp.sin(x) * y + 1.0

def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3.], arg)

def func7(arg):
    return lax.cond(arg >= 0., lambda xtrue: xtrue + 3., lambda xfalse: xfalse - 3., arg)

def func8(arg1, arg2):
    return lax.cond(arg1 >= 0., lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1], arg2)

def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

def func11(arr, extra):
    ones = jnp.ones(arr.shape)
    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)

def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
"""


def loaded_shell(setup: str) -> InteractiveShell:
    """The IPython shell with the extension loaded and ``setup`` run."""
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext glassjax", store_history=False).raise_error()
    ip.run_cell(setup).raise_error()
    return ip


@pytest.fixture(scope="module")
def shell():
    return loaded_shell(SETUP)


def run(shell, cell):
    """Run a cell; return (result, captured output)."""
    with capture_output() as captured:
        result = shell.run_cell(cell)
    return result, captured


def shown(shell, cell) -> dict:
    """Run a cell that must succeed and publish one bundle; return its data."""
    result, captured = run(shell, cell)
    result.raise_error()
    assert len(captured.outputs) == 1, captured.outputs
    return captured.outputs[0].data


def svg_titles(html: str):
    """(cluster names, node ids, edges) of the SVG graph: dot writes them as titles."""
    def titles(kind):
        return re.findall(rf'<g id="\w+" class="{kind}">\s*<title>(.*?)</title>', html)
    unescape = lambda t: t.replace("&#45;&gt;", "->")
    return (set(titles("cluster")), set(titles("node")),
            {unescape(t) for t in titles("edge")})


def assert_alive(shell):
    data = shown(shell, "%jaxpr --view text --no-run f(1.0, 2.0)")
    assert data["text/plain"] == str(make_jaxpr(lambda x, y: jnp.sin(x) * y + 1.0)(1., 2.))


# ----------------------------------------------------------------------------------------
# Showing programs
# ----------------------------------------------------------------------------------------

def test_line_magic_shows_jaxpr_graph_and_device_result(shell):
    data = shown(shell, "%jaxpr f(jnp.arange(3.0), 2.0)")
    expected = make_jaxpr(lambda x, y: jnp.sin(x) * y + 1.0)(jnp.arange(3.0), 2.0)
    plain = data["text/plain"]
    assert plain.startswith(str(expected) + "\n\n")
    value = np.sin(np.arange(3.0, dtype=np.float32)) * 2 + 1
    assert plain.endswith(f"result = {glassjax.numpy.asarray(value)!r}  (on CpuDevice(id=0))")
    html = data["text/html"]
    assert '<pre class="gj-jaxpr">' in html and "<svg" in html
    assert "<span class=gj-prim>sin</span>" in html
    results = html[html.index('class="gj-table gj-results"'):]
    assert np.array2string(value, separator=", ") in results
    assert "<td>(3,)</td><td>float32</td><td>CpuDevice(id=0)</td>" in results
    _, node_ids, edge_titles = svg_titles(html)
    assert {"in0", "in1", "e0", "e1", "e2", "out0"} <= node_ids
    assert "in0->e0" in edge_titles


def test_transformed_calls(shell):
    data = shown(shell, "%jaxpr --view text jax.jit(f)(1.0, 2.0)")
    assert data["text/plain"].startswith(
        str(make_jaxpr(glassjax.jit(shell.user_ns["f"]))(1.0, 2.0)))
    assert "name=f" in data["text/plain"]


def test_grad_and_vmap_calls(shell):
    data = shown(shell, "%jaxpr --view text jax.grad(f)(1.0, 2.0)")
    g = glassjax.grad(lambda x, y: jnp.sin(x) * y + 1.0)
    assert data["text/plain"].startswith(str(make_jaxpr(g)(1.0, 2.0)))
    assert f"{np.cos(np.float32(1.0)) * 2:.6}"[:6] in data["text/plain"]
    data = shown(shell, "%jaxpr --view text jax.vmap(f, in_axes=(0, None))"
                        "(jnp.arange(3.0), 2.0)")
    assert "sin" in data["text/plain"] and "f32[3]" in data["text/plain"]


def test_cell_magic_runs_the_cell_and_traces_its_last_call(shell):
    data = shown(shell, "%%jaxpr --view text\n"
                        "def g(x):\n"
                        "    return jnp.cos(x) + scale\n"
                        "scale = 3.0\n"
                        "g(jnp.ones(2))\n")
    assert data["text/plain"].startswith(
        str(make_jaxpr(lambda x: jnp.cos(x) + 3.0)(jnp.ones(2))))
    assert shell.user_ns["scale"] == 3.0 and callable(shell.user_ns["g"])


def test_views(shell):
    jaxpr, results = '<pre class="gj-jaxpr">', '<table class="gj-table gj-results">'
    text = shown(shell, "%jaxpr --view text f(1.0, 2.0)")["text/html"]
    assert "<svg" not in text and jaxpr in text and results in text
    graph = shown(shell, "%jaxpr --view graph f(1.0, 2.0)")["text/html"]
    assert "<svg" in graph and jaxpr not in graph and results in graph
    no_run = shown(shell, "%jaxpr --no-run f(1.0, 2.0)")
    assert results not in no_run["text/html"] and "result =" not in no_run["text/plain"]


def test_a_long_program_shows_its_graph_first_and_its_text_folded(shell):
    """A 10,000-equation program: the graph (its clusters folded) comes first, then the
    whole text in a scrolled box under "N lines: show all"; a short one is not folded."""
    data = shown(shell, "def long(x):\n"
                        "    for _ in range(5000):\n"
                        "        x = jnp.sin(x) * 2.0\n"
                        "    return x\n"
                        "%jaxpr --no-run long(1.0)")
    page = data["text/html"]
    n_lines = data["text/plain"].count("\n") + 1
    assert n_lines > 10_000
    fold = (f'<div class="gj-fold"><details><summary>{n_lines:,} lines: show all'
            '</summary></details><pre class="gj-jaxpr">')
    assert page.index('<div class="gj-graph"><svg') < page.index(fold)
    assert page.count("<span class=gj-prim>sin</span>") == 5000
    short = shown(shell, "%jaxpr --no-run f(1.0, 2.0)")["text/html"]
    assert 'class="gj-fold"' not in short and '<pre class="gj-jaxpr">' in short


def test_hlo_and_compiled(shell):
    data = shown(shell, "%jaxpr --view text --hlo --compiled f(1.0, 2.0)")
    plain = data["text/plain"]
    assert "StableHLO:\nmodule @jit_f" in plain and "stablehlo.sine" in plain
    assert "Compiled HLO (optimized by XLA):\nHloModule jit_f" in plain
    assert "stablehlo.sine" in data["text/html"]


def test_stages_run_the_users_code_once_and_lower_as_jit_does(shell):
    """Lowering starts from the trace shown: the user's Python code runs once, and the
    StableHLO is jit's own, static arguments included."""
    shell.run_cell("calls = []\n"
                   "def counted(x, n):\n"
                   "    calls.append(n)\n"
                   "    return jnp.sin(x) * n").raise_error()
    data = shown(shell, "%jaxpr --view text --hlo --static 1 counted(jnp.ones(3), 2)")
    assert shell.user_ns["calls"] == [2]
    lowered = glassjax.jit(shell.user_ns["counted"], static_argnums=1).lower(jnp.ones(3), 2)
    assert f"StableHLO:\n{lowered.as_text()}" in data["text/plain"]


def test_a_callable_without_weak_references_is_traced_once_per_call(shell):
    shell.run_cell("class Counted:\n"
                   "    __slots__ = ('calls',)\n"
                   "    def __call__(self, x):\n"
                   "        self.calls.append(x)\n"
                   "        return jnp.sin(x)\n"
                   "counted = Counted()\n"
                   "counted.calls = []").raise_error()
    for _ in range(2):
        assert "result = Array(" in shown(shell, "%jaxpr counted(1.0)")["text/plain"]
    assert len(shell.user_ns["counted"].calls) == 2


def test_static_argnums(shell):
    shell.run_cell("def power(x, n):\n    return x ** n if n > 1 else x").raise_error()
    data = shown(shell, "%jaxpr --view text --static 1 power(2.0, 3)")
    assert data["text/plain"].startswith(
        str(make_jaxpr(lambda x, n: x ** n, static_argnums=1)(2.0, 3)))
    assert "result = Array(8., dtype=float32" in data["text/plain"]


def test_axis_env_traces_without_devices_and_draws_a_legend(shell):
    shell.run_cell("from glassjax.lax import parallel").raise_error()
    data = shown(shell, "%jaxpr --axis-env i=4,j=2 (lambda x: parallel.psum(x, 'i'))(1.0)")
    assert "psum[axes=('i',)" in data["text/plain"]
    assert "result =" not in data["text/plain"]
    _, node_ids, _ = svg_titles(data["text/html"])
    assert "legend" in node_ids and "i: size 4" in data["text/html"]


def test_depth_rankdir_save_and_name(shell, tmp_path):
    dot_file, svg_file = tmp_path / "g.dot", tmp_path / "g.svg"
    result, captured = run(shell, f"%jaxpr --depth 0 --rankdir LR --save {dot_file} "
                                  f"--name j7 func7(5.0)")
    result.raise_error()
    assert captured.stdout == f"Saved the graph to {dot_file}\n"
    dot = dot_file.read_text()
    assert "rankdir=LR" in dot and "cluster" not in dot
    closed = shell.user_ns["j7"]
    assert isinstance(closed, glassjax.core.ClosedJaxpr)
    assert str(closed) == str(make_jaxpr(shell.user_ns["func7"])(5.0))
    clusters, _, _ = svg_titles(captured.outputs[0].data["text/html"])
    assert clusters == set()
    run(shell, f"%jaxpr --no-run --save {svg_file} func7(5.0)")[0].raise_error()
    assert svg_file.read_text().startswith("<svg")


# ----------------------------------------------------------------------------------------
# The seed examples, as a notebook shows them
# ----------------------------------------------------------------------------------------

SEEDS = {
    "func7(5.0)": ({"cluster_e2", "cluster_e2_r0", "cluster_e2_r1"},
                   {"e0", "e1", "e2", "e2_r0_in0", "e2_r0_e0", "e2_r1_e0", "e2_out"},
                   {"e1->e2", "in0->e2_r0_in0", "in0->e2_r1_in0", "e2->e2_r0_in0",
                    "e2_r0_e0->e2_out", "e2_r1_e0->e2_out", "e2_out->out0"}),
    "func8(5.0, (jnp.zeros(1), 2.0))": (
        {"cluster_e2", "cluster_e2_r0", "cluster_e2_r1"},
        {"const0", "in0", "in1", "in2", "e2", "e2_r0_e1", "e2_out"},
        {"const0->e2_r0_in0", "const0->e2_r1_in0", "in1->e2_r1_in1", "e2_r1_in1->e2_out"}),
    "one_of_three(1, 5.0)": (
        {"cluster_e2", "cluster_e2_r0", "cluster_e2_r1", "cluster_e2_r2"},
        {"e1", "e2", "e2_r0_e0", "e2_r1_e0", "e2_r2_e0"},
        {"e1->e2", "in1->e2_r2_in0", "e2_r2_e0->e2_out", "e2->e2_r2_in0"}),
    "func10(np.ones(16), 5)": (
        {"cluster_e2", "cluster_e2_r0", "cluster_e2_r1"},
        {"e0", "e1", "e2_r0_e0", "e2_r1_e0", "e2_r1_e3", "e2_out"},
        {"e2_r0_e0->e2_out", "e2_r1_e3->e2_r1_in4", "e2_r1_e0->e2_r1_in2",
         "e1->e2_r1_in4", "e2_out->out0"}),
    "func11(np.ones(16), 5.0)": (
        {"cluster_e1"},
        {"e0", "e1_r0_in0", "e1_r0_in1", "e1_r0_in2", "e1_r0_in3", "e1_r0_e4", "e1_out"},
        {"in0->e1_r0_in2", "e0->e1_r0_in3", "e1_r0_e4->e1_r0_in1", "e1_r0_in1->e1_out",
         "e1_out->out0", "e1_out->out1"}),
    "func12(1.0)": ({"cluster_e1"}, {"e0", "e1_r0_in0", "e1_r0_in1", "e1_out", "e3"},
                    {"in0->e1_r0_in0", "e0->e1_r0_in1", "e1_out->e3"}),
    "selu(jnp.arange(5.0))": ({"cluster_e4"}, {"e3", "e4_r0_e0", "e4_out", "e5"},
                              {"e3->e4_r0_in2", "e4_r0_e0->e4_out", "e4_out->e5"}),
}


@pytest.mark.parametrize("call", list(SEEDS))
def test_seed_examples_graphs(shell, call, tmp_path):
    dot_file = tmp_path / "seed.dot"
    result, captured = run(shell, f"%jaxpr --save {dot_file} {call}")
    result.raise_error()
    want_clusters, want_nodes, want_edges = SEEDS[call]
    clusters, node_ids, edge_titles = svg_titles(captured.outputs[0].data["text/html"])
    assert clusters == want_clusters
    assert want_nodes <= node_ids
    assert want_edges <= edge_titles
    dot = dot_file.read_text()
    for name in want_clusters:
        assert f"subgraph {name} {{" in dot
    for edge in want_edges:
        assert "\t" + edge.replace("->", " -> ") in dot


def test_seed_results_are_computed_on_the_device(shell):
    plain = shown(shell, "%jaxpr --view text func11(np.ones(16), 5.0)")["text/plain"]
    carry = np.float32(0)
    for _ in range(16):
        carry = carry + np.float32(1) + np.float32(5)
    assert f"result[0] = Array({carry:.0f}., dtype=float32)" in plain
    assert "result[1] = Array([ 0.,  6., 12.," in plain


# ----------------------------------------------------------------------------------------
# Errors: a short message or the user's own traceback, and the shell lives on
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, message", [
    ("%jaxpr --bogus f(1.0, 2.0)", "UsageError: unrecognized arguments: --bogus"),
    ("%jaxpr --view pie f(1.0, 2.0)", "UsageError: argument --view: invalid choice: 'pie'"),
    ("%jaxpr", "UsageError: %jaxpr needs a call, like: %jaxpr f(x)"),
    ("%jaxpr 1 + 2", "UsageError: %jaxpr needs a call, like f(x); got '1 + 2'"),
    ("%jaxpr f(1.0,", "UsageError: invalid syntax on line 1: f(1.0,"),
    ("%%jaxpr\nx = f(1.0, 2.0)\n", "UsageError: the last line of a %%jaxpr cell must be "
                                   "a call, like f(x)"),
    ("%%jaxpr --no-run f(1.0, 2.0)\nf(1.0, 2.0)\n", "UsageError: %%jaxpr takes only "
                                                    "options on its first line"),
    ("%%jaxpr --view\nf(1.0, 2.0)\n", "UsageError: argument --view: expected one argument"),
    ("%jaxpr --axis-env i:4 f(1.0, 2.0)", "UsageError: --axis-env wants name=size pairs"),
    ("%jaxpr --static x f(1.0, 2.0)", "UsageError: --static wants argument positions"),
    ("%jaxpr --depth -1 f(1.0, 2.0)", "UsageError: --depth must be 0 or more, got -1"),
    ("%jaxpr --save g.png f(1.0, 2.0)", "UsageError: --save writes FILE.svg or FILE.dot"),
    ("%jaxpr --name 1x f(1.0, 2.0)", "UsageError: --name wants a variable name"),
    ("%jaxpr --axis-env i=2 --hlo f(1.0, 2.0)", "UsageError: --hlo and --compiled need "
                                                "devices"),
])
def test_usage_errors(shell, cell, message):
    result, captured = run(shell, cell)
    assert result.error_in_exec is not None
    assert captured.stderr.startswith(message), captured.stderr
    assert "Traceback" not in captured.stdout + captured.stderr
    assert not captured.outputs
    assert_alive(shell)


def plain_traceback(captured) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", captured.stdout + captured.stderr)


def test_exception_in_the_traced_function_shows_the_users_traceback(shell):
    shell.run_cell("def broken(x):\n"
                   "    y = jnp.sin(x)\n"
                   "    return y + undefined_name\n").raise_error()
    result, captured = run(shell, "%jaxpr broken(1.0)")
    assert isinstance(result.error_in_exec, NameError)
    tb = plain_traceback(captured)
    assert "return y + undefined_name" in tb
    assert "NameError: name 'undefined_name' is not defined" in tb
    assert "notebook/magics.py" not in tb and "stages.py" not in tb
    assert_alive(shell)


def test_exception_in_a_cell_shows_the_cell_line(shell):
    result, captured = run(shell, "%%jaxpr\nz = 1 / 0\nf(z, 1.0)\n")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    tb = plain_traceback(captured)
    assert "----> 1 z = 1 / 0" in tb and "notebook/magics.py" not in tb
    result, captured = run(shell, "%jaxpr f(undefined_arg, 1.0)")
    assert isinstance(result.error_in_exec, NameError)
    assert "notebook/magics.py" not in plain_traceback(captured)
    assert_alive(shell)


def test_a_bad_call_does_not_show_the_magic(shell):
    result, captured = run(shell, "%jaxpr f(1.0)")
    assert isinstance(result.error_in_exec, TypeError)
    tb = plain_traceback(captured)
    assert "f() missing 1 required positional argument: 'y'" in tb
    assert "notebook/magics.py" not in tb
    assert_alive(shell)


# ----------------------------------------------------------------------------------------
# Escaping and extension loading
# ----------------------------------------------------------------------------------------

def test_markup_in_names_and_keys_shows_as_text(shell):
    shell.run_cell(
        "def evil(x):\n"
        "    return x + 1.\n"
        "evil.__name__ = '<script>alert(1)</script>'\n"
        "evil = jax.jit(evil)\n"
        "def marked(d):\n"
        "    return {'<i>out</i>': evil(d['<b>k</b>']) * 2.}\n").raise_error()
    for options in ("", "--view graph", "--view text --hlo --compiled"):
        data = shown(shell, f"%jaxpr {options} marked({{'<b>k</b>': 1.0}})")
        page = data["text/html"]
        # no markup from the program reaches the page: it is all escaped text
        assert "<script" not in page and "<b>" not in page and "<i>" not in page
        text = html.unescape(page)
        assert "<script>alert(1)</script>" in text          # the jit's name
        assert "result['<i>out</i>']" in text                # the output's dict key
        if "graph" in options or not options:
            assert "d['<b>k</b>']" in text                   # the argument's dict key
        assert "name=<script>alert(1)</script>" in data["text/plain"] or "graph" in options


def test_unload_and_load_the_extension(shell):
    run(shell, "%unload_ext glassjax")[0].raise_error()
    result, captured = run(shell, "%jaxpr f(1.0, 2.0)")
    assert "UsageError: Line magic function `%jaxpr` not found" in captured.stderr
    run(shell, "%load_ext glassjax")[0].raise_error()
    assert_alive(shell)


def test_import_glassjax_does_not_import_the_notebook_layer():
    import subprocess
    import sys
    code = ("import sys, glassjax, glassjax.numpy\n"
            "print(any(m.startswith(('glassjax.notebook', 'IPython', 'ipywidgets', "
            "'graphviz')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.stdout.strip() == "False"
