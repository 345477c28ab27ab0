"""``glassjax.scipy.signal``: N-dimensional convolution and correlation (JAX's
``jax.scipy.signal``).

A direct convolution is one ``lax.conv_general_dilated`` with a batch and a feature axis
of size 1 added to both operands and the kernel flipped (XLA's "convolution" is a
cross-correlation). The modes only change the padding: ``full`` pads by the kernel size
minus one on each side, ``valid`` not at all, ``same`` so that the output has the size of
the first input. ``fftconvolve`` multiplies spectra instead.
"""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.numpy.util import check_arraylike, promote_dtypes_inexact
from glassjax.scipy.spectral import csd, detrend, istft, stft, welch

_MODES = ("full", "same", "valid")


def _convolve_nd(in1, in2, mode, *, precision):
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    fits = all(a >= b for a, b in zip(in1.shape, in2.shape))
    swapped = all(a <= b for a, b in zip(in1.shape, in2.shape))
    if not (fits or swapped):
        raise ValueError("One input must be smaller than the other in every dimension.")
    first_shape = in2.shape          # the output of 'same' has the size of the first input
    if swapped:                      # convolution commutes: slide the smaller one
        in1, in2 = in2, in1
    kernel_shape = in2.shape
    kernel = jnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0)] * len(kernel_shape)
    elif mode == "same":
        padding = [(k - 1 - (f - 1) // 2, k - f + (f - 1) // 2)
                   for k, f in zip(kernel_shape, first_shape)]
    else:
        padding = [(k - 1, k - 1) for k in kernel_shape]
    out = lax.conv_general_dilated(in1[None, None], kernel[None, None],
                                   (1,) * len(kernel_shape), padding, precision=precision)
    return out[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """The N-dimensional convolution of ``in1`` and ``in2`` (``method="fft"`` through
    their spectra, otherwise directly)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("direct", "auto"):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    check_arraylike("convolve", in1, in2)
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """``convolve`` for 2-D inputs (only zero padding at the boundary, as in JAX)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """Cross-correlation: convolution with the second input reversed and conjugated."""
    check_arraylike("correlate", in1, in2)
    return convolve(in1, jnp.flip(jnp.asarray(in2).conj()), mode, precision=precision,
                    method=method)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """``correlate`` for 2-D inputs. The output is oriented as SciPy orients it, which
    (when the second input is the larger) is the conjugate of the swapped correlation."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    second_larger = all(a <= b for a, b in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    if mode == "same" or (mode == "valid" and (same_shape or not second_larger)) or \
            (mode == "full" and not second_larger):
        return jnp.flip(_convolve_nd(jnp.flip(in1), in2.conj(), mode, precision=precision))
    out = _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision)
    return out if mode == "valid" else out.conj()


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution through the FFT: multiply the spectra, transform back, then cut the
    part ``mode`` asks for. With ``axes``, the other axes are batch axes (``vmap``)."""
    from glassjax.vmap_api import vmap
    from glassjax.lax.utils import canonicalize_axis
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(jnp.asarray(in1), jnp.asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    fun = lambda a, b: _fftconvolve_unbatched(a, b, mode)
    if axes is None:
        return fun(in1, in2)
    axes = tuple(canonicalize_axis(a, in1.ndim) for a in np.atleast_1d(axes))
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                         f"in2.shape={in2.shape} axes={axes}")
    for ax in mapped:
        fun = vmap(fun, in_axes=ax, out_axes=ax)
    return fun(in1, in2)


def _fftconvolve_unbatched(in1, in2, mode):
    full_shape = tuple(a + b - 1 for a, b in zip(in1.shape, in2.shape))
    if mode == "valid":
        fits = all(a >= b for a, b in zip(in1.shape, in2.shape))
        swapped = all(a <= b for a, b in zip(in1.shape, in2.shape))
        if not (fits or swapped):
            raise ValueError("For 'valid' mode, One input must be at least as large as "
                             "the other in every dimension.")
        if swapped:
            in1, in2 = in2, in1
    if all(a == 1 or b == 1 for a, b in zip(in1.shape, in2.shape)):
        full = in1 * in2                 # an outer product: no transform needed
    else:
        fft = jnp.fft
        forward, inverse = ((fft.fftn, fft.ifftn) if jnp.iscomplexobj(in1)
                            else (fft.rfftn, fft.irfftn))
        full = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    out_shape = {"full": full_shape, "same": in1.shape,
                 "valid": tuple(a - b + 1 for a, b in zip(in1.shape, in2.shape))}[mode]
    start = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return lax.dynamic_slice(full, start, out_shape)
