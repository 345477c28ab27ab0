"""equinox's transformations: filter_jvp, filter_vjp, filter_hessian, filter_vmap with
in_axes, error_if under vmap and grad, the bounded while loop (differentiable),
nn.Dropout and nn.Embedding, and filter_jit's caching."""
import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


def f(x, y):
    return jnp.sum(jnp.sin(x) * y)


x = jnp.linspace(0.0, 1.0, 4, dtype=jnp.float32)
y = jnp.float32(2.0)
out, tangent = eqx.filter_jvp(f, (x, y), (jnp.ones(4, jnp.float32), jnp.float32(0.5)))
print("jvp", r(out), r(tangent))
out, vjp_fn = eqx.filter_vjp(lambda x: jnp.cos(x) * 3, x)
print("vjp", r(vjp_fn(jnp.ones(4, jnp.float32))[0]))
print("hessian", r(eqx.filter_hessian(lambda x: jnp.sum(x ** 3))(x)))
print("vmap in_axes", r(eqx.filter_vmap(f, in_axes=(0, None))(x[:, None] * jnp.ones((4, 2)), y)))


def checked(x):
    x = eqx.error_if(x, x > 10.0, "too large")
    return x ** 2


print("vmap grad error_if", r(jax.vmap(jax.grad(checked))(x)))
try:
    jax.jit(jax.vmap(checked))(x * 20).block_until_ready()
except Exception as e:
    print(type(e).__name__, "too large" in str(e))


def body(c):
    i, v = c
    return i + 1, v * 1.1 + jnp.sin(v)


def run(v0):
    return eqxi.while_loop(lambda c: c[0] < 6, body, (0, v0), max_steps=8,
                           kind="bounded")[1]


print("bounded while", r(run(x)))
print("grad bounded while", r(jax.grad(lambda v: run(v).sum())(x)))

drop = eqx.nn.Dropout(0.5)
print("dropout", r(drop(jnp.ones(6), key=jax.random.key(4))))
print("inference", r(drop(jnp.ones(3), inference=True)))
emb = eqx.nn.Embedding(5, 3, key=jax.random.key(5))
print("embedding", r(jax.vmap(emb)(jnp.array([0, 4]))))

traces = []


@eqx.filter_jit
def g(a, flag):
    traces.append(flag)
    return a * 2 if flag else a - 1


print(r(g(x, True)), r(g(x + 1, True)), r(g(x, False)), "traced", len(traces))
print(jax.make_jaxpr(jax.grad(lambda v: run(v).sum()))(x))
