"""The graph explorer's view model (glassjax/notebook/explorer.py): folding to a budget,
runs and chunks, lazy unfolding, and the static picture of the folded view."""
import fnmatch
import math
import subprocess
import sys
import pathlib

import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook import display, explorer
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.naming import PrintedNames

ROOT = pathlib.Path(__file__).resolve().parent.parent


def nested(x):
    """while ∘ scan ∘ cond: every kind of control-flow cluster, nested."""
    def step(c, _):
        c = lax.cond(c.sum() > 0, lambda c: jnp.sin(c), lambda c: jnp.cos(c) * 2.0, c)
        return c, c.sum()

    def body(c):
        return lax.scan(step, c, None, length=3)[0]
    return lax.while_loop(lambda c: c.sum() < 10.0, body, x)


def chain(n):
    def f(x):
        for _ in range(n):
            x = jnp.sin(x) * 2.0 + 1.0
        return x
    return f


def walk(view, graph, visit):
    """Every node below ``graph``, unfolding folded clusters through ``view.expand``."""
    for node in graph["nodes"]:
        visit(graph, node)
        if node["type"] == "cluster":
            children = node["children"] or view.expand(node["id"])
            for child in children:
                walk(view, child, visit)


def test_find_runs_folds_repeated_blocks():
    sigs = list("xy") + list("abc") * 5 + list("z") + list("q") * 4 + list("ab") * 2
    assert explorer.find_runs(sigs) == [
        (0, 1, 0), (1, 2, 0), (2, 17, 3), (17, 18, 0), (18, 22, 1),
        (22, 23, 0), (23, 24, 0), (24, 25, 0), (25, 26, 0)]


