# source: docs/pytrees.md (custom pytrees and initialization; tree_util.register_static; dataclass)
import dataclasses
import functools
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class
@register_pytree_node_class
class Tree:
    def __init__(self, a):
        self.a = jnp.asarray(a)
    def tree_flatten(self):
        return (self.a,), None
    @classmethod
    def tree_unflatten(cls, aux_data, children):
        return cls(*children)
tree = Tree([1, 2, 3])
print(jax.tree.map(lambda x: x * 2, tree).a)
def f(t):
    return jax.tree.map(lambda x: x + 1, t)
print(jax.jit(f)(tree).a)
print(jax.tree.structure(tree))
@functools.partial(jax.tree_util.register_dataclass, data_fields=['a', 'b'], meta_fields=['name'])
@dataclasses.dataclass
class Params:
    a: jax.Array
    b: jax.Array
    name: str
p = Params(jnp.ones(2), jnp.zeros(2), "p")
print(jax.tree.leaves(p))
print(jax.tree.structure(p))
print(jax.jit(lambda p: p.a + p.b)(p))
print(jax.grad(lambda p: jnp.sum(p.a * 2 + p.b))(p))
print([jax.tree_util.keystr(k) for k, _ in jax.tree_util.tree_flatten_with_path(p)[0]])
@jax.tree_util.register_static
class StaticStr(str):
    pass
print(jax.tree.leaves(["x", StaticStr("y")]))
print(jax.tree.structure([StaticStr("y")]))
print(jax.jit(lambda s, x: x * len(s))(StaticStr("abc"), 2.0))
