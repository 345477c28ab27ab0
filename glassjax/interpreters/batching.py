"""Vectorisation (vmap): rule tables and the helpers primitives use to fill them.

A *batching rule* says how to apply a primitive to inputs that carry an extra mapped
axis: ``rule(args, dims, **params) -> (out, out_dim)``, where ``dims[i]`` is the position
of the mapped axis in ``args[i]`` or ``not_mapped`` (None) when that input is the same for
every element of the batch. Rules move the mapped axis only when they must, so the jaxpr
of ``vmap(f)`` stays close to the jaxpr of ``f``.
"""
from __future__ import annotations

import functools

import numpy as np

not_mapped = None

primitive_batchers: dict = {}    # prim -> rule(args, dims, **params) -> (out, out_dim)


def moveaxis(x, src: int, dst: int):
    """Move axis ``src`` of ``x`` to ``dst`` (a transpose, or nothing when src == dst)."""
    from glassjax import lax
    ndim = np.ndim(x)
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def broadcast(x, size: int, axis: int):
    """Give an unmapped value a mapped axis of ``size`` at ``axis``."""
    from glassjax import lax
    shape = list(np.shape(x))
    shape.insert(axis, size)
    dims = tuple(i for i in range(len(shape)) if i != axis)
    return lax.broadcast_in_dim(x, tuple(shape), dims)


def bdim_at_front(x, bdim, size: int):
    """``x`` with its mapped axis first (broadcasting it in when it is unmapped)."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def defvectorized(primitive):
    """Elementwise unary primitives: apply to the whole batch; the axis stays put."""
    primitive_batchers[primitive] = functools.partial(_vectorized_batcher, primitive)


def _vectorized_batcher(primitive, args, dims, **params):
    (x,), (d,) = args, dims
    return primitive.bind(x, **params), d


def defbroadcasting(primitive):
    """Elementwise n-ary primitives whose operands broadcast (rank-0 or size-1 axes)."""
    primitive_batchers[primitive] = functools.partial(broadcast_batcher, primitive)


def broadcast_batcher(primitive, args, dims, **params):
    """Apply an elementwise primitive to operands with mapped axes.

    If every non-scalar operand is mapped at the same axis with the same shape, the
    primitive applies as is (scalars broadcast on their own). Otherwise mapped axes are
    moved to the front (unmapped operands are broadcast to the batch size), and lower-rank
    operands get trailing size-1 axes so they broadcast against the rest."""
    shape, dim = next((np.shape(x), d) for x, d in zip(args, dims) if d is not not_mapped)
    if all(np.shape(x) == shape and d == dim for x, d in zip(args, dims) if np.ndim(x)):
        out = primitive.bind(*args, **params)
        return (out, [dim] * len(out)) if primitive.multiple_results else (out, dim)
    size = shape[dim]
    args = [bdim_at_front(x, d, size) if np.ndim(x) else x for x, d in zip(args, dims)]
    ndim = max(np.ndim(x) for x in args)
    args = [_expand_trailing(x, ndim) if d is not not_mapped else x
            for x, d in zip(args, dims)]
    out = primitive.bind(*args, **params)
    return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)


def _expand_trailing(x, ndim):
    from glassjax import lax
    if np.ndim(x) in (0, ndim):
        return x
    return lax.expand_dims(x, tuple(range(np.ndim(x), ndim)))
