"""The jaxpr printer: character-identical to JAX 0.10.2.

A jaxpr is turned into a *document* of text, breaks, groups and nesting (Wadler's
"prettier printer"); the layout engine then decides which breaks become newlines so that
lines fit in 80 columns. We build the same document JAX builds and lay it out with the
same C++ layout engine that ships in jaxlib (``jaxlib._pretty_printer``), so short jaxprs
print on one line (``{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }``) and long ones
break exactly where JAX breaks them.

Variables get names only here, in print order: a..z, ba, bb, ... One naming context is
shared by a jaxpr and all its sub-jaxprs, so names never clash across nesting levels.
"""
from __future__ import annotations

import collections
import itertools
import re
from typing import Callable, NamedTuple

import numpy as np
from jaxlib import _pretty_printer as _pp

from glassjax import core, source_info
from glassjax.rule_tables import Rules

# ----------------------------------------------------------------------------------------
# Document builders (thin names over jaxlib's C++ document type)
# ----------------------------------------------------------------------------------------

text = _pp.text
brk = _pp.brk
group = _pp.group
nest = _pp.nest
nil = _pp.nil


def concat(docs):
    return _pp.concat(list(docs))


def join(sep, docs):
    docs = list(docs)
    if not docs:
        return nil()
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return concat(out)


def type_annotation(doc):
    return _pp.color(doc, foreground=_pp.Color.MAGENTA, intensity=_pp.Intensity.NORMAL)


def keyword(doc):
    return _pp.color(doc, foreground=_pp.Color.BLUE, intensity=_pp.Intensity.BRIGHT)


def format_doc(doc, width=80, use_color=False, html=False):
    fmt = _pp.OutputFormat.HTML if html else _pp.OutputFormat.TEXT
    return doc._format(width, use_color=use_color, output_format=fmt,
                       separable_lines=False, annotation_prefix=" # ", source_map=None)


# ----------------------------------------------------------------------------------------
# Naming context and settings
# ----------------------------------------------------------------------------------------

class Settings(NamedTuple):
    print_shapes: bool = True
    custom_pp_eqn_rules: bool = True
    # Plain text laid out in ``width`` columns: equations that fit on their line are
    # written straight to a string (see ``_flat_eqn``). None when printing with colours
    # or as HTML, where every part needs its own document node.
    plain_width: int | None = None
    source_info: bool = False      # ``# file:line:col (function)`` after each equation
    name_stack: bool = False       # ``# [jvp(scope)/inner]`` after each equation


