"""``convolve`` and ``correlate`` of 1-D arrays, as one-channel ``conv_general_dilated``.

A 1-D convolution is a convolution with batch 1, one feature and one spatial axis. XLA
convolutions are really *correlations* (the kernel is not flipped), so ``convolve``
flips the shorter input first; ``correlate`` conjugates it instead. The ``mode`` is
just the padding: ``full`` pads ``len(v) - 1`` on both sides, ``same`` keeps the
length of the longer input, ``valid`` pads nothing.
"""
from __future__ import annotations

import numpy as np

from glassjax.jit import jit
from glassjax.lax import convolution
from glassjax.numpy import ufuncs, util
from glassjax.numpy.lax_numpy import flip


@jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = util.promote_dtypes_inexact(x, y)   # NumPy convolves in floating point
    else:
        x, y = util.promote_dtypes(x, y)
    if len(x) == 0 or len(y) == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and "
                         f"{y.shape}.")
    out_order = slice(None)
    if op == "correlate":
        y = ufuncs.conj(y)
        if len(x) < len(y):     # correlating the other way round reverses the result
            x, y = y, x
            out_order = slice(None, None, -1)
    elif op == "convolve":
        if len(x) < len(y):     # convolution is symmetric
            x, y = y, x
        y = flip(y)
    n = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = convolution.conv_general_dilated(
        x[None, None, :], y[None, None, :], (1,), padding, precision=precision,
        preferred_element_type=preferred_element_type)
    return result[0, 0, out_order]


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """``c[k] = sum_j a[k - j] * v[j]`` of 1-D arrays (``mode``: full, same, valid)."""
    a, v = util.ensure_arraylike("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """``c[k] = sum_j a[k + j] * conj(v[j])`` of 1-D arrays (``mode``: valid, same,
    full)."""
    a, v = util.ensure_arraylike("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)
