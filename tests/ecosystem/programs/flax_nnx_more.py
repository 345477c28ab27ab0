"""More of nnx: attention, convolution, embeddings, layer norm, state filters,
nnx.remat, nnx.cond, nnx.fori_loop, nnx.eval_shape, nnx.split_rngs, custom Variables."""
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


class Count(nnx.Variable):
    pass


class Net(nnx.Module):
    def __init__(self, rngs):
        self.embed = nnx.Embed(10, 8, rngs=rngs)
        self.attn = nnx.MultiHeadAttention(num_heads=2, in_features=8, qkv_features=8,
                                           decode=False, rngs=rngs)
        self.norm = nnx.LayerNorm(8, rngs=rngs)
        self.conv = nnx.Conv(8, 4, kernel_size=(3,), rngs=rngs)
        self.count = Count(jnp.array(0))

    def __call__(self, tokens):
        self.count[...] += 1
        h = self.embed(tokens)
        h = self.norm(h + self.attn(h))
        return self.conv(h).mean(axis=-1)


model = Net(nnx.Rngs(0))
tokens = jnp.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
print("out", r(model(tokens)))
print("count", model.count[...])
params = nnx.state(model, nnx.Param)
print("n params", sum(x.size for x in jax.tree.leaves(params)))
print("counts", nnx.state(model, Count))


@nnx.jit
def loss(m, t):
    return (nnx.remat(lambda m, t: m(t))(m, t) ** 2).mean()


print("loss", r(loss(model, tokens)), "count", model.count[...])
grads = nnx.grad(lambda m: loss(m, tokens), argnums=nnx.DiffState(0, nnx.Param))(model)
print("grad norm", r(jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree.leaves(grads)))))

shapes = nnx.eval_shape(lambda: Net(nnx.Rngs(1)))
print("eval_shape", shapes.embed.embedding.shape)


class Acc(nnx.Module):
    def __init__(self):
        self.total = nnx.BatchStat(jnp.float32(0))


acc = Acc()


@nnx.jit
def accumulate(acc, xs):
    def body(i, acc):
        acc.total[...] += xs[i]
        return acc
    nnx.fori_loop(0, xs.shape[0], body, acc)
    return nnx.cond(acc.total[...] > 5, lambda a: a.total[...] * 2, lambda a: -a.total[...],
                    acc)


print("accumulate", r(accumulate(acc, jnp.arange(4.0))), r(acc.total[...]))


@nnx.split_rngs(splits=3)
@nnx.vmap(in_axes=(0,), out_axes=0)
def ensemble(rngs):
    return nnx.Linear(2, 2, rngs=rngs)


members = ensemble(nnx.Rngs(5))
print("ensemble", members.kernel.shape, r(members.bias[...]))
print(jax.make_jaxpr(lambda x: nnx.merge(*nnx.split(model.norm))(x))(jnp.ones((2, 8))))
