"""How the notebook draws a higher-order primitive: plain data a primitive carries.

A primitive's registration block says how the notebook's graph draws its equations
(``prim.drawing = Drawing(...)``) without importing the notebook, which sits at the top
of the layers; the notebook reads ``eqn.primitive.drawing``.
"""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Drawing:
    """How the notebook draws an equation of a higher-order primitive, declared in the
    primitive's registration block as plain data (the notebook reads
    ``eqn.primitive.drawing``; the primitive's module never imports the notebook).

    ``kind`` picks the picture and the cluster's colour: ``"cond"``, ``"while"``,
    ``"scan"`` and ``"shard_map"`` each wire their sub-jaxprs their own way; ``"jit"``,
    ``"custom"`` and ``"checkpoint"`` call one body (the ``body`` param) on all their
    operands. ``label`` titles the cluster, ``note`` is a line saying what is special
    about it, ``quiet`` lists params the picture already shows (not worth a line)."""
    kind: str
    label: str
    body: str = "jaxpr"
    note: str = ""
    quiet: frozenset = frozenset()
