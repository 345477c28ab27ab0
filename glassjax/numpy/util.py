"""What every ``jnp`` function does first: check its arguments, promote their dtypes, and
make their shapes agree.

``lax`` functions are strict: operands must already have one dtype and (apart from
scalars) one rank. ``jnp`` functions follow NumPy instead, so they first

* check that each argument is array-like (arrays, tracers, NumPy values, Python scalars);
* promote dtypes with JAX's lattice (``dtypes.lattice_result_type``), where Python
  scalars are *weakly typed*: ``f32_array + 1`` stays float32;
* promote ranks the way ``promote_shapes`` does: operands of lower rank get leading
  size-1 axes through ``broadcast_in_dim`` (scalars stay rank 0, lax broadcasts them).
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
import warnings
from typing import Sequence

import numpy as np

from glassjax import caches, core, dtypes, lax
from glassjax.array import Array
from glassjax.interpreters import batching, replay, staging
from glassjax.config import config
from glassjax.jit import jit
from glassjax.lax import utils as lax_utils
from glassjax.lax.elementwise import _convert_element_type
from glassjax.lax.structural import broadcast_shapes
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.xla import runtime


# ----------------------------------------------------------------------------------------
# Array-like arguments
# ----------------------------------------------------------------------------------------

def is_array(x) -> bool:
    """A glassjax array or a tracer standing in for one (not for a staged ref). (Tracers
    are checked first: ``isinstance(tracer, Array)`` asks jaxlib's metaclass, which calls
    back into Python, and costs as much as staging an equation.)"""
    return isinstance(x, (core.Tracer, Array)) and not (
        core.AbstractRef.made and isinstance(getattr(x, "aval", None), core.AbstractRef))


def _arraylike(x) -> bool:
    return (is_array(x) or isinstance(x, np.ndarray) or np.isscalar(x) or
            getattr(x, "__jax_array__", None) is not None)


def eager_jit(fun):
    """Give an elementwise ``jnp`` function JAX's eager speed: outside any trace it runs
    through ``jit(fun, inline=True)``, so once compiled for some argument types a call
    is a single C++ dispatch (JAX's jnp functions are such jits). Under a trace ``fun``
    runs as plain Python, which records exactly what the inlined jit would; except under
    vmap, where the jit sees one element of the batch: its shape errors name the
    per-element shapes, so there it stays a jit. What ``fun`` stages for some argument
    types is recorded and replayed for the next call with the same ones
    (``replay.replayed``), as JAX reuses a jit's trace. Both are shortcuts: in reference
    mode (``glassjax_reference_mode``) an eager call runs ``fun`` op by op."""
    jitted = jit(fun, inline=True)
    staged = replay.replayed(fun)

    @functools.wraps(fun)
    def dispatch(*args, **kwargs):
        trace = core.trace_ctx.trace
        if (trace is core.eval_trace and not caches.reference.on or
                isinstance(trace, batching.BatchTrace)):
            return jitted(*args, **kwargs)
        if int in map(type, args):          # (looked for in C: most calls have none)
            for i, x in enumerate(args):
                if type(x) is int:
                    _check_int_fits(fun, i, x)
        return staged(*args, **kwargs)
    return dispatch


def _check_int_fits(fun, position: int, x: int):
    """A Python int passed to a jit must fit its weak integer type. In JAX that holds
    for every ``jnp`` call (they are jits), so it is checked under a trace too."""
    try:
        core.shaped_abstractify(x)
    except OverflowError:
        name = list(inspect.signature(fun).parameters)[position]
        raise OverflowError("An overflow was encountered while parsing an argument to a "
                            f"jitted computation, whose argument path is {name}. Got "
                            f"{type(x)} with value {x}") from None


def _jax_array_protocol(x):
    method = getattr(x, "__jax_array__", None)
    return method() if method is not None else x


def check_arraylike(fun_name: str, *args, emit_warning=False, stacklevel=3):
    """Raise JAX's TypeError for the first argument that is not array-like (lists are
    not: ``jnp.sum([1, 2])`` is an error, unlike in NumPy); or, with ``emit_warning``,
    JAX's DeprecationWarning (``jnp.shape(None)``: an error in a future JAX)."""
    for pos, arg in enumerate(args):
        if not _arraylike(arg):
            msg = (f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at "
                   f"position {pos}.")
            if not emit_warning:
                raise TypeError(msg)
            warnings.warn(msg + " In a future JAX release this will be an error.",
                          DeprecationWarning, stacklevel=stacklevel)
            return