def _alphabetic(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, ...: base-26 digits written with letters."""
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class Context:
    """Names of variables (assigned on first print) and of hoisted shared jaxprs, and the
    indentation the layout will give the document being built (``indent``: the nesting
    level where a jaxpr placed now starts, None where a printing rule's own layout makes
    it unknown; ``in_params``: inside an equation's params, whose sub-jaxprs are laid
    out with their equation)."""

    def __init__(self, var_names=None):
        self.indent: int | None = 0
        self.in_params = False
        self.shared_jaxprs: dict = {}
        self.shared_jaxpr_names: set = set()
        fresh = (name for i in itertools.count()
                 if (name := _alphabetic(i)) not in self.shared_jaxpr_names)
        self.var_names = collections.defaultdict(fresh.__next__, var_names or {})

    def suggest_same_var_names(self, for_vars, like_vars):
        """Give ``for_vars`` (a sub-jaxpr's binders) the names of ``like_vars`` (the
        atoms the enclosing equation passes in or binds), so inlined calls read naturally."""
        if len(for_vars) != len(like_vars):
            return
        used = set()
        for for_v, like_v in zip(for_vars, like_vars):
            if (isinstance(like_v, core.Var) and like_v not in used and
                    isinstance(for_v, core.Var) and for_v not in self.var_names):
                used.add(like_v)
                self.var_names[for_v] = atom_name(like_v, self)


def atom_name(v, context: Context, print_dtype=True) -> str:
    if isinstance(v, core.Literal):
        val = "[...]" if np.shape(v.val) else str(np.asarray(v.val).item())
        return f"{val}:{v.aval.str_short(True)}" if print_dtype else val
    if isinstance(v, core.DropVar):
        return "_"
    return context.var_names[v]


# ----------------------------------------------------------------------------------------
# Jaxprs and equations
# ----------------------------------------------------------------------------------------

def pp_vars(vs, context, *, separator="", print_shapes=False):
    if print_shapes:
        items = [text(atom_name(v, context)) +
                 type_annotation(text(":" + v.aval.str_short(True))) for v in vs]
    else:
        items = [text(atom_name(v, context)) for v in vs]
    return nest(2, group(join(text(separator) + group(brk()), items)))


def pp_param_value(v, context, settings):
    if type(v) is tuple and v and all(isinstance(j, (core.Jaxpr, core.ClosedJaxpr))
                                      for j in v):
        return pp_jaxprs(v, context, settings)
    if isinstance(v, core.Jaxpr):
        return pp_jaxpr(v, context, settings)
    if isinstance(v, core.ClosedJaxpr):
        return pp_jaxpr(v.jaxpr, context, settings)
    if isinstance(v, frozenset):
        return text(f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})")
    s = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)),
               str(v))
    return text(s)


def pp_kv_pairs(pairs, context, settings):
    if not pairs:
        return nil()
    indent, in_params = context.indent, context.in_params
    context.indent = None if indent is None else indent + 2    # (2 columns in, if broken)
    context.in_params = True
    items = [text(f"{k}=") + pp_param_value(v, context, settings) for k, v in pairs]
    context.indent, context.in_params = indent, in_params
    return group(concat([nest(2, concat([text("["), brk(""), join(brk(), items)])),
                         brk(""), text("]")]))


def _flat_eqn(eqn, context, settings, params, shown):
    """The equation on one line, if it fits where the layout puts it, as strings
    ``(outvars, rest)``: the line is ``outvars + " = " + name + rest`` (``outvars`` None
    when there are none); else None. Most equations fit, and writing them straight to
    text is what keeps printing a 10,000-equation jaxpr fast: the layout engine would
    choose this same line for them, since a group fits when its flat text reaches no
    further than the width, and an equation is always followed by a line break or the
    end of a flat jaxpr. (Comments added after the line do not count towards the width.)"""
    if settings.plain_width is None or context.indent is None:
        return None
    values = []
    for p in params:
        v = shown[p]
        if isinstance(v, (core.Jaxpr, core.ClosedJaxpr, frozenset)) or (
                type(v) is tuple and any(isinstance(j, (core.Jaxpr, core.ClosedJaxpr))
                                         for j in v)):
            return None           # sub-jaxprs and sets: the full document
        s = str(v)
        if "\n" in s or " at 0x" in s:
            return None
        values.append(f"{p}={s}")
    names = context.var_names
    if settings.print_shapes:
        lhs = " ".join("_" if isinstance(v, core.DropVar) else
                       f"{names[v]}:{v.aval.str_short(True)}" for v in eqn.outvars)
    else:
        lhs = " ".join(atom_name(v, context) for v in eqn.outvars)
    rhs = " ".join(names[v] if isinstance(v, core.Var) else atom_name(v, context)
                   for v in eqn.invars)
    kv = f"[{' '.join(values)}]" if values else ""
    rest = f"{kv} {rhs}"
    width = len(eqn.primitive.name) + len(rest) + (len(lhs) + 3 if eqn.outvars else 0)
    fits = context.indent + width <= settings.plain_width
    return (lhs if eqn.outvars else None, rest) if fits else None


def _annotations(eqn, settings):
    """The comments printed after the equation's line: its user source line (attached
    to `` = ``) and its name stack (attached to the primitive's name), as JAX does."""
    src = (source_info.summarize(eqn.source_info) if settings.source_info else None)
    names = None
    if settings.name_stack:
        info = eqn.source_info
        names = f"[{info.name_stack if info is not None else ''}]"
    return src, names


def pp_eqn_default(eqn, context, settings, params=None, shown=None):
    """``outvars = name[params] invars``: the params ``shown`` (by default all of the
    equation's), sorted unless an order (``params``) is given."""
    shown = eqn.params if shown is None else shown
    if params is None:
        params = sorted(shown)
    annotated = settings.source_info or settings.name_stack
    src, names = _annotations(eqn, settings) if annotated else (None, None)
    if (flat := _flat_eqn(eqn, context, settings, params, shown)) is not None:
        lhs, rest = flat
        if not annotated:
            name_rest = eqn.primitive.name + rest
            return text(name_rest if lhs is None else f"{lhs} = {name_rest}")
        rhs = [text(eqn.primitive.name, names), text(rest)]
        return concat(rhs if lhs is None else [text(lhs), text(" = ", src), *rhs])
    # Binders are named before the params, so a sub-jaxpr's variables come after them.
    lhs = pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes)
    rhs = [text(eqn.primitive.name, names),
           pp_kv_pairs([(p, shown[p]) for p in params], context, settings),
           text(" ") + pp_vars(eqn.invars, context)]
    doc = concat(rhs) if not eqn.outvars else concat([lhs, text(" = ", src), *rhs])
    if (settings.plain_width is None or context.indent is None or context.in_params
            or annotated):
        return doc
    return text(_laid_out(doc, context.indent, settings.plain_width))


