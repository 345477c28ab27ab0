"""``jax.experimental.sparse``, in part: the base class ``JAXSparse``, and the primitives
that multiply by a matrix held in COO or CSR form (``coo_todense_p``, ``csr_matvec_p``,
``csr_matmat_p``), which libraries such as brainevent bind directly. Each is computed as
JAX computes it on CPU, by a scatter-add of the stored entries (lowered through the same
jnp function); they have no differentiation or batching rules here. JAX's sparse array
classes (``BCOO``, ``COO``, ``CSR``) and the rest of its sparse API are not implemented:
``BCOO`` refuses construction with ``NotImplementedError``."""
from __future__ import annotations

from typing import NamedTuple

from glassjax import core
from glassjax import numpy as jnp
from glassjax.experimental.sparse import linalg
from glassjax.experimental.sparse._base import JAXSparse
from glassjax.lax.utils import compiled_primitive
from glassjax.xla import lowering

__all__ = ["BCOO", "COOInfo", "JAXSparse", "coo_todense_p", "csr_matmat_p",
           "csr_matvec_p", "linalg"]


class COOInfo(NamedTuple):
    """The static part of a COO matrix: its dense shape, and whether its entries are
    sorted by row / by column."""
    shape: tuple
    rows_sorted: bool = False
    cols_sorted: bool = False


class BCOO(JAXSparse):
    """JAX's batched-COO sparse array, which glassjax does not implement."""

    def __init__(self, args, *, shape, **kwargs):
        raise NotImplementedError("jax.experimental.sparse.BCOO is not implemented in "
                                  "glassjax")


def _sparse_primitive(name, impl, abstract_eval):
    """A primitive computed by ``impl`` (a jnp function), eagerly and when compiled."""
    prim = compiled_primitive(name)
    prim.def_abstract_eval(abstract_eval)
    lowering.register_lowering(prim, lowering.lower_fun(impl))
    return prim


def _coo_todense_impl(data, row, col, *, spinfo):
    return jnp.zeros(spinfo.shape, data.dtype).at[row, col].add(data)


coo_todense_p = _sparse_primitive(
    "coo_todense", _coo_todense_impl,
    lambda data, row, col, *, spinfo: core.ShapedArray(spinfo.shape, data.dtype))


def _csr_rows(indices, indptr):
    """The row of each stored entry of a CSR matrix (its ``indptr`` counts them)."""
    return jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1


def _csr_product(data, indices, indptr, rhs, *, shape, transpose):
    """``A @ rhs`` (``A.T @ rhs`` with ``transpose``) for ``rhs`` a vector or a matrix:
    each stored entry ``A[r, c]`` adds ``A[r, c] * rhs[c]`` to row ``r`` of the result."""
    row, col = _csr_rows(indices, indptr), indices
    if transpose:
        row, col = col, row
    scaled = data.reshape(data.shape + (1,) * (rhs.ndim - 1)) * rhs[col]
    out_shape = (shape[1] if transpose else shape[0],) + rhs.shape[1:]
    return jnp.zeros(out_shape, scaled.dtype).at[row].add(scaled)


def _csr_product_abstract_eval(data, indices, indptr, rhs, *, shape, transpose):
    if data.dtype != rhs.dtype or indices.dtype != indptr.dtype:
        raise TypeError("csr product: data and operand dtypes must agree, and so must "
                        f"indices and indptr; got {data.dtype}, {rhs.dtype}, "
                        f"{indices.dtype}, {indptr.dtype}")
    if rhs.shape[0] != (shape[0] if transpose else shape[1]) or \
            indptr.shape[0] != shape[0] + 1:
        raise TypeError(f"csr product: shapes do not fit a {shape} matrix: operand "
                        f"{rhs.shape}, indptr {indptr.shape}")
    return core.ShapedArray((shape[1] if transpose else shape[0],) + rhs.shape[1:],
                            data.dtype)


csr_matvec_p = _sparse_primitive("csr_matvec", _csr_product, _csr_product_abstract_eval)
csr_matmat_p = _sparse_primitive("csr_matmat", _csr_product, _csr_product_abstract_eval)