def check_arraylike_or_none(fun_name: str, *args):
    for pos, arg in enumerate(args):
        if not (arg is None or _arraylike(arg)):
            raise TypeError(f"{fun_name} requires ndarray, scalar, or None arguments, got "
                            f"{type(arg)} at position {pos}.")


def check_no_float0s(fun_name: str, *args):
    if any(dtypes.dtype(a) == dtypes.float0 for a in args):
        raise TypeError(
            f"Called {fun_name} with a float0 array. float0s do not support any "
            "operations by design because they are not compatible with non-trivial "
            "vector spaces. No implicit dtype conversion is done. You can use "
            "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular "
            "zeros array. \nIf you didn't expect to get a float0 you might have "
            "accidentally taken a gradient with respect to an integer argument.")


def check_for_prngkeys(fun_name: str, *args):
    """Keys do not mix with numbers. (Arguments of one key dtype pass: the primitives'
    own rules reject what keys cannot do.)"""
    arg_dtypes = [dtypes.dtype(a) for a in args]
    if len(set(arg_dtypes)) > 1 and any(dtypes.issubdtype(d, dtypes.prng_key)
                                        for d in arg_dtypes):
        raise TypeError(f"{fun_name} does not accept dtypes "
                        f"{', '.join(map(str, arg_dtypes))}.")


def ensure_arraylike(fun_name: str, *args):
    """Check the arguments and turn each into an array (one array for one argument)."""
    if all(map(is_array, args)):        # (the common case: nothing to check or convert)
        return args[0] if len(args) == 1 else args
    check_arraylike(fun_name, *args)
    out = tuple(lax_asarray(_jax_array_protocol(a)) for a in args)
    return out[0] if len(out) == 1 else out


def ensure_arraylike_tuple(fun_name: str, tup: Sequence) -> tuple:
    check_arraylike(fun_name, *tup)
    return tuple(lax_asarray(_jax_array_protocol(a)) for a in tup)


# ----------------------------------------------------------------------------------------
# Values as arrays
# ----------------------------------------------------------------------------------------

def device_put(value: np.ndarray, weak_type: bool = False) -> Array:
    """A NumPy value as a glassjax Array on the default device (no computation).

    While a function is being traced the value is handed to the current trace as a
    conversion, as JAX does: staging folds a scalar into a literal and records a larger
    array as a constvar (the identity conversion itself is dropped)."""
    value = np.asarray(value)
    if value.dtype == dtypes.float0:      # no data: host zeros, as in JAX
        return core.float0_zeros(value.shape)
    if core.trace_ctx.trace is core.eval_trace:
        return runtime.device_put(value, aval=core.ShapedArray(value.shape, value.dtype,
                                                               weak_type))
    from glassjax.lax.elementwise import convert_element_type_p
    return convert_element_type_p.bind(value, new_dtype=value.dtype, weak_type=weak_type,
                                       sharding=None)


def lax_asarray(x):
    """``lax.asarray``: an Array for any array-like, without copying arrays. Python
    scalars become weakly typed arrays, NumPy values strongly typed ones."""
    if is_array(x):
        return x
    if isinstance(x, (bool, np.ndarray, np.generic)):
        dtypes.check_valid_dtype(np.asarray(x).dtype)
        return device_put(np.asarray(x, dtypes.canonicalize_dtype(np.result_type(x))))
    if isinstance(x, (int, float, complex)):
        return device_put(dtypes.coerce_to_array(x), weak_type=True)
    raise TypeError(f"asarray: expected ArrayLike, got {x} of type {type(x)}.")


