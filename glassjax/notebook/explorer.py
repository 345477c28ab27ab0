"""The graph explorer's view model: a jaxpr as a tree of clusters, folded to a budget.

A picture of a whole program stops being readable (and Graphviz stops being quick) long
before programs stop being interesting. So the explorer never lays out a whole program
at once. It shows *segments*: equations together with the values flowing in (drawn at
the top) and out (at the bottom). Every higher-order equation (jit, cond, while, scan,
custom_jvp/vjp, checkpoint, shard_map, ...) is a *cluster* whose regions are segments of
their own, and three kinds of cluster are made up here: a *scope* (the equations of one
``named_scope``/``named_call``, by their name stacks), a *run* (the same few equations
repeated many times, as an unrolled Python loop makes them) and a *chunk* (a slice of a
segment too long to show). No segment shows more than ``BUDGET`` nodes.

``View(closed_jaxpr)`` builds the first picture: the top-level segment, with clusters
unfolded breadth first while everything shown stays within the budget. It keeps what it
needs to build a folded cluster's content later, when the browser asks for it
(``view.expand(node_id)``), so the kernel's work is proportional to what is shown. The
model is plain JSON. The browser lays it out (``extension/src/graph_widget.js``);
``to_dot`` draws the same folded picture with Graphviz for outputs read without a kernel.

Node ids come from positions in the program (``e3`` is equation 3, ``e3.r1.e0`` the first
equation of its second region), so the same program always gives the same model.
"""
from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

import graphviz

from glassjax import caches, core
from glassjax.notebook import graph as graph_lib
from glassjax.notebook import user_lines
from glassjax.notebook.naming import PrintedNames

BUDGET = 200          # nodes laid out at once, in the kernel (Graphviz) or the browser
MIN_REPEATS = 4       # a run is a block of equations repeated at least this often
MAX_PERIOD = 8        # ... whose block is at most this long
SEARCH_LIMIT = 50     # matches whose place the search sends to the browser
CARD_LINES = 30       # a hover card shows this many lines of an equation's text
LIST_WIDTH = 3        # in/out types listed on a folded cluster before "+k more"


class Segment(NamedTuple):
    """Equations drawn as one graph, with the values flowing in and out of them."""
    id: str
    title: str
    ins: list                       # variables flowing in (binders, or values from outside)
    in_notes: list                  # a note per input ("carry", an argument's name, ...)
    consts: list                    # (constvar, value)
    eqns: list
    offset: int                     # position of eqns[0] in its jaxpr (ids stay put)
    outs: list                      # atoms flowing out
    out_notes: list
    find_runs: bool = True          # fold repeated runs (not inside a run itself)
    period: int = 1                 # chunks of a run hold whole repeats
    back_edges: tuple = ()          # (output, input): a loop's carry goes round again
    depth: int = 0                  # name-scope components its equations share (grouped)


def _open(j):
    return (j.jaxpr, j.consts) if isinstance(j, core.ClosedJaxpr) else (j, [])


def _regions(eqn) -> tuple[str, list, list]:
    """(kind, title lines, regions) of a higher-order equation, as the static graph
    draws it; primitives it has no layout for get one region per sub-jaxpr."""
    layout = graph_lib.declared_layout(eqn)
    if layout is not None:
        return layout.kind, layout.title, layout.regions
    regions = []
    for key in sorted(eqn.params):
        vals = eqn.params[key]
        for k, v in enumerate(vals if isinstance(vals, tuple) else (vals,)):
            if isinstance(v, (core.Jaxpr, core.ClosedJaxpr)):
                title = f"{key}[{k}]" if isinstance(vals, tuple) else key
                regions.append(graph_lib.Region(title, *_open(v), operands=()))
    return "other", [eqn.primitive.name, *graph_lib.param_lines(eqn)], regions


def _has_subs(eqn) -> bool:
    return any(True for _ in core.jaxprs_in_params(eqn.params))


