import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class, register_pytree_node, register_static, register_dataclass, Partial
import dataclasses
import functools

@register_pytree_node_class
class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b
    def tree_flatten(self):
        return (self.a, self.b), "meta"
    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)
    def __repr__(self):
        return f"Box({self.a}, {self.b})"
b = Box(1, 2.0)
print(jax.tree.leaves(b))
print(jax.tree.structure(b))
print(jax.tree.map(lambda x: x * 3, b))
print(jax.tree.flatten_with_path(b))

@functools.partial(register_dataclass, data_fields=["x", "y"], meta_fields=["op"])
@dataclasses.dataclass
class DC:
    x: float
    y: float
    op: str
d = DC(1.0, 2.0, "add")
print(jax.tree.leaves(d))
print(jax.tree.structure(d))
print(jax.tree.flatten_with_path(d)[0])
print(jax.tree.map(lambda v: v + 1, d))

@register_dataclass
@dataclasses.dataclass
class DC2:
    u: jax.Array
    n: int = dataclasses.field(metadata=dict(static=True))
print(jax.tree.structure(DC2(jnp.ones(2), 3)))
print(jax.jit(lambda d: d.u * d.n)(DC2(jnp.ones(2), 3)))

@register_static
class S:
    def __repr__(self):
        return "S()"
print(jax.tree.leaves([S(), 1]))
print(jax.tree.structure([S(), 1]))

p = Partial(jnp.add, 1.0)
print(jax.tree.leaves(p))
print(p(2.0))
print(jax.jit(lambda f, x: f(x))(p, 3.0))
print(jax.tree.structure(Partial(jnp.multiply, 2.0, 3.0)))
