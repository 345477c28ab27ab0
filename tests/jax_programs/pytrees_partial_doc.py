# source: docs/pytrees (tree_util.Partial docstring example)
import jax, jax.numpy as jnp
from jax.tree_util import Partial
add_one = Partial(jnp.add, 1)
print(add_one)
print(repr(add_one))
print(add_one(2))
def call_func(f, *args):
  return f(*args)
print(jax.jit(call_func)(add_one, 2))
print(jax.tree.leaves(add_one), jax.tree.structure(add_one))
print(Partial(jnp.add, 1.0, 2.0)())
p = Partial(lambda x, y=1: x + y, y=3)
print(jax.tree.leaves(p), p.keywords, p.args)
print(jax.tree.structure(Partial(jnp.add)))
