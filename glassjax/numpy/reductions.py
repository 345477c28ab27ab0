"""Reductions: ``sum``, ``prod``, ``max``, ``min``, ``all``, ``any``, ``mean``, ``var``,
``std``, ``argmax``, ``cumsum``, ...

All the plain ones go through ``_reduction``, which does what NumPy's semantics need
around one lax reduce primitive: canonicalize ``axis``, pick the result dtype (small ints
are summed as int32, float16 is accumulated in float32), mask with ``where`` by
substituting the identity, apply ``initial``, and re-insert axes for ``keepdims``.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.interpreters import replay
from glassjax.jit import jit
from glassjax.numpy.util import (_where, broadcast_to, canonicalize_axis,
                                 canonicalize_axis_tuple, const, ensure_arraylike,
                                 promote_dtypes_inexact, promote_dtypes_numeric)


def _upcast_f16(dtype):
    """Half-precision sums lose too much precision: accumulate them in float32."""
    return np.dtype(np.float32) if np.dtype(dtype) in (np.float16, dtypes.bfloat16) \
        else np.dtype(dtype)


def _promote_integer_dtype(dtype):
    """Sums of bools and small ints are computed in the default int (as NumPy does)."""
    if isinstance(dtype, np.dtype) and dtype.kind in "fc":     # (the common case)
        return dtype
    if dtypes.issubdtype(dtype, np.bool_):
        return dtypes.default_int_dtype()
    for kind, default in ((np.unsignedinteger, dtypes.canonicalize_dtype(np.uint64)),
                          (np.integer, dtypes.default_int_dtype())):
        if dtypes.issubdtype(dtype, kind):
            return default if np.iinfo(dtype).bits < np.iinfo(default).bits else dtype
    return dtype


def _check_where(name, where):
    if where is None:
        return None
    where = ensure_arraylike(name, where)
    if where.dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={where.dtype!r}.")
    return where


def _reduction_dims(a, axis):
    ndim = core.ndim_of(a)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (np.ndarray, tuple, list)) else (axis,)
    dims = tuple(canonicalize_axis(x, ndim) for x in axes)
    if len(dims) != len(set(dims)):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return dims


def _reduction_init_val(dtype, init_val):
    """The identity as a scalar of ``dtype`` (+-inf become the extreme finite values of
    types without infinities, and of integers)."""
    if dtype == np.bool_:
        return np.array(init_val > 0, dtype=dtype)
    try:
        return np.array(init_val, dtype=dtype)
    except OverflowError:
        info = dtypes.iinfo(dtype)
        return np.array(info.min if np.sign(init_val) < 0 else info.max, dtype=dtype)


# A lax reduce primitive for each binary op with an identity (``lax.reduce``'s monoids).
_REDUCERS = {lax.add: lax.reduce_sum, lax.mul: lax.reduce_prod, lax.max: lax.reduce_max,
             lax.min: lax.reduce_min, lax.bitwise_and: lax.reduce_and,
             lax.bitwise_or: lax.reduce_or, lax.bitwise_xor: lax.reduce_xor}


def _reduction(a, name, op, init_val, *, has_identity=True, preproc=None, bool_op=None,
               upcast_f16_for_computation=False, axis=None, dtype=None, out=None,
               keepdims=False, initial=None, where_=None, promote_integers=False):
    axis = _ensure_optional_axes(axis)
    bool_op = bool_op or op
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = ensure_arraylike(name, a)
    where_ = _check_where(name, where_)
    axis = core.concrete_or_error(None, axis, f"axis argument to jnp.{name}().")
    if initial is None and not has_identity and where_ is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    dims = _reduction_dims(a, axis)
    if initial is None and not has_identity:
        if not builtins.all(np.shape(a)[d] >= 1 for d in dims):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
    if dtype is None:
        result_dtype = a.dtype
        if promote_integers:
            result_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    computation_dtype = (_upcast_f16(result_dtype) if upcast_f16_for_computation and
                         dtypes.issubdtype(result_dtype, np.inexact) else result_dtype)
    a = lax.convert_element_type(a, computation_dtype)
    op = op if computation_dtype != np.bool_ else bool_op
    if where_ is not None:
        a = _where(where_, a, _reduction_init_val(computation_dtype, init_val))
    result = _REDUCERS[op](a, dims)
    if initial is not None:
        initial_arr = lax.convert_element_type(initial, a.dtype)
        if np.shape(initial_arr) != ():
            raise ValueError("initial value must be a scalar. Got array of shape "
                             f"{np.shape(initial_arr)}")
        result = op(initial_arr, result)
    if keepdims:
        result = lax.expand_dims(result, dims)
    return lax.convert_element_type(result, dtype or result_dtype)


def _cast_to_bool(operand):
    if dtypes.issubdtype(operand.dtype, np.complexfloating):
        operand = lax.real(operand)
    return lax.convert_element_type(operand, np.bool_)


def _cast_to_numeric(operand):
    return promote_dtypes_numeric(operand)[0]


def _ensure_optional_axes(x):
    """Axes must be static: an int, a tuple of ints or None."""
    def force(x):
        if x is None:
            return None
        try:
            return operator.index(x)
        except TypeError:
            return tuple(operator.index(i) for i in x)
    return core.concrete_or_error(force, x, "The axis argument must be known statically.")


# -- sum, prod, max, min, all, any --------------------------------------------------------
# (Each is a jit in JAX, whose trace is reused per argument types: here they are replayed.)

@replay.replayed
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    """Sum over ``axis`` (all axes by default). Bools and small ints sum as int32."""
    return _reduction(a, "sum", lax.add, 0, preproc=_cast_to_numeric,
                      bool_op=lax.bitwise_or, upcast_f16_for_computation=dtype is None,
                      axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                      where_=where, promote_integers=promote_integers)


@replay.replayed
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    return _reduction(a, "prod", lax.mul, 1, preproc=_cast_to_numeric,
                      bool_op=lax.bitwise_and, upcast_f16_for_computation=dtype is None,
                      axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                      where_=where, promote_integers=promote_integers)


@replay.replayed
def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """The maximum over ``axis``; with ``where``, ``initial`` is required (no identity)."""
    return _reduction(a, "max", lax.max, -np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


@replay.replayed
def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    return _reduction(a, "min", lax.min, np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where_=where)


amax, amin = max, min


@replay.replayed
def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether every element (along ``axis``) is nonzero."""
    return _reduction(a, "all", lax.bitwise_and, True, preproc=_cast_to_bool, axis=axis,
                      out=out, keepdims=keepdims, where_=where)


