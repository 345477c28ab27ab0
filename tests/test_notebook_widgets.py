"""The explorer widget and the step-through evaluator behind it."""
import html
import re

import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import make_jaxpr
from glassjax.notebook import explore
from glassjax.notebook.widgets import TABS


def f(x, y):
    return jnp.sin(x) * y + 1.0


def text_of(page: str) -> str:
    """What a reader sees of an HTML page: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", "", page, flags=re.S))


def show_tab(ex, name):
    ex.tabs.selected_index = TABS.index(name)
    return ex.panes[TABS.index(name)].value if name != "Step" else None


def test_tabs_show_every_stage():
    ex = explore(f, jnp.arange(3.0), 2.0)
    assert [ex.tabs.get_title(i) for i in range(len(TABS))] == [
        "Jaxpr", "Graph", "StableHLO", "Compiled HLO", "Result", "Timings", "Step"]
    closed = make_jaxpr(f)(jnp.arange(3.0), 2.0)
    assert text_of(ex.panes[0].value) == str(closed)
    assert ex.graph_pane.children == ()            # rendered only when first shown
    ex.tabs.selected_index = TABS.index("Graph")
    (graph,) = ex.graph_pane.children             # the graph explorer
    assert graph.text == str(closed) and not graph.stepping and graph.marks == {}
    assert "stablehlo.sine" in show_tab(ex, "StableHLO")
    assert "HloModule jit_f" in show_tab(ex, "Compiled HLO")
    value = np.sin(np.arange(3.0, dtype=np.float32)) * 2 + 1
    assert np.array2string(value, separator=", ") in show_tab(ex, "Result")
    timings = show_tab(ex, "Timings")
    assert [m for m in re.findall(r"<tr><td>(\w+)</td><td>[\d.]+ ms</td></tr>", timings)] \
        == ["trace", "lower", "compile", "run"]
    bundle = ex._repr_mimebundle_()
    assert bundle["text/plain"] == "glassjax explorer: f"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_the_graph_tab_marks_what_a_transformation_added():
    ex = explore(f, 1.0, 2.0)
    ex.apply("grad")
    ex.tabs.selected_index = TABS.index("Graph")
    (graph,) = ex.graph_pane.children
    closed = make_jaxpr(glassjax.grad(f))(1.0, 2.0)
    assert graph.text == str(closed)
    nodes = {}

    def walk(g):
        for n in g["nodes"]:
            nodes[n["id"]] = n
            if n["type"] == "cluster":
                for child in graph.view.children(n):
                    walk(child)
    walk(graph.view.root)
    marks = graph.marks
    # the derivative's cos, the seed's mul and the chain rule's mul were added (and
    # the clusters holding them, such as a name scope's, say so)
    added = [i for i, how in marks["nodes"].items() if how == "added"]
    assert sorted(nodes[i]["label"][0] for i in added) == ["cos", "mul", "mul"]
    assert all(nodes[i]["type"] == "cluster" for i, how in marks["nodes"].items()
               if how == "contains")
    lines = str(closed).split("\n")
    assert sorted(lines[a].split("=")[1].split()[0] for a, _ in marks["lines"]) == [
        "cos", "mul", "mul"]
    sin = graph.view.locate((0,))["id"]
    assert marks["origins"][sin] == "from f's equation 0: c:f32[] = sin a"
    assert marks["summary"] == "3 of 6 equations added (marked green); 3 traced back to f"


def test_transformations_compose_and_retrace():
    ex = explore(f, 1.0, 2.0)
    ex.apply("jit")
    assert ex.description() == "jit(f)"
    assert "name=f" in text_of(ex.panes[0].value)
    ex.undo()
    assert ex.description() == "f" and "jit[" not in ex.panes[0].value
    ex.apply("jit")
    ex.apply("jit")
    assert ex.description() == "jit(jit(f))"
    ex.reset()
    assert ex.description() == "f" and ex.transforms == []


def test_every_transformation_of_the_bar_traces_and_runs():
    ex = explore(f, 1.0, 2.0)
    ex.apply("grad")
    g = glassjax.grad(f)
    assert text_of(ex.panes[0].value) == str(make_jaxpr(g)(1.0, 2.0))
    for name in ("value_and_grad", "jvp", "linearize", "checkpoint"):
        ex.reset()
        ex.apply(name)
        assert ex.message.value == "", ex.message.value
        assert '<div class="gj-error">' not in show_tab(ex, "Result")


def test_vmap_stacks_the_example_arguments():
    ex = explore(f, jnp.arange(2.0), 2.0)
    ex.apply("vmap", "(0, None)")
    assert ex.description() == "vmap(f, in_axes=(0, None))"
    closed = ex.stages.closed_jaxpr
    assert [str(a) for a in closed.in_avals][0] == "float32[3,2]"
    ex.tabs.selected_index = TABS.index("Result")
    assert "(3, 2)" in ex.panes[TABS.index("Result")].value


def test_a_failing_transformation_is_explained_and_not_kept():
    ex = explore(lambda x: jnp.sin(x), jnp.arange(3.0))
    ex.apply("grad")
    assert ex.transforms == []
    assert "grad(&lt;lambda&gt;) could not be traced: TypeError" in ex.message.value


def test_bad_in_axes_is_a_clear_error():
    ex = explore(f, 1.0, 2.0)
    with pytest.raises(ValueError, match="in_axes must be a Python literal"):
        ex.apply("vmap", "(0,")


def test_the_step_tab_is_the_graph_explorer_with_a_debugger():
    x = jnp.arange(3.0)
    ex = explore(f, x, 2.0)
    assert ex.step_pane.children == ()            # made when the tab is first shown
    ex.tabs.selected_index = TABS.index("Step")
    (widget,) = ex.step_pane.children
    assert widget.stepping and "sin" in widget.text
    sent = []
    widget.send = sent.append
    widget._on_message(widget, {"type": "step", "how": "over"}, [])
    widget._on_message(widget, {"type": "step", "how": "over"}, [])
    (_, state) = sent
    assert state["type"] == "stepped" and state["stack"] == ["program"]
    assert [line["text"] for line in state["lines"]] == [
        "c:f32[3] = sin a",
        "d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b",
        "e:f32[3] = mul c d", "f:f32[3] = add e 1.0:f32[]"]
    assert state["current"] == 2 and state["id"] == "e2"
    assert widget.text.split("\n")[3].strip() == "e:f32[3] = mul c d"
    assert state["text_lines"] == [3, 3]                  # marked in the text too
    widget._on_message(widget, {"type": "select_line", "line": 4}, [])
    assert sent[-1] == {"type": "selected", "open": [], "id": "e3", "lines": [4, 4]}
    widget._on_message(widget, {"type": "select", "id": "e0"}, [])
    assert sent[-1] == {"type": "selected", "id": "e0", "open": [], "lines": [1, 1]}
    sin = np.asarray(jnp.sin(x))
    assert [(r["name"], r["value"]) for r in state["inputs"]] == [
        ("c", np.array2string(sin, separator=", ")), ("d", "2.")]
    assert [(r["name"], r["type"], r["value"]) for r in state["outputs"]] == [
        ("e", "f32[3]", np.array2string(sin * 2, separator=", "))]
    ex.apply("jit")                                 # a new program: a new debugger
    assert ex.step_pane.children[0] is not widget


def test_magic_view_widget_displays_the_explorer():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext glassjax").raise_error()
    shell.user_ns.update(f=f, jnp=jnp)
    with capture_output() as captured:
        shell.run_cell("%jaxpr --view widget f(1.0, 2.0)").raise_error()
    (out,) = captured.outputs
    assert out.data["text/plain"] == "glassjax explorer: f"
    assert "application/vnd.jupyter.widget-view+json" in out.data


def test_magic_view_widget_traces_the_users_code_once():
    """The explorer starts from the magic's trace (even for a callable that jit's trace
    cache cannot hold: it has no weak references)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext glassjax").raise_error()

    class Counted:
        __slots__ = ("calls",)

        def __call__(self, x, y):
            self.calls.append(x)
            return f(x, y)
    counted = Counted()
    counted.calls = []
    shell.user_ns.update(counted=counted)
    with capture_output():
        shell.run_cell("%jaxpr --view widget counted(1.0, 2.0)").raise_error()
    assert len(counted.calls) == 1


