# jnp.einsum_path: paths and opt_einsum's PathInfo report, reused as einsum(optimize=path).
import jax, jax.numpy as jnp, numpy as np
x = np.ones((2, 3)); y = np.ones((3, 100)); z = np.ones((100, 5))
for opt in ("optimal", "auto", True, False, [(0, 1), (0, 1)], "greedy"):
    path, info = jnp.einsum_path("ij,jk,kl", x, y, z, optimize=opt)
    print(path); print(info)
path, info = jnp.einsum_path("...ij,...jk->...ik", np.ones((2, 3, 4)), np.ones((2, 4, 5)))
print(path); print(info)
print(jnp.einsum_path("ii->i", np.ones((3, 3))))
print(jnp.einsum_path("ij,jk,kl,lm", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)), np.ones((5, 2)))[1])
print(jnp.einsum_path("abc,bcd,de,ea->", np.ones((2, 3, 4)), np.ones((3, 4, 5)), np.ones((5, 6)), np.ones((6, 2)))[1])
print(jnp.einsum_path("ij,ij->", np.ones((2, 3)), np.ones((2, 3)))[1])
print(jnp.einsum_path("i,j->ij", np.ones(2), np.ones(3))[1])
print(type(info).__name__, type(path))
rng = np.random.RandomState(0)
x, y, z = rng.randn(2, 3), rng.randn(3, 4), rng.randn(4, 5)
path, _ = jnp.einsum_path("ij,jk,kl", x, y, z)
print(jnp.einsum("ij,jk,kl", x, y, z, optimize=path))
print(jax.make_jaxpr(lambda a, b, c: jnp.einsum("ij,jk,kl", a, b, c, optimize=path))(x, y, z))
try:
    jnp.einsum_path("ij,jk", x, z)
except ValueError as e:
    print("ValueError:", e)
