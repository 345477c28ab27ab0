import jax
from jax.tree_util import keystr, GetAttrKey, DictKey, SequenceKey, FlattenedIndexKey
import collections
P = collections.namedtuple("P", ["x", "y"])
t = {"a": [1, P(2, 3)], "b": (4,)}
for path, leaf in jax.tree.flatten_with_path(t)[0]:
    print(keystr(path), repr(path), leaf)
print(jax.tree.flatten_with_path(t)[1])
print(jax.tree.map_with_path(lambda p, x: keystr(p) + "=" + str(x), t))
print(jax.tree_util.tree_leaves_with_path([1, {"k": 2}]))
print(keystr((DictKey("a"), SequenceKey(0), GetAttrKey("x"), FlattenedIndexKey(2))))
print(keystr((DictKey("a"), SequenceKey(0)), simple=True, separator="/"))
print(DictKey("a"), SequenceKey(1), GetAttrKey("f"), FlattenedIndexKey(3))
print(repr(DictKey(1)), repr(SequenceKey(1)), repr(GetAttrKey("f")), repr(FlattenedIndexKey(3)))
print(DictKey("a") == DictKey("a"), SequenceKey(1).idx, DictKey("z").key, GetAttrKey("q").name)
