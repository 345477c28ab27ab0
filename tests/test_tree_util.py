"""Pytrees (glassjax.tree_util, glassjax.tree) against what JAX 0.10.2 prints.

Every expected string below was printed by real JAX 0.10.2 for the same code.
"""
import collections
import dataclasses
import functools
import operator
import pickle
from typing import NamedTuple

import pytest
from jaxlib._jax import pytree

from glassjax import tree, tree_util
from glassjax.tree_util import (DictKey, FlattenedIndexKey, GetAttrKey, Partial, SequenceKey,
                                keystr)

Point = collections.namedtuple("Point", ["x", "y"])


class NT(NamedTuple):
    x: int
    y: int


class Special:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Special(x={self.x}, y={self.y})"


class RegisteredSpecial(Special):
    def __repr__(self):
        return f"RegisteredSpecial(x={self.x}, y={self.y})"


tree_util.register_pytree_node(RegisteredSpecial, lambda s: ((s.x, s.y), None),
                               lambda _, children: RegisteredSpecial(*children))


class Box:
    """A node whose aux data (the tag) is part of the structure."""

    def __init__(self, value, tag):
        self.value, self.tag = value, tag

    def __repr__(self):
        return f"Box({self.value}, {self.tag})"


tree_util.register_pytree_node(Box, lambda b: ((b.value,), b.tag),
                               lambda tag, children: Box(children[0], tag))