def _laid_out(doc, indent: int, width: int) -> str:
    """An equation's document laid out now, as the text the whole jaxpr's layout would
    give it: it starts a line at column ``indent`` (the nesting of its continuation
    lines too), and the line break that follows it ends every fitting decision inside
    it (as for ``_flat_eqn``). So a big jaxpr's document never holds every equation's
    nodes at once: laid out one by one, the equations that need several lines cost
    their text, not a tree of thousands of nodes. (Only equations of jaxprs printed
    at the top: a sub-jaxpr's are laid out within their equation's document.)"""
    return format_doc(concat([text(" " * indent), nest(indent, doc)]), width)[indent:]


# Custom printing rules, keyed by primitive (e.g. ``jit`` shows ``name`` first and hides
# default-valued params). Filled next to each primitive's definition.
pp_eqn_rules = Rules("pretty_print", "how the equation prints")


def hide_params(hidden: Callable[[dict], dict]):
    """A printing rule that prints the equation with ``hidden(params)`` instead of its
    params: the common case of a rule that leaves out implied or default params.
    Equations mostly share their params dicts (``core.shared_params``), so what a
    dict shows is worked out once per dict (the last few are remembered)."""
    remembered: dict = {}       # id(params) -> (params, the params shown, their order)

    def rule(eqn, context, settings):
        entry = remembered.get(id(eqn.params))
        if entry is None or entry[0] is not eqn.params:
            shown = hidden(dict(eqn.params))
            if len(remembered) >= 64:
                remembered.clear()
            entry = remembered[id(eqn.params)] = (eqn.params, shown, sorted(shown))
        return pp_eqn_default(eqn, context, settings, entry[2], entry[1])
    return rule


def pp_eqn(eqn, context, settings):
    """An equation at ``context.indent``. Printing rules end in ``pp_eqn_default``, whose
    layout is known; sub-jaxprs a rule lays out by itself get an unknown indent."""
    rule = pp_eqn_rules.get(eqn.primitive) if settings.custom_pp_eqn_rules else None
    if rule is None:
        return pp_eqn_default(eqn, context, settings)
    return rule(eqn, context, settings)


def pp_jaxpr_skeleton(jaxpr, eqns_doc, context, settings):
    constvars = pp_vars(jaxpr.constvars, context, print_shapes=settings.print_shapes)
    invars = pp_vars(jaxpr.invars, context, print_shapes=settings.print_shapes)
    indent = context.indent            # equations sit 4 columns in, when broken
    context.indent = None if indent is None else indent + 4
    eqns = eqns_doc()
    context.indent = indent
    outvars = concat([text("("), pp_vars(jaxpr.outvars, context, separator=","),
                      text(")" if len(jaxpr.outvars) != 1 else ",)")])
    return group(nest(2, concat([
        text("{ "), keyword(text("lambda ")), constvars, text("; "), invars,
        text(". "), keyword(text("let")), nest(2, brk() + eqns), brk(),
        keyword(text("in ")), outvars])) + text(" }"))


