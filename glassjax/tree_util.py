"""Pytrees: nested containers whose leaves are the values JAX transforms (``jax.tree_util``).

Every JAX API takes and returns pytrees. Tracing starts by *flattening* the arguments into a
flat list of leaves plus a ``PyTreeDef`` (the structure with holes, printed with ``*`` for
each leaf), and ends by *unflattening* the outputs.

The traversal itself is jaxlib's C++ pytree library: a ``PyTreeRegistry`` knows how to take
apart None, tuples, lists, dicts and namedtuples, and learns user types through
``register_pytree_node``. Using it (rather than a Python re-implementation) makes
``PyTreeDef`` print exactly as in JAX, and lets jaxlib's C++ jit fast path flatten call
arguments with the very registry the user registered their types in.

This module adds what lives in Python in JAX too: the registration helpers, key paths,
``tree_map`` and friends, and the structure-mismatch messages.
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import textwrap
from typing import Any, Callable, Iterable, TypeVar

from glassjax.xla import pytrees
from glassjax.xla.pytrees import (DictKey, FlattenedIndexKey, GetAttrKey, PyTreeDef,
                                  SequenceKey)

# The one registry every glassjax API (and the C++ dispatch path) flattens with. jaxlib
# keeps a process-wide default; naming it lets a pickled PyTreeDef refer back to it
# (the registry's __reduce__ returns a global name to be looked up in __module__).
default_registry = pytrees.default_registry
default_registry.__module__ = __name__
default_registry.__name__ = "default_registry"
KeyEntry = TypeVar("KeyEntry")
KeyPath = tuple[KeyEntry, ...]

_NOT_GIVEN = object()  # marks a missing initializer / identity (None is a valid value)


# ------------------------------------------------------------------ flattening

def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None):
    """Split ``tree`` into its leaves (left to right, dict keys sorted) and its structure."""
    return default_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a pytree of structure ``treedef`` from ``leaves``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    return default_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return default_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have structures ``treedefs``."""
    return pytrees.treedef_tuple(treedefs)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's immediate children."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single-node structure: a leaf, but also ``None`` or an empty container."""
    return treedef.num_nodes == 1