@tree_util.register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), "pair-aux"

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tree_util.register_pytree_with_keys_class
class Keyed:
    def __init__(self, *values):
        self.values = values

    def tree_flatten_with_keys(self):
        return tuple((GetAttrKey(f"v{i}"), v) for i, v in enumerate(self.values)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def __repr__(self):
        return f"Keyed{self.values}"


@tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
    w: int
    b: int
    act: str = tree.static(default="relu")


@tree_util.register_static
class StaticName(str):
    pass


# ------------------------------------------------------------------ structure and printing

@pytest.mark.parametrize("value, expected", [
    (1, "PyTreeDef(*)"),
    ((1,), "PyTreeDef((*,))"),
    ([1, 2], "PyTreeDef([*, *])"),
    ((1, (2, 3)), "PyTreeDef((*, (*, *)))"),
    ([1, 2, (3, 4)], "PyTreeDef([*, *, (*, *)])"),
    ({"b": 1, "a": [2, 3]}, "PyTreeDef({'a': [*, *], 'b': *})"),
    ({1: "a", 0: "b"}, "PyTreeDef({0: *, 1: *})"),
    (NT(1, 2), "PyTreeDef(CustomNode(namedtuple[NT], [*, *]))"),
    (Point(1, (2, 3)), "PyTreeDef(CustomNode(namedtuple[Point], [*, (*, *)]))"),
    (None, "PyTreeDef(None)"),
    ([None, 1], "PyTreeDef([None, *])"),
    ({"k": None}, "PyTreeDef({'k': None})"),
    ([1, None, [], (), {}, [None]], "PyTreeDef([*, None, [], (), {}, [None]])"),
    (collections.OrderedDict(z=1, a=2), "PyTreeDef(CustomNode(OrderedDict[('z', 'a')], [*, *]))"),
    (collections.defaultdict(list, {"b": 1, "a": 2}),
     "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))"),
    (collections.defaultdict(int), "PyTreeDef(CustomNode(defaultdict[(<class 'int'>, ())], []))"),
    (RegisteredSpecial(0, 1), "PyTreeDef(CustomNode(RegisteredSpecial[None], [*, *]))"),
    ([Pair(1, (2, 3)), None], "PyTreeDef([CustomNode(Pair[pair-aux], [*, (*, *)]), None])"),
    (Keyed(1, 2), "PyTreeDef(CustomNode(Keyed[None], [*, *]))"),
    (Layer(1, 2), "PyTreeDef(CustomNode(Layer[('relu',)], [*, *]))"),
    ([StaticName("a"), 1], "PyTreeDef([CustomNode(StaticName[a], []), *])"),
    (Special(0, 1), "PyTreeDef(*)"),
])
def test_structure_prints_like_jax(value, expected):
    assert str(tree.structure(value)) == expected
    assert repr(tree_util.tree_structure(value)) == expected


def test_flatten_and_unflatten_roundtrip():
    leaves, treedef = tree_util.tree_flatten((1.0, {"b": 2.0, "a": 3.0}))
    assert leaves == [1.0, 3.0, 2.0]  # dict keys are sorted
    assert tree_util.tree_unflatten(treedef, leaves) == (1.0, {"a": 3.0, "b": 2.0})
    assert tree.flatten(None) == ([], tree.structure(None))
    assert tree.unflatten(tree.structure(Point(1, 2)), [3, 4]) == Point(3, 4)
    assert tree.unflatten(tree.structure({"a": (1, 2)}), iter([7, 8])) == {"a": (7, 8)}
    layer = tree.unflatten(tree.structure(Layer(1, 2, "tanh")), [5, 6])
    assert (layer.w, layer.b, layer.act) == (5, 6, "tanh")


def test_unregistered_objects_are_leaves():
    specials = [Special(0, 1), Special(2, 4)]
    assert tree.leaves(specials) == specials
    with pytest.raises(TypeError):
        tree.map(lambda x: x + 1, specials)
    assert repr(tree.map(lambda x: x + 1, [RegisteredSpecial(0, 1), RegisteredSpecial(2, 4)])) \
        == "[RegisteredSpecial(x=1, y=2), RegisteredSpecial(x=3, y=5)]"


def test_is_leaf():
    flat, treedef = tree.flatten([1, None, (2,)], is_leaf=lambda x: x is None)
    assert flat == [1, None, 2] and str(treedef) == "PyTreeDef([*, *, (*,)])"
    assert tree.leaves([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple)) == [(1, 2), 3]


def test_unflatten_with_wrong_number_of_leaves():
    treedef = tree.structure([1, 2])
    with pytest.raises(ValueError, match=r"^Too few leaves for PyTreeDef; expected 2, got 1$"):
        tree_util.tree_unflatten(treedef, [1])
    with pytest.raises(ValueError, match=r"^Too many leaves for PyTreeDef; expected 2\.$"):
        tree_util.tree_unflatten(treedef, [1, 2, 3])


def test_treedef_helpers():
    treedef = tree.structure([(1, 2), 3, {"a": 4}])
    assert str(tree_util.treedef_children(treedef)) == \
        "[PyTreeDef((*, *)), PyTreeDef(*), PyTreeDef({'a': *})]"
    pair = tree_util.treedef_tuple([tree.structure([1]), tree.structure({"a": 1})])
    assert str(pair) == "PyTreeDef(([*], {'a': *}))"
    assert pair == tree.structure(([0], {"a": 0}))
    assert str(tree_util.treedef_tuple([])) == "PyTreeDef(())"
    # JAX counts any single-node structure as a leaf, None and [] included.
    assert [tree_util.treedef_is_leaf(tree.structure(v)) for v in (1, None, [], [1])] == \
        [True, True, True, False]
    assert (treedef.num_leaves, treedef.num_nodes) == (4, 7)
    assert tree.structure(1) == tree.structure("x")
    assert tree.structure([1]) != tree.structure((1,))


def test_treedef_pickles_and_hashes():
    treedef = tree.structure({"a": [1, (2, 3)], "b": None})
    again = pickle.loads(pickle.dumps(treedef))
    assert again == treedef and str(again) == "PyTreeDef({'a': [*, (*, *)], 'b': None})"
    assert hash(treedef) == hash(tree.structure({"a": [4, (5, 6)], "b": None}))


def test_all_leaves_and_one_level():
    assert tree_util.all_leaves([1, 2])
    assert not tree_util.all_leaves([[1]])
    assert not tree_util.all_leaves([None])
    assert tree_util.all_leaves([(1,)], is_leaf=lambda x: isinstance(x, tuple))
    assert tree_util.is_tree_node(list) and not tree_util.is_tree_node(int)
    assert tree_util.flatten_one_level({"a": [1, 2], "b": {"c": 3}}) == \
        (([1, 2], {"c": 3}), ("a", "b"))
    assert repr(tree_util.flatten_one_level_with_keys({"a": 1})) == \
        "(((DictKey(key='a'), 1),), ('a',))"
    with pytest.raises(ValueError, match=r"^can't tree-flatten type: <class 'int'>$"):
        tree_util.flatten_one_level(1)


def test_uses_jaxlibs_registry_and_types():
    assert tree_util.default_registry is pytree.default_registry()
    assert tree_util.PyTreeDef is pytree.PyTreeDef
    assert str(tree_util.PyTreeDef) == "<class 'jaxlib._jax.pytree.PyTreeDef'>"
    with pytest.raises(ValueError) as info:
        tree_util.register_pytree_node(Box, lambda b: ((), None), lambda _, __: Box(0, 0))
    assert str(info.value) == f"Duplicate custom PyTreeDef type registration for {Box}."


def test_jax_tree_namespace():
    assert set(dir(tree)) >= {"all", "broadcast", "flatten", "flatten_with_path", "leaves",
                      "leaves_with_path", "map", "map_with_path", "reduce",
                      "reduce_associative", "static", "structure", "transpose", "unflatten"}


# ------------------------------------------------------------------ key paths

def test_key_entries_print_like_jax():
    keys = (DictKey("a"), SequenceKey(1), GetAttrKey("x"), FlattenedIndexKey(3))
    assert [repr(k) for k in keys] == ["DictKey(key='a')", "SequenceKey(idx=1)",
                                       "GetAttrKey(name='x')", "FlattenedIndexKey(key=3)"]
    assert keystr(keys) == "['a'][1].x[<flat index 3>]"
    assert keystr(keys, simple=True, separator="/") == "a/1/x/3"
    assert keystr(()) == ""
    assert keystr((DictKey(1), DictKey("1"))) == "[1]['1']"
    assert keystr(("x", 1), separator=".") == "x.1"


def test_flatten_with_path():
    ATuple = collections.namedtuple("ATuple", ("name",))
    flat, _ = tree_util.tree_flatten_with_path([1, {"k1": 2, "k2": (3, 4)}, ATuple("foo")])
    assert [f"tree{keystr(p)}: {v}" for p, v in flat] == [
        "tree[0]: 1", "tree[1]['k1']: 2", "tree[1]['k2'][0]: 3", "tree[1]['k2'][1]: 4",
        "tree[2].name: foo"]
    assert repr(flat[2][0]) == "(SequenceKey(idx=1), DictKey(key='k2'), SequenceKey(idx=0))"
    assert repr(tree.flatten_with_path(Point(1, {"b": (2,)}))) == (
        "([((GetAttrKey(name='x'),), 1), ((GetAttrKey(name='y'), DictKey(key='b'), "
        "SequenceKey(idx=0)), 2)], PyTreeDef(CustomNode(namedtuple[Point], [*, {'b': (*,)}])))")


@pytest.mark.parametrize("value, expected", [
    (Box(1, "t"), "[((FlattenedIndexKey(key=0),), 1)]"),
    (Keyed(1, 2), "[((GetAttrKey(name='v0'),), 1), ((GetAttrKey(name='v1'),), 2)]"),
    (Layer(1, 2), "[((GetAttrKey(name='w'),), 1), ((GetAttrKey(name='b'),), 2)]"),
    (collections.OrderedDict(z=1, a=2), "[((DictKey(key='z'),), 1), ((DictKey(key='a'),), 2)]"),
    (collections.defaultdict(list, {"b": 1, "a": 2}),
     "[((DictKey(key='a'),), 2), ((DictKey(key='b'),), 1)]"),
    (StaticName("s"), "[]"),
])
def test_key_paths_of_registered_nodes(value, expected):
    assert repr(tree.leaves_with_path(value)) == expected


def test_is_leaf_with_path():
    assert repr(tree.leaves_with_path({"a": [1]}, is_leaf=lambda p, x: len(p) == 1,
                                      is_leaf_takes_path=True)) == "[((DictKey(key='a'),), [1])]"
    assert repr(tree.leaves_with_path([1, [2]], is_leaf=lambda x: isinstance(x, list)
                                      and len(x) == 1)) == \
        "[((SequenceKey(idx=0),), 1), ((SequenceKey(idx=1),), [2])]"


def test_map_with_path():
    assert tree.map_with_path(lambda path, x: x + path[0].idx, [1, 2, 3]) == [1, 3, 5]
    assert repr(tree.map_with_path(lambda p, x: keystr(p), Keyed(1, [2]))) == \
        "Keyed('.v0', ['.v1[0]'])"
    assert tree_util.tree_map_with_path(lambda p, x, y: (keystr(p), x + y), {"a": 1}, {"a": 2}) \
        == {"a": ("['a']", 3)}


# ------------------------------------------------------------------ map, reduce, transpose

def test_map():
    lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    assert tree.map(lambda x: x * 2, lists) == [[2, 4, 6], [2, 4], [2, 4, 6, 8]]
    assert tree.map(lambda x, y: x + y, lists, lists) == [[2, 4, 6], [2, 4], [2, 4, 6, 8]]
    # Later trees need only have the first one as a prefix.
    assert tree.map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == [[5, 7, 9], [6, 1, 2]]
    assert tree.map(lambda x, y: (x, y), [1, (2, 3)], [[1], (4, 5, 6)],
                    is_leaf=lambda x: isinstance(x, tuple)) == [(1, [1]), ((2, 3), (4, 5, 6))]
    assert tree.map(lambda x: -x, collections.OrderedDict(b=1, a=2)) == \
        collections.OrderedDict([("b", -1), ("a", -2)])
    mapped = tree.map(lambda x: -x, collections.defaultdict(int, {"b": 1, "a": 2}))
    assert repr(mapped) == "defaultdict(<class 'int'>, {'a': -2, 'b': -1})"
    assert tree.map(lambda x: x + 1, (1, None)) == (2, None)


_SEP = "At that key path, the prefix pytree tree_map tree has a subtree of "


@pytest.mark.parametrize("first, second, message", [
    ([1, 2], [1, 2, 3],
     "pytree structure error: different lengths of list at key path\n    tree_map tree\n"
     + _SEP + "type list of length 2, but the full pytree has a subtree of the same type but "
     "of length 3."),
    ((1, (2, 3)), (1, 2),
     "pytree structure error: different types at key path\n    tree_map tree[1]\n"
     + _SEP + "type\n    <class 'tuple'>\nbut at the same key path the full pytree has a "
     "subtree of different type\n    <class 'int'>."),
    ({"a": [1]}, {"a": (1,)},
     "pytree structure error: different types at key path\n    tree_map tree['a']\n"
     + _SEP + "type\n    <class 'list'>\nbut at the same key path the full pytree has a "
     "subtree of different type\n    <class 'tuple'>."),
    ({"a": 1, "b": 2}, {"a": 1},
     "pytree structure error: different numbers of pytree children at key path\n"
     "    tree_map tree\n" + _SEP + "type\n    <class 'dict'>\nwith 2 child keys\n    a b\n"
     "but at the same key path the full pytree has a subtree of the same type but with 1 "
     "child keys\n    a\nso the symmetric difference on key sets is\n    b"),
    ({"a": 1}, {"b": 1},
     "pytree structure error: different pytree metadata at key path\n    tree_map tree\n"
     + _SEP + "type\n    <class 'dict'>\nwith metadata\n    ('a',)\nbut at the same key path "
     "the full pytree has a subtree of the same type but with metadata\n    ('b',)\n"
     "so the diff in the metadata at these pytree nodes is\n    - ('a',)\n    ?   ^\n\n"
     "    + ('b',)\n    ?   ^\n"),
    (Box(1, "t"), Box(2, "u"),
     "pytree structure error: different pytree metadata at key path\n    tree_map tree\n"
     + _SEP + f"type\n    {Box}\nwith metadata\n    t\nbut at the same "
     "key path the full pytree has a subtree of the same type but with metadata\n    u\n"
     "so the diff in the metadata at these pytree nodes is\n    - t\n    + u"),
    ([None], [1],
     "pytree structure error: different types at key path\n    tree_map tree[0]\n"
     + _SEP + "type\n    <class 'NoneType'>\nbut at the same key path the full pytree has a "
     "subtree of different type\n    <class 'int'>."),
])
def test_map_structure_mismatch_messages(first, second, message):
    with pytest.raises(ValueError) as info:
        tree.map(lambda *xs: xs, first, second)
    assert str(info.value) == message


def test_map_with_path_mismatch_message():
    with pytest.raises(ValueError) as info:
        tree_util.tree_map_with_path(lambda p, x, y: x, [1, 2], [1, 2, 3])
    assert str(info.value) == (
        "pytree structure error: different lengths of list at key path\n"
        "    tree_map_with_path tree\nAt that key path, the prefix pytree tree_map_with_path "
        "tree has a subtree of type list of length 2, but the full pytree has a subtree of "
        "the same type but of length 3.")


def test_reduce_and_all():
    assert tree.reduce(operator.add, [1, (2, 3)], 10) == 16
    assert tree.reduce(operator.add, [[1], {"a": 2}]) == 3
    assert tree.reduce(operator.add, [], 5) == 5
    assert tree.reduce(operator.add, [(1, 2)], is_leaf=lambda x: isinstance(x, tuple)) == (1, 2)
    with pytest.raises(TypeError, match=r"^reduce\(\) of empty iterable with no initial value$"):
        tree.reduce(operator.add, [])
    # Associative reduction pairs up halves, as JAX does.
    assert tree.reduce_associative(lambda a, b: f"({a}+{b})", [1, 2, 3, 4, 5]) == \
        "((1+2)+(3+(4+5)))"
    assert tree.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]]) == 21
    assert tree.reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match=r"^Must specify identity for parallel reduction of "
                                        r"empty sequence\.$"):
        tree.reduce_associative(operator.add, [])
    assert tree.all([1, [True, None]]) and tree.all([]) and not tree.all([True, (1, 0)])
    assert tree.all([False], is_leaf=lambda x: isinstance(x, list))


