"""equinox across devices and its debugging tools: filter_pmap, filter_shard under a
mesh, RMSNorm and rotary embeddings, debug.assert_max_traces, debug.announce_transform
(a primitive lowered with mlir.lower_fun and batched by the old rule table),
and filter_jit donation. (Not announce_transform under grad: JAX's linearize of a
primitive without a linearize rule runs its abstract evaluation twice, glassjax's once,
so the announcements differ; values do not.)"""
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


lin = eqx.nn.Linear(3, 2, key=jax.random.key(0))
xs = jnp.linspace(-1.0, 1.0, 24, dtype=jnp.float32).reshape(8, 3)
print("pmap", r(eqx.filter_pmap(lin)(xs)))

mesh = jax.make_mesh((8,), ("d",), axis_types=(jax.sharding.AxisType.Auto,))
sharded = eqx.filter_shard(xs, NamedSharding(mesh, P("d")))
print("shard", sharded.sharding.spec, r(eqx.filter_jit(jax.vmap(lin))(sharded)[:2]))

norm = eqx.nn.RMSNorm(4)
rope = eqx.nn.RotaryPositionalEmbedding(4)
q = jnp.sin(jnp.arange(12, dtype=jnp.float32)).reshape(3, 4)
print("rmsnorm", r(jax.vmap(norm)(q)))
print("rope", r(rope(q)))


@eqx.filter_jit
@eqx.debug.assert_max_traces(max_traces=1)
def twice(x):
    return x * 2


twice(xs)
twice(xs + 1)
try:
    twice(xs[:2])
except RuntimeError as e:
    print("assert_max_traces:", "max_traces" in str(e) or "traced" in str(e))


def f(x):
    x = eqx.debug.announce_transform(x, name="here", announce=lambda s: print("announce", s))
    return jnp.sin(x).sum()


print("announce vmap", r(jax.vmap(f)(jnp.arange(2.0))))


@eqx.filter_jit(donate="all")
def update(params, g):
    return jax.tree.map(lambda p, gg: p - 0.1 * gg, params, g)


params = {"w": jnp.ones(3), "b": jnp.zeros(3)}
print("donate", jax.tree.map(r, update(params, {"w": jnp.ones(3), "b": jnp.ones(3)})))
print(jax.make_jaxpr(jax.vmap(f))(jnp.arange(2.0)))