def _is_strict_leaf(treedef: PyTreeDef) -> bool:
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every element of ``iterable`` is itself a leaf."""
    if is_leaf is None:
        return pytrees.all_leaves(iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def is_tree_node(typ: type) -> bool:
    """Whether values of type ``typ`` are taken apart (built in, namedtuple or registered)."""
    return default_registry.is_node(typ)


def flatten_one_level(tree: Any):
    """``(children, aux_data)`` of the root node of ``tree``."""
    out = default_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any):
    """``(((key, child), ...), aux_data)`` of the root node of ``tree``."""
    out = default_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


# ------------------------------------------------------------------ registration

# Every node type and its ``(flatten, unflatten)`` pair, in Python: the C++ registry
# cannot be asked which types it knows, and libraries (flax nnx) ask. JAX calls it
# ``_registry`` and starts it with the built-in containers.
RegistryEntry = collections.namedtuple("RegistryEntry", ["to_iter", "from_iter"])
_registry: dict = {
    tuple: RegistryEntry(lambda xs: (xs, None), lambda _, xs: tuple(xs)),
    list: RegistryEntry(lambda xs: (xs, None), lambda _, xs: list(xs)),
    dict: RegistryEntry(lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
                        lambda keys, xs: dict(zip(keys, xs))),
    type(None): RegistryEntry(lambda _: ((), None), lambda _, xs: None),
    collections.OrderedDict: RegistryEntry(
        lambda d: (tuple(d.values()), tuple(d)),
        lambda keys, xs: collections.OrderedDict(zip(keys, xs))),
    collections.defaultdict: RegistryEntry(
        lambda d: (tuple(d[k] for k in sorted(d)), (d.default_factory, tuple(sorted(d)))),
        lambda aux, xs: collections.defaultdict(aux[0], zip(aux[1], xs))),
}


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """Make ``nodetype`` a pytree node.

    ``flatten_func(x) -> (children, aux_data)``; ``unflatten_func(aux_data, children) -> x``.
    ``aux_data`` is stored in the PyTreeDef, so it must be hashable and comparable: two
    values have the same structure (and share a jit cache entry) only if it is equal.
    """
    default_registry.register_node(nodetype, flatten_func, unflatten_func,
                                   flatten_with_keys_func)
    _registry[nodetype] = RegistryEntry(flatten_func, unflatten_func)


def register_pytree_node_class(cls):
    """Class decorator: register ``cls`` using its ``tree_flatten`` / ``tree_unflatten``."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Like ``register_pytree_node``, but children come with keys for their key paths.

    ``flatten_with_keys(x) -> (((key, child), ...), aux_data)``. ``flatten_func`` (same
    children, no keys) is optional: it only saves building keys when no path is wanted.
    """
    if flatten_func is None:
        def flatten_func(x):
            keyed_children, aux_data = flatten_with_keys(x)
            return [child for _, child in keyed_children], aux_data
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls):
    """Class decorator: register ``cls`` with ``tree_flatten_with_keys`` / ``tree_unflatten``
    (and ``tree_flatten`` if it has one)."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Register a dataclass-like type: ``data_fields`` are children, ``meta_fields`` aux data.

    For a dataclass both may be omitted: fields marked ``jax.tree.static()`` (metadata
    ``static=True``) are meta fields, the rest data. The C++ registry flattens it by
    attribute name and rebuilds it with ``nodetype(**fields)``.
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be specified"
                f" when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when"
                f" nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = list(data_fields), list(meta_fields)

    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields -= set(drop_fields)
        given = {*meta_fields, *data_fields}
        if given != init_fields:
            msg = ("data_fields and meta_fields must include all dataclass fields with"
                   " ``init=True`` and only them.")
            if missing := init_fields - given:
                msg += (f" Missing fields: {missing}. Add them to drop_fields to suppress"
                        " this error.")
            if unexpected := given - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. Overlapping fields:"
                         f" {overlap}.")
    default_registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    _registry[nodetype] = RegistryEntry(
        lambda x: (tuple(getattr(x, n) for n in data_fields),
                   tuple(getattr(x, n) for n in meta_fields)),
        lambda meta, data: nodetype(**dict(zip(meta_fields, meta)),
                                    **dict(zip(data_fields, data))))
    return nodetype


