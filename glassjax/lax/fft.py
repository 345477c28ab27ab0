"""The ``fft`` primitive: XLA's FFT over the trailing ``len(fft_lengths)`` axes.

Four kinds (``FftType``): complex-to-complex forward and inverse, real-to-complex
(``RFFT``, which keeps only the ``n // 2 + 1`` non-redundant outputs of the last axis) and
its inverse (``IRFFT``). All four are linear, so the JVP applies the same FFT to the
tangent; the transpose of a complex FFT is the same FFT, those of ``RFFT`` / ``IRFFT``
are each other's, with a mask accounting for the outputs RFFT leaves out.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from glassjax import dtypes
from glassjax.interpreters import ad, batching
from glassjax.jit import jit
from glassjax.lax import elementwise, slicing, structural
from glassjax.lax.utils import standard_primitive
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo


class FftType(enum.IntEnum):
    "Describes which FFT operation to perform."
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _fft_type(fft_type) -> FftType:
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            raise ValueError(f"Unknown FFT type '{fft_type}'") from None
    if isinstance(fft_type, FftType):
        return fft_type
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


@jit(static_argnums=(1, 2))
def fft(x, fft_type, fft_lengths):
    """The FFT of kind ``fft_type`` over the trailing axes, of sizes ``fft_lengths``
    (the input is made complex first, or real for ``RFFT``)."""
    typ = _fft_type(fft_type)
    if typ == FftType.RFFT:
        if np.iscomplexobj(x):
            raise ValueError("only real valued inputs supported for rfft")
        x = elementwise.convert_element_type(x, dtypes.to_inexact_dtype(dtypes.dtype(x)))
    else:
        x = elementwise.convert_element_type(x, dtypes.to_complex_dtype(dtypes.dtype(x)))
    if len(fft_lengths) == 0:   # XLA has no 0-d FFT
        return x
    return fft_p.bind(x, fft_type=typ, fft_lengths=tuple(fft_lengths))


def _complex_dtype(dtype):
    return (np.zeros((), dtype) + np.zeros((), np.complex64)).dtype


def _fft_shape_rule(x, *, fft_type, fft_lengths):
    n = len(fft_lengths)
    if n > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if x.shape[-n:] != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal "
                             f"to fft_lengths {fft_lengths}")
        return x.shape[:-n] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
    if fft_type == FftType.IRFFT:
        if not np.issubdtype(x.dtype, np.complexfloating):
            raise ValueError(f"IRFFT input must be complex64 or complex128, got {x.dtype}")
        if x.shape[-n:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal "
                             f"to all except the last fft_length, got {fft_lengths=}")
        return x.shape[:-n] + fft_lengths
    if not np.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"FFT input must be complex64 or complex128, got {x.dtype}")
    if x.shape[-n:] != fft_lengths:
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return x.shape


def _fft_dtype_rule(x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return _complex_dtype(x.dtype)
    if fft_type == FftType.IRFFT:
        return np.finfo(x.dtype).dtype
    return x.dtype


fft_p = standard_primitive(_fft_shape_rule, _fft_dtype_rule, "fft",
                           weak_type_rule=lambda *a, **p: False)
lowering.register_lowering(fft_p, lambda ctx, x, *, fft_type, fft_lengths: hlo.fft(
    x, hlo.FftTypeAttr.get(fft_type.name), lowering.i64_array(fft_lengths)))


def _hermitian_mask(n_out, fft_length, example, dtype):
    """Weights of RFFT's outputs along the last axis: 1 for the DC term (and the Nyquist
    term of an even length), 2 for the others, which stand for a conjugate pair."""
    one = lambda: structural.full_like(example, 1.0, shape=(1,), dtype=dtype)
    mask = structural.full_like(example, 2.0, shape=(n_out,), dtype=dtype)
    mask = slicing.dynamic_update_slice(mask, one(), (0,))
    if fft_length % 2 == 0:
        mask = slicing.dynamic_update_slice(mask, one(), (n_out - 1,))
    return mask


@jit(static_argnums=1)
def _rfft_transpose(t, fft_lengths):
    mask = _hermitian_mask(t.shape[-1], fft_lengths[-1], t, None)
    mask = structural.expand_dims(mask, range(t.ndim - 1))
    return math.prod(fft_lengths) * fft(elementwise.conj(t) / mask, FftType.IRFFT,
                                        fft_lengths)


def _irfft_transpose(t, fft_lengths):
    x = fft(t, FftType.RFFT, fft_lengths)
    mask = _hermitian_mask(x.shape[-1], fft_lengths[-1], t, x.dtype)
    scale = 1 / math.prod(fft_lengths)
    out = scale * structural.expand_dims(mask, range(x.ndim - 1)) * x
    return elementwise.conj(out)   # JAX's convention for complex cotangents


def _fft_transpose(t, operand, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, fft_lengths)]
    return [fft(t, fft_type, fft_lengths)]


def _fft_batch(args, dims, *, fft_type, fft_lengths):
    (x,), (d,) = args, dims
    return fft(batching.moveaxis(x, d, 0), fft_type, fft_lengths), 0


ad.deflinear2(fft_p, _fft_transpose)
batching.primitive_batchers[fft_p] = _fft_batch
