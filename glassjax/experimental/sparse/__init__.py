"""``jax.experimental.sparse``, in part: the base class ``JAXSparse``, and the primitives
that multiply by a matrix held in COO or CSR form (``coo_todense_p``, ``csr_matvec_p``,
``csr_matmat_p``), which libraries such as brainevent bind directly. Each is computed as
JAX computes it on CPU, by a scatter-add of the stored entries (lowered through the same
jnp function); they have no differentiation or batching rules here. JAX's sparse array
classes (``BCOO``, ``COO``, ``CSR``) and the rest of its sparse API are not implemented:
``BCOO`` refuses construction with ``NotImplementedError``."""
from glassjax.experimental.sparse import coo, csr, linalg
from glassjax.experimental.sparse._base import JAXSparse
from glassjax.experimental.sparse.coo import coo_todense_p
from glassjax.experimental.sparse.csr import csr_matmat_p, csr_matvec_p

__all__ = ["BCOO", "JAXSparse", "coo", "coo_todense_p", "csr", "csr_matmat_p",
           "csr_matvec_p", "linalg"]


class BCOO(JAXSparse):
    """JAX's batched-COO sparse array, which glassjax does not implement."""

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError("jax.experimental.sparse.BCOO is not implemented in "
                                  "glassjax")
