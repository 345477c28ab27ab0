"""Pytree structures as plain data, so a serialized ``Exported`` can rebuild its
``in_tree``/``out_tree`` in another process.

Tuples, lists, dicts with string keys and None are written as they are. Any other node
type (a namedtuple, a registered class) must be registered here under a name that stays
stable across programs, with functions turning its auxiliary data into bytes and back;
types are never written by their Python identity.
"""
from __future__ import annotations

import base64
from typing import Callable

from glassjax import tree_util

# serialized name -> (node type, auxdata -> bytes, bytes -> auxdata); and type -> name
_by_name: dict = {}
_by_type: dict = {}


def register_pytree_node_serialization(nodetype, *, serialized_name: str,
                                       serialize_auxdata: Callable[[object], bytes],
                                       deserialize_auxdata: Callable[[bytes], object]):
    """Let ``Exported.serialize`` write pytrees holding ``nodetype`` (already a registered
    pytree node) under ``serialized_name``. Returns ``nodetype``, so it works as a class
    decorator (through ``functools.partial``)."""
    if not tree_util.is_tree_node(nodetype):
        raise ValueError(f"Cannot register serialization for {nodetype}: it is not a "
                         "registered pytree node")
    if serialized_name in _by_name:
        raise ValueError("Duplicate serialization registration for serialized_name="
                         f"'{serialized_name}'")
    if nodetype in _by_type:
        raise ValueError(f"Duplicate serialization registration for type '{nodetype}'")
    _by_name[serialized_name] = (nodetype, serialize_auxdata, deserialize_auxdata)
    _by_type[nodetype] = serialized_name
    return nodetype


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
    """Register a namedtuple class: its fields are its children, it has no auxdata."""
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError(f"Cannot register serialization for {nodetype}: it is not a "
                         "namedtuple")
    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name,
        serialize_auxdata=lambda aux: b"", deserialize_auxdata=lambda data: None)


_BUILTIN = {tuple: "tuple", list: "list", dict: "dict", type(None): "None"}
_BUILTIN_TYPES = {name: t for t, name in _BUILTIN.items()}


def treedef_to_data(treedef) -> object:
    """``"*"`` for a leaf, else ``[kind, aux, children]`` (JSON-compatible)."""
    if tree_util.treedef_is_leaf(treedef) and treedef.num_nodes == 1 \
            and treedef.num_leaves == 1:
        return "*"
    nodetype, aux = treedef.node_data()
    children = [treedef_to_data(c) for c in treedef.children()]
    if nodetype in _BUILTIN:
        if nodetype is dict:
            if not all(isinstance(k, str) for k in aux):
                raise ValueError(f"Cannot serialize a dict with keys {aux}: only string "
                                 "keys can be serialized")
            aux = list(aux)
        return [_BUILTIN[nodetype], aux, children]
    name = _by_type.get(nodetype)
    if name is None:
        raise ValueError(
            f"Cannot serialize PyTreeDef containing an unregistered type '{nodetype}'. "
            "Use `export.register_pytree_node_serialization` or "
            "`export.register_namedtuple_serialization`.")
    return ["custom", [name, base64.b64encode(_by_name[name][1](aux)).decode()], children]


def treedef_from_data(data) -> object:
    if data == "*":
        return tree_util.tree_structure(0)
    kind, aux, children = data
    children = [treedef_from_data(c) for c in children]
    if kind == "custom":
        name, blob = aux
        if name not in _by_name:
            raise ValueError(f"Cannot deserialize a PyTreeDef with the unregistered "
                             f"serialized_name '{name}'")
        nodetype, _, deserialize_auxdata = _by_name[name]
        node_data = (nodetype, deserialize_auxdata(base64.b64decode(blob)))
    else:
        nodetype = _BUILTIN_TYPES[kind]
        if kind == "None":
            return tree_util.tree_structure(None)
        node_data = (nodetype, tuple(aux) if kind == "dict" else None)
    return tree_util.PyTreeDef.from_node_data_and_children(
        tree_util.default_registry, node_data, children)
