# source: docs/working-with-pytrees.md
import jax
import jax.numpy as jnp
import numpy as np
from typing import NamedTuple, Any
example_trees = [
    [1, 'a', object()],
    (1, (2, 3), ()),
    [1, {'k1': 2, 'k2': (3, 4)}, 5],
    {'a': 2, 'b': (2, 3)},
    jnp.array([1, 2, 3]),
]
for pytree in example_trees:
    leaves = jax.tree.leaves(pytree)
    print(f"{repr(pytree) if not isinstance(pytree, list) or not any(type(x) is object for x in pytree) else '[1, a, obj]':<45} has {len(leaves)} leaves")
list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
print(jax.tree.map(lambda x: x*2, list_of_lists))
another_list_of_lists = list_of_lists
print(jax.tree.map(lambda x, y: x+y, list_of_lists, another_list_of_lists))
def init_mlp_params(layer_widths):
    params = []
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append(dict(weights=np.ones((n_in, n_out)) / n_in, biases=np.ones(shape=(n_out,))))
    return params
params = init_mlp_params([1, 128, 128, 1])
print(jax.tree.map(lambda x: x.shape, params))
def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer['weights'] + layer['biases'])
    return x @ last['weights'] + last['biases']
def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)
LEARNING_RATE = 0.0001
@jax.jit
def update(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
xs = np.linspace(-1, 1, 16).reshape(-1, 1)
ys = xs ** 2
params = update(params, xs, ys)
print(jax.tree.map(lambda x: (x.shape, x.dtype), params))
print(float(loss_fn(params, xs, ys)))
class MyContainer:
    def __init__(self, name: str, a: int, b: int, c: int):
        self.name = name
        self.a = a
        self.b = b
        self.c = c
print(jax.tree.leaves([MyContainer('Alice', 1, 2, 3), MyContainer('Bob', 4, 5, 6)])[0].name)
try:
    jax.tree.map(lambda x: x + 1, [MyContainer('Alice', 1, 2, 3), MyContainer('Bob', 4, 5, 6)])
except TypeError as e:
    print(f'TypeError: {e}')
def flatten_MyContainer(container):
    flat_contents = [container.a, container.b, container.c]
    aux_data = container.name
    return flat_contents, aux_data
def unflatten_MyContainer(aux_data, flat_contents):
    return MyContainer(aux_data, *flat_contents)
jax.tree_util.register_pytree_node(MyContainer, flatten_MyContainer, unflatten_MyContainer)
print(jax.tree.leaves([MyContainer('Alice', 1, 2, 3), MyContainer('Bob', 4, 5, 6)]))
class MyOtherContainer(NamedTuple):
    name: str
    a: Any
    b: Any
    c: Any
print(jax.tree.leaves([MyOtherContainer('Alice', 1, 2, 3), MyOtherContainer('Bob', 4, 5, 6)]))
print(jax.tree.leaves([None, None, None]))
print(jax.tree.leaves([None, None, None], is_leaf=lambda x: x is None))
a_tree = [jnp.zeros((2, 3)), jnp.zeros((3, 4))]
shapes = jax.tree.map(lambda x: x.shape, a_tree)
try:
    print(jax.tree.map(jnp.ones, shapes))
except Exception as e:
    print(type(e).__name__)
print(jax.tree.map(lambda x: jnp.ones(x).shape, shapes, is_leaf=lambda x: isinstance(x, tuple) and all(isinstance(i, int) for i in x)))
def tree_transpose(list_of_trees):
    return jax.tree.map(lambda *xs: list(xs), *list_of_trees)
episode_steps = [dict(t=1, obs=3), dict(t=2, obs=4)]
print(tree_transpose(episode_steps))
print(jax.tree.transpose(outer_treedef=jax.tree.structure([0 for e in episode_steps]),
                         inner_treedef=jax.tree.structure(episode_steps[0]),
                         pytree_to_transpose=episode_steps))
