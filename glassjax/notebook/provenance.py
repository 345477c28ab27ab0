"""Which equations a transformation added: the new jaxpr's equations traced back to the
original's by the values they compute.

A transformation (grad, vmap, jvp, linearize, checkpoint, jit) keeps some equations of
the program it transforms and adds others: the derivative's equations, the batching's
broadcasts, a jit around everything. Equations carry no record of where they came from,
so we follow the data instead. The new program's inputs are the original's inputs (the
transformations of the explorer keep the arguments in place); an equation of the new
program *comes from* an equation of the original when it applies the same primitive to
values that come from that equation's operands. Everything else was added. Values are
followed through calls (a jit or checkpoint body sees its operands) and through the
reshaping equations vmap puts in front of an unbatched operand (a broadcast of ``y`` is
still ``y``'s value, only batched). A cond, while or scan that a transformation gave more
operands (tangents, batched values) or results (residuals) still comes from the
original one when the original's operands are among its own, in order; its body is not
compared, and only its leading results of the original's types are followed (primal
results come first: a jvp'd scan's carry tangents, which come before its ``ys``, can
be taken for them when their types agree).

Locations are as in ``stepper``: ``((eqn, region), ..., eqn)``.
"""
from __future__ import annotations

import numpy as np

from glassjax import core, lax
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.naming import PrintedNames

# Equations that only reshape or retype one value: their result stands for that value.
ADAPTERS = {lax.broadcast_in_dim_p, lax.reshape_p, lax.transpose_p,
            lax.convert_element_type_p, lax.squeeze_p, lax.copy_p}
CALLS = ("jit", "checkpoint")           # layout kinds whose body sees the operands


def _call_region(eqn):
    """The one body a call equation runs on all its operands, or None."""
    layout = graph_lib.declared_layout(eqn)
    return layout.regions[0] if layout is not None and layout.kind in CALLS else None


def _literal(atom):
    """A literal by its type and value (1.0 and float32(1.0) are the same literal)."""
    return ("literal", atom.aval.str_short(True), np.asarray(atom.val).tolist())


def _key(atom, image):
    """What an operand of the new program is in terms of the original: the key of the
    original variable or literal it stands for, or None for a value the original does
    not have."""
    return _literal(atom) if isinstance(atom, core.Literal) else image.get(atom)


def _subsequence(sub, seq) -> bool:
    rest = iter(seq)
    return all(any(x == y for y in rest) for x in sub)


def _nested(eqn) -> bool:
    """A higher-order equation other than a call (cond, while, scan, custom_vjp, ...)."""
    return _call_region(eqn) is None and any(True for _ in core.jaxprs_in_params(eqn.params))


class _Original:
    """The original's equations, looked up by what they compute: ``exact`` by
    (primitive, operand keys); ``nested`` ones (a transformation gives a cond, while or
    scan more operands: tangents, batched values) also by primitive alone."""

    def __init__(self, jaxpr):
        self.exact: dict = {}
        self.nested: dict = {}
        self.canon: dict = {}       # a call body's variables -> the outer ones they stand for
        self.used: set = set()
        self._index(jaxpr, ())

    def key(self, atom):
        if isinstance(atom, core.Literal):
            return _literal(atom)
        return ("var", self.canon.get(atom, atom))

    def _index(self, jaxpr, trail):
        for k, eqn in enumerate(jaxpr.eqns):
            keys = tuple(self.key(a) for a in eqn.invars)
            entry = ((*trail, k), eqn, keys)
            self.exact.setdefault((eqn.primitive, keys), []).append(entry)
            region = _call_region(eqn)
            if region is not None:
                for b, o in zip(region.jaxpr.invars, region.operands):
                    if isinstance(eqn.invars[o], core.Var):
                        self.canon[b] = self.canon.get(eqn.invars[o], eqn.invars[o])
                self._index(region.jaxpr, (*trail, (k, 0)))
                for v, w in zip(eqn.outvars, region.jaxpr.outvars):
                    if isinstance(w, core.Var):
                        self.canon[v] = self.canon.get(w, w)
            elif _nested(eqn):
                self.nested.setdefault(eqn.primitive, []).append(entry)

    def take(self, eqn, keys):
        """(location, equation) of the unused original equation ``eqn`` of the new
        program comes from, given its operands' ``keys``; or None."""
        exact = (self.exact.get((eqn.primitive, tuple(keys)), [])
                 if None not in keys else [])
        loose = self.nested.get(eqn.primitive, []) if _nested(eqn) else []
        for where, orig, okeys in exact + [e for e in loose if _subsequence(e[2], keys)]:
            if where not in self.used:
                self.used.add(where)
                return where, orig
        return None


