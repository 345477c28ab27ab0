"""The ``jax.tree`` namespace: short names for the pytree utilities in ``tree_util``."""
import dataclasses

from glassjax.tree_util import (
    tree_all as all,
    tree_broadcast as broadcast,
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_reduce_associative as reduce_associative,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)


def static(**kwargs):
    """``dataclasses.field`` for a field that ``register_dataclass`` should treat as static
    (aux data) instead of as a child."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)