@replay.replayed
def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    return _reduction(a, "any", lax.bitwise_or, False, preproc=_cast_to_bool, axis=axis,
                      out=out, keepdims=keepdims, where_=where)


# -- mean, average, var, std --------------------------------------------------------------

def _count(a, axis, keepdims, where, dtype):
    """How many elements each result of a reduction over ``axis`` combines."""
    if where is not None:
        return sum(broadcast_to(where, np.shape(a)), axis, dtype=dtype, keepdims=keepdims)
    shape = np.shape(a)
    # (Indexed as JAX indexes it: an axis out of range is an IndexError here.)
    n = math.prod(shape) if axis is None else math.prod(
        shape[i] for i in (axis if isinstance(axis, tuple) else (axis,)))
    return lax.convert_element_type(n, dtype)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """The arithmetic mean (integers give floats); sum divided by the count."""
    a = ensure_arraylike("mean", a)
    where = _check_where("mean", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.mean is not supported.")
    return _mean(a, _ensure_optional_axes(axis), dtype, keepdims, where=where)


# A jit (inlined into enclosing traces) as in JAX: compiled whole, XLA divides by the
# constant count as a multiplication by its reciprocal, whose rounding JAX's means show.
@jit(static_argnames=("axis", "dtype", "keepdims"), inline=True)
def _mean(a, axis, dtype, keepdims, *, where):
    result_dtype = (dtypes.to_inexact_dtype(a.dtype) if dtype is None else
                    dtypes.check_and_canonicalize_user_dtype(dtype, "mean"))
    computation_dtype = (_upcast_f16(result_dtype) if dtype is None and
                         dtypes.issubdtype(result_dtype, np.inexact) else result_dtype)
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    total = sum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return lax.div(total, normalizer).astype(result_dtype)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The (weighted) mean; ``returned=True`` also gives the sum of the weights."""
    axis = _ensure_optional_axes(axis)
    axis_tuple = canonicalize_axis_tuple(axis, np.ndim(a))
    if weights is None:
        a, = promote_dtypes_inexact(ensure_arraylike("average", a))
        avg = mean(a, axis=axis, keepdims=keepdims)
        n = math.prod(a.shape[d] for d in axis_tuple)
        weights_sum = lax.full((), n, dtype=avg.dtype)
    else:
        a, weights = promote_dtypes_inexact(*ensure_arraylike("average", a, weights))
        if a.shape != weights.shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights "
                                 "differ.")
            if weights.shape != tuple(a.shape[ax] for ax in axis_tuple):
                raise ValueError("Shape of weights must be consistent with shape of a "
                                 "along specified axis.")
            new_shape = tuple(d if i in axis_tuple else 1 for i, d in enumerate(a.shape))
            weights = lax.reshape(weights, new_shape,
                                  dimensions=tuple(np.argsort(axis_tuple)))
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = sum(a * weights, axis=axis, keepdims=keepdims) / weights_sum
    if returned:
        if avg.shape != weights_sum.shape:
            weights_sum = broadcast_to(weights_sum, avg.shape)
        return avg, weights_sum
    return avg


def _var_promote_types(a_dtype, dtype):
    """(computation dtype, result dtype): ints give floats, complex gives real."""
    if dtype:
        if (not dtypes.issubdtype(dtype, np.complexfloating) and
                dtypes.issubdtype(a_dtype, np.complexfloating)):
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing "
                "the variance of an array of complex values. The semantics of numpy.var "
                "seem unclear in this case. Please comment on "
                "https://github.com/jax-ml/jax/issues/2283 if this behavior is important "
                "to you.")
        computation_dtype = dtype
    elif not dtypes.issubdtype(a_dtype, np.inexact):
        dtype = computation_dtype = dtypes.to_inexact_dtype(a_dtype)
    else:
        dtype = np.array(0, a_dtype).real.dtype
        computation_dtype = a_dtype
    return _upcast_f16(computation_dtype), np.dtype(dtype)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """The variance ``sum(|a - mean|**2) / (n - correction)``; NaN when the divisor is
    not positive."""
    a = ensure_arraylike("var", a)
    return _var(a, axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                correction=_correction(ddof, correction), keepdims=keepdims, where=where,
                a_mean=mean)


def _correction(ddof, correction):
    """``correction`` is the Array API's name for ``ddof``: one or the other."""
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _optional_dtype(dtype, name=None):
    """A reduction's ``dtype=`` argument: None (the default), or the dtype checked and
    canonicalized (``name``, if given, is the function an error message names)."""
    return None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, name)


