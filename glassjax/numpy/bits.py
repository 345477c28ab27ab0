"""``packbits`` and ``unpackbits``: booleans to and from the bits of uint8 bytes.

Packing shifts each group of eight 0/1 values to its bit position and sums them;
unpacking masks each byte with the eight powers of two.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes, lax
from glassjax.jit import jit
from glassjax.numpy.array_creation import arange, asarray
from glassjax.numpy.lax_numpy import expand_dims, ravel, swapaxes
from glassjax.numpy.padding import pad
from glassjax.numpy.util import ensure_arraylike


def _check_bitorder(bitorder):
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")


@jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder="big"):
    """The nonzero-ness of ``a`` packed eight to a byte along ``axis`` (flattened when
    None); the last byte is padded with zero bits."""
    arr = ensure_arraylike("packbits", a)
    if not (dtypes.issubdtype(arr.dtype, np.integer) or dtypes.issubdtype(arr.dtype, np.bool_)):
        raise TypeError("Expected an input array of integer or boolean data type")
    _check_bitorder(bitorder)
    arr = lax.ne(arr, lax.full_like(arr, 0)).astype("uint8")
    bits = arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - remainder, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(range(arr.ndim - 1)))
    packed = (arr << bits).sum(-1).astype("uint8")
    return swapaxes(packed, axis, -1)


@jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of the uint8 array ``a`` as 0/1 uint8 values along ``axis`` (the first
    ``count`` of them if given)."""
    arr = ensure_arraylike("unpackbits", a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _check_bitorder(bitorder)
    bits = asarray(1) << arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    unpacked = ((arr[..., None] & expand_dims(bits, tuple(range(arr.ndim)))) > 0)
    unpacked = unpacked.astype("uint8").reshape(unpacked.shape[:-2] + (-1,))
    if count is not None:
        if count > unpacked.shape[-1]:
            unpacked = pad(unpacked, [(0, 0)] * (unpacked.ndim - 1)
                           + [(0, count - unpacked.shape[-1])])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)
