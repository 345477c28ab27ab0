"""equinox beyond MLPs: filter_vmap, nn.Conv2d, eqx.error_if, internal.while_loop,
nn.Sequential with LayerNorm, and their jaxprs."""
import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


conv = eqx.nn.Conv2d(2, 3, kernel_size=3, padding=1, key=jax.random.key(0))
img = jnp.linspace(0.0, 1.0, 2 * 5 * 5, dtype=jnp.float32).reshape(2, 5, 5)
print("conv", r(conv(img)[:, 0, :]))
batch = jnp.stack([img, 2 * img])
print("filter_vmap", r(eqx.filter_vmap(conv)(batch).sum(axis=(1, 2, 3))))

seq = eqx.nn.Sequential([eqx.nn.Linear(4, 4, key=jax.random.key(1)),
                         eqx.nn.LayerNorm(4), eqx.nn.Lambda(jax.nn.gelu)])
v = jnp.array([0.1, -0.2, 0.3, 0.9], jnp.float32)
print("seq", r(seq(v)))


@eqx.filter_jit
def safe_log(x):
    x = eqx.error_if(x, x <= 0, "non-positive input")
    return jnp.log(x)


print("log", r(safe_log(jnp.array([1.0, 2.0]))))
try:
    safe_log(jnp.array([1.0, -2.0])).block_until_ready()
except Exception as e:
    print(type(e).__name__, "non-positive input" in str(e))


def cond_fun(c):
    return c[0] < 10


def body_fun(c):
    return c[0] + 1, c[1] * 1.5


print("while", eqxi.while_loop(cond_fun, body_fun, (0, jnp.float32(1.0)), kind="lax"))
print("while checkpointed", eqxi.while_loop(cond_fun, body_fun, (0, jnp.float32(1.0)),
                                            max_steps=16, kind="checkpointed"))
print(jax.make_jaxpr(seq)(v))
