"""``ravel_pytree``: a pytree of arrays as one flat vector, and the way back.

Optimizers and samplers that work on a single vector use it: the leaves are flattened
and concatenated (after promotion to one dtype), and the returned function splits a
vector of that length back into the original structure, shapes and dtypes."""
from __future__ import annotations

import functools

import numpy as np

from glassjax import dtypes, lax
from glassjax.tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves of ``pytree`` raveled into one 1-D array (of their
    promoted dtype; an empty float32 array when there are no leaves) and the inverse."""
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_leaves = _ravel_list(leaves)
    return flat, functools.partial(_unravel_pytree, treedef, unravel_leaves)


def _unravel_pytree(treedef, unravel_leaves, flat):
    return tree_unflatten(treedef, unravel_leaves(flat))


def _ravel_list(leaves):
    if not leaves:
        return lax.full([0], 0, "float32"), lambda _: []
    from_dtypes = tuple(dtypes.dtype(x) for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in leaves)
    shapes = tuple(np.shape(x) for x in leaves)
    if all(d == to_dtype for d in from_dtypes):
        # One dtype: no conversions, and the inverse accepts a vector of any dtype
        # (e.g. a gradient in another precision).
        flat = lax.concatenate([lax.reshape(x, (n,)) for x, n in zip(leaves, sizes)], 0)
        return flat, functools.partial(_unravel_list, sizes, shapes, None, None)
    flat = lax.concatenate([lax.reshape(lax.convert_element_type(x, to_dtype), (n,))
                            for x, n in zip(leaves, sizes)], 0)
    return flat, functools.partial(_unravel_list, sizes, shapes, from_dtypes, to_dtype)


def _unravel_list(sizes, shapes, from_dtypes, to_dtype, flat):
    """Split ``flat`` into the leaves; with ``from_dtypes``, also cast each back (and
    insist on the raveled dtype, as JAX does)."""
    if to_dtype is not None and dtypes.dtype(flat) != to_dtype:
        raise TypeError(f"unravel function given array of dtype {dtypes.dtype(flat)}, "
                        f"but expected dtype {to_dtype}")
    chunks = [chunk.reshape(shape) for chunk, shape in zip(lax.split(flat, sizes), shapes)]
    if from_dtypes is None:
        return chunks
    return [lax.convert_element_type(c, d) for c, d in zip(chunks, from_dtypes)]
