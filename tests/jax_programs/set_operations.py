import jax, jax.numpy as jnp, numpy as np
a = jnp.array([1, 2, 3, 2, 4])
b = jnp.array([2, 4, 6])
for m in ("auto", "compare_all", "binary_search", "sort"):
    print(m, jnp.isin(a, b, method=m), jnp.isin(a, b, invert=True, method=m))
print(jnp.isin(jnp.array([[1, 5], [2, 6]]), b))
print(jnp.setdiff1d(a, b), jnp.setdiff1d(a, b, size=4, fill_value=-1))
print(jnp.union1d(a, b), jnp.union1d(a, b, size=7, fill_value=0))
print(jnp.setxor1d(a, b))
print(jnp.intersect1d(a, b), jnp.intersect1d(a, b, return_indices=True))
print(jax.jit(lambda x, y: jnp.setdiff1d(x, y, size=3))(a, b))
print(jax.jit(jnp.isin)(a, b))
