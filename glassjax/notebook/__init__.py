"""The notebook layer: ``%load_ext glassjax`` and the pictures of programs.

* ``%jaxpr`` / ``%%jaxpr`` (``magics``): the jaxpr of a call, its graph, its result.
* ``to_graphviz`` (``graph``): a jaxpr as a ``graphviz.Digraph``.
* ``explore`` (``widgets``): an explorer widget with tabs for every stage, a bar of
  transformations and a step-through evaluator.
* ``display``: the rich display of ``ClosedJaxpr`` and results.
"""
from glassjax.notebook.graph import to_graphviz
from glassjax.notebook.widgets import explore

__all__ = ["to_graphviz", "explore"]
