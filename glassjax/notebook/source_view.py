"""``%gjsource PRIM [RULE]``: the code of a primitive's rules, with file and line.

    %gjsource sin_p jvp         sin's JVP rule
    %gjsource lax.scan_p        every rule of scan, one after the other

Which rules a primitive has and where each is written come from ``glassjax.describe``
(the rule's own ``def``, or the statement that registered it when a helper made it).
The answer is a MIME bundle: ``text/plain`` (a heading with ``file:line``, then the
code) and ``text/html`` (the same, the code highlighted by Pygments, which escapes it;
headings are escaped by ``page.section``).
"""
from __future__ import annotations

from IPython.core.error import UsageError
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from glassjax import core
from glassjax.describe import describe, primitives
from glassjax.notebook.page import section, wrap

USAGE = "usage: %gjsource PRIM [RULE], e.g. %gjsource sin_p jvp"


def find_primitive(name: str, namespace: dict) -> core.Primitive:
    """The primitive ``name`` means: a (dotted) name in the notebook holding one
    (``lax.sin_p``), else a primitive's own name, with or without ``_p``."""
    head, *attrs = name.split(".")
    value = namespace.get(head)
    for attr in attrs:
        value = getattr(value, attr, None)
    if isinstance(value, core.Primitive):
        return value
    wanted = name.rsplit(".", 1)[-1]
    for prim in primitives():
        if prim.name in (wanted, wanted.removesuffix("_p")):
            return prim
    raise UsageError(f"{name!r} names no primitive (try e.g. sin_p, or lax.sin_p)")


def source_bundle(line: str, namespace: dict) -> dict:
    """The MIME bundle ``%gjsource`` shows for its ``line``."""
    words = line.split()
    if len(words) not in (1, 2):
        raise UsageError(USAGE)
    description = describe(find_primitive(words[0], namespace))
    try:
        rules = description.rules if len(words) == 1 else [description.rule(words[1])]
    except KeyError as e:
        raise UsageError(e.args[0]) from None
    if not rules:
        raise UsageError(f"{description.primitive.name} has no rules registered")
    name = description.primitive.name
    heads = [f"{name} {rule.name}: {rule.where} ({rule.purpose})" for rule in rules]
    codes = [rule.code() for rule in rules]
    plain = "\n\n".join(f"{head}\n{code}" for head, (_, code) in zip(heads, codes))
    html = wrap(*(section(head, highlight(code, PythonLexer(), HtmlFormatter(
        noclasses=True, linenos="inline", linenostart=first)))
        for head, (first, code) in zip(heads, codes)))
    return {"text/plain": plain, "text/html": html}
