"""nnx with linen and serialization: nnx.bridge (a linen module inside nnx), nnx.Sequential,
an Optimizer over an optax chain, nnx.custom_vjp, nnx.while_loop, nnx.jit with static
arguments, flax.serialization round trip, nnx.graphdef printing."""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn
from flax import nnx, serialization
from flax.nnx import bridge


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


x = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(4, 3)
wrapped = bridge.ToNNX(nn.Dense(5), rngs=nnx.Rngs(0))
bridge.lazy_init(wrapped, x)
model = nnx.Sequential(wrapped, nnx.gelu, nnx.Linear(5, 2, rngs=nnx.Rngs(1)))
print("sequential", r(model(x)))

optimizer = nnx.Optimizer(model, optax.chain(optax.clip_by_global_norm(1.0),
                                             optax.adamw(1e-2)), wrt=nnx.Param)


@nnx.jit(static_argnames="power")
def step(model, optimizer, power):
    def loss(m):
        return jnp.mean(jnp.abs(m(x)) ** power)
    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value


for i in range(5):
    print(i, r(step(model, optimizer, power=2)))
print("power 3", r(step(model, optimizer, power=3)))


@nnx.custom_vjp
def scale(m, v):
    return m.kernel[...].sum() * v


def scale_fwd(m, v):
    return scale(m, v), (m, v)


def scale_bwd(res, g):
    (m_g, _), out_g = res, g
    m, v = m_g
    return (nnx.State({"kernel": jnp.ones_like(m.kernel[...]) * v * out_g}), 0.0), 7.0 * out_g


scale.defvjp(scale_fwd, scale_bwd)
lin = nnx.Linear(2, 2, use_bias=False, rngs=nnx.Rngs(2))
print("custom_vjp", r(scale(lin, 3.0)))


@nnx.jit
def grow(m):
    def cond(m):
        return m.kernel[...].sum() < 10
    def body(m):
        m.kernel[...] = m.kernel[...] * 2 + 0.5
        return m
    return nnx.while_loop(cond, body, m)


grow(lin)
print("while_loop", r(lin.kernel[...]))

state = nnx.state(model, nnx.Param)
pure = nnx.to_pure_dict(state)
restored = serialization.from_bytes(pure, serialization.to_bytes(pure))
print("round trip", all(np.array_equal(a, b) for a, b in
                        zip(jax.tree.leaves(pure), jax.tree.leaves(restored))))
print(jax.tree.map(lambda a: a.shape, pure))
