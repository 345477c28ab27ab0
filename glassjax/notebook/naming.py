"""The names a jaxpr's variables get when it is printed.

``str(jaxpr)`` names variables a, b, c, ... in the order the printer meets them, and
sub-jaxprs continue the count. Graph labels, edge labels and the step-through view use
the very same names, so a learner can point at ``c:f32[8]`` in the text and find it in
the graph. Rather than re-deriving the printer's naming order, we let the printer build
its document with a naming context we keep, then read the names off that context.
"""
from __future__ import annotations

from glassjax import core, pretty


class PrintedNames:
    """The printer's naming context for one top-level jaxpr, after it printed it.

    ``name(v)`` gives a variable's printed name; ``eqn_text(eqn)`` prints one equation
    with those names (as it appears inside the whole jaxpr's text). The document it
    built is kept: ``text()`` and ``html()`` lay it out, so a display that shows the
    text, its highlighted copy and a graph builds the printer's document only once
    (with ``colour`` when the highlighted copy is to mark keywords and types)."""

    def __init__(self, jaxpr: core.Jaxpr, *, colour: bool = False):
        self.jaxpr = jaxpr
        self.settings = pretty.Settings()
        self.context = pretty.toplevel_context(jaxpr)
        self.colour = colour
        # Without colour, laid out as plain text (equations that fit are written straight
        # to strings), the quick way; with it, every keyword and type is a node of its
        # own. The names are the same in every layout, and so is the plain text.
        settings = self.settings if colour else self.settings._replace(plain_width=80)
        self.doc = pretty.pp_toplevel_doc(jaxpr, settings, self.context)

    def text(self, width: int = 80) -> str:
        """The whole jaxpr as ``str(jaxpr)`` prints it."""
        return pretty.format_doc(self.doc, width)

    def html(self, width: int = 80) -> str:
        """The same text, HTML-escaped; built with ``colour``, keywords and types are
        marked as ``jaxpr.pretty_print(html=True, use_color=True)`` marks them."""
        return pretty.format_doc(self.doc, width, self.colour, True)

    def name(self, atom) -> str:
        """``c`` for a variable, ``3.0:f32[]`` for a literal, ``_`` for a dropped output."""
        if isinstance(atom, core.Var) and not isinstance(atom, core.DropVar) \
                and atom not in self.context.var_names:
            return "?"                       # not part of this jaxpr: never printed
        return pretty.atom_name(atom, self.context)

    def typed_name(self, atom) -> str:
        """``c:f32[8]``: how the printer writes a binder."""
        if isinstance(atom, core.Literal):
            return self.name(atom)
        return f"{self.name(atom)}:{atom.aval.str_short(True)}"

    def eqn_text(self, eqn, width: int = 76) -> str:
        """One equation, printed with the names it has in the whole jaxpr."""
        return pretty.format_doc(pretty.pp_eqn(eqn, self.context, self.settings), width)