def register_static(cls):
    """Register ``cls`` as a node with no children: the whole value is aux data, so jit
    treats it as static (it must be hashable)."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x)
    return cls


# ------------------------------------------------------------------ key paths

def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Like ``tree_flatten``, but each leaf comes as ``(key_path, leaf)``."""
    if is_leaf is not None and not is_leaf_takes_path:
        leaf_pred = is_leaf
        is_leaf = lambda _path, x: leaf_pred(x)
    return default_registry.flatten_with_path(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def _key_name(key) -> str:
    """A key without its punctuation: ``0`` for ``[0]``, ``k`` for ``['k']``, ``x`` for ``.x``."""
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return key.name
    return str(key)


def keystr(keys, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text, e.g. ``[1]['k'].name`` (or ``1/k/name`` with simple=True and
    separator='/')."""
    return separator.join(map(_key_name if simple else str, keys))


# ------------------------------------------------------------------ map, reduce, transpose

def _flatten_up_to(treedef, tree, others, is_leaf, name):
    """Each of ``others`` cut at the leaves of ``tree`` (whose structure is ``treedef``).

    ``tree`` need only be a prefix of the others: a leaf of ``tree`` may face a whole
    subtree. When it is not, the error explains where, naming the tree ``name``.
    """
    flat = []
    for other in others:
        try:
            flat.append(treedef.flatten_up_to(other))
        except Exception as e:
            error = next(_prefix_error((), tree, other, is_leaf), None)
            raise (error(name) if error is not None else e) from None
    return flat


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf=None) -> Any:
    """``f`` applied leaf-wise; ``tree`` gives the structure, each of ``rest`` must have it
    as a prefix (the extra depth is passed to ``f`` as a subtree)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = _flatten_up_to(treedef, tree, rest, is_leaf, "tree_map tree")
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Like ``tree_map``, but ``f`` also receives each leaf's key path first."""
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    prefix_is_leaf = None if is_leaf_takes_path else is_leaf
    others = _flatten_up_to(treedef, tree, rest, prefix_is_leaf, "tree_map_with_path tree")
    return treedef.unflatten(f(path, x, *xs) for (path, x), *xs in zip(path_leaves, *others))


def tree_reduce(function, tree, initializer=_NOT_GIVEN, is_leaf=None):
    """``functools.reduce`` over the leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NOT_GIVEN:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation, tree, *, identity=_NOT_GIVEN, is_leaf=None):
    """Reduce the leaves pairwise as a balanced tree (depth log n), which is only valid
    because ``operation`` is associative; ``identity`` is needed only for no leaves."""
    def reduce(xs):
        if len(xs) == 1:
            return xs[0]
        half = len(xs) // 2
        return operation(reduce(xs[:half]), reduce(xs[half:]))

    leaves = tree_leaves(tree, is_leaf)
    if leaves:
        return reduce(leaves)
    if identity is _NOT_GIVEN:
        raise TypeError("Must specify identity for parallel reduction of empty sequence.")
    return identity


def tree_all(tree: Any, *, is_leaf=None) -> bool:
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn an outer-of-inner pytree into an inner-of-outer one (e.g. a list of pairs into
    a pair of lists). ``inner_treedef=None`` reads it from the first outer leaf."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_inner, n_outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_inner * n_outer:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return inner_treedef.unflatten(outer_treedef.unflatten(column) for column in zip(*rows))


def broadcast_prefix(prefix_tree, full_tree, is_leaf=None) -> list:
    """The leaves of ``prefix_tree``, each repeated once per leaf of the subtree of
    ``full_tree`` it stands for (how ``in_axes=0`` reaches every array of an argument)."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    subtrees, = _flatten_up_to(treedef, prefix_tree, [full_tree], is_leaf,
                               "broadcast_prefix prefix_tree")
    return [x for x, subtree in zip(leaves, subtrees)
            for _ in range(tree_structure(subtree).num_leaves)]


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` expanded to the structure of ``full_tree``."""
    return tree_structure(full_tree).unflatten(
        broadcast_prefix(prefix_tree, full_tree, is_leaf))


# ------------------------------------------------------------------ structure mismatches

def _child_keys(tree) -> tuple:
    return tuple(key for key, _ in flatten_one_level_with_keys(tree)[0])


def prefix_errors(prefix_tree, full_tree, is_leaf=None) -> list:
    """Why ``prefix_tree`` is not a prefix of ``full_tree``: a list of ``name -> ValueError``
    (the caller names the prefix tree, e.g. ``"in_axes"``)."""
    return list(_prefix_error((), prefix_tree, full_tree, is_leaf))


def _prefix_error(path, prefix, full, is_leaf):
    if _is_strict_leaf(tree_structure(prefix, is_leaf)):
        return  # a leaf is a prefix of anything
    where = keystr(path)
    if type(prefix) != type(full):
        yield lambda name: ValueError(
            "pytree structure error: different types at key path\n"
            f"    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            "but at the same key path the full pytree has a subtree of different type\n"
            f"    {type(full)}.")
        return
    prefix_children, prefix_meta = flatten_one_level(prefix)
    full_children, full_meta = flatten_one_level(full)
    prefix_children, full_children = tuple(prefix_children), tuple(full_children)
    prefix_keys, full_keys = _child_keys(prefix), _child_keys(full)
    if isinstance(prefix, (list, tuple)):
        if len(prefix) != len(full):
            kind = type(prefix).__name__
            yield lambda name: ValueError(
                f"pytree structure error: different lengths of {kind} at key path\n"
                f"    {name}{where}\n"
                f"At that key path, the prefix pytree {name} has a subtree of type "
                f"{kind} of length {len(prefix)}, but the full pytree has a subtree of "
                f"the same type but of length {len(full)}.")
            return
    elif len(prefix_children) != len(full_children):
        try:
            diff = set(prefix_keys).symmetric_difference(set(full_keys))
        except TypeError:  # unhashable keys
            diff = None
        names = lambda keys: " ".join(map(_key_name, keys))
        yield lambda name: ValueError(
            "pytree structure error: different numbers of pytree children at key path\n"
            f"    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            f"with {len(prefix_children)} child keys\n"
            f"    {names(prefix_keys)}\n"
            "but at the same key path the full pytree has a subtree of the same type but "
            f"with {len(full_children)} child keys\n"
            f"    {names(full_keys)}\n"
            + ("" if diff is None else
               f"so the symmetric difference on key sets is\n    {names(diff)}"))
        return
    if prefix_meta != full_meta:
        prefix_text, full_text = str(prefix_meta), str(full_meta)
        meta_diff = textwrap.indent("\n".join(difflib.ndiff(prefix_text.splitlines(),
                                                             full_text.splitlines())),
                                    prefix="    ")
        yield lambda name: ValueError(
            "pytree structure error: different pytree metadata at key path\n"
            f"    {name}{where}\n"
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\n"
            "with metadata\n"
            f"    {prefix_text}\n"
            "but at the same key path the full pytree has a subtree of the same type but "
            "with metadata\n"
            f"    {full_text}\n"
            "so the diff in the metadata at these pytree nodes is\n"
            f"{meta_diff}")
        return
    for key, p, f in zip(prefix_keys, prefix_children, full_children):
        yield from _prefix_error((*path, key), p, f, is_leaf)


def equality_errors(tree1, tree2, is_leaf=None):
    """Where two pytrees differ in structure: yields ``(key_path, thing1, thing2,
    explanation)``, e.g. ``((DictKey('a'),), "list of length 2", "list of length 3",
    "the lengths do not match")``, for messages like cond's and scan's."""
    yield from _equality_errors((), tree1, tree2, is_leaf)


def _equality_errors(path, t1, t2, is_leaf):
    if (_is_strict_leaf(tree_structure(t1, is_leaf))
            and _is_strict_leaf(tree_structure(t2, is_leaf))):
        return
    if type(t1) != type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        kind = type(t1).__name__
        yield (path, f"{kind} of length {len(t1)}", f"{kind} of length {len(t2)}",
               "the lengths do not match")
        return
    children1, meta1 = flatten_one_level(t1)
    children2, meta2 = flatten_one_level(t2)
    children1, children2 = tuple(children1), tuple(children2)
    keys1, keys2 = _child_keys(t1), _child_keys(t2)
    if len(children1) != len(children2):
        try:  # keys of dict-like nodes; other key types (e.g. GetAttrKey) give no detail
            diff = " ".join(repr(k.key) for k in set(keys1).symmetric_difference(set(keys2)))
        except (TypeError, AttributeError):
            diff = ""
        count = lambda n: f"{type(t1)} with {n} child{'ren' if n > 1 else ''}"
        yield (path, count(len(children1)), count(len(children2)),
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}",
               "the pytree node metadata does not match")
        return
    for key, c1, c2 in zip(keys1, children1, children2):
        yield from _equality_errors((*path, key), c1, c2, is_leaf)


class _LeafType(type):
    def __repr__(cls):
        return "pytree leaf"


class _Leaf(metaclass=_LeafType):
    """Stands for every leaf when two bare structures are compared; its type prints as
    ``pytree leaf`` in the explanation."""


def equality_errors_pytreedef(treedef1: PyTreeDef, treedef2: PyTreeDef):
    """``equality_errors`` for two structures rather than two pytrees."""
    leaf = _Leaf()
    return equality_errors(treedef1.unflatten([leaf] * treedef1.num_leaves),
                           treedef2.unflatten([leaf] * treedef2.num_leaves))


# ------------------------------------------------------------------ built-in nodes

class _HashableCallableShim:
    """Holds a ``functools.partial`` given to ``Partial`` as its function.

    ``functools.partial(partial(f, a), b)`` merges into ``partial(f, a, b)``, which would
    turn the inner, static ``a`` into a leaf. Boxing the inner partial prevents the merge;
    hash and equality go through, so the treedef still compares by the wrapped function.
    """

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """``functools.partial`` that is a pytree: the bound arguments are its leaves and the
    function is static, so a ``Partial`` can be passed into (and returned from) jit."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            func = _HashableCallableShim(func)
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]))

# OrderedDict keeps its insertion order (part of the structure), defaultdict sorts its keys
# like dict and keeps its default factory as aux data.
register_pytree_with_keys(
    collections.OrderedDict,
    lambda d: (tuple((DictKey(k), v) for k, v in d.items()), tuple(d)),
    lambda keys, values: collections.OrderedDict(zip(keys, values, strict=True)))


def _flatten_defaultdict_with_keys(d):
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _flatten_defaultdict_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values, strict=True)))