def origins(original: core.Jaxpr, new: core.Jaxpr) -> dict:
    """``{location in new: location in original}`` for the equations of ``new`` that
    come from an equation of ``original``; the others were added."""
    index = _Original(original)
    image = {nv: index.key(ov) for nv, ov in zip(new.invars, original.invars)}
    found: dict = {}
    _match(new, image, (), index, found)
    return found


def _results(eqn, orig):
    """(new result, original result) pairs of an equation traced back to ``orig``: all
    of them when there are as many; else the leading results of the same types (a
    transformed cond or loop gives its primal results first, then residuals or
    tangents)."""
    if len(eqn.outvars) == len(orig.outvars):
        return list(zip(eqn.outvars, orig.outvars))
    pairs = []
    for v, w in zip(eqn.outvars, orig.outvars):
        if v.aval.str_short() != w.aval.str_short():
            break
        pairs.append((v, w))
    return pairs


def _match(jaxpr, image, trail, index, found):
    for k, eqn in enumerate(jaxpr.eqns):
        keys = [_key(a, image) for a in eqn.invars]
        taken = index.take(eqn, keys)
        if taken is not None:
            where, orig = taken
            found[(*trail, k)] = where
            for v, w in _results(eqn, orig):
                image[v] = index.key(w)
            continue
        region = _call_region(eqn)
        if region is not None:
            for b, o in zip(region.jaxpr.invars, region.operands):
                if keys[o] is not None:
                    image[b] = keys[o]
            _match(region.jaxpr, image, (*trail, (k, 0)), index, found)
            for v, w in zip(eqn.outvars, region.jaxpr.outvars):
                if _key(w, image) is not None:
                    image[v] = _key(w, image)
        elif eqn.primitive in ADAPTERS and keys and keys[0] is not None:
            image[eqn.outvars[0]] = keys[0]


def all_locations(jaxpr, trail=()):
    """Every equation's location, sub-jaxprs included, in program order."""
    for k, eqn in enumerate(jaxpr.eqns):
        yield (*trail, k)
        for r, region in enumerate(graph_lib.eqn_layout(eqn).regions):
            yield from all_locations(region.jaxpr, (*trail, (k, r)))


MARK_LIMIT = 2000     # equations marked in the graph (each may open folded clusters)


def _inside(location, matched) -> bool:
    """Whether ``location`` is inside the body of a matched equation (a vmapped scan's
    body: changed, but neither added nor traced back)."""
    return any((*location[:d - 1], location[d - 1][0]) in matched
               for d in range(1, len(location)))


def transform_marks(original, new, view, links, label: str) -> dict:
    """What the explorer marks on ``new`` (a ClosedJaxpr) made by a transformation of
    ``original``: the added equations' nodes (and the folded clusters holding them) and
    lines, where each other equation came from, and a summary. ``view`` and ``links`` are
    the widget's ``View`` and ``TextLinks`` of ``new``."""
    found = origins(original.jaxpr, new.jaxpr)
    every = [loc for loc in all_locations(new.jaxpr) if not _inside(loc, found)]
    added = [loc for loc in every if loc not in found]
    nodes: dict = {}
    for loc in added[:MARK_LIMIT]:
        place = view.locate(loc)
        nodes[place["id"]] = "added"
        for cluster in place["open"]:
            nodes.setdefault(cluster, "contains")
    names = PrintedNames(original.jaxpr)
    lookup = dict(_eqns(original.jaxpr))
    notes = {}
    for loc, where in list(found.items())[:MARK_LIMIT]:
        notes[view.locate(loc)["id"]] = (f"from {label}'s equation {_where(where)}: "
                                         f"{names.eqn_text(lookup[where]).splitlines()[0]}")
    lines = [links.location_lines(loc) for loc in added[:MARK_LIMIT]]
    return {"nodes": nodes, "origins": notes, "lines": [r for r in lines if r],
            "summary": f"{len(added)} of {len(every)} equations added (marked green); "
                       f"{len(found)} traced back to {label}"}


def _eqns(jaxpr, trail=()):
    for k, eqn in enumerate(jaxpr.eqns):
        yield (*trail, k), eqn
        region = _call_region(eqn)
        if region is not None:
            yield from _eqns(region.jaxpr, (*trail, (k, 0)))


def _where(location) -> str:
    """``3`` for a top-level equation, ``0.r0.2`` inside equation 0's body."""
    return ".".join(f"{s[0]}.r{s[1]}" if isinstance(s, tuple) else str(s) for s in location)
