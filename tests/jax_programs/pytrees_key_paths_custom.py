import jax, collections
import jax.numpy as jnp
from jax import tree_util as tu
# key paths
P = collections.namedtuple("P", ["x", "y"])
tree = {"params": [P(1, 2), {"w": 3}], "z": (4, None)}
for kp, v in tu.tree_flatten_with_path(tree)[0]:
    print(tu.keystr(kp), tu.keystr(kp, simple=True, separator="."), v)
print(tu.tree_map_with_path(lambda kp, v: len(kp), tree))
kp, v = tu.tree_flatten_with_path(tree)[0][0]
print(kp, type(kp[0]).__name__, kp[0].key)
print(tu.tree_structure(tree).node_data() if hasattr(tu.tree_structure(tree), 'node_data') else 'nd')
class Lin:
    def __init__(self, w, b): self.w, self.b = w, b
tu.register_pytree_with_keys(Lin, lambda l: (((tu.GetAttrKey("w"), l.w), (tu.GetAttrKey("b"), l.b)), None), lambda aux, ch: Lin(*ch))
for kp, v in tu.tree_flatten_with_path([Lin(1, 2)])[0]:
    print(tu.keystr(kp), v)
print(tu.tree_structure(Lin(1, 2)))
class Other:
    def __init__(self, a): self.a = a
tu.register_pytree_node(Other, lambda o: ((o.a,), None), lambda aux, ch: Other(*ch))
for kp, v in tu.tree_flatten_with_path(Other(5))[0]:
    print(tu.keystr(kp), repr(kp))
print(tu.tree_leaves_with_path({"a": [1, 2]}))
print(jax.tree_util.keystr(()))
print(jax.tree.leaves_with_path({"q": 1}) if hasattr(jax.tree, 'leaves_with_path') else 'no')