@pytest.mark.parametrize("n", [1, 50, 51, 2500, 10**5, 10**7])
@pytest.mark.parametrize("period", [1, 3])
def test_chunks_never_exceed_the_budget_and_are_even(n, period):
    size = explorer.chunk_size(n, 50, period)
    chunks = math.ceil(n / size)
    assert chunks <= 50 and size % period == 0
    assert (size <= 50) == (n <= 50 * (50 // period * period))   # nested only if needed
    assert size - period < math.ceil(n / chunks) <= size   # no tiny last chunk
    inner = explorer.chunk_size(size, 50, period) if size > 50 else size
    assert math.ceil(size / inner) <= 50


def test_small_program_is_shown_whole_with_clusters_and_printed_equations():
    closed = make_jaxpr(nested)(jnp.ones(3))
    view = explorer.View(closed)
    assert view.complete
    text = str(closed)
    names = PrintedNames(closed.jaxpr)
    kinds, cards = [], []

    def visit(graph, node):
        if node["type"] == "cluster":
            kinds.append((node["kind"], node["n"]))
            assert node["children"] is not None             # nothing folded
        if "card" in node:
            cards.append(node["card"]["text"])
    walk(view, view.root, visit)
    assert kinds == [("while", 11), ("scan", 8), ("cond", 3)]
    # hover cards show each equation exactly as it is printed inside the whole jaxpr
    for card in cards:
        for line in card.splitlines():
            assert line.strip() in text or line == "... (2 more lines)"
    full = names.eqn_text(closed.jaxpr.eqns[0]).splitlines()
    assert view.root["nodes"][1]["card"]["text"].splitlines() == [
        *full[:explorer.CARD_LINES], f"... ({len(full) - explorer.CARD_LINES} more lines)"]
    # the while's regions are its cond and body, binders noted as the loop's carry
    cond, body = view.root["nodes"][1]["children"]
    assert (cond["title"], body["title"]) == ("cond_jaxpr", "body_jaxpr")
    assert cond["nodes"][0]["label"] == ["q:f32[3]", "carry"]
    assert ["e0.r0.e0", "e0.r0.e1", "r:f32[]"] in cond["edges"]
    assert ["e0.r1.out0", "e0.r1.in0", "carry: next step", "back"] in body["edges"]
    assert not any(len(e) == 4 for e in cond["edges"])     # the test is no carry


def test_a_folded_cluster_unfolds_to_what_an_open_one_shows():
    closed = make_jaxpr(nested)(jnp.ones(3))
    whole = explorer.View(closed).root
    small = explorer.View(closed, budget=4)
    assert not small.complete
    node = small.root["nodes"][1]
    assert node["children"] is None
    assert node["label"] == ["while", "cond_nconsts=0 body_nconsts=0", "11 equations",
                             "in: f32[3]", "out: f32[3]"]
    opened = small.expand(node["id"])
    for got, want in zip(opened, whole["nodes"][1]["children"]):
        strip = lambda g: [{k: v for k, v in n.items() if k != "children"} for n in g["nodes"]]
        assert strip(got) == strip(want)
        assert got["edges"] == want["edges"]
    with pytest.raises(KeyError):
        small.expand("e99")


def test_big_program_every_level_within_budget_and_every_equation_once():
    closed = make_jaxpr(chain(700))(jnp.ones(3))        # 2100 equations
    view = explorer.View(closed, budget=30)
    assert len(view.root["nodes"]) <= 30
    seen = []

    def visit(graph, node):
        assert len(graph["nodes"]) <= 30 + 2            # + the values in and out
        if node["type"] == "eqn":
            seen.append(node["card"]["text"])
    walk(view, view.root, visit)
    assert len(seen) == graph_lib.count_eqns(closed.jaxpr) == 2100
    names = PrintedNames(closed.jaxpr)
    assert seen == [names.eqn_text(e) for e in closed.jaxpr.eqns]
    run = view.root["nodes"][1]
    assert (run["kind"], run["title"], run["n"]) == ("run", "700 × [sin, mul, add]", 2100)
    # edges carry the values between the run and the program's inputs and outputs
    assert view.root["edges"] == [["in0", run["id"], "a:f32[3]"],
                                  [run["id"], "out0", run["card"]["out"][0]]]


def test_static_picture_of_a_folded_program_is_deterministic():
    closed = make_jaxpr(chain(400))(jnp.ones(3))
    one = explorer.to_dot(explorer.View(closed)).source
    two = explorer.to_dot(explorer.View(closed)).source
    assert one == two
    assert "400 × [sin, mul, add]" in one
    page = display.graph_html(closed)
    assert page.startswith('<div class="gj-graph"><svg')
    assert "400 × [sin, mul, add]" in page


def test_user_names_stay_text_in_the_static_picture():
    def f(x):
        return jnp.sin(x) + 1.0
    f.__name__ = f.__qualname__ = "<img src=x onerror=alert(1)>"
    g = glassjax.jit(f)
    closed = make_jaxpr(lambda x: g(g(x)))(jnp.ones(3))
    view = explorer.View(closed, budget=3)
    assert view.root["nodes"][1]["label"][0] == "jit: <img src=x onerror=alert(1)>"
    page = display.graph_html(closed, view=view)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_widget_sends_a_folded_clusters_content_when_asked():
    closed = make_jaxpr(chain(300))(jnp.ones(3))
    w = explorer.graph_widget(closed)
    sent = []
    w.send = sent.append
    run = w.model["nodes"][1]
    w._on_message(w, {"type": "expand", "id": run["id"]}, [])
    w._on_message(w, {"type": "expand", "id": "nope"}, [])
    assert sent[0]["type"] == "children" and sent[0]["id"] == run["id"]
    assert sent[0]["graphs"] == w.view.expand(run["id"])
    assert sent[1]["type"] == "error"
    w._on_message(w, {"type": "hello"}, [])     # the browser's greeting: a live kernel
    assert sent[2] == {"type": "hello"}


def test_without_anywidget_outputs_keep_the_static_picture(monkeypatch):
    monkeypatch.setitem(sys.modules, "anywidget", None)          # import fails
    explorer.widget_class.cache_clear()
    monkeypatch.setattr(display, "_in_kernel", lambda: True)
    try:
        closed = make_jaxpr(chain(2))(jnp.ones(3))
        assert explorer.graph_widget(closed) is None
        bundle = display.closed_jaxpr_mimebundle(closed)
        assert set(bundle) == {"text/plain", "text/html"} and "<svg" in bundle["text/html"]
    finally:
        explorer.widget_class.cache_clear()


def test_in_a_kernel_a_jaxpr_is_the_widget_plus_its_text_and_picture(monkeypatch):
    monkeypatch.setattr(display, "_in_kernel", lambda: True)
    made, make = [], explorer.graph_widget
    monkeypatch.setattr(explorer, "graph_widget",
                        lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    closed = make_jaxpr(chain(2))(jnp.ones(3))
    bundle = display.closed_jaxpr_mimebundle(closed)
    assert bundle["text/plain"] == str(closed) and "<svg" in bundle["text/html"]
    assert "saved view: run the cell to explore" in bundle["text/html"]
    [widget] = made
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
    assert widget.model == explorer.View(closed).root and widget.text == str(closed)
    monkeypatch.undo()
    monkeypatch.setattr(display, "SHOW_WIDGETS", False)
    assert not display._in_kernel()


def test_built_front_end_is_current_and_ships_in_the_package():
    result = subprocess.run([sys.executable, str(ROOT / "extension" / "build.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    tomllib = pytest.importorskip("tomllib")               # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["glassjax.notebook"]
    package = ROOT / "glassjax" / "notebook"
    for name in ("graph_widget.js", "graph_widget.css", "glassjax.css"):
        assert any(fnmatch.fnmatch(f"static/{name}", p) for p in patterns)
        assert (package / "static" / name).is_file()
    source = (ROOT / "extension" / "src" / "graph_widget.js").read_text()
    assert source in str(explorer.widget_class()._esm)
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source


def test_every_kind_of_body_is_a_cluster():
    @glassjax.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), jnp.cos(p[0]) * t[0]))

    @glassjax.custom_vjp
    def g(x):
        return jnp.exp(x)
    g.defvjp(lambda x: (g(x), x), lambda r, ct: (ct * jnp.exp(r),))

    def prog(x):
        y = glassjax.checkpoint(lambda z: jnp.sin(jnp.sin(z)))(x)
        return f(y) + g(y) + lax.psum(x, "i")

    mapped = glassjax.pmap(prog, axis_name="i")
    closed = make_jaxpr(mapped)(jnp.ones((2, 3)))
    view = explorer.View(closed)
    titles = []
    walk(view, view.root, lambda graph, node: node["type"] == "cluster"
         and titles.append((node["kind"], node["title"])))
    assert titles == [("jit", "jit: _fun"), ("shard_map", "shard_map"),     # as JAX names it
                      ("checkpoint", "checkpoint"), ("custom", "custom_jvp_call: f"),
                      ("custom", "custom_vjp_call: g")]
    psum = [n for g in view.root["nodes"][1]["children"][0]["nodes"][1]["children"]
            for n in g["nodes"] if n.get("label", [""])[0] == "psum"]
    assert [n["kind"] for n in psum] == ["collective"]


def test_search_finds_matches_inside_folded_clusters():
    closed = make_jaxpr(lambda x: lax.while_loop(lambda c: c.sum() < 1e9, chain(700),
                                                 x))(jnp.ones(3))
    view = explorer.View(closed, budget=30)
    names = PrintedNames(closed.jaxpr)
    body = closed.jaxpr.eqns[0].params["body_jaxpr"].jaxpr
    target = body.eqns[1000].outvars[0]                  # deep inside the folded body
    found = view.search(names.name(target))
    assert found["total"] == 2                           # written by 1000, read by 1001
    first = found["paths"][0]
    # opening the clusters one after the other reaches the equation, with its text
    graph = view.root
    for cid in first["open"]:
        node = next(n for g in [graph] for n in g["nodes"] if n["id"] == cid)
        graphs = view.children(node)
        graph = next((g for g in graphs if any(n["id"] == first["id"] for n in g["nodes"])),
                     graphs[-1])
    node = next(n for n in graph["nodes"] if n["id"] == first["id"])
    assert node["card"]["text"] == names.eqn_text(body.eqns[1000])
    assert first["open"][0] == "e0"                      # the while, then run and chunks
    assert view.search("cond_jaxpr")["total"] == 0
    assert view.search("while")["paths"] == [{"open": [], "id": "e0"}]
    assert view.search("sin")["total"] == 700
    assert len(view.search("sin")["paths"]) == explorer.SEARCH_LIMIT
    assert view.search("  ") == {"total": 0, "paths": []}


# ----------------------------------------------------------------------------------------
# named_scope groups: clusters by the equations' name stacks
# ----------------------------------------------------------------------------------------

def scoped(x):
    with glassjax.named_scope("layer1"):
        with glassjax.named_scope("dense"):
            y = jnp.cos(jnp.sin(x))
        y = jnp.exp(y)
    y = jnp.tanh(y)
    with glassjax.named_scope("layer2"):
        return jnp.log(y)


SCOPES = {"sin": ("layer1", "dense"), "cos": ("layer1", "dense"), "exp": ("layer1",),
          "tanh": (), "log": ("layer2",)}


def test_named_scopes_are_foldable_clusters(monkeypatch):
    """The grouping, with the name stacks given per primitive (equations carry them
    when the source information of core.JaxprEqn is there: see the next test)."""
    monkeypatch.setattr(explorer, "_scopes", lambda eqn: SCOPES[eqn.primitive.name])
    closed = make_jaxpr(scoped)(1.0)
    view = explorer.View(closed)
    kinds = [(n["id"], n.get("kind"), n.get("title")) for n in view.root["nodes"]]
    assert kinds == [("in0", None, None), ("g0-2", "scope", "layer1"), ("e3", "eqn", None),
                     ("g4-4", "scope", "layer2"), ("out0", None, None)]
    (inner,) = view.root["nodes"][1]["children"]           # unfolded: within budget
    assert [(n["id"], n.get("title") or n["label"][0]) for n in inner["nodes"]
            if n["type"] not in ("input", "output")] == [
        ("g0-2.s.g0-1", "dense"), ("g0-2.s.e2", "exp")]
    assert view.locate((1,)) == {"open": ["g0-2", "g0-2.s.g0-1"], "id": "g0-2.s.g0-1.s.e1"}
    found = view.search("dense")
    assert found["total"] == 2 and found["paths"][0]["id"] == "g0-2.s.g0-1.s.e0"
    assert view.search("layer2")["paths"] == [{"open": ["g4-4"], "id": "g4-4.s.e4"}]
    folded = explorer.View(closed, budget=4)                # folded beyond the budget
    assert folded.root["nodes"][1]["children"] is None
    assert folded.root["nodes"][1]["label"][:2] == ["layer1", "3 equations"]


def test_named_scopes_of_a_real_program_are_clusters():
    view = explorer.View(make_jaxpr(scoped)(1.0))
    assert [(n["id"], n.get("title")) for n in view.root["nodes"]
            if n["type"] == "cluster"] == [("g0-2", "layer1"), ("g4-4", "layer2")]
    assert view.locate((1,))["id"] == "g0-2.s.g0-1.s.e1"


def test_cards_and_tooltips_name_the_cell_and_show_the_line():
    """An equation staged by a notebook cell is placed as IPython's tracebacks place it,
    ``Cell In[n], line k``, with the line's code; one staged in a file as ``file:k``.
    The static picture's tooltips carry the same, never node ids."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_cell("import glassjax, glassjax.numpy as jnp\n"
                   "def cell_fun(x):\n"
                   "    y = jnp.cos(x) # the cell's line\n"
                   "    return y * 2.0\n"
                   "closed = glassjax.make_jaxpr(cell_fun)(1.0)", store_history=True)
    n = shell.execution_count - 1
    closed = shell.user_ns["closed"]
    view = explorer.View(closed)
    cos = next(node for node in view.root["nodes"] if node.get("label", [""])[0] == "cos")
    source = cos["card"]["source"]
    assert (source["place"], source["code"], source["function"]) == (
        f"Cell In[{n}], line 3", "y = jnp.cos(x) # the cell's line", "cell_fun")
    from_file = make_jaxpr(chain(1))(jnp.ones(3))         # defined in this file
    [sin] = [node for node in explorer.View(from_file).root["nodes"]
             if node.get("label", [""])[0] == "sin"]
    assert sin["card"]["source"]["place"].startswith("test_explorer.py:")
    assert sin["card"]["source"]["code"] == "x = jnp.sin(x) * 2.0 + 1.0"
    tips = [display._graph_box(explorer.to_dot(view)), display.graph_html(closed)]
    for svg in tips:
        assert (f'xlink:title="b:f32[] = cos a&#10;Cell In[{n}], line 3 (cell_fun)&#10;'
                "y = jnp.cos(x) # the cell&#39;s line") in svg
