"""``jnp.fft``: NumPy's FFT functions on ``lax.fft``.

Every transform moves the requested axes to the end (where XLA's FFT works), crops or
zero-pads them to the requested sizes ``s``, transforms, scales by ``norm`` and moves the
axes back. XLA transforms at most three axes at once; more are done in two steps.
"""
from __future__ import annotations

import operator

import numpy as np

from glassjax import dtypes
from glassjax.lax.fft import FftType, fft as lax_fft
from glassjax.numpy import lax_numpy, padding, reductions, ufuncs
from glassjax.numpy.array_creation import arange, array, asarray
from glassjax.numpy.util import ensure_arraylike, promote_dtypes_inexact


def _fft_norm(s, func_name, norm):
    """The factor ``norm`` asks for: 1 ('backward'), 1/sqrt(n) ('ortho') or 1/n
    ('forward') on the forward transforms, the reciprocal on the inverse ones."""
    if norm == "backward":
        return array(1)
    s, = promote_dtypes_inexact(s)
    inverse = func_name.startswith("i")
    if norm == "ortho":
        root = ufuncs.sqrt(reductions.prod(s))
        return root if inverse else 1 / root
    if norm == "forward":
        return reductions.prod(s) if inverse else 1 / reductions.prod(s)
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or '
                     '"forward".')


def _fft_core(func_name, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    arr = ensure_arraylike(full_name, a)
    if s is not None:
        s = tuple(map(operator.index, s))
        if np.any(np.less_equal(s, 0)):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = lax_numpy.moveaxis(arr, orig_axes, axes)

    if s is not None:             # crop, then zero-pad, to the requested sizes
        in_s = list(arr.shape)
        for axis, x in zip(axes, s):
            in_s[axis] = x
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = padding.pad(arr, [(0, x - y) for x, y in zip(in_s, arr.shape)])
    elif fft_type == FftType.IRFFT:
        s = [arr.shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
    else:
        s = [arr.shape[axis] for axis in axes]

    transformed = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        transformed *= _fft_norm(array(s, dtype=transformed.dtype), func_name, norm)
    if orig_axes is not None:
        transformed = lax_numpy.moveaxis(transformed, axes, orig_axes)
    return transformed


def _fft_core_nd(arr, fft_type, s):
    """More than three axes: transform the last two or three, then the others."""
    if len(s) <= 3:
        return lax_fft(arr, fft_type, tuple(s))
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft(arr, fft_type, tuple(s)[-n:])
        arr = lax_numpy.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return lax_numpy.moveaxis(arr, dst, src)
    arr = lax_numpy.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = lax_numpy.moveaxis(arr, dst, src)
    return lax_fft(arr, fft_type, tuple(s)[-n:])


def fftn(a, s=None, axes=None, norm=None):
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _axis_check_1d(func_name, axis):
    full_name = f"jax.numpy.fft.{func_name}"
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"{full_name} does not support multiple axes. Please use "
                         f"{full_name}n. Got axis = {axis!r}.")


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n],
                     None if axis is None else [axis], norm)


def fft(a, n=None, axis=-1, norm=None):
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry (given by its first half): real."""
    conj_a = ufuncs.conj(a)
    _axis_check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a, n=None, axis=-1, norm=None):
    _axis_check_1d("ihfft", axis)
    arr = asarray(a)
    nn = arr.shape[axis] if n is None else n
    output = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return ufuncs.conj(output) * (1 / nn)


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. "
                         f"Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def _check_freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single "
                         f"value. Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point FFT: ``[0, 1, ..., -2, -1] / (d n)``."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.finfo(dtypes.to_inexact_dtype(dtype)).dtype
    i = arange(n, dtype=dtype)
    k = (i + n // 2) % n - n // 2
    return (k.astype(dtype) / array(d * n, dtype=dtype)).astype(out_dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of ``rfft``'s outputs: ``[0, 1, ..., n // 2] / (d n)``."""
    dtype = dtype or dtypes.default_float_dtype()
    _check_freq_args("rfftfreq", n, d)
    k = arange(0, n // 2 + 1 if n % 2 == 0 else (n - 1) // 2 + 1, dtype=dtype)
    return k / array(d * n, dtype=dtype)


def _shifts(x, axes, sign):
    if axes is None:
        return tuple(range(x.ndim)), [sign * (dim // 2) for dim in x.shape]
    if isinstance(axes, int):
        return axes, sign * (x.shape[axes] // 2)
    return axes, [sign * (x.shape[ax] // 2) for ax in axes]


def fftshift(x, axes=None):
    """The zero frequency moved to the middle (a roll by half of each axis)."""
    x = ensure_arraylike("fftshift", x)
    axes, shift = _shifts(x, axes, 1)
    return lax_numpy.roll(x, shift, axes)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift``."""
    x = ensure_arraylike("ifftshift", x)
    axes, shift = _shifts(x, axes, -1)
    return lax_numpy.roll(x, shift, axes)
