"""Where each equation is in a jaxpr's printed text, to link the text with the graph.

``str(jaxpr)`` is one document laid out by the pretty printer (its line breaks depend on
the indentation an equation gets). Rather than teach the printer to report positions,
we find each equation in the printed lines: an equation's first line starts with its
binders and primitive (``c:f32[3] = sin``), found in program order, and it goes on over
the lines indented deeper than that line (or as deep and closing a bracket: ``] a``).
A one-line sub-jaxpr (``{ lambda ; n:f32[3]. let o:f32[3] = sin n in (o,) }``) holds its
equations inside that line. Sub-jaxprs are looked for inside their equation's lines.

Locations are as in ``stepper``: ``((eqn, region), ..., eqn)``.
"""
from __future__ import annotations

from glassjax.notebook import graph as graph_lib


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _prefix(eqn, names) -> str:
    lhs = " ".join(names.typed_name(v) for v in eqn.outvars)
    return f"{lhs} = {eqn.primitive.name}" if lhs else eqn.primitive.name


def _sub_jaxprs(eqn) -> list:
    """The equation's sub-jaxprs in the order the explorer numbers its regions."""
    return [r.jaxpr for r in graph_lib.eqn_layout(eqn).regions]


def eqn_lines(jaxpr, text: str, names) -> dict:
    """``{location: (first line, last line)}`` (0-based, inclusive) for every equation
    of ``jaxpr`` found in ``text`` (``str`` of it, printed with ``names``' names)."""
    lines = text.split("\n")
    out: dict = {}
    _place(jaxpr, lines, 0, len(lines), (), names, out)
    return out


def _place(jaxpr, lines, lo, hi, trail, names, out):
    pos = lo
    for k, eqn in enumerate(jaxpr.eqns):
        prefix = _prefix(eqn, names)
        for l in range(pos, hi):
            line = lines[l]
            if line.lstrip().startswith(prefix):
                end, ind = l + 1, _indent(line)
                while end < hi and (_indent(lines[end]) > ind or _indent(lines[end]) == ind
                                    and lines[end].lstrip().startswith("]")):
                    end += 1
                pos = end
                break
            if f" let {prefix}" in line or f"; {prefix}" in line:
                end, pos = l + 1, l       # more equations may share the line
                break
        else:
            return                        # not printed as expected: stop placing here
        out[(*trail, k)] = (l, end - 1)
        for r, sub in enumerate(_sub_jaxprs(eqn)):
            _place(sub, lines, l, end, (*trail, (k, r)), names, out)


def parse_node_id(node_id: str):
    """``(trail, (first, last))`` for the node id of an equation or a folded group of
    equations made by ``explorer.View`` (``e3.r1.e0``, ``e3.r1.g0-29.s.e5``, ...): the
    ((eqn, region), ...) leading to its jaxpr and the span of equations it shows. None
    for inputs, outputs and constants."""
    trail, span = [], None
    for tok in node_id.split("."):
        if tok[:1] == "e" and tok[1:].isdigit():
            span = (int(tok[1:]),) * 2
        elif tok[:1] == "g" and "-" in tok:
            a, b = tok[1:].split("-")
            span = (int(a), int(b))
        elif tok[:1] == "r" and tok[1:].isdigit() and span is not None:
            trail.append((span[0], int(tok[1:])))
            span = None
        elif tok != "s":
            return None                      # in3, out0, c1: not an equation
    return (tuple(trail), span) if span is not None else None


class TextLinks:
    """Linked selection: the lines of the text a graph node shows, and the node that
    shows a line of the text. ``view`` is the explorer's ``View`` of the same jaxpr."""

    def __init__(self, jaxpr, text: str, view):
        self.view = view
        self.lines = eqn_lines(jaxpr, text, view.names)

    def location_lines(self, location):
        found = self.lines.get(tuple(location))
        return list(found) if found else None

    def node_lines(self, node_id: str):
        """[first, last] line of what node ``node_id`` shows, or None."""
        parsed = parse_node_id(node_id)
        if parsed is None:
            return None
        trail, (a, b) = parsed
        first, last = self.lines.get((*trail, a)), self.lines.get((*trail, b))
        return [first[0], last[1]] if first and last else None

    def line_node(self, line: int) -> dict | None:
        """The innermost equation printed on ``line``: its lines, the clusters to open
        and the node that shows it."""
        best = None
        for loc, (a, b) in self.lines.items():
            if a <= line <= b and (best is None or len(loc) > len(best[0])
                                   or len(loc) == len(best[0]) and b - a < best[2] - best[1]):
                best = (loc, a, b)
        if best is None:
            return None
        return {**self.view.locate(best[0]), "lines": [best[1], best[2]]}

    def handle(self, content: dict) -> dict:
        if content.get("type") == "select":
            node_id = str(content.get("id", ""))
            return {"type": "selected", "id": node_id, "open": [],
                    "lines": self.node_lines(node_id)}
        found = self.line_node(int(content.get("line", -1)))
        return {"type": "selected", **(found or {"id": None, "open": [], "lines": None})}
