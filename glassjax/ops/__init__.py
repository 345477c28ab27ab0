"""``jax.ops``: segment reductions (``segment_sum``, ``segment_prod``, ``segment_max``,
``segment_min``).

``segment_sum(data, ids)[k]`` combines the rows ``data[i]`` with ``ids[i] == k``: a
scatter of ``data`` into an array of the reduction's identity. Out-of-range ids are
dropped (``mode=FILL_OR_DROP``). With ``bucket_size`` the data is split into buckets
scattered separately and then reduced, which can be faster on some hardware.
"""
from __future__ import annotations

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.numpy.indexing import scatter_update
from glassjax.numpy.util import check_arraylike


def _identity(scatter_op, dtype):
    """The identity of the reduction (the value of an empty segment)."""
    if scatter_op is lax.scatter_add:
        return 0
    if scatter_op is lax.scatter_mul:
        return 1
    sign = -1 if scatter_op is lax.scatter_max else 1
    if dtypes.issubdtype(dtype, np.inexact):
        return sign * np.inf
    if dtype == np.bool_:
        return sign > 0
    info = dtypes.iinfo(dtype)
    return info.min if sign < 0 else info.max


def _segment_update(name, data, segment_ids, scatter_op, num_segments, indices_are_sorted,
                    unique_indices, bucket_size, reducer, mode):
    check_arraylike(name, data, segment_ids)
    mode = lax.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    dtype = data.dtype
    if num_segments is None:
        num_segments = np.max(core.concrete_or_error(
            np.asarray, segment_ids, f"{name}() needs `num_segments` under a trace")) + 1
    num_segments = core.concrete_dim_or_error(num_segments,
                                              f"{name}() `num_segments` argument.")
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], _identity(scatter_op, dtype),
                       dtype=dtype)
        return scatter_update(out, segment_ids, data, scatter_op, indices_are_sorted,
                              unique_indices, normalize_indices=False, mode=mode)
    num_buckets = -(-segment_ids.size // bucket_size)
    parts = [_segment_update(name, d, s, scatter_op, num_segments, indices_are_sorted,
                             unique_indices, None, reducer, mode)
             for d, s in zip(jnp.array_split(data, num_buckets),
                             jnp.array_split(segment_ids, num_buckets))]
    return reducer(jnp.stack(parts), axis=0).astype(dtype)


def _segment_reduction(name, scatter_op, reducer, what):
    def segment_reduction(data, segment_ids, num_segments=None, indices_are_sorted=False,
                          unique_indices=False, bucket_size=None, mode=None):
        return _segment_update(name, data, segment_ids, scatter_op, num_segments,
                               indices_are_sorted, unique_indices, bucket_size, reducer,
                               mode)
    segment_reduction.__name__ = segment_reduction.__qualname__ = name
    segment_reduction.__doc__ = (
        f"The {what} of the rows of ``data`` in each segment: ``out[k]`` combines every "
        "``data[i]`` with ``segment_ids[i] == k`` (``num_segments`` rows, by default "
        "``max(segment_ids) + 1``, which needs concrete ids).")
    return segment_reduction


segment_sum = _segment_reduction("segment_sum", lax.scatter_add, jnp.sum, "sum")
segment_prod = _segment_reduction("segment_prod", lax.scatter_mul, jnp.prod, "product")
segment_max = _segment_reduction("segment_max", lax.scatter_max, jnp.max,
                                 "maximum (-inf for an empty segment)")
segment_min = _segment_reduction("segment_min", lax.scatter_min, jnp.min,
                                 "minimum (+inf for an empty segment)")
