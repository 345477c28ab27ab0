"""Rich display: jaxprs, graphs and device results as notebook output.

Every output is a MIME bundle: ``text/plain`` (what a terminal shows, for a
``ClosedJaxpr`` exactly ``str()``) and ``text/html`` (highlighted jaxpr, the graph as
inline SVG, a table of results). Everything that comes from the program or the user
(names, values, params) is HTML-escaped here, or XML-escaped by Graphviz inside SVG, so
it shows as text and never acts as markup.

The boxes, sections and styles come from ``page``; a sharded result also shows
``visualize_array_sharding``'s grid (``sharding_grid``). In a kernel, a ClosedJaxpr is
also the graph explorer widget (``explorer.py``), which front ends that run widgets show
in place of the static picture.
"""
from __future__ import annotations

import concurrent.futures
import html
import re

import graphviz
import numpy as np

from glassjax import caches, core, debug
from glassjax.notebook import graph as graph_lib
from glassjax.notebook import sharding_grid
from glassjax.notebook.naming import PrintedNames
from glassjax.notebook.page import (css, error_box, folded, pre,  # noqa: F401 (API)
                                    saved_view, section, wrap)
from glassjax.notebook.stages import StageError


# ----------------------------------------------------------------------------------------
# Jaxpr text
# ----------------------------------------------------------------------------------------

# jaxlib's printer marks keywords and types with ANSI colour classes; we also mark the
# primitive of each equation (the word after " = ").
_PRIMITIVE = re.compile(r"(?<= = )([A-Za-z_]\w*)")
COLOUR_LIMIT = 2_000


def printed(jaxpr, *, colour: bool = True) -> PrintedNames:
    """The jaxpr (a Jaxpr or a ClosedJaxpr) printed once, for its text, its highlighted
    text and its graph: with ``colour``, keywords and types are marked up to
    ``COLOUR_LIMIT`` equations, past which the printer's colour document costs more
    than the marks are worth."""
    if isinstance(jaxpr, core.ClosedJaxpr):
        jaxpr = jaxpr.jaxpr
    return PrintedNames(jaxpr, colour=colour and graph_lib.count_eqns(jaxpr) <= COLOUR_LIMIT)


def jaxpr_html(jaxpr, names=None) -> str:
    """The jaxpr's text (identical to ``str``), highlighted: primitives always, keywords
    and types when ``names`` (its ``PrintedNames``, by default ``printed(jaxpr)``) was
    built with colour. A long text is folded into a scrolled box (``page.folded``)."""
    names = printed(jaxpr) if names is None else names
    body = _PRIMITIVE.sub(r"<span class=gj-prim>\1</span>", names.html())
    return folded(f'<pre class="gj-jaxpr">{body}</pre>', body.count("\n") + 1)


# ----------------------------------------------------------------------------------------
# Graphs
# ----------------------------------------------------------------------------------------

def svg(g: graphviz.Digraph) -> str:
    """The graph as an inline ``<svg>`` element (dot's XML header and comments cut)."""
    return _svg(g.engine, g.source)


@caches.lru("notebook.display._svg", 32)
def _svg(engine: str, source: str) -> str:
    """Graphviz's picture depends on its source only, so the last few are remembered:
    a cell run again does not wait for dot again (it takes tens of milliseconds to
    start, even for a small picture)."""
    text = graphviz.pipe(engine, "svg", source.encode()).decode()
    return text[text.index("<svg"):]


# Graphviz's dot runs in this thread, so that %jaxpr lowers and compiles the program
# meanwhile.
_DOT = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="glassjax-dot")


def graph_html(closed_jaxpr, *, view=None, **options) -> str:
    """The drawn graph (or a note saying why it is not drawn). A program that fits the
    explorer's node budget is drawn whole by ``graph.to_graphviz`` (``options`` are
    its options); a bigger one is drawn as the explorer first shows it, its clusters
    folded (``explorer.to_dot``), so Graphviz never lays out more than the budget."""
    return start_graph_html(closed_jaxpr, view=view, **options).result()