def _signatures(eqns) -> list[int]:
    """One small int per equation, equal for equations that look alike in the picture
    (same primitive, params and types), so that runs are found by comparing ints."""
    ids: dict = {}
    out = []
    for eqn in eqns:
        params = tuple(sorted(eqn.params.items()))
        try:
            hash(params)
        except TypeError:                    # an unhashable param value: compare its text
            params = str(params)
        key = (eqn.primitive, params, tuple(v.aval for v in eqn.outvars),
               tuple(v.aval for v in eqn.invars))
        out.append(ids.setdefault(key, len(ids)))
    return out


def find_runs(sigs: list) -> list[tuple[int, int, int]]:
    """Split a list of signatures into (start, stop, period) units: period 0 for a single
    equation, else a block of ``period`` equations repeated (stop - start) / period times.
    Greedy from the left, preferring the longest run, then the shortest period."""
    units, i, n = [], 0, len(sigs)
    while i < n:
        best, best_p = 0, 0
        for p in range(1, MAX_PERIOD + 1):
            k, block = 1, sigs[i:i + p]
            while i + (k + 1) * p <= n and sigs[i + k * p:i + (k + 1) * p] == block:
                k += 1
            if k >= MIN_REPEATS and k * p > best:
                best, best_p = k * p, p
        if best_p:
            units.append((i, i + best, best_p))
            i += best
        else:
            units.append((i, i + 1, 0))
            i += 1
    return units


