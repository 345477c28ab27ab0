# Block-scaled matmuls: lax.scaled_dot (values, jaxpr, StableHLO composite, vmap) and the
# jaxprs of jax.nn.scaled_matmul / scaled_dot_general (JAX 0.10.2 cannot run those two on
# CPU, so only their tracing is compared here; tests/test_api_more.py checks glassjax's
# values against NumPy).
import numpy as np
import jax
import jax.numpy as jnp

rng = np.random.RandomState(0)
lhs = rng.randn(2, 4, 8).astype(np.float32)
rhs = rng.randn(2, 8, 3).astype(np.float32)
ls = (rng.rand(2, 4, 2) + .5).astype(np.float32)
rs = (rng.rand(2, 2, 3) + .5).astype(np.float32)
f = lambda a, b, c, d: jax.lax.scaled_dot(a, b, lhs_scale=c, rhs_scale=d)
print(jax.make_jaxpr(f)(lhs, rhs, ls, rs))
out = f(lhs, rhs, ls, rs)
print(out.dtype, out[0])
print(jax.jit(f).lower(lhs, rhs, ls, rs).as_text())
g = lambda a, b: jax.lax.scaled_dot(a, b, preferred_element_type=jnp.float32)
print(jax.make_jaxpr(g)(lhs, rhs))
print(g(lhs, rhs)[1])
print(jax.make_jaxpr(jax.vmap(f, (0, None, 0, None)))(lhs, rhs[0], ls, rs[0]))
for bad in [(lhs, rhs, ls[..., :1], rs[:, :1]), (lhs, rhs, rng.rand(2, 4, 3), rs)]:
    try:
        f(*bad)
    except TypeError as e:
        print("TypeError:", e)
try:
    jax.grad(lambda a: f(a, rhs, ls, rs).astype(jnp.float32).sum())(lhs)
except NotImplementedError as e:
    print("NotImplementedError:", e)

a = jnp.array([1, 2, 3]).reshape((1, 1, 3))
b = jnp.array([4, 5, 6]).reshape((1, 1, 3))
s = jnp.array([0.5]).reshape((1, 1, 1))
print(jax.make_jaxpr(jax.nn.scaled_matmul)(a, b, s, s))
try:
    jax.nn.scaled_matmul(a, b[0], s, s)
except ValueError as e:
    print("ValueError:", e)

print(jax.nn.get_scaled_dot_general_config("mxfp8"))
x = rng.randn(2, 4, 64).astype(np.float32)
y = rng.randn(2, 3, 64).astype(np.float32)
cfg = [jax.nn.get_scaled_dot_general_config("mxfp8")] * 3
sdg = lambda x, y: jax.nn.scaled_dot_general(x, y, (((2,), (2,)), ((0,), (0,))),
                                             configs=cfg)
print(jax.make_jaxpr(sdg)(x, y))
x2 = rng.randn(4, 32).astype(np.float32)
y2 = rng.randn(32, 3).astype(np.float32)
cfg4 = [jax.nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32))] * 3
loss = lambda x, y: jax.nn.scaled_dot_general(x, y, (((1,), (0,)), ((), ())),
                                              configs=cfg4).sum()
print(jax.make_jaxpr(jax.grad(loss, (0, 1)))(x2, y2))
print(jax.make_jaxpr(jax.vmap(jax.nn.scaled_matmul))(
    jnp.ones((5, 2, 4, 64)), jnp.ones((5, 2, 3, 64)), jnp.ones((5, 2, 4, 2)),
    jnp.ones((5, 2, 3, 2))))
