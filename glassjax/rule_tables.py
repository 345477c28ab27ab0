"""Rule tables: ``primitive -> rule`` dicts that remember where each rule was registered.

Every transformation keeps its rules in a table of its own (``ad.primitive_jvps``,
``lowering.lowering_rules``, ...). Many rules are not written out as functions: a helper
makes them (``ad.defjvp(sin_p, lambda g, x: ...)`` wraps the lambda in a generic JVP;
``lax.utils.unop`` builds an abstract evaluation, an impl and a lowering at once). Asked
where such a rule comes from, Python names the helper, which is the same for a hundred
primitives. So each table records, as an entry is made, the place a reader should open:

- the rule's own ``def``, when it is a function written in the registering module
  (looking through ``functools.partial`` and closures a helper wraps around it);
- otherwise the registering statement itself: the line of the module that named the
  primitive, found by walking out of the helpers to the module-level code being run.

``glassjax.describe`` reads every table (``Rules.tables``) and prints these places.
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
from typing import Any, NamedTuple

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class Site(NamedTuple):
    """Where a rule was registered: ``own`` says ``line`` starts the rule's own ``def``
    (else it is the registering statement)."""
    file: str
    line: int
    own: bool
    rule: Any       # the function defined at ``line`` when ``own``, else the rule


class Rules(dict):
    """A rule table: a dict ``primitive -> rule`` whose ``sites`` say where each entry
    was made. Reading it costs what a dict costs; only writes do more."""
    tables: list = []   # every table made, in the order made (describe lists them all)

    def __init__(self, name: str, purpose: str):
        super().__init__()
        self.name, self.purpose = name, purpose
        self.sites: dict = {}           # primitive -> Site
        Rules.tables.append(self)

    def __repr__(self):
        return f"Rules({self.name!r}, {len(self)} entries)"

    def __setitem__(self, primitive, rule):
        super().__setitem__(primitive, rule)
        self.sites[primitive] = site_of(rule, sys._getframe(1))

    # (dict's own versions of these would skip ``__setitem__``; the frames they add are
    # the package's, which ``site_of`` walks out of.)
    def update(self, *args, **kwargs):
        for primitive, rule in dict(*args, **kwargs).items():
            self[primitive] = rule

    def __ior__(self, other):
        self.update(other)
        return self

    def setdefault(self, primitive, rule=None):
        if primitive not in self:
            self[primitive] = rule
        return self[primitive]

    def __delitem__(self, primitive):
        super().__delitem__(primitive)
        del self.sites[primitive]

    def pop(self, primitive, *default):
        self.sites.pop(primitive, None)
        return super().pop(primitive, *default)

    def clear(self):
        super().clear()
        self.sites.clear()


def site_of(rule, frame) -> Site:
    """Where ``rule``, being registered by the code running in ``frame``, is written."""
    frame = _registering_frame(frame)
    file = frame.f_code.co_filename
    fn = _own_function(rule, file)
    if fn is None:
        return Site(file, frame.f_lineno, False, rule)
    return Site(file, fn.__code__.co_firstlineno, True, fn)


def _registering_frame(frame):
    """Out of the helpers (functions of the package) to the module-level statement that
    runs them, or to the first code outside the package (a user's registration)."""
    while (frame.f_code.co_name != "<module>" and frame.f_back is not None
           and frame.f_code.co_filename.startswith(_PACKAGE)):
        frame = frame.f_back
    return frame


def _own_function(rule, file):
    """The named function (no lambda, no closure) defined in ``file`` that ``rule`` is,
    or that it wraps: through partials, ``functools.wraps`` and a helper's closure (when
    exactly one such function is in it). None when there is none."""
    fn = inspect.unwrap(rule) if callable(rule) else rule
    if _is_own(fn, file):
        return fn
    found = {id(f): f for f in _wrapped(fn) if _is_own(f, file)}
    return next(iter(found.values())) if len(found) == 1 else None


def _wrapped(fn):
    """The functions a partial or a closure holds (and the tuples among them)."""
    if isinstance(fn, functools.partial):
        held = [fn.func, *fn.args, *fn.keywords.values()]
    else:
        held = [_contents(cell) for cell in getattr(fn, "__closure__", None) or ()]
    for h in held:
        yield from (h if isinstance(h, tuple) else (h,))


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:          # a cell not filled yet
        return None


def _is_own(fn, file) -> bool:
    code = getattr(fn, "__code__", None)
    return (code is not None and code.co_filename == file
            and "<" not in getattr(fn, "__qualname__", "<"))
