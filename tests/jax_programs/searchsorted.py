import jax, jax.numpy as jnp, numpy as np
a = jnp.array([1., 2., 2., 3., 5.])
v = jnp.array([0., 2., 2.5, 5., 6., jnp.nan, -0.])
for m in ("scan", "scan_unrolled", "sort", "compare_all"):
    print(m, jnp.searchsorted(a, v, method=m), jnp.searchsorted(a, v, side="right", method=m))
print(jnp.searchsorted(jnp.array([3, 1, 2]), 2, sorter=jnp.array([1, 2, 0])))
print(jnp.searchsorted(jnp.arange(10), jnp.array([[3, 11], [-1, 5]])))
print(jnp.searchsorted(jnp.array([]), jnp.array([1.0])))
print(jnp.digitize(jnp.array([0.2, 6.4, 3.0, 1.6]), jnp.array([0.0, 1.0, 2.5, 4.0, 10.0])))
print(jnp.digitize(jnp.array([0.2, 6.4, 3.0, 1.6]), jnp.array([10.0, 4.0, 2.5, 1.0, 0.0]), right=True))
print(jax.jit(jnp.searchsorted)(a, v))
print(jax.vmap(lambda q: jnp.searchsorted(a, q))(v))
try: jnp.searchsorted(jnp.ones((2, 2)), 1.)
except ValueError as e: print(e)
