"""``jnp.pad`` and its modes.

Each mode builds the padded array one axis at a time from slices of the array itself
(``edge``, ``wrap``, ``reflect``, ``symmetric``), from a statistic of the edge
(``maximum``, ``minimum``, ``mean``, ``median``), from a ramp (``linear_ramp``) or from
a constant (one ``lax.pad``), joined with ``lax.concatenate``: so every mode is
differentiable and batchable without rules of its own.
"""
from __future__ import annotations

import numpy as np

from glassjax import core, lax, shape_poly
from glassjax.jit import jit
from glassjax.numpy import reductions, sorting, util
from glassjax.numpy.array_creation import asarray, empty, linspace
from glassjax.numpy.lax_numpy import flip, repeat, round as _round, squeeze
from glassjax.numpy.util import broadcast_to, ensure_arraylike
from glassjax.numpy.vectorize import apply_along_axis


def _pad_pairs(nvals, nd, name):
    """``pad_width``-like input as one ``(before, after)`` pair per axis (NumPy
    integers, as JAX keeps them: they show in the ``pad`` equation's params)."""
    nvals = np.asarray(core.concrete_or_error(None, nvals, f"{name} argument of jnp.pad"))
    if nvals.shape == (nd, 2):
        return tuple((before, after) for before, after in nvals)
    if nvals.shape in ((1, 2), (2,)):
        return (tuple(nvals.ravel()),) * nd
    if nvals.shape in ((1,), ()):
        return ((nvals.flat[0], nvals.flat[0]),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {nvals.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _check_no_padding(pair, mode):
    if pair[0] > 0 or pair[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_constant(array, pad_width, constant_values):
    constant_values = util.convert(constant_values, array.dtype, array.weak_type)
    if np.ndim(constant_values) == 0:
        return lax.pad(array, constant_values, [(lo, hi, 0) for lo, hi in pad_width])
    if np.ndim(constant_values) == 1:
        if constant_values.shape[-1] == 1:
            return lax.pad(array, squeeze(constant_values),
                           [(lo, hi, 0) for lo, hi in pad_width])
        if constant_values.shape[-1] != 2:
            raise ValueError("jnp.pad: constant_values has unsupported shape "
                             f"{constant_values.shape}. If the shape is 1D or 2D, the last "
                             "dimension must be of size 1 or 2.")
    # One value per side of each axis: one lax.pad per (axis, side).
    constant_values = broadcast_to(constant_values, (array.ndim, 2))
    for i in range(array.ndim):
        for side in (0, 1):
            if pad_width[i][side]:
                widths = [(0, 0, 0)] * array.ndim
                widths[i] = (pad_width[i][0], 0, 0) if side == 0 else (0, pad_width[i][1], 0)
                array = lax.pad(array, constant_values[i, side], widths)
    return array


def _axes_with_data(array, pad_width, mode):
    """The axes a copying mode pads (one at a time, so the array grows in between; its
    other axes keep their sizes). An empty axis has nothing to copy: only zero padding."""
    for i, size in enumerate(array.shape):
        if size == 0:
            _check_no_padding(pad_width[i], mode)
        else:
            yield i


def _pad_wrap(array, pad_width):
    """The array repeated periodically."""
    for i in _axes_with_data(array, pad_width, "wrap"):
        size = array.shape[i]
        left_repeats, left_rem = divmod(pad_width[i][0], size)
        right_repeats, right_rem = divmod(pad_width[i][1], size)
        parts = []
        if left_rem > 0:
            parts.append(lax.slice_in_dim(array, size - left_rem, size, axis=i))
        parts += (left_repeats + right_repeats + 1) * [array]
        if right_rem > 0:
            parts.append(lax.slice_in_dim(array, 0, right_rem, axis=i))
        array = lax.concatenate(parts, dimension=i)
    return array


def _pad_symmetric_or_reflect(array, pad_width, mode, reflect_type):
    """Mirror images of the array; ``reflect`` does not repeat the edge, ``symmetric``
    does. Widths larger than the axis mirror the growing array again and again;
    ``reflect_type='odd'`` reflects the values through the edge value too."""
    for i in _axes_with_data(array, pad_width, mode):
        axis_size = array.shape[i]
        offset = 1 if (mode == "reflect" and axis_size > 1) else 0
        for before, padding in ((True, pad_width[i][0]), (False, pad_width[i][1])):
            edge = lax.slice_in_dim(array, 0, 1, axis=i) if before else \
                lax.slice_in_dim(array, -1, None, axis=i)
            while padding > 0:
                curr_pad = min(padding, axis_size - offset)
                padding -= curr_pad
                if before:
                    start, stop = offset, offset + curr_pad
                else:
                    start = -(curr_pad + offset)
                    stop = None if (mode == "symmetric" or axis_size == 1) else -1
                x = flip(lax.slice_in_dim(array, start, stop, axis=i), axis=i)
                if reflect_type == "odd":
                    x = 2 * edge - x
                    if axis_size > 1:
                        edge = lax.slice_in_dim(x, 0, 1, axis=i) if before else \
                            lax.slice_in_dim(x, -1, None, axis=i)
                array = lax.concatenate([x, array] if before else [array, x], dimension=i)
    return array


def _pad_edge(array, pad_width):
    """Copies of the first and last slice."""
    for i in _axes_with_data(array, pad_width, "edge"):
        n = array.shape[i]
        before, after = pad_width[i]
        array = lax.concatenate(
            [repeat(lax.slice_in_dim(array, 0, 1, axis=i), before, axis=i), array,
             repeat(lax.slice_in_dim(array, n - 1, n, axis=i), after, axis=i)], i)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    """A straight line from ``end_values`` to the edge value."""
    for axis in range(array.ndim):
        ramps = []
        for side, edge in ((0, lax.slice_in_dim(array, 0, 1, axis=axis)),
                           (1, lax.slice_in_dim(array, -1, None, axis=axis))):
            ramp = linspace(end_values[axis][side], squeeze(edge, axis),
                            num=pad_width[axis][side], endpoint=False, dtype=array.dtype,
                            axis=axis)
            ramp = util.convert(ramp, ramp.dtype, array.weak_type)
            ramps.append(ramp if side == 0 else flip(ramp, axis))
        array = lax.concatenate([ramps[0], array, ramps[1]], dimension=axis)
    return array


def _pad_stats(array, pad_width, stat_length, stat_func):
    """The statistic of (the first/last ``stat_length`` values of) each axis, repeated;
    rounded for integer arrays."""
    for i in range(array.ndim):
        if stat_length is None:
            stat_before = stat_after = stat_func(array, axis=i, keepdims=True)
        else:
            length_before, length_after = stat_length[i]
            if length_before == 0 or length_after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            length_before = min(length_before, array.shape[i])
            length_after = min(length_after, array.shape[i])
            stat_before = stat_func(lax.slice_in_dim(array, 0, length_before, axis=i),
                                    axis=i, keepdims=True)
            stat_after = stat_func(lax.slice_in_dim(array, -length_after, None, axis=i),
                                   axis=i, keepdims=True)
        if np.issubdtype(array.dtype, np.integer):
            stat_before, stat_after = _round(stat_before), _round(stat_after)
        stat_before = util.convert(stat_before, array.dtype, array.weak_type)
        stat_after = util.convert(stat_after, array.dtype, array.weak_type)
        before, after = pad_width[i]
        array = lax.concatenate([repeat(stat_before, before, axis=i), array,
                                 repeat(stat_after, after, axis=i)], dimension=i)
    return array


def _pad_empty(array, pad_width):
    """Unspecified values (zeros, as ``jnp.empty``)."""
    for i in range(array.ndim):
        parts = [empty(array.shape[:i] + (w,) + array.shape[i + 1:], array.dtype)
                 for w in pad_width[i]]
        array = lax.concatenate([parts[0], array, parts[1]], dimension=i)
    return array


_STAT_FUNCS = {"maximum": reductions.amax, "minimum": reductions.amin,
               "mean": reductions.mean, "median": sorting.median}

_ALLOWED_KWARGS = {"empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
                   "linear_ramp": ("end_values",), "maximum": ("stat_length",),
                   "mean": ("stat_length",), "median": ("stat_length",),
                   "minimum": ("stat_length",), "reflect": ("reflect_type",),
                   "symmetric": ("reflect_type",)}


@jit(static_argnums=(1, 2, 4, 5, 6))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    array = asarray(array)
    nd = array.ndim
    if nd == 0:
        return array
    pad_width = _pad_pairs(pad_width, nd, "pad_width")
    if np.any(np.array(pad_width) < 0):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, asarray(constant_values))
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("symmetric", "reflect"):
        return _pad_symmetric_or_reflect(array, pad_width, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, _pad_pairs(end_values, nd, "end_values"))
    if mode == "empty":
        return _pad_empty(array, pad_width)
    if stat_length is not None:
        stat_length = _pad_pairs(stat_length, nd, "stat_length")
    return _pad_stats(array, pad_width, stat_length, _STAT_FUNCS[mode])


def _hashable_pairs(x):
    """Static arguments of ``_pad`` must hash: nested tuples instead of lists/arrays."""
    if x is None or isinstance(x, str):
        return x
    x = np.asarray(core.concrete_or_error(None, x, "jnp.pad argument"))
    return tuple(map(tuple, x)) if x.ndim == 2 else tuple(x.tolist()) if x.ndim else x.item()


def _pad_func(array, pad_width, func, **kwargs):
    """A user padding function, NumPy's protocol: ``func(vector, (before, after), axis,
    kwargs)`` fills the padded regions of each 1-D slice (with zeros to start from)."""
    pad_width = _pad_pairs(pad_width, array.ndim, "pad_width")
    padded = _pad_constant(array, pad_width, asarray(0))
    for axis in range(padded.ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad ``array`` by ``pad_width`` (per axis ``(before, after)``) in one of NumPy's
    modes, or with a callable ``mode`` as NumPy's ``pad`` accepts."""
    array = ensure_arraylike("pad", array)
    pad_pairs = _pad_pairs(pad_width, array.ndim, "pad_width")
    if pad_pairs and not all(isinstance(v, (int, np.integer, shape_poly.DimExpr))
                             for p in pad_pairs for v in p):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_func(array, pad_width, mode, **kwargs)
    if mode not in _ALLOWED_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return _pad(array, pad_pairs, mode, kwargs.get("constant_values", 0),
                _hashable_pairs(kwargs.get("stat_length")),
                _hashable_pairs(kwargs.get("end_values", 0)),
                kwargs.get("reflect_type", "even"))
