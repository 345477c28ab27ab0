"""Rich display: jaxprs, graphs and device results as notebook output.

Every output is a MIME bundle: ``text/plain`` (what a terminal shows, for a
``ClosedJaxpr`` exactly ``str()``) and ``text/html`` (highlighted jaxpr, the graph as
inline SVG, a table of results). Everything that comes from the program or the user
(names, values, params) is HTML-escaped here, or XML-escaped by Graphviz inside SVG, so
it shows as text and never acts as markup.

The boxes, sections and styles come from ``page``; a sharded result also shows
``visualize_array_sharding``'s grid (``sharding_grid``).
"""
from __future__ import annotations

import html
import re

import graphviz
import numpy as np

from glassjax import core, debug
from glassjax.notebook import graph as graph_lib
from glassjax.notebook import sharding_grid
from glassjax.notebook.page import css, error_box, pre, section, wrap  # noqa: F401 (API)
from glassjax.notebook.stages import StageError

# Graphs of more equations are not drawn unless asked for: dot's layout time grows
# quickly (see benchmarks/notebook_bench.py) and such pictures are unreadable anyway.
AUTO_GRAPH_LIMIT = 400


# ----------------------------------------------------------------------------------------
# Jaxpr text
# ----------------------------------------------------------------------------------------

# jaxlib's printer marks keywords and types with ANSI colour classes; we also mark the
# primitive of each equation (the word after " = ").
_PRIMITIVE = re.compile(r"(?<= = )([A-Za-z_]\w*)")


def jaxpr_html(jaxpr) -> str:
    """The jaxpr's text (identical to ``str``), highlighted."""
    body = _PRIMITIVE.sub(r"<span class=gj-prim>\1</span>",
                          jaxpr.pretty_print(html=True, use_color=True))
    return f'<pre class="gj-jaxpr">{body}</pre>'


# ----------------------------------------------------------------------------------------
# Graphs
# ----------------------------------------------------------------------------------------

def svg(g: graphviz.Digraph) -> str:
    """The graph as an inline ``<svg>`` element (dot's XML header and comments cut)."""
    text = g.pipe(format="svg", encoding="utf-8")
    return text[text.index("<svg"):]


def graph_html(closed_jaxpr, *, force=False, **options) -> str:
    """The drawn graph, or a note saying why it is not drawn."""
    n = graph_lib.count_eqns(getattr(closed_jaxpr, "jaxpr", closed_jaxpr))
    if n > AUTO_GRAPH_LIMIT and not force:
        return error_box(f"The graph is not drawn: {n} equations (more than "
                         f"{AUTO_GRAPH_LIMIT}). Draw it with --view graph or "
                         "glassjax.notebook.to_graphviz.")
    try:
        return f'<div class="gj-graph">{svg(graph_lib.to_graphviz(closed_jaxpr, **options))}</div>'
    except graphviz.ExecutableNotFound:
        return error_box("The graph is not drawn: Graphviz's 'dot' program is not "
                         "installed (Debian/Ubuntu: apt-get install graphviz).")


def closed_jaxpr_mimebundle(closed_jaxpr) -> dict:
    """A ClosedJaxpr's rich display (registered with IPython by ``%load_ext glassjax``):
    its text, highlighted, and its graph."""
    return {"text/plain": str(closed_jaxpr),
            "text/html": wrap(jaxpr_html(closed_jaxpr), graph_html(closed_jaxpr))}


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


def _shards(x) -> list:
    """The per-device pieces of an array that lives on several devices, else []."""
    shards = getattr(x, "addressable_shards", None) or []
    return shards if len(shards) > 1 else []


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
        shards = _shards(x)
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
        shards = _shards(x)
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
    """The output of ``%jaxpr``: the jaxpr (``view`` text, graph or both), optionally the
    StableHLO and the compiled HLO, and the results computed on the device beside the
    graph. A stage after tracing that fails is reported in place of its product."""
    closed = stages.closed_jaxpr
    names = stages.result_names
    plain, parts, side = [], [], []
    if view in ("text", "both"):
        plain.append(str(closed))
        parts.append(jaxpr_html(closed))
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
    if view in ("graph", "both"):
        drawn = graph_html(closed, force=view == "graph", depth=depth, rankdir=rankdir,
                           result_names=names, axis_env=stages.axis_env)
        parts.append(f'<div class="gj-row">{drawn}{"".join(side)}</div>')
    else:
        parts.extend(side)
    return {"text/plain": "\n\n".join(plain), "text/html": wrap(*parts)}
