import jax, jax.numpy as jnp, numpy as np
from jax import lax
# Total-order comparisons: -0.0 < 0.0, NaNs at the ends (by sign).
x = jnp.array([-0., 0., jnp.nan, -jnp.nan, 1., -jnp.inf], jnp.float32)
y = jnp.array([0., -0., jnp.nan, jnp.nan, 1., jnp.inf], jnp.float32)
for p in (lax.lt_to_p, lax.le_to_p, lax.eq_to_p):
    print(p, p.bind(x, y), jax.jit(p.bind)(x, y))
print(jax.make_jaxpr(lax.lt_to_p.bind)(x, y))
print(jax.jit(lax.le_to_p.bind).lower(x, y).as_text())
# searchsorted's compositions, each method, floats, ints, complex, 2-D queries.
a = jnp.array([-1., -0., 0., 1., 2., 2., jnp.nan])
v = jnp.array([[jnp.nan, -0.], [0., 2.]])
for m in ("scan", "scan_unrolled", "sort", "compare_all"):
    for side in ("left", "right"):
        print(m, side, jnp.searchsorted(a, v, side=side, method=m))
    print(jax.make_jaxpr(lambda a, v: jnp.searchsorted(a, v, method=m))(a, v))
print(jnp.searchsorted(jnp.array([1 + 1j, 1 + 2j, 2 + 0j]), jnp.array([1 + 1.5j, 2 + 0j])))
print(jax.make_jaxpr(jnp.searchsorted)(jnp.arange(5), jnp.arange(3)))
print(jax.make_jaxpr(lambda a, v: jnp.searchsorted(a, v, method="compare_all"))(
    jnp.array([1 + 1j, 2 + 0j]), jnp.array([1 + 2j])))
# histogram: its jaxpr and its lowering (function names uniquified as MLIR does).
s = jnp.asarray(np.random.RandomState(0).randn(1000).astype(np.float32))
print(jnp.histogram(s, bins=5))
print(jax.make_jaxpr(lambda s: jnp.histogram(s, bins=5))(s))
print(jax.jit(lambda s: jnp.histogram(s, bins=5)).lower(s).as_text())
print(jnp.histogram(jnp.ones(4), bins=2))
# random.choice with weights draws through searchsorted.
key = jax.random.key(0)
print(jax.random.choice(key, jnp.arange(10., 14.), (2, 3), p=jnp.array([0.1, 0.2, 0.3, 0.4])))
print(jax.make_jaxpr(lambda k: jax.random.choice(k, 4, (8,), p=jnp.array([.1, .2, .3, .4])))(key))
