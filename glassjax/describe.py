"""``glassjax.describe(prim)``: a primitive's whole story, and where each part is written.

A primitive is a name plus rules, and every transformation looks its rule up in a table
of its own: ``jit`` needs an abstract evaluation and a lowering, ``grad`` a JVP and (for
linear primitives) a transpose, ``vmap`` a batching rule, and so on. ``describe`` reads
those tables (and, for a higher-order primitive, the ``core.Drawing`` that tells the
notebook how to draw it) and says, for one primitive, which rules it has and the file
and line that defines each, so a learner can open the code at the right place::

    >>> print(glassjax.describe(glassjax.lax.sin_p))
    sin
      abstract_eval   glassjax/lax/elementwise.py:...
      impl            glassjax/xla/dispatch.py:...
      lowering        glassjax/lax/elementwise.py:...
      jvp             glassjax/lax/elementwise.py:...
      ...

``primitives()`` lists every primitive known to any table. Read next: ``core.py``
(``Primitive``), then the tables themselves in ``interpreters/`` and ``xla/lowering.py``.
"""
from __future__ import annotations

import functools
import inspect
import os
from typing import NamedTuple

from glassjax import core, pretty
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.xla import dispatch, lowering

# (rule name, what it is for, its table), in the order a learner meets them.
_TABLES = (
    ("lowering", "jit: emit StableHLO", lowering.lowering_rules),
    ("staging", "make_jaxpr: a custom way to record the equation", staging.staging_rules),
    ("const_fold", "make_jaxpr: fold known inputs", staging.const_fold_rules),
    ("effects", "make_jaxpr: side effects of the equation", staging.effects_rules),
    ("jvp", "jvp / grad: forward-mode derivative", ad.primitive_jvps),
    ("linearize", "grad: a custom linearization", ad.primitive_linearizations),
    ("transpose", "grad: transpose of a linear primitive", ad.primitive_transposes),
    ("batching", "vmap: the batched primitive", batching.primitive_batchers),
    ("batching (axis-aware)", "vmap: batching that knows the axis (collectives, calls)",
     batching.fancy_primitive_batchers),
    ("partial_eval", "linearize / remat: known and unknown parts", pe.partial_eval_rules),
    ("dce", "dead-code elimination of the equation", pe.dce_rules),
    ("pretty_print", "how the equation prints", pretty.pp_eqn_rules),
    ("mesh", "where a many-device equation runs", dispatch.mesh_rules),
)


class Rule(NamedTuple):
    name: str
    purpose: str
    where: str          # "path/to/file.py:line", or "" when Python cannot tell

    def __str__(self):
        return f"  {self.name:<22}{self.where or '(built in)':<44}{self.purpose}"


class Description(NamedTuple):
    """The rules of one primitive (``rules``) and the transformations it lacks
    (``missing``: rule names with no entry)."""
    primitive: core.Primitive
    rules: tuple
    missing: tuple

    def __str__(self):
        kind = " (multiple results)" if self.primitive.multiple_results else ""
        lines = [f"{self.primitive.name}{kind}", *map(str, self.rules)]
        if self.missing:
            lines.append(f"  no rule for: {', '.join(self.missing)}")
        return "\n".join(lines)

    __repr__ = __str__


def _where(fn) -> str:
    """``file:line`` of the function behind a rule, looking through partials and
    wrappers; paths relative to the package's parent directory."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = inspect.unwrap(fn)
    try:
        return _relative(inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1])
    except (TypeError, OSError):
        return ""


def _relative(path, line) -> str:
    """``path:line`` with the path relative to the package's parent directory."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(core.__file__)))
    return f"{os.path.relpath(path, root)}:{line}"


def describe(primitive: core.Primitive) -> Description:
    """Every rule ``primitive`` has, where it is defined, and which it lacks."""
    if not isinstance(primitive, core.Primitive):
        raise TypeError(f"describe expects a Primitive (e.g. glassjax.lax.sin_p), got "
                        f"{primitive!r} of type {type(primitive)}")
    rules, missing = [], []
    for attr, name, purpose in (("abstract_eval_rule", "abstract_eval",
                                 "shapes and dtypes of the results"),
                                ("impl", "impl", "eager evaluation")):
        fn = getattr(primitive, attr, None)
        if fn is None:
            missing.append(name)
        else:
            rules.append(Rule(name, purpose, _where(fn)))
    for name, purpose, table in _TABLES:
        fn = table.get(primitive)
        if fn is not None:
            rules.append(Rule(name, purpose, _where(fn)))
        elif name in ("lowering", "jvp", "batching"):
            if not (name == "batching" and primitive in batching.fancy_primitive_batchers):
                missing.append(name)
    drawing = primitive.drawing
    if drawing is not None:                 # data, not a function: it records its line
        rules.append(Rule("drawing", f"notebook: drawn as a {drawing.kind} cluster",
                          _relative(*drawing.where)))
    return Description(primitive, tuple(rules), tuple(missing))


def primitives() -> list[core.Primitive]:
    """Every primitive some rule table knows, sorted by name."""
    found = {p for _, _, table in _TABLES for p in table if isinstance(p, core.Primitive)}
    return sorted(found, key=lambda p: (p.name, id(p)))
