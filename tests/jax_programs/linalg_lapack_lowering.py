import jax, jax.numpy as jnp, numpy as np
# The StableHLO of the LAPACK-backed decompositions: the custom call (with its Shardy
# sharding rule) and the NaNs that replace a failed matrix.
a = np.eye(4, dtype=np.float32)
batch = np.ones((3, 2, 4, 4), np.float32)
fs = {"eig": jnp.linalg.eig, "eigvals": jnp.linalg.eigvals, "cholesky": jnp.linalg.cholesky,
      "eigh": jnp.linalg.eigh, "svd": jnp.linalg.svd,
      "svdvals": lambda x: jnp.linalg.svd(x, compute_uv=False), "qr": jnp.linalg.qr,
      "schur": jax.lax.linalg.schur, "hessenberg": jax.lax.linalg.hessenberg,
      "triangular_solve": lambda x: jax.lax.linalg.triangular_solve(x, x, left_side=True)}
for name, f in fs.items():
    for x in (a, batch, a.astype(np.complex64)):
        print(name, x.shape, x.dtype)
        print(jax.jit(f).lower(x).as_text())
