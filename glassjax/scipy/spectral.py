"""Short-time Fourier analysis of ``jax.scipy.signal``: ``stft``, ``istft``, ``csd``,
``welch``, and the ``detrend`` they apply to each segment.

A signal is cut into overlapping segments (a vmapped ``dynamic_slice``), each detrended,
windowed and FFT'd; ``welch``/``csd`` average the (cross) periodograms of the segments,
``istft`` inverts by overlap-add of the windowed inverse FFTs divided by the summed
squared window.
"""
from __future__ import annotations

import math
import operator
import warnings
from functools import partial

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.numpy.util import (canonicalize_axis, check_arraylike, ensure_arraylike,
                                 promote_dtypes_complex, promote_dtypes_inexact)
from glassjax.numpy.linalg import lstsq
from glassjax.vmap_api import vmap


def _named_window(window, n):
    """The window ``window`` of length ``n``: the periodic Hann window computed here,
    others from SciPy's ``get_window``."""
    if window == "hann":
        return jnp.array([1.0]) if n == 1 else jnp.sin(jnp.linspace(0, np.pi, n,
                                                                    endpoint=False)) ** 2
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window}") from err
    return get_window(window, n)


def _triage_segments(window, nperseg, input_length, dtype):
    """(window array, segment length) from a window name/tuple or array and
    ``nperseg``."""
    if isinstance(window, (str, tuple)):
        nperseg_int = input_length if nperseg is None else int(nperseg)
        if nperseg_int > input_length:
            warnings.warn(f"nperseg={nperseg_int} is greater than "
                          f"input_length={input_length}, using nperseg={input_length}")
            nperseg_int = input_length
        return jnp.array(_named_window(window, nperseg_int), dtype=dtype), nperseg_int
    win = jnp.asarray(window, dtype=dtype)
    nperseg_int = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if nperseg_int != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, nperseg_int


def _median_bias(n):
    """The bias of the median of ``n`` chi-squared(2) periodograms, relative to the
    mean."""
    ii_2 = jnp.arange(2., n, 2)
    return 1 + jnp.sum(1. / (ii_2 + 1) - 1. / ii_2)


