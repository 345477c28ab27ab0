"""The notebook layer: ``%load_ext glassjax`` and the pictures of programs.

* ``%jaxpr`` / ``%%jaxpr`` (``magics``): the jaxpr of a call, its graph, its result.
* ``to_graphviz`` (``graph``): a jaxpr as a ``graphviz.Digraph``.
* ``explore`` (``widgets``): an explorer widget with tabs for every stage, a bar of
  transformations and a step-through evaluator.
* ``display``: the rich display of ``ClosedJaxpr`` and of results.
"""
from glassjax.notebook.graph import to_graphviz

__all__ = ["to_graphviz", "explore"]


def __getattr__(name):
    # ipywidgets takes half a second to import: only ``explore`` pays for it.
    if name == "explore":
        from glassjax.notebook.widgets import explore
        return explore
    raise AttributeError(f"module 'glassjax.notebook' has no attribute {name!r}")