def test_the_apply_button_reports_a_bad_in_axes_next_to_the_bar():
    ex = explore(f, 1.0, 2.0)
    ex.choice.value, ex.in_axes.value = "vmap", "(0,"
    ex.apply_button.click()
    assert "in_axes must be a Python literal" in ex.message.value
    assert ex.transforms == []
    ex.choice.value = "jit"
    ex.apply_button.click()
    assert ex.description() == "jit(f)" and ex.message.value == ""


def test_errors_of_the_function_itself_are_raised():
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        explore(f, 1.0)


def test_vmap_with_in_axes_that_do_not_fit_is_explained():
    ex = explore(f, 1.0, 2.0)
    ex.apply("vmap", "(0, 0, 0)")
    assert ex.transforms == []
    assert "in_axes has 3 entries for 2 arguments" in ex.message.value


def test_the_explorer_output_carries_a_static_view_beside_the_widget():
    """nbconvert, GitHub and a notebook opened without its kernel show ``text/html``:
    the title, the SVG graph, the result and the highlighted text, under a notice."""
    ex = explore(f, jnp.arange(3.0), 2.0)
    bundle = ex._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == ex.widget.model_id
    assert bundle["text/plain"] == "glassjax explorer: f"
    page = bundle["text/html"]
    seen = text_of(page)
    assert seen.startswith("saved view: run the cell to explore" "Explorer" "f")
    assert seen.endswith(str(make_jaxpr(f)(jnp.arange(3.0), 2.0)))
    graph = page[page.index('<div class="gj-graph"><svg'):page.index("</svg>")]
    assert "<title>e0</title>" in graph and ">sin<" in graph
    value = np.sin(np.arange(3.0, dtype=np.float32)) * 2 + 1
    assert np.array2string(value, separator=", ") in page[page.index("gj-results"):]


def test_nbconvert_shows_the_static_view_of_every_widget_output():
    """A notebook saved as JupyterLab saves it (outputs, no widget state) and converted
    by ``jupyter nbconvert --to html``: each explorer and each displayed jaxpr is its
    static view (the SVG graph), where the widget alone would be an empty output."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext glassjax\n"
        "import glassjax as jax, glassjax.numpy as jnp\n"
        "from glassjax.notebook import explore",
        "def f(x):\n    return jnp.sin(x) * 2.0\nexplore(f, jnp.ones(3))",
        "jax.make_jaxpr(f)(jnp.ones(3))")]
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            store_widget_state=False).execute()
    outputs = [cell.outputs[0].data for cell in nb.cells[1:]]
    assert all("application/vnd.jupyter.widget-view+json" in out for out in outputs)
    page, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    assert page.count('<div class="gj-graph"><svg') == 2
    assert page.count("saved view: run the cell to explore") == 2
    assert page.count("<title>e0</title>") == 2 and page.count('class="gj-prim">sin<') == 2