def test_transpose():
    outer, inner = tree.structure([0, 0]), tree.structure((0, 0))
    assert tree.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tree.transpose(tree.structure([0, 0, 0]), None,
                          [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]) == \
        {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tree.transpose(tree.structure((0, 0)), tree.structure([]), ([], [])) == []
    with pytest.raises(TypeError) as info:
        tree.transpose(outer, inner, [(1, 2), (3, 4, 5)])
    assert str(info.value) == \
        "Mismatch\nPyTreeDef([(*, *), (*, *, *)])\n != \nPyTreeDef([(*, *), (*, *)])"


def test_broadcast():
    assert tree.broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == \
        (1, {"a": 2, "b": 2}, (3, 3))
    assert tree.broadcast([1, {"k": 2}], [(0, 0), {"k": {"m": 0, "n": [0, 0]}}]) == \
        [(1, 1), {"k": {"m": 2, "n": [2, 2]}}]
    assert tree.broadcast([None, 1], [(0, 0), 0], is_leaf=lambda x: x is None) == \
        [(None, None), 1]
    assert tree_util.broadcast_prefix([None, 1], [(0, 0), 0], is_leaf=lambda x: x is None) == \
        [None, None, 1]
    with pytest.raises(ValueError) as info:
        tree.broadcast((1, 2), (0, 0, 0))
    assert str(info.value) == (
        "pytree structure error: different lengths of tuple at key path\n"
        "    broadcast_prefix prefix_tree\nAt that key path, the prefix pytree "
        "broadcast_prefix prefix_tree has a subtree of type tuple of length 2, but the full "
        "pytree has a subtree of the same type but of length 3.")


# ------------------------------------------------------------------ structure comparisons

@pytest.mark.parametrize("first, second, errors", [
    ([1, 2], [1, [2, 3]],
     "[((SequenceKey(idx=1),), \"<class 'int'>\", \"<class 'list'>\", "
     "'their Python types differ')]"),
    (Point(1, 2), (1, 2),
     f"[((), \"{Point}\", \"<class 'tuple'>\", "
     "'their Python types differ')]"),
    ([[1, 2]], [[1, 2, 3]],
     "[((SequenceKey(idx=0),), 'list of length 2', 'list of length 3', "
     "'the lengths do not match')]"),
    ((1, {"a": 1}), (1, {"a": 1, "b": {}}),
     "[((SequenceKey(idx=1),), \"<class 'dict'> with 1 child\", \"<class 'dict'> with 2 "
     "children\", \"the numbers of children do not match, with the symmetric difference of "
     "key sets: {'b'}\")]"),
    (Keyed(1, 2), Keyed(1, 2, 3),
     f"[((), \"{Keyed} with 2 children\", \"{Keyed} with 3 children\", "
     "'the numbers of children do not match')]"),
    (collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=1, a=2),
     "[((), \"<class 'collections.OrderedDict'> with pytree metadata ('a', 'b')\", \"<class "
     "'collections.OrderedDict'> with pytree metadata ('b', 'a')\", 'the pytree node metadata "
     "does not match')]"),
    ([1, (2,)], [3, (4,)], "[]"),
])
def test_equality_errors(first, second, errors):
    assert repr(list(tree_util.equality_errors(first, second))) == errors


