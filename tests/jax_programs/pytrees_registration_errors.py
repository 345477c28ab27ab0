import collections, dataclasses, functools
import jax
from jax import tree_util
def show(name, fn):
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, e)
class A:
    pass
tree_util.register_pytree_node(A, lambda a: ((), None), lambda aux, ch: A())
show("dup", lambda: tree_util.register_pytree_node(A, lambda a: ((), None), lambda aux, ch: A()))
@dataclasses.dataclass
class D:
    x: int
    y: int
show("dc_missing", lambda: tree_util.register_dataclass(D, data_fields=["x"], meta_fields=[]))
show("dc_not_dc", lambda: tree_util.register_dataclass(A, data_fields=["x"], meta_fields=[]))
show("partial_noncallable", lambda: tree_util.Partial(3))
show("unflatten_too_many", lambda: tree_util.tree_unflatten(tree_util.tree_structure([1]), [1, 2]))
show("structure_none", lambda: tree_util.tree_structure(None).num_leaves)
show("leaves_none_in_dict", lambda: tree_util.tree_leaves({"a": None, "b": 1}))
show("map_none_leaf", lambda: tree_util.tree_map(lambda x: x, {"a": None, "b": 1}))
show("all_empty", lambda: tree_util.tree_all([]))
show("reduce_is_leaf", lambda: tree_util.tree_reduce(lambda a, b: a + b, [(1, 2), (3, 4)], is_leaf=lambda x: isinstance(x, tuple)))
show("map_is_leaf_tuple", lambda: tree_util.tree_map(lambda t: t[0], [(1, 2), (3, 4)], is_leaf=lambda x: isinstance(x, tuple)))
show("flatten_is_leaf", lambda: tree_util.tree_flatten({"a": [1, 2]}, is_leaf=lambda x: isinstance(x, list)))
show("keystr_nested", lambda: [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path({"a": [{"b": (1,)}]})[0]])
show("treedef_eq_nt", lambda: tree_util.tree_structure(collections.namedtuple("P", "a")(1)) == tree_util.tree_structure((1,)))
show("str_keys_sorted", lambda: tree_util.tree_structure({"b": 1, "a": 2, "c": 3}))
show("int_keys", lambda: tree_util.tree_leaves({2: "b", 1: "a"}))
