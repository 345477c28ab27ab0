"""``ragged_dot`` / ``ragged_dot_general``: matrix products over groups of rows of
varying sizes (mixture-of-experts layers): rows ``group_sizes[0]`` first rows of ``lhs``
use ``rhs[0]``, the next ``group_sizes[1]`` use ``rhs[1]``, ...

Written as JAX computes it on CPU (its ``_ragged_dot_general_impl``): the ragged axis is
expanded into a dense group axis, masked to each group's rows, and contracted with
``dot_general``. (JAX binds this as one ``ragged_dot_general`` primitive; glassjax
composes it, so its derivatives and batching come from the composed operations and its
jaxpr shows them.)
"""
from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

import numpy as np

from glassjax.lax.dot import dot_general
from glassjax.lax.elementwise import bitwise_and, ge, lt, select
from glassjax.lax.reductions import cumsum
from glassjax.lax.structural import (broadcast, broadcast_in_dim, broadcasted_iota,
                                     concatenate, full_like, transpose)
from glassjax.vmap_api import vmap


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """The dot dimension numbers plus which ``lhs`` axis is ragged and which ``rhs``
    axis indexes the groups."""
    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC_DIMENSION_NUMBERS = RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([1], [1]), ([], [])), lhs_ragged_dimensions=[0],
    rhs_group_dimensions=[0])


class _Mode(enum.Enum):
    RAGGED_NONCONTRACTING = 1   # [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]
    RAGGED_CONTRACTING = 2      # [b,m,k], [b,k,n],   [b,g] -> [g,b,m,n]
    RAGGED_BATCH = 3            # [b,m,k], [b,k,n],   [g]   -> [b,m,n]


def _remaining(n, *taken):
    taken = set().union(*map(set, taken))
    return [i for i in range(n) if i not in taken]


def _mode_and_dim(lhs_rank, dims):
    if len(dims.lhs_ragged_dimensions) != 1:
        raise ValueError("ragged_dot_general needs exactly one lhs ragged dimension")
    ragged_dim = dims.lhs_ragged_dimensions[0]
    (contract, _), (batch, _) = dims.dot_dimension_numbers
    noncontract = _remaining(lhs_rank, contract, batch)
    if ragged_dim in noncontract:
        return _Mode.RAGGED_NONCONTRACTING, ragged_dim
    if ragged_dim in contract:
        return _Mode.RAGGED_CONTRACTING, ragged_dim
    if ragged_dim in batch:
        return _Mode.RAGGED_BATCH, ragged_dim
    raise TypeError(f"lhs_ragged_dim {ragged_dim} not found in lhs_noncontracting "
                    f"{noncontract}, lhs_contracting {contract}, or lhs_batch {batch}.")


def _prefix_dims(mode, rank, ragged_dim, batch, contract):
    """The axes before the ragged one that the group sizes are indexed by."""
    batch, contract = list(batch), list(contract)
    noncontract = _remaining(rank, contract, batch)
    if mode is _Mode.RAGGED_NONCONTRACTING:
        return batch + noncontract[:noncontract.index(ragged_dim)]
    if mode is _Mode.RAGGED_CONTRACTING:
        return batch + contract[:contract.index(ragged_dim)]
    return batch[:batch.index(ragged_dim)]


def _ragged_to_dense(x, group_sizes, *, dim):
    """``x`` with a new leading group axis: entry ``g`` keeps the slice of axis ``dim``
    belonging to group ``g`` and zeros elsewhere."""
    shape = group_sizes.shape + x.shape
    x = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    iota = broadcasted_iota(group_sizes.dtype, shape, dim + 1)
    ends = cumsum(group_sizes)
    starts = concatenate([full_like(group_sizes[:1], 0), ends[:-1]], 0)
    mask = bitwise_and(ge(iota, broadcast_in_dim(starts, shape, (0,))),
                       lt(iota, broadcast_in_dim(ends, shape, (0,))))
    return select(mask, x, full_like(x, 0))


def _expand(x, dim, group_sizes, *axes):
    """``_ragged_to_dense`` vmapped over the prefix ``axes`` (each with its own group
    sizes), the group axis moved to the front."""
    def batched(dim, *x_axes):
        if not x_axes:
            return lambda x, gs: _ragged_to_dense(x, gs, dim=dim)
        x_axis, *rest = x_axes
        decr = lambda d: d - 1 if d >= x_axis else d
        return vmap(batched(decr(dim), *[decr(a) for a in rest]), in_axes=(x_axis, 0))
    expanded = batched(dim, *axes)(x, group_sizes)
    unsorted = [a + 1 for a in axes] + [0] + [a + 1 for a in _remaining(x.ndim, axes)]
    return transpose(expanded, tuple(np.argsort(unsorted)))


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """The ragged product described by ``ragged_dot_dimension_numbers`` (the ragged
    axis may be a non-contracting, contracting or batch axis of ``lhs``)."""
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    dims = ragged_dot_dimension_numbers
    mode, ragged_dim = _mode_and_dim(lhs.ndim, dims)
    (l_contract, r_contract), (l_batch, r_batch) = dims.dot_dimension_numbers
    l_prefix = _prefix_dims(mode, lhs.ndim, ragged_dim, l_batch, l_contract)
    dot = lambda a, b, dn: dot_general(a, b, dn, precision=precision,
                                       preferred_element_type=preferred_element_type)
    if group_sizes.ndim == 1:
        group_sizes = broadcast(group_sizes, [lhs.shape[i] for i in l_prefix])
    incr = lambda ds: [d + 1 for d in ds]
    if mode is _Mode.RAGGED_NONCONTRACTING:
        if len(dims.rhs_group_dimensions) != 1:
            raise ValueError("ragged_dot_general needs exactly one rhs group dimension")
        return dot(_expand(lhs, ragged_dim, group_sizes, *l_prefix), rhs,
                   ((incr(l_contract) + [0], list(r_contract) + [dims.rhs_group_dimensions[0]]),
                    (incr(l_batch), list(r_batch))))
    if mode is _Mode.RAGGED_CONTRACTING:
        rhs_ragged_dim = r_contract[list(l_contract).index(ragged_dim)]
        r_prefix = _prefix_dims(mode, rhs.ndim, rhs_ragged_dim, r_batch, r_contract)
        return dot(_expand(lhs, ragged_dim, group_sizes, *l_prefix),
                   _expand(rhs, rhs_ragged_dim, group_sizes, *r_prefix),
                   ((incr(l_contract), incr(r_contract)),
                    ([0] + incr(l_batch), [0] + incr(r_batch))))
    return dot(lhs, rhs, dims.dot_dimension_numbers)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """``out[i] = lhs[i] @ rhs[g(i)]`` for ``lhs`` ``[m, k]``, ``rhs`` ``[g, k, n]``,
    where row ``i`` is in group ``g(i)`` by the consecutive ``group_sizes`` (rows past
    their sum give zeros)."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC_DIMENSION_NUMBERS,
                              precision=precision,
                              preferred_element_type=preferred_element_type,
                              group_offset=group_offset, out_sharding=out_sharding)
