"""``jax._src.interpreters.batching``: vmap's tracer and trace (``BatchTracer``, whose
``val`` holds the whole batch stacked along ``batch_dim``, and ``BatchTrace``) and the
helpers JAX's batching API builds on, over glassjax's own batching interpreter."""
import numpy as np

from glassjax import core, lax
from glassjax.interpreters.batching import (  # noqa: F401
    BatchTrace, BatchTracer, broadcast, matchaxis, moveaxis, not_mapped)

__all__ = ["BatchTrace", "BatchTracer", "broadcast", "make_iota", "matchaxis", "moveaxis",
           "not_mapped", "to_elt"]


def to_elt(trace: BatchTrace, get_idx, x, spec):
    """``x`` as the vectorised function sees it: one element of the batch mapped along
    axis ``spec`` (an int), or ``x`` itself (``spec`` None: not mapped)."""
    del get_idx
    if spec is None:
        return x
    if not isinstance(spec, int):
        raise TypeError(f"to_elt: in_axes spec must be an int or None, got {spec!r}")
    return BatchTracer(trace, x, spec % core.ndim_of(x) if spec < 0 else spec)


def make_iota(axis_size: int):
    """``[0, 1, ..., axis_size - 1]`` (int32): the index of each element of a batch."""
    return lax.iota(np.int32, axis_size)