def convert(x, dtype, weak_type=False):
    """``x`` cast to ``dtype`` (nothing happens when it already has that type)."""
    return _convert_element_type(x, dtype, weak_type)


def promote_to(x, dtype, weak_type=False):
    """Cast ``x`` to the promoted ``dtype`` for a following lax operation.

    While staging, a weakly typed host scalar (a Python scalar, or a host constant made
    from one) that must become strongly typed is converted right here, on the host, into
    a NumPy scalar, so it stays a literal in a jaxpr and costs nothing: JAX gets the same
    result by constant-folding ``convert_element_type``. One that stays weak but changes
    kind (``1`` -> ``1.0``) is folded by ``_convert_element_type`` into a typed host array
    (``TypedNdArray(1., dtype=float32, weak_type=True)``), the literal JAX's folding
    makes. Where constants are computed eagerly it becomes a device array, as in JAX."""
    if (dtypes.dtype(x), dtypes.is_weakly_typed(x)) == (dtype, weak_type):
        return staging.take_in(x)
    if (not weak_type and not is_array(x) and np.ndim(x) == 0 and
            dtypes.is_weakly_typed(x) and not core.constants_are_eager()):
        return dtypes.typed_scalar(np.asarray(x)[()], dtype)
    return _convert_element_type(x, dtype, weak_type)


def const(example, value):
    """``value`` with the type of ``example``: a Python scalar if ``example`` is a weakly
    typed scalar, a Python number or a weak tracer alike (so the result stays weak), else
    a NumPy scalar (either way, a literal in a jaxpr)."""
    dtype = dtypes.dtype(example)
    if dtypes.is_weakly_typed(example) and np.ndim(example) == 0:
        kind = next(t for t, k in ((bool, np.bool_), (int, np.integer),
                                   (float, np.floating), (complex, np.complexfloating))
                    if dtypes.issubdtype(dtype, k))
        value = kind(value)
        return value if dtypes.dtype(value) == dtype else np.array(value, dtype)
    return np.array(value, dtype)


# ----------------------------------------------------------------------------------------
# Promotion
# ----------------------------------------------------------------------------------------

def promote_dtypes(*args):
    """Cast all arguments to their common dtype (JAX's type promotion lattice)."""
    if len(args) < 2:
        return list(args)
    to_dtype, weak_type = dtypes.lattice_result_type(*args)
    return [promote_to(x, to_dtype, weak_type) for x in args]


def _promote_dtypes_to(kind, *args):
    to_dtype, weak_type = dtypes.lattice_result_type(*args)
    to_dtype = kind(to_dtype)
    return [promote_to(x, to_dtype, weak_type) for x in args]


def promote_dtypes_inexact(*args):
    """Common dtype, then floating (ints and bools become the default float)."""
    return _promote_dtypes_to(dtypes.to_inexact_dtype, *args)


def promote_dtypes_numeric(*args):
    """Common dtype, then numeric (bools become the default int)."""
    return _promote_dtypes_to(dtypes.to_numeric_dtype, *args)


def promote_dtypes_complex(*args):
    return _promote_dtypes_to(dtypes.to_complex_dtype, *args)


