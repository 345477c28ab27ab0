"""Descriptive statistics: ``mode``, ``rankdata``, ``sem``."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.jit import jit
from glassjax.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact
from glassjax.vmap_api import vmap


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(nan_policy, name):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not "
                                  "implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains "
            f"nans. Please check if nans exist in `x` outside of the `{name}` function.")


@jit(static_argnames=["axis", "nan_policy", "keepdims"])
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (the smallest of ties) and its count:
    ``unique`` with a static size, vmapped over the other axes."""
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    if keepdims:
        output_shape = tuple(1 if axis is None or i == axis else s
                             for i, s in enumerate(x.shape))
    else:
        output_shape = () if axis is None else tuple(s for i, s in enumerate(x.shape)
                                                     if i != axis)
    if axis is None:
        axis, x = 0, x.ravel()

    def one_mode(x):
        if x.size == 0:
            return (jnp.array(np.nan, dtype=dtypes.default_float_dtype()),
                    jnp.array(0, dtype=dtypes.default_float_dtype()))
        vals, counts = jnp.unique(x, return_counts=True, size=x.size)
        return vals[jnp.argmax(counts)], counts.max()
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap(one_mode, in_axes=1)(x)
    return ModeResult(vals.reshape(output_shape), counts.reshape(output_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


@jit(static_argnames=["method", "axis", "nan_policy"])
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks of the data, from 1 (ties: ``average``, ``min``, ``max``, ``dense`` or
    ``ordinal``); all NaN if there is a NaN."""
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = dtypes.default_float_dtype()

    def ranks(a):
        arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
        inv = _invert_permutation(sorter)
        if method == "ordinal":
            return (inv + 1).astype(out_dtype)
        # obs marks the first of each run of equal values; dense is the run number.
        obs = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
        dense = obs.cumsum()[inv]
        if method == "dense":
            return dense.astype(out_dtype)
        count = jnp.nonzero(obs, size=arr.size + 1, fill_value=obs.size)[0].astype(out_dtype)
        if method == "max":
            return count[dense]
        if method == "min":
            return count[dense - 1] + 1
        return .5 * (count[dense] + count[dense - 1] + 1)
    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype),
                    ranks, a)


@jit(static_argnames=["axis", "nan_policy", "keepdims"])
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean: ``std(ddof) / sqrt(n)``."""
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
                / jnp.sqrt(count).astype(b.dtype))
    raise ValueError(f"{nan_policy} is not supported")
