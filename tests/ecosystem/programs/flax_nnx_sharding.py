"""nnx over a device mesh: parameters annotated with nnx.with_partitioning, sharded by
nnx.get_partition_spec under jax.set_mesh, a jitted train step with
with_sharding_constraint, nnx.shard_map and nnx.pmap-free data parallelism."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


mesh = jax.make_mesh((4, 2), ("data", "model"),
                     axis_types=(jax.sharding.AxisType.Auto,) * 2)


class MLP(nnx.Module):
    def __init__(self, rngs):
        init = nnx.initializers.lecun_normal()
        self.w1 = nnx.Param(nnx.with_partitioning(init, (None, "model"))(
            rngs.params(), (4, 8)))
        self.w2 = nnx.Param(nnx.with_partitioning(init, ("model", None))(
            rngs.params(), (8, 2)))

    def __call__(self, x):
        h = jax.lax.with_sharding_constraint(jnp.tanh(x @ self.w1[...]),
                                             NamedSharding(mesh, P("data", "model")))
        return h @ self.w2[...]


with jax.set_mesh(mesh):
    model = MLP(nnx.Rngs(0))
    state = nnx.state(model)
    specs = nnx.get_partition_spec(state)
    print(specs)
    sharded = jax.lax.with_sharding_constraint(state, specs)
    nnx.update(model, sharded)
    print("w1", model.w1[...].sharding.spec, "w2", model.w2[...].sharding.spec)
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
    x = jax.device_put(jnp.linspace(-1.0, 1.0, 32, dtype=jnp.float32).reshape(8, 4),
                       NamedSharding(mesh, P("data", None)))
    y = jnp.sum(x, axis=1, keepdims=True) * jnp.ones((1, 2))

    @nnx.jit
    def step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
        optimizer.update(model, grads)
        return loss

    for i in range(5):
        print(i, r(step(model, optimizer, x, y)))
    print("w1 after", model.w1[...].sharding.spec)

    @jax.shard_map(in_specs=P("data"), out_specs=P(), mesh=mesh)
    def total(v):
        return jax.lax.psum(v.sum(), "data")

    print("shard_map", r(total(x)))
