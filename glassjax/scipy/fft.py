"""``glassjax.scipy.fft``: the discrete cosine transform (type 2, as JAX's
``jax.scipy.fft``), computed with one complex FFT.

Makhoul's method (1980): interleave ``x`` (even samples in order, then odd ones
reversed), take its FFT ``V``, and ``dct(x)[k] = 2 Re(exp(-iπk/2N) V[k])``. The inverse
undoes each step: multiply by the conjugate twiddle, inverse FFT, de-interleave. A 2-D
transform twiddles both axes of one 2-D FFT; more axes are done two at a time.
"""
from __future__ import annotations

import functools
import inspect
import math
import operator

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.numpy.util import (canonicalize_axis, canonicalize_axis_tuple,
                                 ensure_arraylike, promote_dtypes_complex,
                                 promote_dtypes_inexact)


def _w4(n, k):
    """The twiddle factor ``exp(-iπk/2n)``."""
    n, k = promote_dtypes_complex(n, k)
    return jnp.exp(-.5j * np.pi * k / n)


def _along(values, axis, ndim):
    """A 1-D array set along ``axis`` of an ``ndim``-dimensional array."""
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _interleave(x, axis):
    even = lax.slice_in_dim(x, None, None, 2, axis)
    odd_reversed = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([even, odd_reversed], axis)


def _deinterleave(x, axis):
    half = math.ceil(x.shape[axis] / 2)
    at = lambda s: tuple(s if a == axis else slice(None) for a in range(x.ndim))
    out = jnp.zeros(x.shape, dtype=x.dtype)
    out = out.at[at(slice(None, None, 2))].set(x[at(slice(None, half, 1))])
    return out.at[at(slice(1, None, 2))].set(lax.rev(x[at(slice(half, None, 1))], (axis,)))


def _ortho(out, axis):
    """Scale by ``1/sqrt(4N)`` for the first coefficient, ``1/sqrt(2N)`` for the rest."""
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)],
                             0)
    return out / lax.sqrt(_along(factor, axis, out.ndim) * n)


def _resize(x, sizes: dict):
    """Zero-pad (or crop) ``x`` to ``sizes[axis]`` along the axes given."""
    return lax.pad(x, jnp.array(0, x.dtype),
                   [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)])


def _checked_and_real(transform):
    """The start the four transforms share: JAX's checks of ``x``, ``type`` and
    ``norm``, and a complex ``x`` transformed part by part."""
    name, signature = transform.__name__, inspect.signature(transform)

    @functools.wraps(transform)
    def checked(x, *args, **kwargs):
        given = signature.bind(x, *args, **kwargs)
        given.apply_defaults()
        x = ensure_arraylike(name, x)
        if given.arguments["type"] != 2:
            raise NotImplementedError('Only DCT type 2 is implemented.')
        norm = given.arguments["norm"]
        if norm is not None and norm not in ['backward', 'ortho']:
            raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")
        if dtypes.issubdtype(x.dtype, np.complexfloating):
            return lax.complex(checked(x.real, *args, **kwargs),
                               checked(x.imag, *args, **kwargs))
        return transform(x, *args, **kwargs)
    return checked


def _axes_and_sizes(x, s, axes):
    """The axes to transform and, if ``s`` is given, their sizes."""
    if s is not None:
        try:
            s = list(s)
        except TypeError:
            s = [operator.index(s)]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - (x.ndim if s is None else len(s)), x.ndim))
    else:
        axes = canonicalize_axis_tuple(axes, x.ndim)
    return axes, (None if s is None else dict(zip(axes, s)))


@_checked_and_real
def dct(x, type=2, n=None, axis=-1, norm=None):
    """The type-2 discrete cosine transform of ``x`` along ``axis`` (zero-padded or cropped
    to ``n``), as ``scipy.fft.dct``; complex ``x`` is transformed part by part."""
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, {axis: n})
    size = x.shape[axis]
    v = jnp.fft.fft(_interleave(x, axis), axis=axis)
    k = _along(jnp.arange(size, dtype=v.real.dtype), axis, x.ndim)
    out = 2 * (v * _w4(size, k)).real
    return _ortho(out, axis) if norm == 'ortho' else out


def _dct2(x, axes, norm):
    """A 2-D DCT from one 2-D FFT: each axis's twiddle, and the second axis's mirrored
    spectrum for the cross term."""
    axis1, axis2 = (canonicalize_axis(a, x.ndim) for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    v = jnp.fft.fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = _along(jnp.arange(n1, dtype=v.dtype), axis1, x.ndim)
    k2 = _along(jnp.arange(n2, dtype=v.dtype), axis2, x.ndim)
    mirrored = jnp.roll(jnp.flip(v, axis=axis2), shift=1, axis=axis2)
    out = 2 * (_w4(n1, k1) * (_w4(n2, k2) * v + _w4(n2, -k2) * mirrored)).real
    return _ortho(_ortho(out, axis1), axis2) if norm == 'ortho' else out


@_checked_and_real
def dctn(x, type=2, s=None, axes=None, norm=None):
    """The type-2 DCT over several ``axes`` (sizes ``s``), as ``scipy.fft.dctn``."""
    axes, sizes = _axes_and_sizes(x, s, axes)
    if len(axes) == 1:
        return dct(x, n=None if sizes is None else sizes[axes[0]], axis=axes[0], norm=norm)
    if sizes is not None:
        x = _resize(x, sizes)
    if len(axes) == 2:
        return _dct2(x, axes, norm)
    for pair in [axes[i:i + 2] for i in range(0, len(axes), 2)]:
        x = dctn(x, axes=pair, norm=norm)
    return x


@_checked_and_real
def idct(x, type=2, n=None, axis=-1, norm=None):
    """The inverse of ``dct`` along ``axis``, as ``scipy.fft.idct``."""
    axis = canonicalize_axis(axis, x.ndim)
    if n is not None:
        x = _resize(x, {axis: n})
    size = x.shape[axis]
    x, = promote_dtypes_inexact(x)
    if norm is None or norm == 'backward':
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = _along(jnp.arange(size, dtype=x.dtype), axis, x.ndim)
    w4 = _w4(size, k)
    x = x.astype(w4.dtype) / w4 * 2 * size
    return _deinterleave(jnp.fft.ifft(x, axis=axis).real, axis)


@_checked_and_real
def idctn(x, type=2, s=None, axes=None, norm=None):
    """The inverse of ``dctn``: ``idct`` along each axis in turn."""
    axes, sizes = _axes_and_sizes(x, s, axes)
    if len(axes) == 1:
        return idct(x, n=None if sizes is None else sizes[axes[0]], axis=axes[0], norm=norm)
    if sizes is not None:
        x = _resize(x, sizes)
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x