def start_graph_html(closed_jaxpr, *, view=None, **options) -> concurrent.futures.Future:
    """``graph_html``, its picture laid out by dot in the background: a future of it."""
    from glassjax.notebook import explorer
    if view is None:
        view = explorer.View(closed_jaxpr, result_names=options.get("result_names"))
    g = (graph_lib.to_graphviz(closed_jaxpr, names=view.names, **options) if view.complete
         else explorer.to_dot(view))
    return _DOT.submit(_graph_box, g)


def _graph_box(g: graphviz.Digraph) -> str:
    try:
        return f'<div class="gj-graph">{svg(g)}</div>'
    except graphviz.ExecutableNotFound:
        return error_box("The graph is not drawn: Graphviz's 'dot' program is not "
                         "installed (Debian/Ubuntu: apt-get install graphviz).")


# Whether a ClosedJaxpr shows as the graph explorer widget in a kernel. A widget needs its
# kernel (or widget state saved in the notebook, as nbclient saves it): a notebook saved
# from JupyterLab without widget state shows "model not found" for it when reopened until
# its cells are run again. Set this to False to keep static outputs only.
SHOW_WIDGETS = True


def _in_kernel() -> bool:
    """Whether outputs go to a Jupyter kernel's front end (which can show widgets)."""
    if not SHOW_WIDGETS:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def closed_jaxpr_mimebundle(closed_jaxpr) -> dict:
    """A ClosedJaxpr's rich display (registered with IPython by ``%load_ext glassjax``):
    its graph and its text, highlighted. In a kernel it is also the graph explorer
    widget, which front ends that run widgets show instead; the text and the static
    picture stay in the output for everything else (nbconvert, nbval, GitHub)."""
    from glassjax.notebook import explorer
    view = explorer.View(closed_jaxpr, names=printed(closed_jaxpr))
    graph = start_graph_html(closed_jaxpr, view=view)
    text = view.names.text()                 # the printer's document, laid out once more
    widget = (explorer.graph_widget(closed_jaxpr, view=view, text=text) if _in_kernel()
              else None)
    static = [graph.result(), jaxpr_html(closed_jaxpr, view.names)]
    if widget is None:
        return {"text/plain": text, "text/html": wrap(*static)}
    return with_static_view(widget, wrap(saved_view(*static)), text)


def with_static_view(widget, static_html: str, plain: str) -> dict:
    """A widget's MIME bundle with its static rendering beside it (``text/html``): front
    ends that run the widget show the widget, nbconvert and GitHub the rendering."""
    data = widget._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data         # (data, metadata)
    return {**data, "text/plain": plain, "text/html": static_html}


# ----------------------------------------------------------------------------------------
# Device results
# ----------------------------------------------------------------------------------------

def _value_text(x) -> str:
    return np.array2string(np.asarray(x), separator=", ")


def _dtype(x) -> str:
    try:
        return str(core.get_aval(x).dtype)
    except TypeError:
        return str(np.asarray(x).dtype)


def _place(x) -> str:
    """Where a value lives: its device, or "host" for a Python or NumPy value."""
    return repr(x.device) if hasattr(x, "device") else "host"


def _shard_table(shards) -> str:
    rows = "".join(f"<tr><td>{html.escape(repr(s.device))}</td>"
                   f"<td>{html.escape(str(s.index))}</td>"
                   f"<td>{pre(_value_text(s.data))}</td></tr>" for s in shards)
    return (f'<table class="gj-table gj-shards"><tr><th>device</th><th>index</th>'
            f"<th>value</th></tr>{rows}</table>")


def _grid(x) -> str:
    """``visualize_array_sharding``'s picture of a 1-D or 2-D array, else nothing."""
    if not 1 <= np.ndim(x) <= 2 or 0 in np.shape(x):
        return ""
    return sharding_grid.grid_table(debug.ShardingGrid(np.shape(x), x.sharding))