def pp_jaxpr(jaxpr, context, settings):
    if name := context.shared_jaxprs.get(jaxpr):
        return text(name)
    eqns = lambda: join(brk("; "), [pp_eqn(e, context, settings) for e in jaxpr.eqns])
    return pp_jaxpr_skeleton(jaxpr, eqns, context, settings)


def pp_jaxprs(jaxprs, context, settings):
    jaxprs = [j.jaxpr if isinstance(j, core.ClosedJaxpr) else j for j in jaxprs]
    indent = context.indent
    context.indent = None if indent is None else indent + 2
    docs = [pp_jaxpr(j, context, settings) for j in jaxprs]
    context.indent = indent
    return group(concat([nest(2, concat([text("("), brk(""), join(brk(), docs)])),
                         brk(""), text(")")]))


def _dropvars(jaxpr):
    """Top-level equation outputs that nothing reads print as ``_``."""
    names = {}
    used = {v for v in jaxpr.outvars if isinstance(v, core.Var)}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                names[v] = "_"
        used.update(v for v in eqn.invars if isinstance(v, core.Var))
    return names


def _shared_jaxprs(top):
    """Sub-jaxprs used more than once, or with more than 10 equations, are printed once
    up front as ``let name = { ... } in`` and referred to by name."""
    names = collections.defaultdict(lambda: "jaxpr")
    counts = collections.Counter()
    queue = collections.deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1
        if jaxpr is not top and len(jaxpr.eqns) > 10:
            counts[jaxpr] += 1
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            subs = list(core.jaxprs_in_params(eqn.params))
            queue.extend(subs)
            if isinstance(name, str):
                for sub in subs:
                    names.setdefault(sub, name.strip("<>"))
    name_counts = collections.Counter()
    shared = []
    for jaxpr, c in counts.items():
        if c == 1:
            continue
        name = names[jaxpr]
        if (n := name_counts[name]) > 0:
            name_counts[name] += 1
            name += str(n)
        name_counts[name] += 1
        shared.append((name, jaxpr))
    return shared


def toplevel_context(jaxpr) -> Context:
    """The naming context the printer uses for ``jaxpr`` (pass it to pp_toplevel_doc and
    read ``context.var_names`` afterwards to learn the printed names)."""
    return Context(_dropvars(jaxpr))


def pp_toplevel_doc(jaxpr, settings=Settings(), context=None):
    context = context or toplevel_context(jaxpr)
    shared = _shared_jaxprs(jaxpr)
    for name, sub in shared:
        context.shared_jaxpr_names.add(name)
        context.shared_jaxprs[sub] = name
    docs = []
    for name, sub in shared:
        eqns = lambda sub=sub: join(brk("; "), [pp_eqn(e, context, settings)
                                                for e in sub.eqns])
        docs.append(concat([text("let "), text(name), text(" = "),
                            pp_jaxpr_skeleton(sub, eqns, context, settings),
                            text(" in"), brk()]))
    docs.append(pp_jaxpr(jaxpr, context, settings))
    return concat(docs)


def pp_toplevel(jaxpr, *, print_shapes=True, custom_pp_eqn_rules=True, width=80,
                use_color=False, html=False, source_info=False, name_stack=False,
                print_effects=False):
    """``str(jaxpr)``. ``source_info``/``name_stack`` add each equation's user line and
    name stack as comments; ``print_effects`` is accepted for API compatibility."""
    del print_effects
    plain_width = None if use_color or html else width
    doc = pp_toplevel_doc(jaxpr, Settings(print_shapes, custom_pp_eqn_rules, plain_width,
                                          source_info, name_stack))
    return format_doc(doc, width, use_color, html)


def pp_eqn_standalone(eqn):
    return format_doc(pp_eqn(eqn, Context(), Settings()))


core.hooks.register(pp_jaxpr=pp_toplevel, pp_eqn=pp_eqn_standalone)
