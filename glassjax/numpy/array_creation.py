"""Making arrays: ``array``/``asarray`` from Python and NumPy data, and the constructors
(``zeros``, ``ones``, ``full``, ``arange``, ``linspace``, ``eye``, ...).

Data from the host (lists, NumPy arrays, scalars) is converted with NumPy and placed on
the device as it is: while tracing it is simply a constant of the jaxpr. Constructors of
computed values (``zeros`` is a broadcast scalar, ``arange`` an ``iota``) are built from
lax primitives, so inside ``jit`` they are computed on the device, not shipped to it.
"""
from __future__ import annotations

import operator
import types

import numpy as np

from glassjax import core, dlpack, dtypes, lax, shape_poly, tree_util
from glassjax.jit import jit
from glassjax.lax import utils as lax_utils
from glassjax.named_sharding import spec_to_sharding
from glassjax.numpy import util
from glassjax.numpy.util import is_array


def user_dtype(dtype, fun_name):
    """A dtype the user asked for, canonicalized (float64 -> float32 with a warning
    when x64 is off, as JAX does)."""
    return dtypes.check_and_canonicalize_user_dtype(dtype, fun_name)


# ----------------------------------------------------------------------------------------
# array / asarray
# ----------------------------------------------------------------------------------------

def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):
    """Convert ``object`` (array, NumPy array, scalar, nested lists/tuples of those) to
    an Array. Python scalars give weakly typed arrays; lists are converted with NumPy
    unless they contain traced values, which are stacked with lax operations."""
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if dtype is not None:
        dtype = user_dtype(dtype, "array")
    weak_type = dtype is None and dtypes.is_weakly_typed(object)
    if isinstance(object, (bool, int, float, complex)):
        dtypes.coerce_to_array(object, dtype)   # raises for out-of-range Python ints
    object = util._jax_array_protocol(object)
    if (isinstance(object, core.Tracer) and dtype is None and ndmin == 0 and
            object.to_concrete_value() is None):   # a known value is converted, as JAX
        return array_copy(object) if copy else object
    leaves, treedef = tree_util.tree_flatten(
        object, is_leaf=lambda x: not isinstance(x, (list, tuple)))
    if any(leaf is None for leaf in leaves):
        raise ValueError("None is not a valid value for jnp.array")
    leaves = [util._jax_array_protocol(leaf) for leaf in leaves]
    for leaf in leaves:
        core.check_not_masked(leaf)
    if dtype is None:
        try:
            dtype = (dtypes.lattice_result_type(*leaves)[0] if leaves
                     else dtypes.default_float_dtype())
        except TypeError:       # e.g. a range or memoryview: NumPy says what it holds
            leaves = [_as_numpy_if_no_dtype(leaf) for leaf in leaves]
            dtype = dtypes.lattice_result_type(*leaves)[0]
    object = tree_util.tree_unflatten(treedef, leaves)
    if not any(is_array(leaf) for leaf in leaves):
        out = util.device_put(np.asarray(object, dtype=dtype), weak_type)
    elif is_array(object):
        out = util.convert(array_copy(object) if copy else object, dtype, weak_type)
    else:
        # A list holding traced values: stack the elements along a new leading axis,
        # concatenating at most 16 at a time (as JAX does, to keep each op small).
        parts = [lax.expand_dims(array(elt, dtype=dtype, copy=False), (0,))
                 for elt in object]
        while len(parts) > 16:
            parts = [lax.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
        out = lax.concatenate(parts, 0)
    if ndmin > np.ndim(out):
        out = lax.expand_dims(out, tuple(range(ndmin - np.ndim(out))))
    return out


def _as_numpy_if_no_dtype(x):
    try:
        dtypes.dtype(x)
    except TypeError:
        return np.asarray(x)
    return x


def array_copy(x):
    """A new buffer with the value of ``x`` (a ``copy`` equation when traced)."""
    return lax.copy_p.bind(x)


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Like ``array``, but arrays are returned as they are unless a copy is needed."""
    if dtype is not None:
        dtype = user_dtype(dtype, "asarray")
    return array(a, dtype=dtype, copy=bool(copy), order=order, device=device)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array sharing the buffer of ``x`` from another library (``x.__dlpack__``);
    see ``glassjax.dlpack.from_dlpack``."""
    return dlpack.from_dlpack(x, device=device, copy=copy)


def copy(a, order=None):
    util.check_arraylike("copy", a)
    return array(a, copy=True, order=order)


# ----------------------------------------------------------------------------------------
# Filled arrays
# ----------------------------------------------------------------------------------------

def _creation_shape(shape, name, dtype):
    if isinstance(shape, types.GeneratorType):
        raise TypeError("expected sequence object with len >= 0 or a single integer")
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(
            f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally write "
            f"`jax.numpy.{name}({shape}, {dtype})` when you meant "
            f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple argument "
            "for the shape?")
    if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0:
        shape = (shape,)
    return util.canonicalize_shape(shape)


def _out_sharding(out_sharding, name):
    """``out_sharding=`` (a NamedSharding, or a PartitionSpec over the ``set_mesh``
    mesh): over Explicit axes the result's type records the split."""
    return None if out_sharding is None else spec_to_sharding(out_sharding, name)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of zeros (float32 unless ``dtype`` says otherwise)."""
    shape = _creation_shape(shape, "zeros", dtype)
    return lax.full(shape, 0, user_dtype(float if dtype is None else dtype, "zeros"),
                    sharding=_out_sharding(out_sharding, "jnp.zeros"))


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    shape = _creation_shape(shape, "ones", dtype)
    return lax.full(shape, 1, user_dtype(float if dtype is None else dtype, "ones"),
                    sharding=_out_sharding(out_sharding, "jnp.ones"))


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """XLA has no uninitialised memory to hand out: ``empty`` is ``zeros``."""
    return zeros(shape, user_dtype(float if dtype is None else dtype, "empty"),
                 out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (an array value is broadcast)."""
    if dtype is not None:
        dtype = user_dtype(dtype, "full")
    util.check_arraylike("full", fill_value)
    if np.ndim(fill_value) == 0:
        return lax.full(_creation_shape(shape, "full", None), fill_value, dtype,
                        sharding=_out_sharding(out_sharding, "full"))
    return util.broadcast_to(asarray(fill_value, dtype=dtype), shape)


def _like(name, a, fill_value, dtype, shape):
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
        a = util._jax_array_protocol(a)
        util.check_arraylike(name, a)
    if dtype is not None:
        dtype = user_dtype(dtype, name)
    if shape is not None:
        shape = _creation_shape(shape, name, None)
    return lax.full_like(a, fill_value, dtype, shape)


def zeros_like(a, dtype=None, shape=None, *, device=None):
    """Zeros with the shape and dtype (and weak type) of ``a``."""
    return _like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None):
    return _like("ones_like", a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    return _like("empty_like", prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    util.check_arraylike("full_like", *(() if hasattr(a, "shape") else (a,)), fill_value)
    if np.ndim(fill_value) == 0:
        return _like("full_like", a, fill_value, dtype, shape)
    shape = np.shape(a) if shape is None else shape
    dtype = dtypes.result_type(a) if dtype is None else dtype
    return util.broadcast_to(asarray(fill_value, dtype=dtype), shape)


# ----------------------------------------------------------------------------------------
# Ranges and grids
# ----------------------------------------------------------------------------------------

def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in ``[start, stop)``: an ``iota`` (split as ``out_sharding``
    asks), scaled and shifted when ``start``/``step`` ask for it. The bounds must be
    concrete (they set the size)."""
    if dtype is not None:
        dtype = user_dtype(dtype, "arange")
    util.check_arraylike_or_none("arange", start, stop, step)
    start_name = "stop" if stop is None and step is None else "start"
    start = core.concrete_or_error(None, start,
                                   f"It arose in the jnp.arange argument '{start_name}'")
    stop = core.concrete_or_error(None, stop, "It arose in the jnp.arange argument 'stop'")
    step = core.concrete_or_error(None, step, "It arose in the jnp.arange argument 'step'")
    for name, val in [(start_name, start), ("stop", stop), ("step", step)]:
        if val is not None and np.ndim(val) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={val}")
    if any(shape_poly.is_symbolic_dim(v) for v in (start, stop, step)):
        if stop is None:
            start, stop = 0, start
        return _arange_symbolic(start, stop, 1 if step is None else step,
                                dtype or dtypes.default_int_dtype())
    if dtype is None:
        dtype = dtypes.result_type(start, *(x for x in (stop, step) if x is not None))
    if any(np.iscomplexobj(v) for v in (start, stop, step)):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer "
                         "supported starting in JAX v0.10.0.")
    start, stop, step = (_host_scalar(v) for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step is not None:
        # Half-precision steps accumulate error; compute in float32 and cast at the end.
        working = (np.dtype(np.float32) if dtypes.issubdtype(dtype, np.floating) and
                   dtypes.finfo(dtype).bits < 32 else dtype)
        size = max(0, int(np.ceil((stop - start) / step)))
        return lax.convert_element_type(
            lax.add(lax.convert_element_type(start, working),
                    lax.mul(lax.convert_element_type(step, working),
                            lax.broadcasted_iota(working, (size,), 0,
                                                  out_sharding=out_sharding))), dtype)
    if start == 0:
        return lax.broadcasted_iota(dtype, (max(0, int(np.ceil(stop))),), 0,
                                    out_sharding=out_sharding)
    size = max(0, int(np.ceil(stop - start)))
    return lax.add(lax.convert_element_type(start, dtype),
                   lax.broadcasted_iota(dtype, (size,), 0, out_sharding=out_sharding))


def _arange_symbolic(start, stop, step, dtype):
    """``arange`` whose bounds are dimensions, some symbolic (``arange(x.shape[0])`` under
    shape polymorphism): ``start + step * iota(size)``, the size a dimension expression.
    The sign of the step must be known."""
    if not all(shape_poly.is_symbolic_dim(v) or shape_poly.is_constant_dim(v)
               for v in (start, stop, step)):
        raise ValueError("In arange with non-constant arguments all of start, stop, and "
                         "step must be either dimension expressions or integers: "
                         f"start={start}, stop={stop}, step={step}")
    if step == 0:
        raise ValueError("arange has step == 0")
    gap, distance = (step, stop - start) if step > 0 else (-step, start - stop)
    size = shape_poly.max_dim(0, distance + gap - 1) // gap
    return array(start, dtype=dtype) + array(step, dtype=dtype) * lax.iota(dtype, size)


def _host_scalar(x):
    """A concrete scalar argument as a NumPy/Python number (Arrays are fetched)."""
    return np.asarray(x)[()] if is_array(x) else x


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    num = core.concrete_dim_or_error(num, "'num' argument of jnp.linspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.linspace")
    return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


@jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = util.ensure_arraylike("linspace", start, stop)
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = user_dtype(dtype, "linspace")
    compute = dtypes.to_inexact_dtype(dtype)
    start, stop = start.astype(compute), stop.astype(compute)
    bounds_shape = list(util.broadcast_shapes(np.shape(start), np.shape(stop)))
    start_b = util.broadcast_to(start, bounds_shape)
    stop_b = util.broadcast_to(stop, bounds_shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.convert_element_type(stop - start, compute) / asarray(div, compute)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        real = dtypes.finfo(compute).dtype
        step = (lax.iota(real, div).reshape(iota_shape) / asarray(div, real)).astype(compute)
        out = start_b.reshape(bounds_shape) * (1 - step) + stop_b.reshape(bounds_shape) * step
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop_b, (axis,))],
                                  util.canonicalize_axis(axis, out.ndim))
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, dtype=compute)
        out = start_b.reshape(bounds_shape)
    else:
        bounds_shape[axis] = 0
        delta = full((), np.nan, compute)
        out = empty(bounds_shape, dtype)
    if dtypes.issubdtype(dtype, np.integer) and not dtypes.issubdtype(out.dtype, np.integer):
        out = lax.floor(out)
    result = util.convert(out, dtype)
    return (result, delta) if retstep else result


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)``."""
    num = core.concrete_dim_or_error(num, "'num' argument of jnp.logspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.logspace")
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    from glassjax.numpy import ufuncs
    start, stop, dtype, compute = _log_spacing_args("logspace", start, stop, dtype)
    lin = linspace(start.astype(compute), stop.astype(compute), num, endpoint=endpoint,
                   axis=axis)
    return lax.convert_element_type(ufuncs.power(base, lin), dtype)


def _log_spacing_args(name, start, stop, dtype):
    """The endpoints as arrays, the result dtype (theirs made inexact, unless given) and
    the floating dtype the spacing is computed in."""
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = user_dtype(dtype, name)
    start, stop = util.ensure_arraylike(name, start, stop)
    return start, stop, dtype, dtypes.to_inexact_dtype(dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Values spaced evenly on a log scale from ``start`` to ``stop``."""
    num = core.concrete_dim_or_error(num, "'num' argument of jnp.geomspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.geomspace")
    return _geomspace(start, stop, num, endpoint, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    from glassjax.numpy import ufuncs
    start, stop, dtype, compute = _log_spacing_args("geomspace", start, stop, dtype)
    start, stop = start.astype(compute), stop.astype(compute)
    sign = ufuncs.sign(start)
    res = sign * logspace(ufuncs.log10(start / sign), ufuncs.log10(stop / sign), num,
                          endpoint=endpoint, base=10.0, dtype=compute, axis=0)
    axis = util.canonicalize_axis(axis, res.ndim)
    if axis != 0:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, res.ndim)))
    return lax.convert_element_type(res, dtype)


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-D array with ones on the ``k``-th diagonal: ``row + k == col``."""
    dtype = user_dtype(float if dtype is None else dtype, "eye")
    offset = util.ensure_arraylike("eye", k)
    if not (np.shape(offset) == () and dtypes.issubdtype(offset.dtype, np.integer)):
        raise ValueError(f"k must be a scalar integer; got {k}")
    n, = lax_utils.canonicalize_shape((N,), "argument of 'N' jnp.eye()")
    m = n if M is None else lax_utils.canonicalize_shape((M,), "argument 'M' of jnp.eye()")[0]
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    i = lax.broadcasted_iota(offset.dtype, (n, m), 0)
    j = lax.broadcasted_iota(offset.dtype, (n, m), 1)
    return (i + offset == j).astype(dtype)


def identity(n, dtype=None):
    if dtype is not None:
        dtype = user_dtype(dtype, "identity")
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal."""
    dtype = np.dtype(np.float32) if dtype is None else user_dtype(dtype, "tri")
    M = N if M is None else M
    shifted_rows = lax.add(lax.broadcasted_iota(np.int32, (N, M), 0), np.int32(k))
    return lax.convert_element_type(
        lax.ge(shifted_rows, lax.broadcasted_iota(np.int32, (N, M), 1)), dtype)


def _triangle(name, m, k, lower):
    m = util.ensure_arraylike(name, m)
    if np.ndim(m) < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    n_rows, n_cols = np.shape(m)[-2:]
    mask = lax.broadcast(tri(n_rows, n_cols, k=k if lower else k - 1, dtype=bool),
                         np.shape(m)[:-2], out_sharding=core.get_aval(m).sharding)
    zeros = zeros_like(m)
    return lax.select(mask, m, zeros) if lower else lax.select(mask, zeros, m)


@jit(static_argnames=("k",))
def tril(m, k=0):
    """The lower triangle of (the last two axes of) ``m``."""
    return _triangle("tril", m, k, lower=True)


@jit(static_argnames=("k",))
def triu(m, k=0):
    return _triangle("triu", m, k, lower=False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids from 1-D coordinate vectors (``'xy'``: the first two swapped)."""
    args = list(util.ensure_arraylike_tuple("meshgrid", xi))
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(a.ndim != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[a.shape for a in args]}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else a.shape[0] for a in args]

    def out_shape(i, a):
        return [*shape[:i], a.shape[0], *shape[i + 1:]] if sparse else shape
    out = [lax.broadcast_in_dim(a, out_shape(i, a), (i,)) for i, a in enumerate(args)]
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


def indices(dimensions, dtype=None, sparse=False):
    """A grid of index arrays, one per dimension."""
    dtype = user_dtype(int if dtype is None else dtype, "indices")
    dimensions = tuple(core.concrete_dim_or_error(d, "dimensions argument of jnp.indices")
                       for d in dimensions)
    n = len(dimensions)
    out = []
    for i, d in enumerate(dimensions):
        iota = lax.iota(dtype, d)
        shape = (1,) * i + (d,) + (1,) * (n - i - 1) if sparse else dimensions
        out.append(lax.broadcast_in_dim(iota, shape, (i,)))
    if sparse:
        return tuple(out)
    return lax.concatenate([lax.expand_dims(o, (0,)) for o in out], 0) if out \
        else zeros((0,), dtype)


__all__ = ["array", "asarray", "copy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "tril", "triu", "meshgrid", "indices"]