def results_html(names, leaves, heading="output") -> str:
    """One row per value: name, value, shape, dtype and device (or, for arrays spread
    over several devices, a table of their shards)."""
    rows = []
    for name, x in zip(names, leaves):
        shards = sharding_grid.shards(x)
        where = _grid(x) + _shard_table(shards) if shards else html.escape(_place(x))
        rows.append(f"<tr><td>{html.escape(name)}</td><td>{pre(_value_text(x))}</td>"
                    f"<td>{html.escape(str(np.shape(x)))}</td>"
                    f"<td>{html.escape(_dtype(x))}</td><td>{where}</td></tr>")
    head = (f"<tr><th>{html.escape(heading)}</th><th>value</th><th>shape</th><th>dtype</th>"
            "<th>device</th></tr>")
    return f'<table class="gj-table gj-results">{head}{"".join(rows)}</table>'


def results_text(names, leaves) -> str:
    """``name = value  (on device)``; for an array on several devices, then one line
    per device: the index of the part it holds (as ``shard.index``) and its value."""
    lines = []
    for name, x in zip(names, leaves):
        shards = sharding_grid.shards(x)
        device = ", ".join(repr(s.device) for s in shards) or _place(x)
        lines.append(f"{name} = {x!r}  (on {device})")
        lines += [f"  {s.device!r} {s.index}: {_value_text(s.data)}"
                  for s in shards]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# A whole program: what %jaxpr shows
# ----------------------------------------------------------------------------------------

def stages_bundle(stages, *, view="both", hlo=False, compiled=False, run=True,
                  depth=None, rankdir="TB") -> dict:
    """The output of ``%jaxpr``: the jaxpr (``view`` text, graph or both: the graph
    first), optionally the StableHLO and the compiled HLO, and the results computed on
    the device beside the graph. A stage after tracing that fails is reported in place of its product.

    The jaxpr is printed once, for its text, its highlighted text and the graph's
    labels; the graph is laid out by dot while the program is lowered, compiled and
    run."""
    from glassjax.notebook import explorer
    closed = stages.closed_jaxpr
    names = stages.result_names
    text_shown, graph_shown = view in ("text", "both"), view in ("graph", "both")
    printout = printed(closed, colour=text_shown)
    if graph_shown:
        graph = start_graph_html(
            closed, depth=depth, rankdir=rankdir, result_names=names,
            axis_env=stages.axis_env,
            view=explorer.View(closed, result_names=names, names=printout))
    plain, parts, side = [], [], []
    if text_shown:
        plain.append(printout.text())
        parts.append(jaxpr_html(closed, printout))
    for wanted, title, attr in ((hlo, "StableHLO", "stablehlo"),
                                (compiled, "Compiled HLO (optimized by XLA)",
                                 "optimized_hlo")):
        if wanted:
            try:
                text = getattr(stages, attr)
                plain.append(f"{title}:\n{text}")
                parts.append(section(title, pre(text)))
            except StageError as e:
                plain.append(str(e))
                parts.append(error_box(str(e)))
    if run:
        try:
            leaves = stages.output_leaves
            plain.append(results_text(names, leaves))
            side.append(section("Result", results_html(names, leaves)))
        except StageError as e:
            plain.append(str(e))
            side.append(error_box(str(e)))
    if view == "graph":                      # a terminal cannot show the picture
        n = graph_lib.count_eqns(closed.jaxpr)
        plain.insert(0, f"[the graph of a jaxpr with {n} equation{'s' * (n != 1)}]")
    if graph_shown:                          # the picture first: the text may be long
        parts.insert(0, f'<div class="gj-row">{graph.result()}{"".join(side)}</div>')
    else:
        parts.extend(side)
    return {"text/plain": "\n\n".join(plain), "text/html": wrap(*parts)}
