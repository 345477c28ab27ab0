# jit/grad/vmap with pytree arguments and outputs
import jax, collections
import jax.numpy as jnp
P = collections.namedtuple("P", ["w", "b"])
def loss(p, x):
    return jnp.sum((p.w * x + p.b) ** 2)
p = P(jnp.array([1.0, 2.0]), 0.5)
print(jax.grad(loss)(p, jnp.ones(2)))
print(jax.jit(loss)(p, jnp.ones(2)))
print(jax.make_jaxpr(loss)(p, jnp.ones(2)))
print(jax.vmap(lambda d: d["a"] * d["b"])({"a": jnp.arange(3.0), "b": jnp.ones(3)}))
print(jax.vmap(lambda d: d["a"] * d["b"], in_axes=({"a": 0, "b": None},))({"a": jnp.arange(3.0), "b": 2.0}))
g = jax.grad(lambda d: d["x"] ** 2 + d["y"][0] * 3)({"x": 2.0, "y": [1.0, 5.0]})
print(g)
print(jax.tree.map(lambda x: x.shape, {"w": jnp.ones((2, 3)), "b": jnp.ones(3)}))
print(jax.tree.reduce(jnp.add, [jnp.ones(2), jnp.ones(2) * 2]))
params = [dict(w=jnp.ones((2,)), b=jnp.zeros(())) for _ in range(2)]
print(jax.tree.map(lambda p, g: p - 0.1 * g, params, params))
print(jax.tree_util.tree_map(lambda x: x * 2, P(1, 2)))
print(jax.eval_shape(loss, p, jnp.ones(2)))
print(jax.tree.structure(jax.eval_shape(lambda: {"a": jnp.ones(2)})))
