# jnp.nan_to_num, unstack, diag/tril/triu indices, cumulative_sum/prod (docstring-style), under vmap too
import jax
import jax.numpy as jnp

x = jnp.array([jnp.nan, jnp.inf, -jnp.inf, 1.5])
print(jnp.nan_to_num(x))
print(jnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0))
print(jnp.nan_to_num(jnp.array([1, 2])))
print(jnp.nan_to_num(jnp.array([complex(jnp.nan, jnp.inf)])))
print(jax.make_jaxpr(jnp.nan_to_num)(x))
print(jax.vmap(jnp.nan_to_num)(jnp.stack([x, -x])))
m = jnp.arange(6).reshape(2, 3)
print(jnp.unstack(m), jnp.unstack(m, axis=1))
print(jax.make_jaxpr(lambda a: jnp.unstack(a, axis=1))(m))
print(jax.vmap(lambda r: jnp.unstack(r))(m))
print(jnp.diag_indices(3), jnp.diag_indices(2, ndim=3))
print(jnp.diag_indices_from(jnp.ones((2, 2))))
print(jnp.triu_indices(3), jnp.tril_indices(3), jnp.triu_indices(3, k=1), jnp.tril_indices(2, k=-1, m=3))
print(jnp.triu_indices_from(jnp.ones((2, 3))), jnp.tril_indices_from(jnp.ones((3, 2)), k=1))
a = jnp.arange(9.0).reshape(3, 3)
print(a[jnp.triu_indices(3)])
print(jnp.cumulative_sum(jnp.array([1, 2, 3])), jnp.cumulative_sum(m, axis=1, include_initial=True))
print(jnp.cumulative_prod(jnp.array([1.0, 2.0, 3.0])), jnp.cumulative_prod(m + 1, axis=0, include_initial=True))
print(jnp.cumulative_sum(jnp.array([True, True])).dtype, jnp.cumulative_sum(jnp.arange(3, dtype=jnp.int8)).dtype, jnp.cumulative_sum(jnp.arange(3.0), dtype=jnp.int32))
print(jax.make_jaxpr(lambda v: jnp.cumulative_sum(v, include_initial=True))(jnp.arange(3)))
print(jax.vmap(jnp.cumulative_sum)(m))
for bad in [lambda: jnp.cumulative_sum(jnp.float32(1)), lambda: jnp.cumulative_sum(m), lambda: jnp.diag_indices_from(jnp.ones((2, 3))),
            lambda: jnp.triu_indices_from(jnp.ones(3)), lambda: jnp.diag_indices(-1)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
