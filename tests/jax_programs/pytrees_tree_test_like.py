# simple assertions from tests/tree_util_test.py, printed
import collections, dataclasses, functools
import jax
from jax import tree_util
import jax.numpy as jnp
def show(name, fn):
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, e)
ATuple = collections.namedtuple("ATuple", ("foo", "bar"))
class AnObject:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z
    def __eq__(self, other):
        return (self.x, self.y, self.z) == (other.x, other.y, other.z)
    def __hash__(self):
        return hash((self.x, self.y, self.z))
    def __repr__(self):
        return f"AnObject({self.x},{self.y},{self.z})"
tree_util.register_pytree_node(AnObject, lambda o: ((o.x, o.y), o.z), lambda z, xy: AnObject(xy[0], xy[1], z))
@tree_util.register_pytree_with_keys_class
class ALink:
    def __init__(self, a, b):
        self.a, self.b = a, b
    def tree_flatten_with_keys(self):
        return ((tree_util.GetAttrKey("a"), self.a), (tree_util.GetAttrKey("b"), self.b)), None
    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)
    def __repr__(self):
        return f"ALink({self.a}, {self.b})"
TREES = [(1, 2), ((1, 2), (3, 4)), [1, 2, 3], {"a": 1, "b": 2}, ATuple(1, 2), ATuple(foo=(1, 2), bar=[3]),
         AnObject(1, [2, 3], "z"), ALink(1, (2, 3)), collections.OrderedDict([("b", 1), ("a", 2)]),
         None, [None], ((), [], {}), (jnp.ones(1), 2)]
for t in TREES:
    leaves, td = tree_util.tree_flatten(t)
    print(td, len(leaves), td.num_leaves, td.num_nodes)
    print(tree_util.tree_unflatten(td, leaves) == t if not isinstance(t, tuple) or not t or not hasattr(t[0], 'shape') else "arr")
    print([tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(t)[0]])
print(tree_util.tree_map(lambda x: x * 2, AnObject(1, 2, "q")))
print(tree_util.tree_map(lambda x: x * 2, ALink(1, 2)))
show("unflatten_few", lambda: tree_util.tree_unflatten(tree_util.tree_structure((1, 2, 3)), [1, 2]))
show("flatten_up_to", lambda: tree_util.tree_structure((1, [2, 3])).flatten_up_to((1, 2)))
show("flatten_up_to_dict", lambda: tree_util.tree_structure({"a": 1}).flatten_up_to({"b": 1}))
show("map_custom", lambda: tree_util.tree_map(lambda x, y: x, AnObject(1, 2, "z"), AnObject(1, 2, "w")))
show("map_nt", lambda: tree_util.tree_map(lambda x, y: x, ATuple(1, 2), ATuple(1, (2, 3))))
show("compose", lambda: tree_util.tree_structure((1, 2)).compose(tree_util.tree_structure([1, 1])) if hasattr(tree_util.tree_structure(1), 'compose') else None)
show("children", lambda: tree_util.tree_structure({"a": (1, 2), "b": 3}).children())
show("node_data", lambda: tree_util.tree_structure(ATuple(1, 2)).node_data())
show("treedef_tuple", lambda: tree_util.treedef_tuple([tree_util.tree_structure(1), tree_util.tree_structure([1, 2])]))
show("treedef_children", lambda: tree_util.treedef_children(tree_util.tree_structure((1, [2]))))
show("mixed_keys", lambda: tree_util.tree_structure({1: 1, "a": 2}))
show("partial_eq", lambda: tree_util.Partial(jnp.sin) == tree_util.Partial(jnp.sin))
