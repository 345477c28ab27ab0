import jax
import collections
def run(name, f):
    try:
        print(name, f())
    except Exception as e:
        print(name, type(e).__name__, str(e))
run("map_len", lambda: jax.tree.map(lambda x, y: x + y, [1, 2], [1, 2, 3]))
run("map_type", lambda: jax.tree.map(lambda x, y: x + y, [1, 2], (1, 2)))
run("map_keys", lambda: jax.tree.map(lambda x, y: x + y, {"a": 1}, {"b": 1}))
run("map_none", lambda: jax.tree.map(lambda x, y: x + y, [1, None], [1, 2]))
run("unflatten", lambda: jax.tree.unflatten(jax.tree.structure([1, 2]), [1]))
run("transpose", lambda: jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure((0, 0)), [(1, 2, 3), (4, 5, 6)]))
run("reduce_empty", lambda: jax.tree.reduce(lambda a, b: a + b, []))
P = collections.namedtuple("P", "a b")
run("nt_vs_tuple", lambda: jax.tree.map(lambda x, y: x, P(1, 2), (1, 2)))
run("dict_vs_list", lambda: jax.tree.map(lambda x, y: x, {"a": 1}, [1]))
run("nested", lambda: jax.tree.map(lambda x, y: x, [1, (2, 3)], [1, (2, 3, 4)]))