def _rank_promotion_check(fun_name, shapes):
    mode = config.jax_numpy_rank_promotion
    if mode == "warn":
        import warnings
        warnings.warn(
            f"Following NumPy automatic rank promotion for {fun_name} on shapes "
            f"{' '.join(map(str, shapes))}. Set the jax_numpy_rank_promotion config option "
            "to 'allow' to disable this warning; for more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    elif mode == "raise":
        raise ValueError(
            f"Operands could not be broadcast together for {fun_name} on shapes "
            f"{' '.join(map(str, shapes))} and with the config option "
            "jax_numpy_rank_promotion='raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def promote_shapes(fun_name: str, *args):
    """Give operands of different nonzero ranks the same rank by adding leading size-1
    axes (``broadcast_in_dim``); lax then broadcasts the size-1 axes and scalars."""
    if len(args) < 2:
        return list(args)
    shapes = [core.shape_of(a) for a in args]
    nonscalar_ranks = {len(s) for s in shapes if s}
    if len(nonscalar_ranks) < 2:
        return list(args)
    if config.jax_numpy_rank_promotion != "allow":
        _rank_promotion_check(fun_name, shapes)
    rank = len(broadcast_shapes(*shapes))
    return [broadcast_to_rank(a, rank) for a in args]


def broadcast_to_rank(x, rank):
    ndim = core.ndim_of(x)
    return x if ndim == rank else lax.broadcast(x, (1,) * (rank - ndim))


def _check_args(fun_name, args):
    """Check the arguments; NumPy values get their canonical dtype on the host (float64
    data becomes float32 when x64 is off) before promotion sees them."""
    check_arraylike(fun_name, *args)
    args = [_canonical_host_value(_jax_array_protocol(a)) for a in args]
    check_no_float0s(fun_name, *args)
    check_for_prngkeys(fun_name, *args)
    return args


def _canonical_host_value(x):
    if isinstance(x, (np.ndarray, np.generic)):
        dtype = dtypes.canonicalize_dtype(x.dtype)
        if dtype != x.dtype:
            return np.asarray(x, dtype)
    return x


def _one_array_type(args, kinds):
    """Are ``args`` arrays (or tracers) of one dtype, of a kind in ``kinds``, and one
    weak type? Then dtype promotion has nothing to do. Checked first because every
    ``jnp`` call promotes, and this is by far its most common case."""
    first = getattr(args[0], "aval", None)
    if first is None or not isinstance(first.dtype, np.dtype) or first.dtype.kind not in kinds:
        return False
    if first.dtype.itemsize == 8 and not config.jax_enable_x64:
        return False                # a 64-bit array made under x64: canonicalize it
    if len(args) == 1:
        return True
    if first.weak_type and first.dtype.kind == "b":
        return False                # promoting bools gives a strong bool, even weak ones
    return all((a := getattr(x, "aval", None)) is not None and a.dtype == first.dtype
               and a.weak_type == first.weak_type for x in args[1:])


def promote_args(fun_name: str, *args):
    """Check, promote dtypes and promote ranks: what binary ``jnp`` functions start with."""
    if args and _one_array_type(args, "biufc"):
        return promote_shapes(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*_check_args(fun_name, args)))


def promote_args_numeric(fun_name: str, *args):
    if args and _one_array_type(args, "iufc"):
        return promote_shapes(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*_check_args(fun_name, args)))


def promote_args_inexact(fun_name: str, *args):
    if args and _one_array_type(args, "fc"):
        return promote_shapes(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*_check_args(fun_name, args)))


def promote_args_complex(fun_name: str, *args):
    return promote_shapes(fun_name, *promote_dtypes_complex(*_check_args(fun_name, args)))


# ----------------------------------------------------------------------------------------
# Broadcasting and where
# ----------------------------------------------------------------------------------------

def broadcast_to(arr, shape, sharding=None):
    """``arr`` broadcast to ``shape`` (a no-op when the shape already matches), split as
    ``sharding`` (a NamedSharding over Explicit axes) asks."""
    arr = ensure_arraylike("broadcast_to", arr)
    shape = (shape,) if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0 \
        else shape
    shape = canonicalize_shape(shape)
    arr_shape = np.shape(arr)
    if arr_shape == shape and (sharding is None or core.get_aval(arr).sharding.spec
                               == sharding.spec):
        return arr
    if len(shape) < len(arr_shape):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: {arr_shape=} "
                         f"{shape=}")
    nlead = len(shape) - len(arr_shape)
    if any(d not in (1, s) for d, s in zip(arr_shape, shape[nlead:])):
        dtype = dtypes.dtype(arr)
        raise ValueError(
            f"Incompatible types for broadcasting: input type="
            f"{core.ShapedArray(arr_shape, dtype)} and requested type="
            f"{core.ShapedArray(shape, dtype)}")
    return lax.broadcast_in_dim(arr, shape, tuple(range(nlead, len(shape))),
                                out_sharding=sharding)


