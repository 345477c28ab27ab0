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
    with those names (as it appears inside the whole jaxpr's text)."""

    def __init__(self, jaxpr: core.Jaxpr):
        self.jaxpr = jaxpr
        self.settings = pretty.Settings()
        self.context = pretty.toplevel_context(jaxpr)
        pretty.pp_toplevel_doc(jaxpr, self.settings, self.context)   # names every variable

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