def chunk_size(n_units: int, budget: int, period: int = 1) -> int:
    """Units per chunk so that neither the chunks nor any chunk's units exceed ``budget``
    (chunks nest: a chunk of a chunk is made when its content is shown). The chunks are
    of even size, in whole repeats of a run's ``period``."""
    if budget < 2:
        raise ValueError(f"a budget of {budget} nodes cannot hold a chunk of chunks")
    size = max(period, budget // period * period)
    while math.ceil(n_units / size) > budget:
        size *= budget
    n_chunks = math.ceil(n_units / size)
    return math.ceil(math.ceil(n_units / n_chunks) / period) * period


SCOPE = -2            # a unit's "period" when it is a named_scope group


def _scopes(eqn) -> tuple[str, ...]:
    """The components of the equation's name stack (``named_scope``/``named_call``
    names, and transformations around them: ``jvp(layer1)``, ``dense``), relative to
    its jaxpr; () when it has none."""
    stack = getattr(getattr(eqn, "source_info", None), "name_stack", None)
    return tuple(str(stack).split("/")) if stack else ()


def _scope_blocks(eqns, depth: int) -> list[tuple[int, int, str | None]]:
    """Consecutive equations by the name-scope component at ``depth`` they share:
    (start, stop, component or None)."""
    blocks = []
    for i, eqn in enumerate(eqns):
        scopes = _scopes(eqn)
        name = scopes[depth] if len(scopes) > depth else None
        if blocks and blocks[-1][2] == name:
            blocks[-1][1] = i + 1
        else:
            blocks.append([i, i + 1, name])
    return [tuple(b) for b in blocks]


class View:
    """The explorer's model of one jaxpr (see the module docstring)."""

    def __init__(self, closed_jaxpr, *, budget: int = BUDGET, result_names=None,
                 names: PrintedNames | None = None):
        """``names``: the jaxpr's ``PrintedNames``, when the caller printed it already."""
        jaxpr, consts = _open(closed_jaxpr)
        self.budget = budget
        self.names = PrintedNames(jaxpr) if names is None else names
        self._folded: dict = {}             # cluster id -> function making its segments
        self._expanded: dict = {}           # cluster id -> its graphs, once built
        self.root_jaxpr = jaxpr
        arg_names = jaxpr.debug_info.arg_names if jaxpr.debug_info else None
        if arg_names is None or len(arg_names) != len(jaxpr.invars):
            arg_names = [""] * len(jaxpr.invars)
        debug = jaxpr.debug_info
        if result_names is None and debug is not None:
            result_names = debug.result_names
        results = list(result_names or [])[:len(jaxpr.outvars)]
        results += [""] * (len(jaxpr.outvars) - len(results))
        # glassjax.state values: drawn as the store they live in (see graph.to_graphviz)
        self.states = debug.states if debug is not None else frozenset()
        self.root = self.graph(Segment(
            "", "program", jaxpr.invars, list(arg_names), list(zip(jaxpr.constvars, consts)),
            jaxpr.eqns, 0, jaxpr.outvars, [f"output {k}" + f" {r}" * bool(r)
                                           for k, r in enumerate(results)]), top=True)
        self.complete = self._unfold_breadth_first()

    # -- building graphs ----------------------------------------------------------------

    def expand(self, node_id: str) -> list[dict]:
        """The graphs inside a folded cluster (the browser asks when it is opened)."""
        if node_id not in self._folded:
            raise KeyError(f"no folded cluster with id {node_id!r}")
        if node_id not in self._expanded:
            self._expanded[node_id] = [self.graph(s) for s in self._folded[node_id]()]
        return self._expanded[node_id]

    # -- searching the whole program ------------------------------------------------------

    def search(self, query: str) -> dict:
        """Where ``query`` matches in the whole program, folded or not: equations that
        read or write a variable of that name, or whose primitive, cluster title (a
        jit's name, ...) or name scope contains it, as the browser's search box matches what is shown.
        Returns the total and, for the first ``SEARCH_LIMIT`` matches, the clusters to
        open (outermost first) and the node to show."""
        query = query.strip()
        found = list(self._matches(self.root_jaxpr, query, ())) if query else []
        return {"total": len(found),
                "paths": [self.locate(loc) for loc in found[:SEARCH_LIMIT]]}

    def _matches(self, jaxpr, query, trail):
        """Locations of matching equations: ``trail`` is ((eqn index, region), ...)."""
        lower = query.lower()
        for i, eqn in enumerate(jaxpr.eqns):
            subs = _has_subs(eqn)
            regions = _regions(eqn) if subs else None
            if (any(isinstance(v, core.Var) and self.names.name(v) == query
                    for v in (*eqn.invars, *eqn.outvars))
                    or lower in (regions[1][0] if subs else eqn.primitive.name).lower()
                    or any(lower in scope.lower() for scope in _scopes(eqn))):
                yield (*trail, i)
            for r, region in enumerate(regions[2] if subs else ()):
                yield from self._matches(region.jaxpr, query, (*trail, (i, r)))

    def locate(self, location) -> dict:
        """The clusters to open to show the equation at ``location``, and its node id
        (a location as in ``stepper``: ((eqn, region), ..., eqn))."""
        graph, opened = self.root, []
        for step in location:
            i = step[0] if isinstance(step, tuple) else step
            node = _node_at(graph, i)
            while node["kind"] in ("run", "chunk", "scope"):   # groups around it
                opened.append(node["id"])
                node = _node_at(self.children(node)[0], i)
            if isinstance(step, tuple):
                opened.append(node["id"])
                graph = self.children(node)[step[1]]
        return {"open": opened, "id": node["id"]}

    def children(self, node: dict) -> list[dict]:
        """A cluster node's graphs, whether it was shown open or folded."""
        return node["children"] if node["children"] is not None else self.expand(node["id"])

    def graph(self, seg: Segment, top: bool = False) -> dict:
        """One segment as JSON: its nodes (inputs, constants, equations and clusters,
        outputs) and the edges between them, each labelled with what it carries."""
        names, prefix = self.names, f"{seg.id}." if seg.id else ""
        nodes, edges, env = [], {}, {}

        def connect(src_var, dst):
            if isinstance(src_var, core.Var) and src_var in env:
                edges.setdefault((env[src_var], dst), []).append(names.typed_name(src_var))

        for k, (v, val) in enumerate(seg.consts):
            env[v] = f"{prefix}c{k}"
            nodes.append({"id": env[v], "type": "const", "vars": [names.name(v)],
                          "label": [names.typed_name(v), graph_lib.value_preview(val)]})
        for k, (v, note) in enumerate(zip(seg.ins, seg.in_notes)):
            env[v] = f"{prefix}in{k}"
            nodes.append({"id": env[v], "type": "input", "vars": [names.name(v)],
                          "label": [names.typed_name(v), *([note] if note else [])]})
            if top and ("in", k) in self.states:
                nodes[-1]["kind"] = "state"
        for unit in self._units(seg):
            node, ins, outs = unit
            nodes.append(node)
            for v in ins:
                connect(v, node["id"])
            for v in outs:
                env[v] = node["id"]
        for k, (v, note) in enumerate(zip(seg.outs, seg.out_notes)):
            nid = f"{prefix}out{k}"
            label = [note] if top else [names.typed_name(v), *([note] if note else [])]
            nodes.append({"id": nid, "type": "output", "vars": [names.name(v)],
                          "label": label})
            if top and ("out", k) in self.states:
                nodes[-1]["kind"] = "state"
            connect(v, nid)
        back = [[f"{prefix}out{o}", f"{prefix}in{i}", "carry: next step", "back"]
                for o, i in seg.back_edges]
        return {"id": seg.id, "title": seg.title, "nodes": nodes,
                "edges": [[s, d, ", ".join(ls) if len(ls) <= LIST_WIDTH
                           else f"{len(ls)} values"] for (s, d), ls in edges.items()] + back}

    def _units(self, seg: Segment):
        """(node, variables in, variables out) for each equation, run or chunk."""
        eqns = seg.eqns
        units, scope_names = [], {}
        for a, b, name in _scope_blocks(eqns, seg.depth):
            if name is not None:                      # a named_scope: one group
                units.append((a, b, SCOPE))
                scope_names[a] = name
            elif seg.find_runs:
                units += [(a + i, a + j, p) for i, j, p in find_runs(_signatures(eqns[a:b]))]
            else:
                units += [(i, i + 1, 0) for i in range(a, b)]
        if len(units) > self.budget:
            size = chunk_size(len(units), self.budget, seg.period)
            units = [(units[a][0], units[min(a + size, len(units)) - 1][1], -1)
                     for a in range(0, len(units), size)]
        last_use = self._last_use(seg)
        for start, stop, period in units:
            if period == 0:
                eqn = eqns[start]
                ins = _unique(v for v in eqn.invars if isinstance(v, core.Var))
                yield self._eqn_node(seg, start, eqn), ins, eqn.outvars
            else:
                yield self._group(seg, start, stop, period, last_use,
                                  scope_names.get(start) if period == SCOPE else None)

    @staticmethod
    def _last_use(seg: Segment) -> dict:
        last = {}
        for i, eqn in enumerate(seg.eqns):
            for v in eqn.invars:
                if isinstance(v, core.Var):
                    last[v] = i
        for v in seg.outs:
            if isinstance(v, core.Var):
                last[v] = len(seg.eqns)
        return last

    def _eqn_node(self, seg: Segment, i: int, eqn) -> dict:
        names = self.names
        nid = f"{seg.id}.e{seg.offset + i}" if seg.id else f"e{seg.offset + i}"
        text = names.eqn_text(eqn).splitlines()
        more = len(text) - CARD_LINES
        card = {"text": "\n".join(text[:CARD_LINES]) + (f"\n... ({more} more lines)"
                                                        if more > 0 else ""),
                "in": [names.typed_name(a) for a in eqn.invars],
                "out": [names.typed_name(v) for v in eqn.outvars],
                "params": graph_lib.param_lines(eqn), **user_lines.origin(eqn)}
        node = {"id": nid, "card": card, "span": [seg.offset + i, seg.offset + i],
                "vars": [names.name(v) for v in (*eqn.invars, *eqn.outvars)
                         if isinstance(v, core.Var)]}
        if not _has_subs(eqn):
            literals = [f"with {names.name(a)}" for a in eqn.invars
                        if isinstance(a, core.Literal)]
            node.update(type="eqn", kind="collective" if graph_lib.collective_axes(eqn)
                        else "eqn", label=[eqn.primitive.name,
                                           *graph_lib.param_lines(eqn)[:2], *literals[:2]])
            return node
        kind, title, regions = _regions(eqn)
        n = sum(graph_lib.count_eqns(r.jaxpr) for r in regions)

        def segments():
            return [Segment(
                f"{nid}.r{k}", r.title, r.jaxpr.invars,
                [r.binder_notes.get(j, "") for j in range(len(r.jaxpr.invars))],
                list(zip(r.jaxpr.constvars, r.consts)), r.jaxpr.eqns, 0, r.jaxpr.outvars,
                [r.result_notes.get(j, "") for j in range(len(r.jaxpr.outvars))],
                back_edges=tuple(r.back_edges)) for k, r in enumerate(regions)]
        self._folded[nid] = segments
        node.update(type="cluster", kind=kind, title=title[0], n=n, children=None,
                    label=[*title[:2], *self._summary(n, eqn.invars, eqn.outvars)])
        return node

    def _group(self, seg: Segment, start, stop, period, last_use, scope=None):
        """A run (period > 0), a chunk (period -1) or a named scope (period ``SCOPE``,
        named ``scope``) of ``seg``'s equations."""
        eqns, names = seg.eqns[start:stop], self.names
        defined = {v for e in eqns for v in e.outvars}
        ins = _unique(v for e in eqns for v in e.invars
                      if isinstance(v, core.Var) and v not in defined)
        outs = [v for e in eqns for v in e.outvars
                if not isinstance(v, core.DropVar) and last_use.get(v, -1) >= stop]
        first, last = seg.offset + start, seg.offset + stop - 1
        nid = f"{seg.id}.g{first}-{last}" if seg.id else f"g{first}-{last}"
        if scope is not None:
            kind, title = "scope", scope
        elif period > 0:
            prims = ", ".join(e.primitive.name for e in eqns[:period])
            kind, title = "run", f"{(stop - start) // period} × [{prims}]"
        else:
            kind, title = "chunk", f"equations {first}-{last}"
        self._folded[nid] = lambda: [Segment(
            f"{nid}.s", title, ins, [""] * len(ins), [], eqns, first, outs,
            [""] * len(outs), find_runs=seg.find_runs and period < 0,
            period=max(period, 1), depth=seg.depth + (scope is not None))]
        n = sum(1 + sum(graph_lib.count_eqns(s) for s in core.jaxprs_in_params(e.params))
                for e in eqns)
        card = {"text": title, "in": [names.typed_name(v) for v in ins],
                "out": [names.typed_name(v) for v in outs], "params": []}
        node = {"id": nid, "type": "cluster", "kind": kind, "title": title, "n": n,
                "span": [first, last],
                "children": None, "card": card, "vars": [],
                "label": [title, *self._summary(n, ins, outs)]}
        return node, ins, outs

    def _summary(self, n, ins, outs) -> list[str]:
        def types(atoms):
            ts = [a.aval.str_short(True) for a in atoms]
            extra = f" +{len(ts) - LIST_WIDTH} more" if len(ts) > LIST_WIDTH else ""
            return ", ".join(ts[:LIST_WIDTH]) + extra
        return [f"{n} equation{'s' * (n != 1)}", f"in: {types(ins)}", f"out: {types(outs)}"]

    def _unfold_breadth_first(self) -> bool:
        """Open clusters, outermost first, while everything shown fits the budget.
        Returns True when nothing is left folded."""
        shown = len(self.root["nodes"])
        queue = [n for n in self.root["nodes"] if n["type"] == "cluster"]
        complete = True
        while queue:
            node = queue.pop(0)
            segments = self._folded[node["id"]]()
            estimate = sum(len(s.ins) + len(s.consts) + len(s.eqns) + len(s.outs)
                           for s in segments)
            if shown + estimate > self.budget:
                complete = False
                continue
            node["children"] = [self.graph(s) for s in segments]
            for g in node["children"]:
                shown += len(g["nodes"])
                queue.extend(n for n in g["nodes"] if n["type"] == "cluster")
        return complete


def _node_at(graph: dict, i: int) -> dict:
    """The node showing equation ``i`` of the graph's jaxpr (itself, or a group)."""
    return next(n for n in graph["nodes"] if "span" in n and n["span"][0] <= i <= n["span"][1])


def _unique(atoms) -> list:
    return list(dict.fromkeys(atoms))


# ----------------------------------------------------------------------------------------
# The same folded picture, drawn by Graphviz (for outputs read without a kernel)
# ----------------------------------------------------------------------------------------

FILL = {"input": graph_lib.COLORS["input"], "const": graph_lib.COLORS["const"],
        "output": graph_lib.COLORS["output"], "collective": graph_lib.AXIS_COLORS[0],
        "run": "#e0e7ff", "chunk": "#f5f5f4", "scope": "#fef9c3"}


def to_dot(view: View) -> graphviz.Digraph:
    """The view as first shown (folded clusters as one node each) for Graphviz. An open
    cluster is a box whose title node receives its operands and whose exit node sends
    its results on."""
    g = graphviz.Digraph(name="jaxpr")
    g.attr(rankdir="TB", compound="true", fontname="Helvetica", fontsize="11",
           nodesep="0.3", ranksep="0.35")
    g.attr("node", shape="box", fontname="Helvetica", fontsize="11", height="0.3")
    g.attr("edge", fontname="Helvetica", fontsize="9", arrowsize="0.6")
    edges = []
    _dot_graph(g, view.root, edges, exits={})
    for tail, head, text, attrs in edges:
        g.edge(tail, head, graph_lib.label(text) if text else None, **attrs)
    return g


def _tooltip(node: dict) -> str:
    """What the browser shows over a node of the static picture: its equation and the
    user's line it came from (the hover card's text), else its label."""
    card = node.get("card")
    text = (user_lines.tooltip(card["text"], card.get("source")) if card
            else "\n".join(node["label"]))
    return graph_lib.label(*text.split("\n"))


def _dot_graph(g, graph: dict, edges: list, exits: dict):
    for node in graph["nodes"]:
        nid, label = node["id"], graph_lib.label(*node["label"])
        kind = node.get("kind", node["type"])
        if node["type"] == "cluster" and node["children"] is not None:
            exits[nid] = f"{nid}.exit"
            with g.subgraph(name=f"cluster_{nid}") as c:
                c.attr(label="", style="rounded,filled", color="#64748b",
                       fillcolor=graph_lib.COLORS.get(kind, FILL.get(kind, "#f5f5f4")))
                c.node(nid, graph_lib.label(*node["label"][:2]), shape="box",
                       style="rounded,bold")
                for child in node["children"]:
                    with c.subgraph(name=f"cluster_{child['id']}") as rc:
                        rc.attr(label=graph_lib.label(child["title"]), fillcolor="white")
                        _dot_graph(rc, child, edges, exits)
                    for n in child["nodes"]:
                        if n["type"] in ("input", "const"):
                            edges.append((nid, n["id"], None, {"style": "invis"}))
                        elif n["type"] == "output":
                            edges.append((n["id"], exits[nid], None, {"style": "dotted"}))
                c.node(exits[nid], graph_lib.label(node["label"][-1]), shape="box",
                       style="rounded,dashed", fontsize="9")
        elif node["type"] == "cluster":
            g.node(nid, label, style="rounded,filled", peripheries="2", tooltip=_tooltip(node),
                   fillcolor=graph_lib.COLORS.get(kind, FILL.get(kind, "#f5f5f4")))
        elif node["type"] == "eqn":
            g.node(nid, label, style="rounded,filled", fillcolor=FILL.get(kind, "white"),
                   tooltip=_tooltip(node))
        else:
            shape = {"input": "invhouse", "output": "house"}.get(node["type"], "box")
            if kind == "state":
                shape = "cylinder"
            g.node(nid, label, shape=shape, style="filled", tooltip=_tooltip(node),
                   fillcolor=graph_lib.COLORS.get(kind, FILL[node["type"]]))
    for tail, head, text, *back in graph["edges"]:
        attrs = ({"style": "dashed", "constraint": "false", "color": "#b45309"} if back
                 else {})
        edges.append((exits.get(tail, tail), head, text, attrs))


# ----------------------------------------------------------------------------------------
# The widget: the model goes to the browser, folded clusters are sent when opened
# ----------------------------------------------------------------------------------------

STATIC = pathlib.Path(__file__).resolve().parent / "static"


def graph_widget(closed_jaxpr, *, view: View | None = None, text: str | None = None,
                 result_names=None, args=None):
    """The explorer widget of ``closed_jaxpr``, or None where anywidget is not installed
    (outputs then carry the static picture only). ``view`` and ``text`` (``str`` of the
    jaxpr) save building them again when the caller has them. Given the ``args`` the
    program is called with, the widget can also step through it and show values."""
    try:
        cls = widget_class()
    except ImportError:
        return None
    return cls(closed_jaxpr, view=view, text=text, result_names=result_names, args=args)


@caches.lru("notebook.explorer.widget_class", None, why="one class")
def widget_class():
    """The widget class, made on first use: anywidget (and ipywidgets under it) is only
    imported when a widget is shown, and the static pictures work without it."""
    import anywidget
    import traitlets

    from glassjax.notebook.debugger import Debugger
    from glassjax.notebook.text_lines import TextLinks

    class GraphWidget(anywidget.AnyWidget):
        """The explorable graph of a jaxpr (front end: ``extension/src/graph_widget.js``).

        The browser asks for a folded cluster's content with ``{"type": "expand", "id"}``
        and gets ``{"type": "children", "id", "graphs"}`` back; it searches the whole
        program with ``{"type": "search", "query"}`` and gets ``{"type": "found",
        "query", "total", "paths"}`` (``View.search``). ``select`` (a node) and
        ``select_line`` (a line of the text) messages get the linked place in the other
        (``TextLinks``). With arguments, ``step`` and ``value`` messages go to the
        ``Debugger``. ``hello`` is answered with ``hello``: a view restored from a
        saved notebook, whose greeting nobody answers, says it is a saved view."""
        _esm = STATIC / "graph_widget.js"
        _css = STATIC / "graph_widget.css"
        model = traitlets.Dict().tag(sync=True)
        text = traitlets.Unicode().tag(sync=True)          # the jaxpr as str() prints it
        stepping = traitlets.Bool(False).tag(sync=True)    # a debugger is there
        # equations to mark ({"nodes": {id: "added" | "contains"}, "origins": {id: text},
        # "lines": [[first, last]], "summary"}: see provenance.transform_marks)
        marks = traitlets.Dict().tag(sync=True)

        def __init__(self, closed_jaxpr, *, view=None, text=None, result_names=None,
                     args=None, **kwargs):
            super().__init__(**kwargs)
            self.closed_jaxpr = closed_jaxpr
            self.view = view or View(closed_jaxpr, result_names=result_names)
            self.model = self.view.root
            self.text = str(closed_jaxpr) if text is None else text
            self._links = None
            self.debugger = None if args is None else Debugger(
                closed_jaxpr, args, self.view,
                lines_of=lambda loc: self.links().location_lines(loc))
            self.stepping = self.debugger is not None
            self.on_msg(self._on_message)

        def links(self) -> TextLinks:
            """Where each equation is in the text: found when first asked for."""
            if self._links is None:
                self._links = TextLinks(self.view.root_jaxpr, self.text, self.view)
            return self._links

        def _on_message(self, _widget, content, _buffers):
            if content.get("type") == "hello":
                self.send({"type": "hello"})
            elif content.get("type") == "search":
                query = str(content.get("query", ""))
                self.send({"type": "found", "query": query, **self.view.search(query)})
            elif content.get("type") == "expand":
                try:
                    graphs = self.view.expand(str(content.get("id")))
                except KeyError as e:
                    self.send({"type": "error", "id": content.get("id"),
                               "message": str(e)})
                    return
                self.send({"type": "children", "id": content["id"], "graphs": graphs})
            elif content.get("type") in ("select", "select_line"):
                self.send(self.links().handle(content))
            elif content.get("type") in ("step", "value") and self.debugger is not None:
                try:
                    self.send(self.debugger.handle(content))
                except Exception as e:             # shown in the widget's status line
                    self.send({"type": "error", "message": f"{type(e).__name__}: {e}"})

    return GraphWidget