def test_equality_errors_of_treedefs_name_leaves():
    errors = tree_util.equality_errors_pytreedef(tree.structure([1, None]),
                                                 tree.structure([[1], 2]))
    assert repr(list(errors)) == (
        "[((SequenceKey(idx=0),), 'pytree leaf', \"<class 'list'>\", "
        "'their Python types differ'), ((SequenceKey(idx=1),), \"<class 'NoneType'>\", "
        "'pytree leaf', 'their Python types differ')]")


def test_prefix_errors_are_named_by_the_caller():
    error, = tree_util.prefix_errors({"a": [1]}, {"a": (1,)})
    assert str(error("in_axes")) == (
        "pytree structure error: different types at key path\n    in_axes['a']\n"
        "At that key path, the prefix pytree in_axes has a subtree of type\n"
        "    <class 'list'>\nbut at the same key path the full pytree has a subtree of "
        "different type\n    <class 'tuple'>.")
    assert tree_util.prefix_errors(0, {"a": [1]}) == []


# ------------------------------------------------------------------ registration helpers

def test_register_dataclass_validation():
    @dataclasses.dataclass
    class D:
        x: int
        y: int = dataclasses.field(init=False, default=0)

    with pytest.raises(ValueError) as info:
        tree_util.register_dataclass(D)
    assert str(info.value) == ("data_fields and meta_fields must include all dataclass fields "
                               "with ``init=True`` and only them. Unexpected fields: {'y'}.")
    with pytest.raises(TypeError) as info:
        tree_util.register_dataclass(D, data_fields=["x"])
    assert str(info.value) == (
        "register_dataclass: data_fields and meta_fields must both be specified when either "
        "is specified. Got data_fields=['x'] meta_fields=None.")
    with pytest.raises(ValueError, match=r"Overlapping fields: \{'x'\}\.$"):
        tree_util.register_dataclass(D, data_fields=["x"], meta_fields=["x"])

    class NotADataclass:
        def __init__(self, x, op):
            self.x, self.op = x, op

    with pytest.raises(TypeError, match="^register_dataclass: data_fields and meta_fields are "
                                        "required when nodetype is not a dataclass"):
        tree_util.register_dataclass(NotADataclass)
    tree_util.register_dataclass(NotADataclass, data_fields=["x"], meta_fields=["op"])
    value = NotADataclass(1, "add")
    assert str(tree.structure(value)) == "PyTreeDef(CustomNode(NotADataclass[('add',)], [*]))"
    assert tree.map(lambda v: v + 1, value).x == 2


