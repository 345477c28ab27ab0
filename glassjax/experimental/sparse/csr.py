"""``jax.experimental.sparse.csr``: a matrix held row by row (``indptr[r]:indptr[r+1]``
are the positions in ``data`` / ``indices`` of row ``r``'s entries); ``csr_matvec_p`` and
``csr_matmat_p`` multiply it by a vector or a matrix."""
from glassjax import core
from glassjax import numpy as jnp
from glassjax.experimental.sparse._base import sparse_primitive


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


csr_matvec_p = sparse_primitive("csr_matvec", _csr_product, _csr_product_abstract_eval)
csr_matmat_p = sparse_primitive("csr_matmat", _csr_product, _csr_product_abstract_eval)