def broadcast_arrays(*args):
    """Broadcast all arguments to their common shape (arrays are returned unchanged when
    the shapes already agree) and, over Explicit mesh axes, to their common split."""
    shapes = [np.shape(a) for a in args]
    if not shapes or all(s == shapes[0] for s in shapes):
        return [lax_asarray(a) for a in args]
    result = broadcast_shapes(*shapes)
    sharding = _broadcast_sharding([core.get_aval(a) for a in args], len(result))
    return [broadcast_to(a, result, sharding) for a in args]


def _broadcast_sharding(avals, ndim):
    """The split of the broadcast result (lax's broadcasting rule over the operands with
    leading size-1 dimensions added), or None when it is not split."""
    split = [a._sharding for a in avals if getattr(a, "_sharding", None)]
    if not split:
        return None
    padded = [a.update(shape=(1,) * (ndim - a.ndim) + a.shape,
                       sharding=a._sharding and (a._sharding[0],
                                                 (None,) * (ndim - a.ndim) + a._sharding[1]))
              for a in avals]
    spec = lax_utils.broadcasting_sharding("broadcast_shardings", *padded)
    return NamedSharding(split[0][0], PartitionSpec(*spec))


@jit
def _where(condition, x, y):
    """``where(condition, x, y)``. It is a ``jit`` (printed ``jit[name=_where ...]``) so
    that eagerly a scalar ``x`` or ``y`` is broadcast inside one compiled program."""
    condition, x, y = ensure_arraylike("where", condition, x, y)
    if not dtypes.issubdtype(dtypes.dtype(condition), np.bool_):
        condition = lax.ne(condition, const(condition, 0))
    x, y = promote_dtypes(x, y)
    if np.ndim(condition) == 0:
        x, y = broadcast_arrays(x, y)     # select_n takes a scalar predicate as it is
    else:
        condition, x, y = broadcast_arrays(condition, x, y)
    if math.prod(np.shape(x)) == 0:
        return x
    return lax.select(condition, x, y)


# ----------------------------------------------------------------------------------------
# Axes and shapes
# ----------------------------------------------------------------------------------------

def canonicalize_shape(shape, context=""):
    """A tuple of Python ints (a traced size raises JAX's concretization error)."""
    try:
        return tuple(core.concrete_dim_or_error(d, context) for d in shape)
    except TypeError:
        if isinstance(shape, core.Tracer) or not np.iterable(shape):
            raise
    return lax_utils.canonicalize_shape(shape)    # raises lax's message


def canonicalize_axis(axis, num_dims) -> int:
    """An axis in ``[0, num_dims)``; negative axes count from the end."""
    axis = operator.index(axis)
    if not -num_dims <= axis < num_dims:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
    return axis + num_dims if axis < 0 else axis


def canonicalize_axis_tuple(axis, num_dims, allow_duplicate=False) -> tuple:
    if axis is None:
        return tuple(range(num_dims))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = tuple(canonicalize_axis(a, num_dims) for a in axes)
    if not allow_duplicate and len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    return axes


def ndim(a) -> int:
    """The number of axes of ``a`` (any array-like; others, lists included, still work
    but warn, as in JAX)."""
    if hasattr(a, "ndim"):
        return a.ndim
    check_arraylike("ndim", a, emit_warning=True)
    return np.ndim(_jax_array_protocol(a))


def shape(a) -> tuple:
    if hasattr(a, "shape"):
        return a.shape
    check_arraylike("shape", a, emit_warning=True)
    return np.shape(_jax_array_protocol(a))


def size(a, axis=None) -> int:
    check_arraylike("size", a, emit_warning=True)
    if axis is None and hasattr(a, "size"):
        return a.size
    s = shape(a)
    return math.prod(s[i] for i in canonicalize_axis_tuple(axis, len(s)))