def test_register_dataclass_drop_fields_and_static():
    @functools.partial(tree_util.register_dataclass, data_fields=["x"], meta_fields=["z"],
                       drop_fields=["y"])
    @dataclasses.dataclass
    class E:
        x: int
        y: int = 5
        z: str = tree.static(default="q", metadata={"m": 1})

    assert str(tree.structure(E(1))) == "PyTreeDef(CustomNode(E[('q',)], [*]))"
    assert dict(dataclasses.fields(E)[2].metadata) == {"static": True, "m": 1}


# ------------------------------------------------------------------ Partial

def _f(a, b, c=0):
    return a * 100 + b * 10 + c


def test_partial_is_a_pytree():
    add = Partial(_f, 1, c=3)
    assert tree.leaves(add) == [1, 3]
    assert str(tree.structure(add)).startswith(
        "PyTreeDef(CustomNode(Partial[<function _f at 0x")
    assert str(tree.structure(add)).endswith(">], [(*,), {'c': *}]))")
    shifted = tree.map(lambda x: x * 10, add)
    assert isinstance(shifted, Partial) and shifted(2) == 1050
    assert repr(Partial(_f)).startswith("Partial(<function _f")


def test_partial_of_a_partial_keeps_inner_arguments_static():
    nested = Partial(functools.partial(_f, 1), 2, c=3)
    assert type(nested).__name__ == "Partial"
    assert (tree.leaves(nested), nested(), tree.map(lambda x: x + 1, nested)()) == \
        ([2, 3], 123, 134)
    assert str(tree.structure(nested)).startswith(
        "PyTreeDef(CustomNode(Partial[_HashableCallableShim(functools.partial(<function _f")
    assert tree.leaves(Partial(Partial(_f, 1), 2)) == [2]
    assert Partial(Partial(_f, 1), 2)() == 120
