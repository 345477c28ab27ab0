# vmap of jnp.linalg functions (values)
import jax
import jax.numpy as jnp

a = jnp.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 0.5], [0.5, 1.0]]])
for name, f in [("norm", jnp.linalg.norm), ("det", jnp.linalg.det), ("inv", jnp.linalg.inv),
                ("cholesky", jnp.linalg.cholesky), ("eigvalsh", jnp.linalg.eigvalsh),
                ("matrix_power", lambda m: jnp.linalg.matrix_power(m, 3)),
                ("svdvals", lambda m: jnp.linalg.svd(m, compute_uv=False)),
                ("slogdet", jnp.linalg.slogdet), ("solve", lambda m: jnp.linalg.solve(m, jnp.ones(2))),
                ("cond", jnp.linalg.cond), ("matrix_rank", jnp.linalg.matrix_rank),
                ("norm_axis", lambda m: jnp.linalg.norm(m, axis=1)), ("norm_ord", lambda m: jnp.linalg.norm(m, ord=1))]:
    print(name, jax.vmap(f)(a))
b = jnp.arange(18.0).reshape(2, 3, 3) + jnp.eye(3)
print(jax.vmap(jnp.linalg.det)(b))
print(jax.make_jaxpr(jax.vmap(jnp.linalg.norm))(b))
print(jax.make_jaxpr(jax.vmap(jnp.linalg.det))(b))
print(jax.vmap(jnp.linalg.norm, in_axes=(0, None))(b, 'fro'))
