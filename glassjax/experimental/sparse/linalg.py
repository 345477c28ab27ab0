"""``jax.experimental.sparse.linalg``: JAX's sparse solvers, not implemented in
glassjax."""


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    raise NotImplementedError("jax.experimental.sparse.linalg.spsolve is not implemented "
                              "in glassjax")
