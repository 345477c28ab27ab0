"""Histograms: ``histogram_bin_edges``, ``histogram``, ``histogram2d``, ``histogramdd``.

Bins must be a static count or explicit edges (the output shape depends on them). Each
value finds its bin with ``searchsorted``; counts are a scatter-add of the weights. The
last bin is closed on the right, as in NumPy.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from glassjax import core, dtypes
from glassjax.numpy import reductions
from glassjax.numpy.array_creation import asarray, linspace, ones_like, zeros
from glassjax.numpy.index_tricks import ix_, ravel_multi_index
from glassjax.numpy.lax_numpy import bincount, diff, reshape, transpose, where
from glassjax.numpy.setops import searchsorted
from glassjax.numpy.util import check_arraylike, ensure_arraylike, promote_dtypes_inexact


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """``bins + 1`` evenly spaced edges over ``range`` (the data's min and max by
    default), or the given edges."""
    del weights    # only string bins (not supported) would use them
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = asarray(a)
    dtype = dtypes.to_inexact_dtype(arr.dtype)
    if np.ndim(bins) == 1:
        return asarray(bins, dtype=dtype)
    bins_int = core.concrete_or_error(operator.index, bins,
                                      "bins argument of histogram_bin_edges")
    if range is None:
        range = [arr.min(), arr.max()]  # noqa: A001
    range = asarray(range, dtype=dtype)  # noqa: A001
    if np.shape(range) != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    # An empty range widens to one unit around its value (``ptp`` is computed for each
    # end, as JAX does: the same jaxpr).
    low = where(reductions.ptp(range) == 0, range[0] - 0.5, range[0])
    high = where(reductions.ptp(range) == 0, range[1] + 0.5, range[1])
    return linspace(low, high, bins_int + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, edges): the (weighted) number of values in each bin, normalized to a
    probability density if ``density``."""
    if weights is None:
        a, _ = ensure_arraylike("histogram", a, bins)
        a, = promote_dtypes_inexact(a)
        weights = ones_like(a)
    else:
        a, _, weights = ensure_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
    bin_edges = histogram_bin_edges(a, bins, range, weights)
    bin_idx = searchsorted(bin_edges, a, side="right")
    bin_idx = where(a == bin_edges[-1], len(bin_edges) - 1, bin_idx)
    counts = zeros(len(bin_edges), weights.dtype).at[bin_idx].add(weights)[1:]
    if density:
        counts = counts / diff(bin_edges) / counts.sum()
    return counts, bin_edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The 2-D histogram of the points ``(x, y)``: (counts, x edges, y edges)."""
    x, y = ensure_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [asarray(bins), asarray(bins)]
    hist, edges = histogramdd(transpose(asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The D-dimensional histogram of ``N`` points (``sample`` of shape ``(N, D)``):
    (counts, [edges per dimension])."""
    if weights is None:
        sample = ensure_arraylike("histogramdd", sample)
        sample, = promote_dtypes_inexact(sample)
    else:
        sample, weights = ensure_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(sample, weights)
    N, D = np.shape(sample)
    if range is not None and (len(range) != D or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs "
                         f"or Nones; got {range=}")
    try:
        bins_per_dimension = list(bins)
    except TypeError:
        bins_per_dimension = D * [bins]
    else:
        if len(bins_per_dimension) != D:
            raise ValueError("should be a bin for each dimension.")
    bin_idx_by_dim, bin_edges_by_dim = [], []
    for i in builtins.range(D):
        range_i = None if range is None else range[i]
        bin_edges = histogram_bin_edges(sample[:, i], bins_per_dimension[i], range_i, weights)
        bin_idx = searchsorted(bin_edges, sample[:, i], side="right")
        bin_idx_by_dim.append(where(sample[:, i] == bin_edges[-1], bin_idx - 1, bin_idx))
        bin_edges_by_dim.append(bin_edges)
    # One extra bin on each side for the outliers, dropped at the end.
    nbins = tuple(len(bin_edges) + 1 for bin_edges in bin_edges_by_dim)
    xy = ravel_multi_index(tuple(bin_idx_by_dim), nbins, mode="clip")
    hist = reshape(bincount(xy, weights, length=math.prod(nbins)), nbins)
    hist = hist[D * (slice(1, -1),)]
    if density:
        hist = hist.astype(sample.dtype)
        hist /= hist.sum()
        for norm in ix_(*(diff(edges) for edges in bin_edges_by_dim)):
            hist /= norm
    return hist, bin_edges_by_dim
