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
still ``y``'s value, only batched).

Locations are as in ``stepper``: ``((eqn, region), ..., eqn)``.
"""
from __future__ import annotations

import numpy as np

from glassjax import core
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.naming import PrintedNames

# Equations that only reshape or retype one value: their result stands for that value.
ADAPTERS = {"broadcast_in_dim", "reshape", "transpose", "convert_element_type", "squeeze",
            "expand_dims", "copy", "copy_p"}
CALLS = ("jit", "checkpoint")           # layout kinds whose body sees the operands


def _call_region(eqn):
    """The one body a call equation runs on all its operands, or None."""
    make = graph_lib.LAYOUTS.get(eqn.primitive.name)
    if make is None:
        return None
    layout = make(eqn)
    return layout.regions[0] if layout.kind in CALLS else None


def _literal(atom):
    """A literal by its type and value (1.0 and float32(1.0) are the same literal)."""
    return ("literal", atom.aval.str_short(True), np.asarray(atom.val).tolist())


def _key(atom, image):
    """What an operand is in terms of the original: its original variable, a literal's
    value, or None for a value the original does not have."""
    if isinstance(atom, core.Literal):
        return _literal(atom)
    return ("var", image[atom]) if atom in image else None


def _index(jaxpr, canon, trail, avail):
    """Every equation of the original by (primitive, operands), operands named by
    ``canon`` (inside a call body, its binders stand for the call's operands)."""
    for k, eqn in enumerate(jaxpr.eqns):
        key = (eqn.primitive.name, tuple(
            _literal(a) if isinstance(a, core.Literal) else ("var", canon.get(a, a)) for a in eqn.invars))
        avail.setdefault(key, []).append(((*trail, k), eqn))
        region = _call_region(eqn)
        if region is not None:
            inner = {b: canon.get(eqn.invars[o], eqn.invars[o])
                     for b, o in zip(region.jaxpr.invars, region.operands)
                     if isinstance(eqn.invars[o], core.Var)}
            _index(region.jaxpr, {**canon, **inner}, (*trail, (k, 0)), avail)
            for v, w in zip(eqn.outvars, region.jaxpr.outvars):
                if isinstance(w, core.Var):
                    canon[v] = canon.get(w, w)


def origins(original: core.Jaxpr, new: core.Jaxpr) -> dict:
    """``{location in new: location in original}`` for the equations of ``new`` that
    come from an equation of ``original``; the others were added."""
    avail: dict = {}
    canon: dict = {}
    _index(original, canon, (), avail)
    image = {nv: canon.get(ov, ov) for nv, ov in zip(new.invars, original.invars)}
    found: dict = {}
    _match(new, image, (), avail, canon, found)
    return found


def _match(jaxpr, image, trail, avail, canon, found):
    for k, eqn in enumerate(jaxpr.eqns):
        keys = [_key(a, image) for a in eqn.invars]
        candidates = avail.get((eqn.primitive.name, tuple(keys))) if None not in keys else None
        if candidates:
            where, orig = candidates.pop(0)
            found[(*trail, k)] = where
            for v, w in zip(eqn.outvars, orig.outvars):
                image[v] = canon.get(w, w)
            continue
        region = _call_region(eqn)
        if region is not None:
            inner = dict(image)
            for b, o in zip(region.jaxpr.invars, region.operands):
                if eqn.invars[o] in image:
                    inner[b] = image[eqn.invars[o]]
            _match(region.jaxpr, inner, (*trail, (k, 0)), avail, canon, found)
            for v, w in zip(eqn.outvars, region.jaxpr.outvars):
                if w in inner:
                    image[v] = inner[w]
        elif eqn.primitive.name in ADAPTERS and keys and keys[0] and keys[0][0] == "var":
            image[eqn.outvars[0]] = keys[0][1]


def all_locations(jaxpr, trail=()):
    """Every equation's location, sub-jaxprs included, in program order."""
    for k, eqn in enumerate(jaxpr.eqns):
        yield (*trail, k)
        make = graph_lib.LAYOUTS.get(eqn.primitive.name, graph_lib._generic_layout)
        for r, region in enumerate(make(eqn).regions):
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
    every = list(all_locations(new.jaxpr))
    added = [loc for loc in every if loc not in found and not _inside(loc, found)]
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