def odd_ext(x, n, axis=-1):
    """``x`` extended by ``n`` points at each end by odd reflection through the end
    values."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {x.shape[axis] - 1}.")
    left_end = lax.slice_in_dim(x, 0, 1, axis=axis)
    left_ext = jnp.flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    right_end = lax.slice_in_dim(x, -1, None, axis=axis)
    right_ext = jnp.flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return jnp.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext),
                           axis=axis)


def _fft_helper(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The windowed FFTs of the segments of the last axis: ``(..., segments, freqs)``."""
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    *batch_shape, signal_length = x.shape
    if nperseg == 1 and noverlap == 0:
        result = x[..., np.newaxis]
    else:
        starts = jnp.arange(signal_length - nperseg + 1, step=nperseg - noverlap)
        result = vmap(lambda start: lax.dynamic_slice_in_dim(x, start, nperseg, axis=x.ndim - 1),
                      out_axes=-2)(starts)
    result = detrend_func(result)
    if jnp.iscomplexobj(win):
        result, = promote_dtypes_complex(result)
    result = win.reshape((1,) * len(batch_shape) + (1, nperseg)) * result
    if sides == "twosided":
        return jnp.fft.fft(result, n=nfft)
    return jnp.fft.rfft(result.real, n=nfft)


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
    """Remove the mean (``type="constant"``) or a least-squares line per segment between
    breakpoints ``bp`` (``"linear"``) along ``axis``."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data, = promote_dtypes_inexact(jnp.asarray(data))
    if type == "constant":
        return data - data.mean(axis, keepdims=True)
    n = data.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data "
                         "along given axis.")
    moved = jnp.moveaxis(data, axis, 0)
    flat = moved.reshape(n, -1)
    for lo, hi in zip(breaks[:-1], breaks[1:]):
        npts = hi - lo
        design = jnp.vstack([jnp.ones(npts, dtype=flat.dtype),
                             jnp.arange(1, npts + 1, dtype=flat.dtype) /
                             np.asarray(npts, flat.dtype)]).T
        coef, *_ = lstsq(design, flat[lo:hi])
        flat = flat.at[lo:hi].add(-jnp.matmul(design, coef,
                                              precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(flat.reshape(moved.shape), 0, axis)


def _spectral_helper(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
                     detrend_type="constant", return_onesided=True, scaling="density",
                     axis=-1, mode="psd", boundary=None, padded=False):
    """(frequencies, segment times, spectra) shared by ``stft`` and ``csd``."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")

    def make_pad(pad_mode, **kwargs):
        def pad(x, n, axis=-1):
            pad_width = [(0, 0)] * x.ndim
            pad_width[axis] = (n, n)
            return jnp.pad(x, pad_width, pad_mode, **kwargs)
        return pad
    boundary_funcs = {"even": make_pad("reflect"), "odd": odd_ext,
                      "constant": make_pad("edge"),
                      "zeros": make_pad("constant", constant_values=0.0),
                      None: lambda x, *args, **kwargs: x}
    if boundary not in boundary_funcs:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(boundary_funcs.keys())}")
    axis = canonicalize_axis(core.concrete_or_error(operator.index, axis,
                                                    "axis of windowed-FFT"), x.ndim)
    without_axis = lambda shape: shape[:axis] + shape[axis + 1:]
    if y is None:
        check_arraylike("spectral_helper", x)
        x, = promote_dtypes_inexact(x)
        y_arr = x
        outershape = without_axis(x.shape)
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y_arr = promote_dtypes_inexact(x, y)
        if x.ndim != y_arr.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs "
                             f"{y_arr.ndim}).")
        try:
            outershape = jnp.broadcast_shapes(without_axis(x.shape), without_axis(y_arr.shape))
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = dtypes.to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = core.concrete_or_error(int, nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg_int = _triage_segments(window, nperseg, x.shape[axis], x.dtype)
    noverlap_int = nperseg_int // 2 if noverlap is None else core.concrete_or_error(
        int, noverlap, "noverlap of windowed-FFT")
    nfft_int = nperseg_int if nfft is None else core.concrete_or_error(
        int, nfft, "nfft of windowed-FFT")
    if y is None and x.size == 0:
        return (jnp.zeros(x.shape, freq_dtype), jnp.zeros(x.shape, freq_dtype),
                jnp.zeros(x.shape, result_dtype))
    if y is not None and (x.size == 0 or y_arr.size == 0):
        shape = outershape[:axis] + (min(x.shape[axis], y_arr.shape[axis]),) + \
            outershape[axis:]
        return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
                jnp.zeros(shape, result_dtype))
    x = jnp.moveaxis(x, axis, -1)
    if y is not None and y_arr.ndim > 1:
        y_arr = jnp.moveaxis(y_arr, axis, -1)
    if y is not None and x.shape[-1] != y_arr.shape[-1]:
        # Zero-pad the shorter signal.
        if x.shape[-1] < y_arr.shape[-1]:
            x = jnp.concatenate((x, jnp.zeros((*x.shape[:-1], y_arr.shape[-1] - x.shape[-1]),
                                              x.dtype)), -1)
        else:
            y_arr = jnp.concatenate((y_arr, jnp.zeros(
                (*y_arr.shape[:-1], x.shape[-1] - y_arr.shape[-1]), x.dtype)), -1)
    if nfft_int < nperseg_int:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int
    if boundary is not None:
        x = boundary_funcs[boundary](x, nperseg_int // 2, axis=-1)
        if y is not None:
            y_arr = boundary_funcs[boundary](y_arr, nperseg_int // 2, axis=-1)
    if padded:     # zero-pad to a whole number of segments
        nadd = (-(x.shape[-1] - nperseg_int) % nstep) % nperseg_int
        x = jnp.concatenate((x, jnp.zeros((*x.shape[:-1], nadd), x.dtype)), axis=-1)
        if y is not None:
            y_arr = jnp.concatenate((y_arr, jnp.zeros((*y_arr.shape[:-1], nadd), x.dtype)),
                                    axis=-1)
    if isinstance(detrend_type, str):
        detrend_func = partial(detrend, type=detrend_type, axis=-1)
    elif callable(detrend_type):
        detrend_func = detrend_type
        if axis != -1:
            def detrend_func(d):
                return jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    elif not detrend_type:
        detrend_func = lambda d: d
    else:
        raise ValueError(f"Unsupported detrend type: {detrend_type}")
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    scale, = promote_dtypes_complex(scale)
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (jnp.iscomplexobj(x) or (y is not None and jnp.iscomplexobj(y))):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False")
    freqs = (jnp.fft.fftfreq if sides == "twosided" else jnp.fft.rfftfreq)(
        nfft_int, 1 / fs, dtype=freq_dtype)
    result = _fft_helper(x, win, detrend_func, nperseg_int, noverlap_int, nfft_int, sides)
    if y is not None:
        result = jnp.conjugate(result) * _fft_helper(y_arr, win, detrend_func, nperseg_int,
                                                     noverlap_int, nfft_int, sides)
    elif mode == "psd":
        result = jnp.conjugate(result) * result
    result *= scale
    if sides == "onesided" and mode == "psd":
        # Fold the negative frequencies in (all but DC and, for even nfft, Nyquist).
        result = result.at[..., 1:None if nfft_int % 2 else -1].mul(2)
    time = jnp.arange(nperseg_int / 2, x.shape[-1] - nperseg_int / 2 + 1,
                      nperseg_int - noverlap_int, dtype=freq_dtype) / fs
    if boundary is not None:
        time -= (nperseg_int / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
    """The short-time Fourier transform: (frequencies, segment times, ``Zxx``)."""
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling="spectrum", axis=axis, mode="stft",
                            boundary=boundary, padded=padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
    """The cross power spectral density by Welch's method: (frequencies, ``Pxy``)."""
    freqs, _, Pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                     return_onesided, scaling, axis, mode="psd")
    if y is not None:
        Pxy = Pxy + 0j
    if Pxy.ndim >= 2 and Pxy.size > 0:
        if Pxy.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(Pxy.shape[-1]).astype(Pxy.dtype)
                if jnp.iscomplexobj(Pxy):
                    Pxy = (jnp.median(jnp.real(Pxy), axis=-1)
                           + 1j * jnp.median(jnp.imag(Pxy), axis=-1))
                else:
                    Pxy = jnp.median(Pxy, axis=-1)
                Pxy /= bias
            elif average == "mean":
                Pxy = Pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            Pxy = jnp.reshape(Pxy, Pxy.shape[:-1])
    return freqs, Pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """The power spectral density by Welch's method (averaged periodograms)."""
    freqs, Pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, Pxx.real


def _overlap_and_add(x, step_size):
    """The sum of the frames ``x[..., i, :]`` placed ``step_size`` apart, without a
    scatter: frames are split into ``step_size`` chunks and the chunks that overlap are
    summed by a reshape trick."""
    check_arraylike("_overlap_and_add", x)
    step_size = core.concrete_or_error(int, step_size, "step_size for overlap_and_add")
    if x.ndim < 2:
        raise ValueError("Input must have (..., frames, frame_length) shape.")
    *batch_shape, nframes, segment_len = x.shape
    flat_batchsize = math.prod(batch_shape)
    x = x.reshape((flat_batchsize, nframes, segment_len))
    output_size = step_size * (nframes - 1) + segment_len
    nstep_per_segment = 1 + (segment_len - 1) // step_size
    padded_segment_len = nstep_per_segment * step_size
    x = jnp.pad(x, ((0, 0), (0, 0), (0, padded_segment_len - segment_len)))
    x = x.reshape((flat_batchsize, nframes, nstep_per_segment, step_size))
    x = x.transpose((0, 2, 1, 3))                                     # (B, S, N, T)
    x = jnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))            # (B, S, 2N, T)
    shrunken = x.shape[2] - 1
    x = x.reshape((flat_batchsize, -1))[:, :(nstep_per_segment * shrunken * step_size)]
    x = x.reshape((flat_batchsize, nstep_per_segment, shrunken * step_size))
    return x.sum(axis=1)[:, :output_size].reshape(tuple(batch_shape) + (-1,))


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """The inverse short-time Fourier transform: (times, signal)."""
    Zxx = ensure_arraylike("istft", Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = jnp.asarray(Zxx, dtype=dtypes.to_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg_int = core.concrete_or_error(int, nperseg or n_default,
                                         "nperseg: segment length of STFT")
    if nperseg_int < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nperseg_int == n_default + 1 else 0)
    else:
        nfft_int = core.concrete_or_error(int, nfft, "nfft of STFT")
    if nfft_int < nperseg_int:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg "
                         f"({nperseg_int}).")
    noverlap_int = core.concrete_or_error(int, noverlap or nperseg_int // 2,
                                          "noverlap of STFT")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer_idxs = tuple(i for i in range(Zxx.ndim) if i not in {time_axis, freq_axis})
        Zxx = jnp.transpose(Zxx, outer_idxs + (freq_axis, time_axis))
    ifunc = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    xsubs = ifunc(Zxx, axis=-2, n=nfft)[..., :nperseg_int, :]
    if isinstance(window, str) and window == "hann":
        win = _named_window(window, nperseg_int).astype(xsubs.dtype)
    elif isinstance(window, (str, tuple)):
        win = jnp.array(_named_window(window, nperseg_int), dtype=xsubs.dtype)
    else:
        win = jnp.asarray(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg_int:
            raise ValueError(f"window must have length of {nperseg_int}")
    xsubs *= win.sum()                       # undoes the 'spectrum' scaling
    win = lax.expand_dims(win, (*range(xsubs.ndim - 2), xsubs.ndim - 1))
    x = _overlap_and_add((xsubs * win).swapaxes(-2, -1), nstep)
    norm = _overlap_and_add(jnp.repeat(win * win, xsubs.shape[-1], axis=-1).swapaxes(-2, -1),
                            nstep)
    if boundary:
        x = x[..., nperseg_int // 2:-(nperseg_int // 2)]
        norm = norm[..., nperseg_int // 2:-(nperseg_int // 2)]
    x /= jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = jnp.moveaxis(x, -1, time_axis)
    time = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
