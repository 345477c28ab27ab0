"""``jax.experimental.sparse.coo``: a matrix held as its stored entries ``data`` at
``(row, col)``; ``coo_todense_p`` scatters them into a dense array."""
from typing import NamedTuple

from glassjax import core
from glassjax import numpy as jnp
from glassjax.experimental.sparse._base import sparse_primitive


class COOInfo(NamedTuple):
    """The static part of a COO matrix: its dense shape, and whether its entries are
    sorted by row / by column."""
    shape: tuple
    rows_sorted: bool = False
    cols_sorted: bool = False


def _coo_todense_impl(data, row, col, *, spinfo):
    return jnp.zeros(spinfo.shape, data.dtype).at[row, col].add(data)


coo_todense_p = sparse_primitive(
    "coo_todense", _coo_todense_impl,
    lambda data, row, col, *, spinfo: core.ShapedArray(spinfo.shape, data.dtype))
