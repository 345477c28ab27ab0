"""Jaxprs as pictures: ``to_graphviz(closed_jaxpr)`` returns a ``graphviz.Digraph``.

The picture is the program's dataflow: inputs, constants and literals flow along edges
(labelled with the variable and its type, ``c:f32[8]``, exactly as the jaxpr prints it)
into equation nodes (the primitive and its parameters) and out to the outputs.

A higher-order equation (``cond``, ``while``, ``scan``, ``jit``, ``custom_jvp_call``,
``remat2``, ...) carries sub-jaxprs in its params. It is drawn as a *cluster* that
contains one *region* per sub-jaxpr: the region's binders are small nodes its operands
flow into, its body is drawn recursively, and its results flow to the equation's exit
node (which shows the equation's outputs). Each primitive declares how it is drawn
(``eqn.primitive.drawing``, a ``core.Drawing`` next to its other rules); the layouts
below say, per kind of drawing, which operands feed which region and how results
return: a loop's carry goes back along a dashed back edge, a scan's ``xs`` are sliced
on the way in and its ``ys`` stacked on the way out, ``cond``'s index picks one branch.

Many-device programs: a ``shard_map`` (and so ``pmap``, which is a ``jit`` of one
``shard_map``) is a cluster titled with its mesh (axis names, sizes, device ids); the
edges that enter and leave it carry the ``in_specs`` / ``out_specs`` that split and
reassemble the arrays. A collective (``psum``, ``all_gather``, ``ppermute``, ...) is
filled with the colour of each named axis it communicates across, and an ``axis_env``
and the named axes get a legend: one colour per axis name, given in the order the
names are met (the axis environment first), so a program always gets the same colours.

Node ids are derived from positions in the program (``e3`` is equation 3, ``e3_r1_e0``
the first equation of its second region), so the same program always gives the same
DOT text, byte for byte.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import graphviz
import numpy as np

from glassjax import core
from glassjax.notebook import user_lines
from glassjax.notebook.naming import PrintedNames

# Fill colours by role; clusters by the kind of primitive that made them.
COLORS = {
    "input": "#dbeafe", "const": "#e5e7eb", "output": "#dcfce7", "highlight": "#fde68a",
    "legend": "#fef9c3", "binder": "#f8fafc",
    "cond": "#f3e8ff", "while": "#ffedd5", "scan": "#ecfccb", "jit": "#e0f2fe",
    "custom": "#fce7f3", "checkpoint": "#f1f5f9", "shard_map": "#ede9fe",
    "state": "#fef3c7",
    "other": "#f5f5f4",
}
# One fill per named axis, in the order the names are met (the first is the colour a
# collective always had, so a one-axis program looks as before).
AXIS_COLORS = ["#fee2e2", "#bfdbfe", "#bbf7d0", "#f5d0fe", "#a5f3fc", "#fed7aa",
               "#d9f99d", "#e9d5ff"]
PARAM_WIDTH = 40          # longer parameter values are cut, the full text is in the jaxpr


# ----------------------------------------------------------------------------------------
# How each higher-order primitive maps its operands and results onto its sub-jaxprs
# ----------------------------------------------------------------------------------------

class Region(NamedTuple):
    """One sub-jaxpr of a higher-order equation, and how it is wired to the equation."""
    title: str
    jaxpr: core.Jaxpr
    consts: list
    operands: Sequence[int]                 # eqn operand feeding each binder, in order
    binder_notes: dict = {}                 # binder index -> note on its incoming edge
    results: Sequence = ()                  # eqn output index for each region output
    result_notes: dict = {}                 # region output index -> note
    back_edges: Sequence = ()               # (region output, binder index): loop carry
    test: bool = False                      # a loop test: its output decides, not a result


class Layout(NamedTuple):
    """How an expanded higher-order equation is drawn."""
    kind: str                               # colour family
    title: list                             # cluster label lines
    regions: list
    selector: int | None = None             # operand that picks one region (cond index)


def _open(j):
    """(jaxpr, consts) of a Jaxpr or ClosedJaxpr param."""
    return (j.jaxpr, j.consts) if isinstance(j, core.ClosedJaxpr) else (j, [])


def _cond_layout(eqn, drawing) -> Layout:
    n_ops = len(eqn.invars)
    regions = [Region(f"branch {k}", *_open(b), operands=range(1, n_ops),
                      results=range(len(eqn.outvars)))
               for k, b in enumerate(eqn.params["branches"])]
    return Layout(drawing.kind, [drawing.label, drawing.note], regions, selector=0)


def _while_layout(eqn, drawing) -> Layout:
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    carry = list(range(nc + nb, len(eqn.invars)))
    n = len(carry)
    cond = Region("cond_jaxpr", *_open(p["cond_jaxpr"]), operands=[*range(nc), *carry],
                  binder_notes={nc + i: "carry" for i in range(n)}, test=True)
    body = Region("body_jaxpr", *_open(p["body_jaxpr"]),
                  operands=[*range(nc, nc + nb), *carry],
                  binder_notes={nb + i: "carry" for i in range(n)}, results=range(n),
                  back_edges=[(i, nb + i) for i in range(n)])
    title = [drawing.label, f"cond_nconsts={nc} body_nconsts={nb}", drawing.note]
    return Layout(drawing.kind, title, [cond, body])


def _scan_layout(eqn, drawing) -> Layout:
    p = eqn.params
    n_consts, n_carry = p["num_consts"], p["num_carry"]
    jaxpr, consts = _open(p["jaxpr"])
    n_xs = len(eqn.invars) - n_consts - n_carry
    n_ys = len(jaxpr.outvars) - n_carry
    order = "from the end" if p["reverse"] else "from the start"
    notes = {**{n_consts + i: "carry" for i in range(n_carry)},
             **{n_consts + n_carry + i: "xs[i]: one slice per step" for i in range(n_xs)}}
    body = Region("body", jaxpr, consts, operands=range(len(eqn.invars)),
                  binder_notes=notes, results=range(n_carry + n_ys),
                  result_notes={n_carry + i: f"ys: stacked, {p['length']} steps"
                                for i in range(n_ys)},
                  back_edges=[(i, n_consts + i) for i in range(n_carry)])
    title = [drawing.label, f"length={p['length']} reverse={p['reverse']}",
             f"num_consts={n_consts} num_carry={n_carry}", f"steps run {order}"]
    return Layout(drawing.kind, title, [body])


def _call_layout(eqn, drawing) -> Layout:
    """Primitives that call one sub-jaxpr (their ``body`` param) on all their operands:
    jit, custom_jvp_call, custom_vjp_call, checkpoint."""
    jaxpr, consts = _open(eqn.params[drawing.body])
    region = Region(drawing.body, jaxpr, consts, operands=range(len(eqn.invars)),
                    results=range(len(eqn.outvars)))
    if drawing.kind == "checkpoint":      # what is special is its policy, not a name
        title = [drawing.label, drawing.note, f"policy={_short(eqn.params.get('policy'))}"]
    else:
        title = [f"{drawing.label}: {_name(eqn, drawing.body)}",
                 *([drawing.note] if drawing.note else [])]
    return Layout(drawing.kind, title, [region])


def _mesh_lines(mesh) -> list[str]:
    """``mesh: i=8`` and the device ids in the mesh's shape (an abstract mesh has none
    yet: they are chosen when the program is compiled)."""
    axes = ", ".join(f"{n}={s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes))
    ids = getattr(mesh, "device_ids", None)
    if ids is None:
        return [f"mesh: {axes}", "devices: chosen at compile time"]
    text = np.array2string(np.asarray(ids), separator=", ", threshold=64)
    return [f"mesh: {axes}", "devices: " + " ".join(text.split())]


def _shard_map_layout(eqn, drawing) -> Layout:
    """A shard_map runs its body once per device of its mesh: in_specs say how each
    operand is split into the per-device blocks the binders show, out_specs how the
    per-device results are put back together."""
    p = eqn.params
    jaxpr, consts = _open(p["jaxpr"])
    body = Region("per-device body", jaxpr, consts, operands=range(len(eqn.invars)),
                  binder_notes={k: f"in_specs: {s}" for k, s in enumerate(p["in_specs"])},
                  results=range(len(eqn.outvars)),
                  result_notes={k: f"out_specs: {s}" for k, s in enumerate(p["out_specs"])})
    return Layout(drawing.kind, [drawing.label, *_mesh_lines(p["mesh"]),
                                f"check_vma={p['check_vma']}", drawing.note], [body])


def _name(eqn, param="jaxpr"):
    """The called function's name: the ``name`` param (jit), or else the name recorded
    when the sub-jaxpr was traced (custom_jvp_call prints it the same way)."""
    if "name" in eqn.params:
        return str(eqn.params["name"])
    info = getattr(_open(eqn.params[param])[0], "debug_info", None)
    return info.func_src_info.split(" at ")[0] if info and info.func_src_info else ""


# The picture of each kind of ``core.Drawing``; the kinds not listed call one body.
_LAYOUT_OF_KIND = {"cond": _cond_layout, "while": _while_layout, "scan": _scan_layout,
                   "shard_map": _shard_map_layout}


def declared_layout(eqn) -> Layout | None:
    """How ``eqn`` is drawn, as its primitive's ``drawing`` declares (None for a
    primitive that declares none)."""
    drawing = eqn.primitive.drawing
    if drawing is None:
        return None
    return _LAYOUT_OF_KIND.get(drawing.kind, _call_layout)(eqn, drawing)


def _generic_layout(eqn) -> Layout:
    """Any other primitive with sub-jaxprs: one region per jaxpr param, fed by the last
    operands (the usual convention: leading operands are the primitive's own)."""
    regions = []
    for key in sorted(eqn.params):
        vals = eqn.params[key]
        many = isinstance(vals, tuple)
        for k, v in enumerate(vals if many else (vals,)):
            if not isinstance(v, (core.Jaxpr, core.ClosedJaxpr)):
                continue
            jaxpr, consts = _open(v)
            n_in = min(len(jaxpr.invars), len(eqn.invars))
            results = (range(len(eqn.outvars))
                       if len(jaxpr.outvars) == len(eqn.outvars) else ())
            regions.append(Region(f"{key}[{k}]" if many else key, jaxpr, consts,
                                  operands=range(len(eqn.invars) - n_in, len(eqn.invars)),
                                  results=results))
    return Layout("other", [eqn.primitive.name, *param_lines(eqn)], regions)


def eqn_layout(eqn) -> Layout:
    """How ``eqn`` is drawn: as its primitive declares, or else the generic way."""
    return declared_layout(eqn) or _generic_layout(eqn)


def _short(v) -> str:
    s = str(v)
    return s if len(s) <= PARAM_WIDTH else s[:PARAM_WIDTH - 3] + "..."


def param_lines(eqn) -> list[str]:
    """``key=value`` for the params a reader needs: no sub-jaxprs, callables, Nones, or
    params the primitive's drawing calls quiet (implied by the picture)."""
    drawing = eqn.primitive.drawing
    quiet = drawing.quiet if drawing is not None else ()
    lines = []
    for key in sorted(eqn.params):
        v = eqn.params[key]
        if key in quiet or v is None or callable(v) or list(core.jaxprs_in_params({0: v})):
            continue
        lines.append(f"{key}={_short(v)}")
    return lines


def count_eqns(jaxpr: core.Jaxpr) -> int:
    """Equations in a jaxpr and, recursively, in its sub-jaxprs."""
    return sum(1 + sum(count_eqns(s) for s in core.jaxprs_in_params(e.params))
               for e in jaxpr.eqns)


def collective_axes(eqn) -> tuple[str, ...]:
    """The named axes an equation communicates across (``psum[axes=('i',)]``,
    ``all_gather[axis_name=('y',)]``, ``axis_index[axis_name=i]``, ...); () for every
    other equation, reductions over positional axes included."""
    names = eqn.params.get("axis_name", eqn.params.get("axes", ()))
    return tuple(n for n in (names if isinstance(names, tuple) else (names,))
                 if isinstance(n, str))


# ----------------------------------------------------------------------------------------
# Drawing
# ----------------------------------------------------------------------------------------

def label(*lines: str) -> str:
    """A DOT label showing ``lines`` literally: backslashes escaped, never read as an
    HTML-like label (a name like ``<lambda>`` would otherwise be parsed as markup)."""
    return graphviz.nohtml("\\n".join(line.replace("\\", "\\\\") for line in lines))


def value_preview(x, limit: int = 24) -> str:
    """A short, one-line view of a constant's value."""
    try:
        text = np.array2string(np.asarray(x), threshold=6, edgeitems=2,
                               separator=", ").replace("\n", "")
    except Exception:                          # a tracer or an opaque object
        return type(x).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _Drawing:
    """The state of one drawing: names, options, and edges collected for the end (an
    edge statement inside a cluster would pull its nodes into that cluster)."""

    def __init__(self, names: PrintedNames, depth, highlight):
        self.names = names
        self.depth = depth
        self.highlight = set(highlight)
        self.edges: list = []
        self.first_node: dict = {}           # region id -> a node inside it (for lhead)
        self.axis_colors: dict = {}          # axis name -> fill, in order of meeting
        self.axis_sizes: dict = {}           # axis name -> size, where it is known

    def axis_color(self, name: str) -> str:
        if name not in self.axis_colors:
            self.axis_colors[name] = AXIS_COLORS[len(self.axis_colors) % len(AXIS_COLORS)]
        return self.axis_colors[name]

    def collective_attrs(self, axes) -> dict:
        """A collective's fill (one colour per axis, shading into each other) and a
        tooltip saying how many devices take part along each axis (where the mesh or
        the axis environment says)."""
        across = ", ".join(f"{a} ({self.axis_sizes[a]} devices)" if a in self.axis_sizes
                           else a for a in axes)
        return {"fillcolor": ":".join(self.axis_color(a) for a in axes),
                "tooltip": f"communicates across {across}"}

    # -- primitives of the picture ----------------------------------------------------

    def node(self, g, nid, lines, scope=None, **attrs):
        if scope is not None:
            self.first_node.setdefault(scope, nid)
        g.node(nid, label(*lines), **attrs)

    def edge(self, tail, head, lines, **attrs):
        self.edges.append((tail, head, label(*lines) if lines else None, attrs))

    def source(self, g, atom, env, consumer, k, scope):
        """The node an atom's value comes from; literals get their own small node."""
        if isinstance(atom, core.Literal):
            nid = f"{consumer}_lit{k}"
            self.node(g, nid, [self.names.name(atom)], scope, shape="plaintext",
                      fontsize="9")
            return nid
        return env[atom]

    def feed(self, g, atom, env, consumer, k, scope, note=None, **attrs):
        """An edge carrying ``atom`` into ``consumer`` (a literal's node already shows
        its value, so its edge carries only the note)."""
        src = self.source(g, atom, env, consumer, k, scope)
        lines = [] if isinstance(atom, core.Literal) else [self.names.typed_name(atom)]
        self.edge(src, consumer, lines + ([note] if note else []), **attrs)

    # -- jaxprs and equations ---------------------------------------------------------

    def body(self, g, jaxpr, scope, env, level):
        for i, eqn in enumerate(jaxpr.eqns):
            self.eqn(g, eqn, f"{scope}_e{i}" if scope else f"e{i}", env, level, scope)

    def eqn(self, g, eqn, nid, env, level, scope):
        has_subs = any(True for _ in core.jaxprs_in_params(eqn.params))
        if has_subs and (self.depth is None or level < self.depth):
            self.expanded(g, eqn, nid, env, level, scope)
            return
        if has_subs:                          # collapsed: its cluster's title, and size
            inner = sum(count_eqns(s) for s in core.jaxprs_in_params(eqn.params))
            lines = [*eqn_layout(eqn).title,
                     f"({inner} equation{'s' * (inner != 1)} inside)"]
        else:
            lines = [eqn.primitive.name, *param_lines(eqn)]
        axes = collective_axes(eqn)
        attrs = {"fillcolor": COLORS["highlight"] if nid in self.highlight else "white"}
        tip = user_lines.tooltip(self.names.eqn_text(eqn), user_lines.origin(eqn).get("source"))
        if axes and nid not in self.highlight:
            attrs = self.collective_attrs(axes)
            tip += "\n" + attrs["tooltip"]
        attrs["tooltip"] = label(*tip.split("\n"))
        self.node(g, nid, lines, scope, style="rounded,filled",
                  peripheries="2" if has_subs else "1", **attrs)
        for k, atom in enumerate(eqn.invars):
            self.feed(g, atom, env, nid, k, scope)
        for v in eqn.outvars:
            env[v] = nid

    def expanded(self, g, eqn, nid, env, level, scope):
        drawing = eqn.primitive.drawing
        mesh = eqn.params["mesh"] if drawing and drawing.kind == "shard_map" else None
        outer_sizes = dict(self.axis_sizes)
        if mesh is not None:                 # inside, collectives know their sizes
            self.axis_sizes.update(zip(mesh.axis_names, mesh.axis_sizes))
            for name in mesh.axis_names:
                self.axis_color(name)
        self._expanded(g, eqn, nid, env, level, scope)
        self.axis_sizes = outer_sizes

    def _expanded(self, g, eqn, nid, env, level, scope):
        layout = eqn_layout(eqn)
        fill = COLORS["highlight"] if nid in self.highlight else COLORS[layout.kind]
        exit_id = f"{nid}_out"
        with g.subgraph(name=f"cluster_{nid}") as c:
            c.attr(label=label(*layout.title), style="rounded,filled", fillcolor=fill,
                   color="#64748b")
            if layout.selector is not None:
                self.node(c, nid, [eqn.primitive.name], scope, shape="diamond",
                          style="filled", fillcolor="white")
                self.feed(g, eqn.invars[layout.selector], env, nid, layout.selector, scope)
            single = len(layout.regions) == 1 and layout.selector is None
            for k, region in enumerate(layout.regions):
                rid = f"{nid}_r{k}"
                if single:
                    self.region(c, g, eqn, region, rid, env, exit_id, level, scope)
                else:
                    with c.subgraph(name=f"cluster_{rid}") as rc:
                        rc.attr(label=label(region.title), style="rounded,filled",
                                fillcolor="white")
                        self.region(rc, g, eqn, region, rid, env, exit_id, level, scope)
                if layout.selector is not None and rid in self.first_node:
                    self.edge(nid, self.first_node[rid], [str(k)], style="dotted",
                              lhead=f"cluster_{rid}")
            outs = [self.names.typed_name(v) for v in eqn.outvars] or ["(no outputs)"]
            self.node(c, exit_id, outs, scope, shape="box", style="rounded,dashed,filled",
                      fillcolor="white", fontsize="9")
        for v in eqn.outvars:
            env[v] = exit_id

    def region(self, g, outer, eqn, region, rid, outer_env, exit_id, level, scope):
        """Draw one sub-jaxpr inside graph ``g``, wired to the equation's operands (whose
        literals are drawn in ``outer``, where they live) and to its exit node."""
        env: dict = {}
        for j, (v, val) in enumerate(zip(region.jaxpr.constvars, region.consts)):
            env[v] = f"{rid}_c{j}"
            self.node(g, env[v], [self.names.typed_name(v), value_preview(val)], rid,
                      shape="box", style="filled", fillcolor=COLORS["const"])
        with g.subgraph() as row:            # the binders side by side, at the top
            row.attr(rank="same")
            for j, v in enumerate(region.jaxpr.invars):
                env[v] = f"{rid}_in{j}"
                self.node(row, env[v], [self.names.typed_name(v)], rid, shape="ellipse",
                          style="filled", fillcolor=COLORS["binder"], fontsize="9")
        for j, op in zip(range(len(region.jaxpr.invars)), region.operands):
            self.feed(outer, eqn.invars[op], outer_env, env[region.jaxpr.invars[j]], op,
                      scope, region.binder_notes.get(j))
        self.body(g, region.jaxpr, rid, env, level + 1)
        outs = region.jaxpr.outvars
        srcs = [self.source(g, v, env, f"{rid}_res", j, rid) for j, v in enumerate(outs)]
        for j, (v, src) in enumerate(zip(outs, srcs)):
            lines = [self.names.typed_name(v)]
            if region.test:
                self.edge(src, exit_id, lines + ["False: the loop ends"], style="dotted")
            elif j < len(region.results):
                note = region.result_notes.get(j)
                self.edge(src, exit_id, lines + ([note] if note else []))
        for out, binder in region.back_edges:
            self.edge(srcs[out], env[region.jaxpr.invars[binder]],
                      [self.names.typed_name(outs[out]), "carry: next step"],
                      style="dashed", constraint="false", color="#b45309")


def to_graphviz(closed_jaxpr, depth: int | None = None, rankdir: str = "TB", *,
                arg_names: Sequence[str] | None = None,
                result_names: Sequence[str] | None = None,
                axis_env: Sequence[tuple[str, int]] | None = None,
                highlight: Sequence[str] = (),
                names: PrintedNames | None = None) -> graphviz.Digraph:
    """The dataflow graph of a jaxpr (a ``ClosedJaxpr`` or a ``Jaxpr``).

    ``depth``: how many levels of nested sub-jaxprs are drawn expanded (None: all; 0:
    every higher-order equation is one node). ``rankdir``: "TB" (top to bottom) or
    "LR". ``arg_names``/``result_names`` label inputs and outputs (by default the
    argument names recorded when the jaxpr was traced). ``axis_env`` (as given to
    ``make_jaxpr``) is shown as a legend. ``highlight``: node ids to highlight, such as
    ``"e3"`` for the fourth top-level equation. ``names``: the jaxpr's
    ``PrintedNames``, when the caller printed it already."""
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be TB, LR, BT or RL, got {rankdir!r}")
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be None or >= 0, got {depth}")
    jaxpr, consts = _open(closed_jaxpr)
    debug = jaxpr.debug_info
    if arg_names is None and debug is not None:
        arg_names = debug.arg_names
    if arg_names is not None and len(arg_names) != len(jaxpr.invars):
        arg_names = None                     # lifted constants: names would not line up
    if result_names is None and debug is not None:
        result_names = debug.result_names
    # glassjax.state values (inputs read from states, outputs written back) are drawn as
    # cylinders, the store they live in; the label names the state.
    states = debug.states if debug is not None and arg_names is not None else frozenset()
    drawing = _Drawing(PrintedNames(jaxpr) if names is None else names, depth, highlight)
    for name, size in axis_env or ():
        drawing.axis_color(name)
        drawing.axis_sizes[name] = size
    names = drawing.names
    g = graphviz.Digraph(name="jaxpr")
    g.attr(rankdir=rankdir, compound="true", newrank="true", fontname="Helvetica",
           fontsize="11", nodesep="0.3", ranksep="0.35")
    g.attr("node", shape="box", fontname="Helvetica", fontsize="11", height="0.3")
    g.attr("edge", fontname="Helvetica", fontsize="9", arrowsize="0.6")

    env: dict = {}
    with g.subgraph(name="inputs") as s:
        s.attr(rank="source")
        for i, (v, val) in enumerate(zip(jaxpr.constvars, consts)):
            env[v] = f"const{i}"
            drawing.node(s, env[v], [names.typed_name(v), "constant", value_preview(val)],
                         shape="box", style="filled", fillcolor=COLORS["const"])
        for i, v in enumerate(jaxpr.invars):
            env[v] = f"in{i}"
            extra = [arg_names[i]] if arg_names else []
            state = ("in", i) in states
            drawing.node(s, env[v], [names.typed_name(v), *extra],
                         shape="cylinder" if state else "invhouse", style="filled",
                         fillcolor=COLORS["state" if state else "input"])
    drawing.body(g, jaxpr, "", env, 0)
    with g.subgraph(name="outputs") as s:
        s.attr(rank="sink")
        for i, v in enumerate(jaxpr.outvars):
            extra = [result_names[i]] if result_names and i < len(result_names) and \
                result_names[i] else []
            state = ("out", i) in states
            drawing.node(s, f"out{i}", [f"output {i}", *extra],
                         shape="cylinder" if state else "house", style="filled",
                         fillcolor=COLORS["state" if state else "output"])
            drawing.feed(g, v, env, f"out{i}", 0, None)
    _legend(g, drawing, axis_env)
    for tail, head, lab, attrs in drawing.edges:
        g.edge(tail, head, lab, **attrs)
    return g


def _legend(g, drawing, axis_env):
    """The axis environment (``legend``), and a swatch of colour per named axis."""
    if not axis_env and not drawing.axis_colors:
        return
    with g.subgraph(name="cluster_legend") as c:
        c.attr(label=label("named axes"), style="rounded,dashed", color="#94a3b8",
               rank="same")
        ids = []
        if axis_env:
            lines = ["axis environment"] + [f"{name}: size {size}"
                                            for name, size in axis_env]
            c.node("legend", label(*lines), shape="note", style="filled",
                   fillcolor=COLORS["legend"])
            ids.append("legend")
        for k, (name, color) in enumerate(drawing.axis_colors.items()):
            c.node(f"axis{k}", label(f"axis {name}"), shape="box", style="rounded,filled",
                   fillcolor=color, fontsize="9")
            ids.append(f"axis{k}")
        for tail, head in zip(ids, ids[1:]):     # left to right, in order
            c.edge(tail, head, style="invis")
