"""jaxlib's C++ pytree registry: the door through which tree_util.py reaches it.

jaxlib flattens and unflattens pytrees in C++, and its jit fast path flattens arguments
with the same registry, so glassjax uses it rather than a Python one. Like every private
jaxlib name, it is reached only from glassjax/xla/; this module sits in the base layer
(tests/test_layers.py) because tree_util.py, which everything flattens with, does.
"""
from jaxlib._jax import pytree as _pytree

PyTreeDef = _pytree.PyTreeDef
default_registry = _pytree.default_registry()   # process-wide, shared with the C++ jit

# Key path entries, as the C++ traversal produces them: ``[0]``, ``['k']``, ``.name``,
# and ``[<flat index 0>]`` for children of types registered without keys.
SequenceKey = _pytree.SequenceKey
DictKey = _pytree.DictKey
GetAttrKey = _pytree.GetAttrKey
FlattenedIndexKey = _pytree.FlattenedIndexKey


def treedef_tuple(treedefs) -> PyTreeDef:
    """The structure of a tuple whose children have ``treedefs``."""
    return _pytree.treedef_tuple(default_registry, list(treedefs))


def all_leaves(iterable) -> bool:
    """Whether every element of ``iterable`` is a leaf (nothing registered)."""
    return _pytree.all_leaves(default_registry, iterable)
