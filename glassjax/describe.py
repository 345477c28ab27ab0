"""``glassjax.describe(prim)``: a primitive's whole story, and where each part is written.

A primitive is a name plus rules, and every transformation looks its rule up in a table
of its own: ``jit`` needs an abstract evaluation and a lowering, ``grad`` a JVP and (for
linear primitives) a transpose, ``vmap`` a batching rule, and so on. Every such table is
a ``rule_tables.Rules``, which records, for each entry, the line a reader should open:
the rule's own ``def``, or, when a helper made the rule, the statement that named the
primitive. ``describe`` reads all the tables and lists, for one primitive, each rule it
has and that line; ``source=True`` adds the code itself::

    >>> from glassjax import describe, lax
    >>> print(describe(lax.sin_p))  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    sin
      abstract_eval       glassjax/lax/transcendental.py:...   shapes and dtypes of ...
      impl                glassjax/lax/transcendental.py:...   eager evaluation
      lowering            glassjax/lax/transcendental.py:...   jit: emit StableHLO
      jvp                 glassjax/lax/transcendental.py:...   jvp / grad: forward-mode ...
      batching            glassjax/lax/transcendental.py:...   vmap: the batched primitive
      sharding            glassjax/lax/transcendental.py:...   sharding in types: ...
    ...
    >>> print(describe(lax.sin_p, source=True).rule("jvp").source())
    ad.defjvp(sin_p, lambda g, x, accuracy: mul(g, cos(x, accuracy=accuracy)))

``primitives()`` lists every primitive known to any table. Read next: rule_tables.py,
then the tables themselves (``core.Primitive``, ``interpreters/``, ``xla/lowering.py``).
"""
from __future__ import annotations

import ast
import inspect
import linecache
import os
import textwrap
from typing import NamedTuple

from glassjax import core
from glassjax.rule_tables import Rules, Site

# The tables a learner meets first, in that order; the others follow as they were made.
_FIRST = ("abstract_eval", "impl", "lowering", "jvp", "transpose", "batching",
          "batching_axis")
# Rules every everyday primitive has: ``describe`` says when one is missing.
_EXPECTED = ("abstract_eval", "impl", "lowering", "jvp", "batching")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(core.__file__)))


class Rule(NamedTuple):
    name: str           # the table's name
    purpose: str
    where: str          # "path/to/file.py:line"
    site: Site

    def source(self) -> str:
        """The rule's code: its ``def``, or the statement that registered it."""
        return self.code()[1]

    def code(self) -> tuple[int, str]:
        """(the number of its first line, the rule's code) (see ``source``)."""
        if self.site.own:
            lines, first = inspect.getsourcelines(self.site.rule)
            return first, textwrap.dedent("".join(lines)).rstrip("\n")
        return registering_statement(self.site.file, self.site.line)


class Description(NamedTuple):
    """The rules of one primitive (``rules``) and the everyday ones it lacks
    (``missing``); with ``source``, printing shows each rule's code under its line."""
    primitive: core.Primitive
    rules: tuple
    missing: tuple
    source: bool = False

    def __str__(self):
        kind = " (multiple results)" if self.primitive.multiple_results else ""
        lines = [f"{self.primitive.name}{kind}"]
        width = max((len(rule.where) for rule in self.rules), default=0) + 3
        shown = set()               # (file, first line) of the code already printed
        for rule in self.rules:
            lines.append(f"  {rule.name:<20}{rule.where:<{width}}{rule.purpose}")
            if self.source:
                first, code = rule.code()
                seen = (rule.site.file, first) in shown
                shown.add((rule.site.file, first))
                code = "(the code above)" if seen else code
                lines.append(textwrap.indent(code, "      | "))
        if self.missing:
            lines.append(f"  no rule for: {', '.join(self.missing)}")
        return "\n".join(lines)

    __repr__ = __str__

    def rule(self, name: str) -> Rule:
        """The rule from the table called ``name`` (e.g. ``"jvp"``)."""
        for rule in self.rules:
            if rule.name == name:
                return rule
        raise KeyError(f"{self.primitive.name} has no {name!r} rule; it has "
                       f"{', '.join(r.name for r in self.rules) or 'none'}")


def tables() -> list:
    """Every rule table, those of ``_FIRST`` first."""
    def order(numbered):
        i, table = numbered
        return (_FIRST.index(table.name) if table.name in _FIRST else len(_FIRST), i)
    return [table for _, table in sorted(enumerate(Rules.tables), key=order)]


def describe(primitive: core.Primitive, source: bool = False) -> Description:
    """Every rule ``primitive`` has, where it is written, and which everyday ones it
    lacks; ``source=True`` shows each rule's code too."""
    if not isinstance(primitive, core.Primitive):
        raise TypeError(f"describe expects a Primitive (e.g. glassjax.lax.sin_p), got "
                        f"{primitive!r} of type {type(primitive)}")
    rules = [Rule(table.name, _purpose(table, primitive),
                  where(table.sites[primitive]), table.sites[primitive])
             for table in tables() if primitive in table]
    rules += _own_methods(primitive)
    has = {rule.name for rule in rules}
    if "batching_axis" in has:
        has.add("batching")
    # (a primitive with its own ``bind_with_trace`` is applied by each trace's own
    # method, e.g. ``process_custom_jvp_call``, not by rules from the tables)
    missing = () if "bind_with_trace()" in has else tuple(
        name for name in _EXPECTED if name not in has)
    return Description(primitive, tuple(rules), missing, source)


# Methods of ``core.Primitive`` a primitive's class may replace, and what they are for.
_METHODS = {"bind": "applying it: a bind of its own",
            "bind_with_trace": "applying it on a given trace",
            "get_bind_params": "an equation's params back into bind's arguments"}


def _own_methods(primitive) -> list:
    """Rules written as methods: those of ``_METHODS`` the primitive's class replaces
    (``custom_jvp_call``'s ``bind`` traces the function it is given)."""
    found = []
    for name, purpose in _METHODS.items():
        method = getattr(type(primitive), name)
        if method is not getattr(core.Primitive, name):
            site = Site(inspect.getsourcefile(method), method.__code__.co_firstlineno,
                        True, method)
            found.append(Rule(f"{name}()", purpose, where(site), site))
    return found


def _purpose(table, primitive) -> str:
    if table.name == "drawing":
        return f"notebook: drawn as a {primitive.drawing.kind} cluster"
    return table.purpose


def where(site: Site) -> str:
    """``path:line``, the path relative to the directory holding the package."""
    path = os.path.relpath(site.file, _ROOT)
    return f"{site.file if path.startswith('..') else path}:{site.line}"


def registering_statement(file: str, line: int) -> tuple[int, str]:
    """(its first line, the source) of the outermost statement (not a ``def`` or
    ``class``) of ``file`` that holds ``line``: the whole registration, e.g. a call
    spread over lines."""
    lines = linecache.getlines(file)
    body = ast.parse("".join(lines)).body
    while True:
        node = next((n for n in body if n.lineno <= line <= n.end_lineno), None)
        if node is None:
            return line, linecache.getline(file, line).strip()
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            code = "".join(lines[node.lineno - 1:node.end_lineno])
            return node.lineno, textwrap.dedent(code).rstrip("\n")
        body = node.body


def primitives() -> list[core.Primitive]:
    """Every primitive some rule table knows, sorted by name."""
    found = {p for table in Rules.tables for p in table if isinstance(p, core.Primitive)}
    return sorted(found, key=lambda p: (p.name, id(p)))
