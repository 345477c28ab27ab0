import jax, collections, dataclasses, functools
import jax.numpy as jnp
from jax import tree_util as tu
print(tu.tree_structure([1, [2, 3]]) )
print(repr(tu.tree_structure({"a": (1, 2)})))
print(str(tu.tree_structure(collections.OrderedDict([("b", 1), ("a", 2)]))))
dd = collections.defaultdict(int, {"x": 1})
print(tu.tree_structure(dd))
print(tu.tree_unflatten(tu.tree_structure(dd), [5]))
print(tu.tree_flatten(dd))
print(tu.tree_leaves([[], (), {}, None]))
print(tu.tree_structure([[], (), {}, None]))
print(tu.tree_map(lambda x: x + 1, {"b": 1, "a": 2}))
print(tu.tree_map(lambda x, y: (x, y), (1, 2), (3, [4])))
print(tu.tree_structure((1, 2)) == tu.tree_structure([1, 2]))
print(hash(tu.tree_structure((1, 2))) == hash(tu.tree_structure((3, 4))))
print(tu.tree_structure(jnp.ones(3)).num_leaves)
print(jax.tree.map(lambda *xs: sum(xs), [1, 2], [3, 4], [5, 6]))
print(jax.tree.leaves({"a": jnp.arange(2), "b": [jnp.ones(1)]}))
try:
    tu.tree_unflatten(tu.tree_structure([1, 2]), [1, 2, 3])
except Exception as e:
    print(type(e).__name__, e)
try:
    jax.tree.map(lambda x, y: x, {"a": 1, "b": 2}, {"a": 1, "c": 2})
except Exception as e:
    print(type(e).__name__, e)
try:
    jax.tree.map(lambda x, y: x, [1, 2], {"a": 1})
except Exception as e:
    print(type(e).__name__, e)
try:
    jax.tree.map(lambda x, y: x, (1, [2]), (1, (2,)))
except Exception as e:
    print(type(e).__name__, e)