def _check_stat_args(name, where, dtype, out):
    """The argument checks of var, std and their NaN-ignoring versions: returns the
    checked ``where`` and ``dtype``."""
    where = _check_where(name, where)
    dtype = _optional_dtype(dtype, name)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    return where, dtype


def _abs_squared(x):
    """``|x|**2``, real also for complex ``x``."""
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax.real(lax.mul(x, lax.conj(x)))
    return lax.square(x)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         a_mean=None):
    where, dtype = _check_stat_args("var", where, dtype, out)
    computation_dtype, dtype = _var_promote_types(a.dtype, dtype)
    a = a.astype(computation_dtype)
    if a_mean is None:
        a_mean = mean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = ensure_arraylike("var", a_mean).astype(computation_dtype)
    centered = _abs_squared(lax.sub(a, a_mean))
    computation_dtype = centered.dtype
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    normalizer = lax.sub(normalizer, lax.convert_element_type(correction, computation_dtype))
    result = sum(centered, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = lax.div(result, normalizer).astype(dtype)
    return _where(normalizer > 0, result, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """The standard deviation: the square root of ``var``."""
    a = ensure_arraylike("std", a)
    return _std(a, axis=_ensure_optional_axes(axis), dtype=dtype, out=out,
                correction=_correction(ddof, correction), keepdims=keepdims, where=where,
                mean=mean)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a, *, axis=None, dtype=None, out=None, correction=0, keepdims=False, where=None,
         mean=None):
    where, dtype = _check_stat_args("std", where, dtype, out)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    return lax.sqrt(var(a, axis=axis, dtype=dtype, correction=correction,
                        keepdims=keepdims, where=where, mean=mean))


def ptp(a, axis=None, out=None, keepdims=False):
    """Peak to peak: ``max - min``."""
    a = ensure_arraylike("ptp", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    return _ptp(a, _ensure_optional_axes(axis), keepdims)


@jit(static_argnames=("axis", "keepdims"))
def _ptp(a, axis=None, keepdims=False):
    return lax.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


@jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims=False):
    a = ensure_arraylike("count_nonzero", a)
    return sum(lax.ne(a, const(a, 0)), axis=axis, dtype=dtypes.default_int_dtype(),
               keepdims=keepdims)


# -- NaN-ignoring reductions --------------------------------------------------------------

def _nan_reduction(a, name, jnp_reduction, init_val, nan_if_all_nan, axis=None,
                   keepdims=False, where=None, **kwargs):
    """Replace NaNs by the reduction's identity, then reduce."""
    a = ensure_arraylike(name, a)
    where = _check_where(name, where)
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return jnp_reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    is_nan = lax.ne(a, a)
    out = jnp_reduction(_where(is_nan, _reduction_init_val(a.dtype, init_val), a),
                        axis=axis, keepdims=keepdims, where=where, **kwargs)
    if nan_if_all_nan:
        return _where(all(lax.ne(a, a), axis=axis, keepdims=keepdims),
                      const(a, np.nan), out)
    return out


@jit(static_argnames=("axis", "keepdims"))
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_reduction(a, "nanmin", min, np.inf, nan_if_all_nan=initial is None,
                          axis=axis, out=out, keepdims=keepdims, initial=initial,
                          where=where)


@jit(static_argnames=("axis", "keepdims"))
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _nan_reduction(a, "nanmax", max, -np.inf, nan_if_all_nan=initial is None,
                          axis=axis, out=out, keepdims=keepdims, initial=initial,
                          where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    dtype = _optional_dtype(dtype, "nanprod")      # (sic: JAX's message names nanprod)
    return _nan_reduction(a, "nansum", sum, 0, nan_if_all_nan=False, axis=axis,
                          dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                          where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    dtype = _optional_dtype(dtype, "nanprod")
    return _nan_reduction(a, "nanprod", prod, 1, nan_if_all_nan=False, axis=axis,
                          dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                          where=where)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    a = ensure_arraylike("nanmean", a)
    where = _check_where("nanmean", where)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    if dtypes.issubdtype(a.dtype, np.bool_) or dtypes.issubdtype(a.dtype, np.integer):
        return mean(a, axis, dtype, out, keepdims, where=where)
    dtype = (dtypes.to_inexact_dtype(a.dtype) if dtype is None else
             dtypes.check_and_canonicalize_user_dtype(dtype, "mean"))
    normalizer = sum(lax.bitwise_not(lax.ne(a, a)), axis=axis, dtype=dtype,
                     keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """The variance of the non-NaN values (NaN where fewer than ``ddof + 1`` remain)."""
    a = ensure_arraylike("nanvar", a)
    where, dtype = _check_stat_args("nanvar", where, dtype, out)
    computation_dtype, dtype = _var_promote_types(a.dtype, dtype)
    a = a.astype(computation_dtype)
    a_mean = (nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
              if mean is None else ensure_arraylike("nanvar", mean).astype(computation_dtype))
    is_nan = lax.ne(a, a)
    # The zeros go in after the subtraction (not before), so that gradients at NaNs are 0.
    centered = _abs_squared(_where(is_nan, 0, lax.sub(a, a_mean)))
    normalizer = sum(lax.bitwise_not(is_nan), axis=axis, keepdims=keepdims, where=where)
    normalizer = normalizer - ddof
    normalizer_mask = lax.le(normalizer, const(normalizer, 0))
    result = sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(normalizer_mask, np.nan, result)
    divisor = _where(normalizer_mask, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, result.dtype))
    return lax.convert_element_type(result, dtype)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """The square root of ``nanvar``."""
    a = ensure_arraylike("nanstd", a)
    where, dtype = _check_stat_args("nanstd", where, dtype, out)
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                           where=where, mean=mean))


# -- arg-reductions and cumulative reductions ---------------------------------------------

def _arg_reduction(name, lax_fn, a, axis, out, keepdims):
    a = ensure_arraylike(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    axis = None if axis is None else operator.index(axis)
    if axis is None:
        dims = tuple(range(np.ndim(a)))
        a, axis = lax.reshape(a, (np.size(a),)), 0
    else:
        dims = (axis,)
    if a.shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = lax_fn(a, canonicalize_axis(axis, a.ndim), dtypes.default_int_dtype())
    return lax.expand_dims(result, dims) if keepdims else result


def argmax(a, axis=None, out=None, keepdims=None):
    """The index of the (first) maximum, in the flattened array when ``axis`` is None."""
    return _arg_reduction("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    return _arg_reduction("argmin", lax.argmin, a, axis, out, keepdims)


def _nan_arg_reduction(arg_reduction, fill, a, axis, keepdims):
    """The arg-reduction over the non-NaN values; -1 where all are NaN."""
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return arg_reduction(a, axis=axis, keepdims=keepdims)
    nan_mask = lax.ne(a, a)
    res = arg_reduction(_where(nan_mask, const(a, fill), a), axis=axis, keepdims=keepdims)
    return _where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


def _nan_arg_reduction_args(name, a, axis, out):
    """The checks ``nanargmax`` and ``nanargmin`` make before their jitted part: the
    array, and the axis as an int (or None)."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    return ensure_arraylike(name, a), None if axis is None else operator.index(axis)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """``argmax`` ignoring NaNs."""
    a, axis = _nan_arg_reduction_args("nanargmax", a, axis, out)
    return _nanargmax(a, axis, keepdims=bool(keepdims))


@jit(static_argnames=("axis", "keepdims"))
def _nanargmax(a, axis=None, keepdims=False):
    return _nan_arg_reduction(argmax, -np.inf, a, axis, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """``argmin`` ignoring NaNs."""
    a, axis = _nan_arg_reduction_args("nanargmin", a, axis, out)
    return _nanargmin(a, axis, keepdims=bool(keepdims))


@jit(static_argnames=("axis", "keepdims"))
def _nanargmin(a, axis=None, keepdims=False):
    return _nan_arg_reduction(argmin, np.inf, a, axis, keepdims)


def _cumulative_reduction(name, reduction, a, axis, dtype, out=None, promote_integers=False,
                          fill_nan=False, fill_value=0):
    a = ensure_arraylike(name, a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    if axis is None or np.ndim(a) == 0:
        a = lax.reshape(a, (np.size(a),))
    axis = canonicalize_axis(0 if axis is None else axis, np.ndim(a))
    if fill_nan:
        a = _where(lax.ne(a, a), const(a, fill_value), a)
    if dtype is None:
        result_type = (_promote_integer_dtype(a.dtype) if promote_integers or
                       a.dtype == np.bool_ else a.dtype)
        computation_type = result_type
    elif np.dtype(dtype) == np.bool_:
        result_type = np.dtype(dtype)
        if a.dtype != result_type:
            a = a != 0
        computation_type = _promote_integer_dtype(result_type)
    else:
        result_type = computation_type = dtypes.check_and_canonicalize_user_dtype(dtype,
                                                                                  name)
    a = lax.convert_element_type(a, computation_type)
    return lax.convert_element_type(reduction(a, axis), result_type)


@jit(static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along ``axis`` (of the flattened array when ``axis`` is None)."""
    return _cumulative_reduction("cumsum", lax.cumsum, a, axis, dtype, out)


@jit(static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
    return _cumulative_reduction("cumprod", lax.cumprod, a, axis, dtype, out)


@jit(static_argnames=("axis", "dtype"))
def nancumsum(a, axis=None, dtype=None, out=None):
    """``cumsum`` with NaNs counted as zero."""
    return _cumulative_reduction("nancumsum", lax.cumsum, a, axis, dtype, out,
                                 fill_nan=True, fill_value=0)


@jit(static_argnames=("axis", "dtype"))
def nancumprod(a, axis=None, dtype=None, out=None):
    """``cumprod`` with NaNs counted as one."""
    return _cumulative_reduction("nancumprod", lax.cumprod, a, axis, dtype, out,
                                 fill_nan=True, fill_value=1)


@jit(static_argnames=("axis", "dtype"))
def _cumsum_with_promotion(a, axis=None, dtype=None):
    return _cumulative_reduction("_cumsum_with_promotion", lax.cumsum, a, axis, dtype,
                                 promote_integers=True)


def _cumulative_axis(x, axis, what):
    """The array API's axis rule: non-scalar input, axis optional only in 1-D."""
    if x.ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, "
                         "however a scalar value or scalar array was given.")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"The input array has rank {x.ndim}, however axis was not set "
                             "to an explicit value. The axis argument is only optional "
                             "for one-dimensional arrays.")
        axis = 0
    return canonicalize_axis(axis, x.ndim)


def _with_initial(out, axis, initial):
    """``out`` preceded along ``axis`` by a slice filled with ``initial``."""
    shape = list(out.shape)
    shape[axis] = 1
    return lax.concatenate([lax.full(shape, initial, dtype=out.dtype), out], dimension=axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumulative sum (small integers promoted, as ``sum`` does)."""
    x = ensure_arraylike("cumulative_sum", x)
    axis = _cumulative_axis(x, axis, "sum")
    out = _cumsum_with_promotion(x, axis=axis, dtype=_optional_dtype(dtype))
    return _with_initial(out, axis, 0) if include_initial else out


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    x = ensure_arraylike("cumulative_prod", x)
    axis = _cumulative_axis(x, axis, "product")
    out = _cumulative_reduction("cumulative_prod", lax.cumprod, x, axis,
                                _optional_dtype(dtype))
    return _with_initial(out, axis, 1) if include_initial else out

