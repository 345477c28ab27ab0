"""Shapes and selection: reshaping, transposing, joining and splitting arrays, ``where``,
``clip``, ``round`` and other small array programs.

Shape functions are thin: they canonicalize axes (negative axes, ``None`` meaning all)
and call one lax primitive (``reshape``, ``transpose``, ``squeeze``, ``rev``,
``concatenate``, ...). Several are ``jit`` functions in JAX and print as ``jit[...]``
equations (``clip``, ``round``, ``_flip``, ``atleast_2d``); they are here too.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from glassjax import core, dtypes, lax, shape_poly
from glassjax.array import Array
from glassjax.jit import jit
from glassjax.numpy import reductions, ufuncs, util
from glassjax.numpy.array_creation import (array, array_copy, asarray, eye, user_dtype,
                                           zeros_like)
from glassjax.numpy.util import (_where, broadcast_arrays as _broadcast_arrays,
                                 canonicalize_axis, check_arraylike, const,
                                 ensure_arraylike, is_array)
from glassjax.vmap_api import vmap


def _index_tuple(x):
    """An int or a sequence of ints as a tuple of ints (a traced one is an error)."""
    x = core.concrete_or_error(None, x, "expected a static index or sequence of indices.")
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


# ----------------------------------------------------------------------------------------
# Dtypes
# ----------------------------------------------------------------------------------------

def astype(x, dtype, /, *, copy=False, device=None):
    """``x`` cast to ``dtype`` (complex to bool means "nonzero")."""
    x = ensure_arraylike("astype", x)
    dtype = (dtypes.default_float_dtype() if dtype is None else
             user_dtype(dtype, "astype"))
    if dtypes.issubdtype(x.dtype, np.complexfloating) and np.dtype(dtype) == np.bool_:
        x = x != const(x, 0)
    result = util.convert(x, dtype)
    return array_copy(result) if copy else result


def iscomplexobj(x) -> bool:
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    typ = x.dtype.type if hasattr(x, "dtype") else asarray(x).dtype.type
    return dtypes.issubdtype(typ, np.complexfloating)


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    if np.isscalar(element):
        return True
    if isinstance(element, np.ndarray) or is_array(element):
        return element.ndim == 0
    return False


def result_type(*args):
    return dtypes.result_type(*args)


# ----------------------------------------------------------------------------------------
# Reshaping and transposing
# ----------------------------------------------------------------------------------------

def _symbolic_newshape(shape, newshape):
    """A ``-1`` among symbolic sizes is solved by polynomial division (JAX's
    ``divide_shape_sizes``; the sizes are not checked otherwise, as in JAX)."""
    if -1 not in newshape:
        return newshape
    q, r = divmod(math.prod(shape), math.prod(newshape))
    if r != 0:
        raise shape_poly.InconclusiveDimensionOperation(
            f"Cannot divide evenly the sizes of shapes {tuple(shape)} and {tuple(newshape)}. "
            f"The remainder {r} should be 0.")
    return tuple(-q if type(d) is int and d == -1 else d for d in newshape)


def _compute_newshape(arr, newshape):
    """``newshape`` with its one ``-1`` (if any) resolved, after JAX's checks."""
    orig = newshape
    newshape = util.canonicalize_shape(newshape if np.iterable(newshape) else [newshape])
    size = math.prod(arr.shape)
    neg1s = [i for i, d in enumerate(newshape) if type(d) is int and d == -1]
    if len(neg1s) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, got "
                        f"{orig}")
    if not shape_poly.is_constant_shape((*arr.shape, *newshape)):
        return _symbolic_newshape(arr.shape, newshape)
    if neg1s:
        i, = neg1s
        others = math.prod(newshape[:i] + newshape[i + 1:])
        if others == 0 or size % others != 0:
            raise TypeError(f"cannot reshape array of shape {arr.shape} (size {size}) into "
                            f"shape {orig} because the product of specified axis sizes "
                            f"({others}) does not evenly divide {size}")
        return newshape[:i] + (size // others,) + newshape[i + 1:]
    if size != math.prod(newshape):
        raise TypeError(f"cannot reshape array of shape {arr.shape} (size {size}) into shape "
                        f"{orig} (size {math.prod(newshape)})")
    return newshape


def reshape(a, shape, order="C", *, copy=None):
    """``a`` with a new shape of the same size (C order: last axis fastest)."""
    a = ensure_arraylike("reshape", a)
    newshape = _compute_newshape(a, shape)
    if order == "C":
        return lax.reshape(a, newshape, None)
    if order == "F":
        dims = tuple(range(a.ndim)[::-1])
        return transpose(lax.reshape(a, newshape[::-1], dims))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a, order="C"):
    """The elements of ``a`` in one axis."""
    a = ensure_arraylike("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (np.size(a),), order)


def transpose(a, axes=None):
    """Permute the axes (reverse them by default)."""
    a = ensure_arraylike("transpose", a)
    axes = range(a.ndim)[::-1] if axes is None else axes
    return lax.transpose(a, [canonicalize_axis(i, a.ndim) for i in axes])


def permute_dims(a, /, axes):
    return lax.transpose(ensure_arraylike("permute_dims", a), axes)


def matrix_transpose(x, /):
    """Swap the last two axes."""
    x = ensure_arraylike("matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={x.ndim}")
    return lax.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def swapaxes(a, axis1, axis2):
    a = ensure_arraylike("swapaxes", a)
    perm = np.arange(a.ndim)       # (NumPy's IndexError names a bad axis, as in JAX)
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, list(perm))


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``; the others keep their order."""
    a = ensure_arraylike("moveaxis", a)
    source = tuple(canonicalize_axis(i, a.ndim) for i in _index_tuple(source))
    destination = tuple(canonicalize_axis(i, a.ndim) for i in _index_tuple(destination))
    if len(source) != len(destination):
        raise ValueError(f"Inconsistent number of elements: {len(source)} vs "
                         f"{len(destination)}")
    perm = [i for i in range(a.ndim) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax.transpose(a, perm)


def squeeze(a, axis=None):
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    a = ensure_arraylike("squeeze", a)
    if axis is None:
        axis = tuple(i for i, d in enumerate(a.shape) if d == 1)
    return lax.squeeze(a, _index_tuple(axis))


def expand_dims(a, axis):
    """Insert size-1 axes at positions ``axis`` of the result."""
    return lax.expand_dims(ensure_arraylike("expand_dims", a), _index_tuple(axis))


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes by default)."""
    m = ensure_arraylike("flip", m)
    return _flip(m, reductions._ensure_optional_axes(axis))


@jit(static_argnames=("axis",))
def _flip(m, axis=None):
    axes = range(np.ndim(m)) if axis is None else _index_tuple(axis)
    return lax.rev(m, [canonicalize_axis(ax, np.ndim(m)) for ax in axes])


def fliplr(m):
    return _flip(ensure_arraylike("fliplr", m), 1)


def flipud(m):
    return _flip(ensure_arraylike("flipud", m), 0)


@jit(static_argnames=("k", "axes"))
def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (from the first axis
    towards the second): a flip and a transpose."""
    m = ensure_arraylike("rot90", m)
    if m.ndim < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {m.shape}, which has ndim {m.ndim}")
    ax1, ax2 = (canonicalize_axis(ax, m.ndim) for ax in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


def roll(a, shift, axis=None):
    """Shift elements along ``axis`` cyclically (of the flattened array for None)."""
    arr = ensure_arraylike("roll", a)
    if axis is None:
        return roll(arr.ravel(), shift, 0).reshape(arr.shape)
    axis = tuple(canonicalize_axis(ax, arr.ndim) for ax in _index_tuple(axis))
    try:
        shift = _index_tuple(shift)
    except TypeError:
        return _roll_dynamic(arr, asarray(shift), axis)
    return _roll_static(arr, shift, axis)


@jit(static_argnums=(1, 2))
def _roll_static(a, shift, axis):
    """A static shift: the two pieces of the axis, swapped."""
    for ax, s in zip(*np.broadcast_arrays(axis, shift)):
        if a.shape[ax] == 0:
            continue
        i = -s % a.shape[ax]
        a = lax.concatenate([lax.slice_in_dim(a, i, a.shape[ax], axis=ax),
                             lax.slice_in_dim(a, 0, i, axis=ax)], ax)
    return a


@jit(static_argnums=(2,))
def _roll_dynamic(a, shift, axis):
    """A traced shift: slice a window out of the axis repeated twice."""
    b_shape = util.broadcast_shapes(shift.shape, np.shape(axis))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    for x, i in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape)):
        size = array(a.shape[i], dtype=np.int32)
        x = ufuncs.remainder(lax.convert_element_type(x, np.int32),
                             lax.max(size, np.int32(1)))
        a = lax.dynamic_slice_in_dim(lax.concatenate((a, a), i), size - x, a.shape[i],
                                     axis=i)
    return a


@jit(static_argnames=("n", "axis"))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (``!=`` for booleans)."""
    arr = ensure_arraylike("diff", a)
    n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diff")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if arr.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, arr.ndim)
    combined = []
    for extra in (prepend, arr, append):
        if extra is None:
            continue
        extra = ensure_arraylike("diff", extra)
        if not extra.ndim:
            shape = list(arr.shape)
            shape[axis] = 1
            extra = broadcast_to(extra, tuple(shape))
        combined.append(extra)
    if len(combined) > 1:
        arr = concatenate(combined, axis)
    later = tuple(slice(1, None) if i == axis else slice(None) for i in range(arr.ndim))
    earlier = tuple(slice(None, -1) if i == axis else slice(None) for i in range(arr.ndim))
    op = operator.ne if arr.dtype == np.bool_ else operator.sub
    for _ in range(n):
        arr = op(arr[later], arr[earlier])
    return arr


@jit(static_argnames=("axis",))
def append(arr, values, axis=None):
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


# ----------------------------------------------------------------------------------------
# Broadcasting
# ----------------------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape NumPy broadcasting gives arrays of these shapes."""
    return util.broadcast_shapes(*((s,) if np.ndim(s) == 0 else tuple(s) for s in shapes))


def broadcast_arrays(*args):
    return _broadcast_arrays(*util.ensure_arraylike_tuple("broadcast_arrays", args))


def broadcast_to(array, shape):
    return util.broadcast_to(array, shape)


def _atleast(n, name, arys):
    check_arraylike(name, *arys)
    out = [array(a, copy=False, ndmin=n) for a in arys]
    return out[0] if len(out) == 1 else out


@jit
def atleast_1d(*arys):
    """Each argument with at least one axis (scalars become shape ``(1,)``)."""
    return _atleast(1, "atleast_1d", arys)


@jit
def atleast_2d(*arys):
    return _atleast(2, "atleast_2d", arys)


@jit
def atleast_3d(*arys):
    """At least three axes: a vector becomes ``(1, n, 1)``, a matrix ``(m, n, 1)``."""
    check_arraylike("atleast_3d", *arys)
    if len(arys) != 1:     # one nested call each, as in JAX
        return [atleast_3d(a) for a in arys]
    a = asarray(arys[0])
    new_axes = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}
    return lax.expand_dims(a, new_axes[a.ndim]) if a.ndim in new_axes else a


# ----------------------------------------------------------------------------------------
# Joining and splitting
# ----------------------------------------------------------------------------------------

def _concatenate_array(arr, axis, dtype=None):
    """Concatenating the rows of one array is a reshape (after moving axis 0 next to
    ``axis``)."""
    arr = asarray(arr, dtype=dtype)
    if arr.ndim == 0 or arr.shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (arr.size,))
    if arr.ndim == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, arr.ndim - 1)
    shape = arr.shape[1:axis + 1] + (arr.shape[0] * arr.shape[axis + 1],) + \
        arr.shape[axis + 2:]
    return lax.reshape(arr, shape, (*range(1, axis + 1), 0, *range(axis + 1, arr.ndim)))


def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing axis (after promoting them to one dtype)."""
    if isinstance(arrays, np.ndarray) or is_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = util.ensure_arraylike_tuple("concatenate", arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], axis=0, dtype=dtype)
    if np.ndim(arrays[0]) == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, np.ndim(arrays[0]))
    arrays = (util.promote_dtypes(*arrays) if dtype is None else
              [asarray(a, dtype=dtype) for a in arrays])
    return lax.concatenate(arrays, axis)


def concat(arrays, /, *, axis=0):
    check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Join arrays along a new axis."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if isinstance(arrays, np.ndarray) or is_array(arrays):
        axis = canonicalize_axis(axis, arrays.ndim)
        return concatenate(expand_dims(arrays, axis + 1), axis=axis, dtype=dtype)
    arrays = util.ensure_arraylike_tuple("stack", list(arrays))
    arrays = ([asarray(a, dtype=dtype) for a in arrays] if dtype is not None else
              util.promote_dtypes(*arrays))
    return lax.stack(arrays, axis=axis)


def _stack_parts(name, tup, fix):
    """``fix`` applied to each array of ``tup``. An array stands for the list of its rows:
    then ``fix`` is vmapped over them, and the stacked result concatenates as one array
    (a reshape) instead of row by row."""
    if isinstance(tup, (np.ndarray, Array)):
        return vmap(fix)(tup)
    check_arraylike(name, *tup)
    return [fix(m) for m in tup]


def vstack(tup, dtype=None):
    """Stack along the first axis (vectors become rows)."""
    return concatenate(_stack_parts("vstack", tup, atleast_2d), axis=0, dtype=dtype)


def hstack(tup, dtype=None):
    """Stack along the second axis (the first for vectors)."""
    arrs = _stack_parts("hstack", tup, atleast_1d)
    part_ndim = arrs.ndim - 1 if isinstance(arrs, Array) else arrs[0].ndim
    return concatenate(arrs, axis=0 if part_ndim == 1 else 1, dtype=dtype)


def dstack(tup, dtype=None):
    return concatenate(_stack_parts("dstack", tup, atleast_3d), axis=2, dtype=dtype)


def column_stack(tup):
    """Vectors become the columns of a matrix."""
    if isinstance(tup, (np.ndarray, Array)) and np.ndim(tup) >= 3:
        return concatenate(tup, axis=1)
    return concatenate(_stack_parts("column_stack", tup,
                                    lambda a: atleast_2d(a).T if np.ndim(a) < 2 else a),
                       axis=1)


def _split(op, ary, indices_or_sections, axis=0):
    ary = ensure_arraylike(op, ary)
    axis = core.concrete_or_error(operator.index, axis, f"in jax.numpy.{op} argument `axis`")
    size = ary.shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or (
            (isinstance(indices_or_sections, np.ndarray) or is_array(indices_or_sections))
            and indices_or_sections.ndim > 0):
        split_indices = np.asarray(
            [0] + [core.concrete_dim_or_error(i, f"in jax.numpy.{op} argument 1")
                   for i in indices_or_sections] + [size])
        sizes = list(np.diff(split_indices))
    else:
        sections = core.concrete_or_error(int, indices_or_sections,
                                          f"in jax.numpy.{op} argument 1")
        part, rest = divmod(size, sections)
        if rest == 0:
            sizes = [part] * sections
        elif op == "array_split":
            sizes = [part + 1] * rest + [part] * (sections - rest)
        else:
            raise ValueError("array split does not result in an equal division: rest is "
                             f"{rest}")
    return list(lax.split(ary, [np.int64(s) for s in sizes], axis=axis))


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections, or at the given indices."""
    return _split("split", ary, indices_or_sections, axis=axis)


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``, but the sections may differ in size by one."""
    return _split("array_split", ary, indices_or_sections, axis=axis)


def vsplit(ary, indices_or_sections):
    return _split("vsplit", ary, indices_or_sections, axis=0)


def hsplit(ary, indices_or_sections):
    a = ensure_arraylike("hsplit", ary)
    return _split("hsplit", a, indices_or_sections, axis=0 if a.ndim == 1 else 1)


def dsplit(ary, indices_or_sections):
    return _split("dsplit", ary, indices_or_sections, axis=2)


def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    A = ensure_arraylike("tile", A)
    # (what is not an integer is left to lax.tile, whose TypeError names the shape)
    reps = tuple(operator.index(r) if shape_poly.is_constant_dim(r) else r
                 for r in (reps if np.iterable(reps) else (reps,)))
    reps = (1,) * (A.ndim - len(reps)) + reps
    if len(reps) > A.ndim:
        A = lax.expand_dims(A, tuple(range(len(reps) - A.ndim)))
    return lax.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat each element ``repeats`` times along ``axis`` (of the flattened array when
    ``axis`` is None). A scalar count broadcasts along a new axis and merges it; per-
    element counts must be concrete and become a gather of computed indices, unless
    ``total_repeat_length`` fixes the result's length (then they may be traced)."""
    check_arraylike("repeat", a)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(core.concrete_or_error(operator.index, axis,
                                                    "'axis' argument of jnp.repeat()"),
                             max(a.ndim, 1))
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, total_repeat_length)
    repeats = core.concrete_or_error(
        np.asarray, repeats, "When jit-compiling jnp.repeat, the total number of repeats "
        "must be static. To fix this, either specify a static value for `repeats`, or pass "
        "a static value to `total_repeat_length`.")
    if repeats.ndim == 0 and a.ndim != 0:
        aux_shape = list(a.shape)
        aux_shape.insert(axis + 1, int(repeats))
        out = lax.broadcast_in_dim(a, aux_shape, [i for i in range(len(aux_shape))
                                                  if i != axis + 1])
        result_shape = list(a.shape)
        result_shape[axis] *= int(repeats)
        return out.reshape(result_shape)
    if a.ndim == 0:
        if repeats.size != 1:
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return util.broadcast_to(a, (int(repeats.ravel()[0]),))
    index = np.repeat(np.arange(a.shape[axis]), np.broadcast_to(repeats, a.shape[axis]))
    from glassjax.numpy.indexing import take
    return take(a, index.astype(np.int32), axis=axis)


def _repeat_to_length(a, repeats, axis, length):
    """``repeat`` with counts known only at run time: mark where each element's block
    starts in a buffer of ``length`` (the exclusive cumulative sum of the counts), and a
    cumulative sum of the marks is the index of the element each position repeats
    (blocks past ``length`` are cut off, the last element fills the rest)."""
    repeats = ravel(asarray(repeats))
    if a.ndim == 0:
        if np.shape(repeats) != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return util.broadcast_to(a, (length,))
    repeats = util.broadcast_to(repeats, (a.shape[axis],))
    if length == 0 or a.shape[axis] == 0:
        return a if a.shape[axis] == 0 else lax.slice_in_dim(a, 0, 0, axis=axis)
    starts = reductions.cumsum(roll(repeats, 1).at[0].set(0))
    marks = lax.full((length,), 0, np.int32).at[starts].add(1)
    from glassjax.numpy.indexing import take
    return take(a, reductions.cumsum(marks) - 1, axis=axis)


# ----------------------------------------------------------------------------------------
# Selection
# ----------------------------------------------------------------------------------------

def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` holds, else ``y`` (both or neither must be given)."""
    if x is None and y is None:
        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    check_arraylike("where", condition, x, y)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term "
                         "where function.")
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         f"to jax.numpy.where, got {x} and {y}.")
    return _where(condition, x, y)


def bincount(x, weights=None, minlength=0, *, length=None):
    """Count (or sum ``weights`` at) each value of the non-negative ints ``x``. The
    output length must be static: ``length``, or computed from a concrete ``x``."""
    x = ensure_arraylike("bincount", x)
    if x.dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = core.concrete_or_error(
        operator.index, minlength,
        "The error occurred because of argument 'minlength' of jnp.bincount.")
    if length is None:
        x_arr = core.concrete_or_error(
            np.asarray, x, "The error occurred because of argument 'x' of jnp.bincount. "
            "To avoid this error, pass a static `length` argument.")
        length = max(minlength, x_arr.size and int(max(0, x_arr.max())) + 1)
    else:
        length = core.concrete_dim_or_error(
            length, "The error occurred because of argument 'length' of jnp.bincount.")
    if weights is None:
        weights = np.array(1, dtype=dtypes.canonicalize_dtype(np.int64))
    elif np.shape(x) != np.shape(weights):
        raise ValueError("shape of weights must match shape of x.")
    from glassjax.numpy.array_creation import zeros
    return zeros(length, dtypes.dtype(weights)).at[clip(x, 0)].add(weights, mode="drop")


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one array per axis. Their number is the
    output size, so it must be static: ``size`` (padding with ``fill_value``, default
    0), or counted from a concrete ``a``. A running count of the nonzeros, turned into
    positions with ``bincount``, gives the flat indices without a data-dependent shape."""
    arr = ensure_arraylike("nonzero", a)
    if arr.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = arr if arr.dtype == np.bool_ else arr != 0
    size = core.concrete_dim_or_error(
        mask.sum() if size is None else size,
        "The size argument of jnp.nonzero must be statically specified to use jnp.nonzero "
        "within JAX transformations.")
    from glassjax.numpy.array_creation import arange, zeros
    if arr.size == 0 or size == 0:
        return tuple(zeros(size, int) for _ in arr.shape)
    flat_indices = reductions.cumsum(bincount(reductions.cumsum(mask), length=size))
    strides = (np.cumprod(arr.shape[::-1])[::-1] // arr.shape).astype(flat_indices.dtype)
    out = tuple((flat_indices // stride) % n for stride, n in zip(strides, arr.shape))
    if fill_value is not None:
        fill = fill_value if isinstance(fill_value, tuple) else arr.ndim * (fill_value,)
        if any(np.shape(v) != () for v in fill):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {arr.ndim}; "
                             f"got {fill_value}")
        fill_mask = arange(size) >= mask.sum()
        out = tuple(where(fill_mask, fv, entry) for fv, entry in zip(fill, out))
    return out


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements as rows of a ``(count, ndim)`` array."""
    a = ensure_arraylike("argwhere", a)
    result = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    if a.ndim == 0:
        return result[:0].reshape(result.shape[0], 0)
    return result.reshape(result.shape[0], a.ndim)


def select(condlist, choicelist, default=0):
    """The element of the first ``choicelist`` entry whose condition holds."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    condlist = [asarray(c) for c in condlist]
    choicelist = util.promote_dtypes(asarray(default), *map(asarray, choicelist))
    conditions = stack(broadcast_arrays(False, *condlist))
    idx = reductions.argmax(conditions.astype(bool), axis=0)
    return lax.select_n(*broadcast_arrays(idx, *choicelist))


@jit
def clip(arr=None, /, min=None, max=None):  # noqa: A002 - NumPy's argument names
    """``arr`` limited to ``[min, max]`` (either bound may be None)."""
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(iscomplexobj(t) for t in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max "
            "keywords. Complex values have no ordering and cannot be clipped. Please "
            "convert to a real value or array by taking the real or imaginary components "
            "via jax.numpy.real/imag respectively.")
    if min is not None:
        arr = ufuncs.maximum(min, arr)
    if max is not None:
        arr = ufuncs.minimum(max, arr)
    return asarray(arr)


@jit(static_argnames=("decimals",))
def round(a, decimals=0, out=None):  # noqa: A001 - the NumPy name
    """Round to ``decimals`` decimal places, ties to even."""
    a = ensure_arraylike("round", a)
    decimals = core.concrete_or_error(operator.index, decimals,
                                      "'decimals' argument of jnp.round")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    dtype = a.dtype
    if dtypes.issubdtype(dtype, np.integer):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a

    def round_float(x):
        if decimals == 0:
            return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
        x = lax.convert_element_type(x, np.float32) if dtype == np.float16 else x
        factor = const(x, 10 ** decimals)
        out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN),
                      factor)
        return lax.convert_element_type(out, dtype) if dtype == np.float16 else out

    if decimals > np.log10(dtypes.finfo(dtype).max):
        return a
    if dtypes.issubdtype(dtype, np.complexfloating):
        return lax.complex(round_float(lax.real(a)), round_float(lax.imag(a)))
    return round_float(a)


@jit(static_argnames=("decimals",))
def around(a, decimals=0, out=None):
    """``round`` (a jit of its own in JAX, so it prints as a nested call)."""
    return round(a, decimals, out)


@jit
def trunc(x):
    """Round towards zero."""
    x = ensure_arraylike("trunc", x)
    if dtypes.issubdtype(x.dtype, np.integer) or x.dtype == np.bool_:
        return x
    return where(lax.lt(x, const(x, 0)), ufuncs.ceil(x), ufuncs.floor(x))



@jit
def fmin(x1, x2):
    """The minimum, ignoring NaNs (NaN only when both are NaN)."""
    return where(ufuncs.less(x1, x2) | ufuncs.isnan(x2), x1, x2)


@jit
def fmax(x1, x2):
    return where(ufuncs.greater(x1, x2) | ufuncs.isnan(x2), x1, x2)


@jit(static_argnames=("deg",))
def angle(z, deg=False):
    """The argument of a complex number (0 or pi for reals)."""
    z = ensure_arraylike("angle", z)
    re, im = ufuncs.real(z), ufuncs.imag(z)
    dtype = re.dtype
    if not dtypes.issubdtype(dtype, np.inexact) or (
            dtypes.issubdtype(z.dtype, np.floating) and np.ndim(z) == 0):
        dtype = dtypes.default_float_dtype()
        re, im = lax.convert_element_type(re, dtype), lax.convert_element_type(im, dtype)
    result = lax.atan2(im, re)
    return ufuncs.degrees(result) if deg else result


@jit
def iscomplex(x):
    i = ufuncs.imag(x)
    return lax.ne(i, const(i, 0))


@jit
def isreal(x):
    i = ufuncs.imag(x)
    return lax.eq(i, const(i, 0))


@jit(static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|``, elementwise (infinities must be equal)."""
    a, b = util.promote_args_inexact("isclose", *util.promote_args("isclose", a, b))
    dtype = a.dtype
    if dtypes.issubdtype(dtype, np.complexfloating):
        dtype = np.array(0, dtype).real.dtype
    rtol = lax.convert_element_type(rtol, dtype)
    atol = lax.convert_element_type(atol, dtype)
    both_nan = ufuncs.logical_and(ufuncs.isnan(a), ufuncs.isnan(b))
    check_fin = ufuncs.isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = ufuncs.logical_or(lax.eq(a, b), ufuncs.logical_and(check_fin, in_range))
    return ufuncs.logical_or(out, both_nan) if equal_nan else out


@jit(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    check_arraylike("allclose", a, b)
    return reductions.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Same shape and equal elements (one boolean)."""
    a1, a2 = asarray(a1), asarray(a2)
    if np.shape(a1) != np.shape(a2):
        return array(False, dtype=bool)
    eq = asarray(a1 == a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs.isnan(a1), ufuncs.isnan(a2)))
    return reductions.all(eq)


def array_equiv(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = ufuncs.equal(a1, a2)
    except ValueError:
        return array(False)
    return reductions.all(eq)


# ----------------------------------------------------------------------------------------
# Diagonals and products built from the above
# ----------------------------------------------------------------------------------------

@jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the (axis1, axis2) matrices, as the last axis: a gather
    of the index pairs ``(i, i + offset)``."""
    a = ensure_arraylike("diagonal", a)
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = core.concrete_or_error(operator.index, offset,
                                    "'offset' argument of jnp.diagonal()")
    shape = a.shape
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n = max(0, min(shape[axis1] + min(offset, 0), shape[axis2] - max(offset, 0)))
    from glassjax.numpy.array_creation import arange
    i, j = arange(n), arange(abs(offset), abs(offset) + n)
    return a[..., i, j] if offset >= 0 else a[..., j, i]


def diag(v, k=0):
    """The diagonal of a matrix, or a matrix with ``v`` on its diagonal."""
    v = ensure_arraylike("diag", v)
    return _diag(v, operator.index(k))


@jit(static_argnames=("k",))
def _diag(v, k):
    if v.ndim == 1:
        zero = lax.full_like(v, 0, shape=())
        n = v.shape[0] + abs(k)
        v = lax.pad(v, zero, ((max(0, -k), max(0, k), 0),))
        return where(eye(n, k=k, dtype=bool), v[:, None], zero)
    if v.ndim == 2:
        return diagonal(v, offset=k)
    raise ValueError("diag input must be 1d or 2d")


@jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along a diagonal."""
    a = ensure_arraylike("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    if canonicalize_axis(axis1, a.ndim) == canonicalize_axis(axis2, a.ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    if dtype is not None:
        dtype = user_dtype(dtype, "trace")
    shape = a.shape
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = where(eye(shape[axis1], shape[axis2], k=offset, dtype=bool), a, zeros_like(a))
    return reductions.sum(a, axis=(-2, -1), dtype=dtype)


@jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along the given axes."""
    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


@jit
def kron(a, b):
    """The Kronecker product: every element of ``a`` times the whole of ``b``."""
    check_arraylike("kron", a, b)
    a, b = util.promote_dtypes(a, b)
    if np.ndim(a) < np.ndim(b):
        a = expand_dims(a, range(np.ndim(b) - np.ndim(a)))
    elif np.ndim(b) < np.ndim(a):
        b = expand_dims(b, range(np.ndim(a) - np.ndim(b)))
    a_reshaped = expand_dims(a, range(1, 2 * np.ndim(a), 2))
    b_reshaped = expand_dims(b, range(0, 2 * np.ndim(b), 2))
    out_shape = tuple(np.multiply(np.shape(a), np.shape(b)))
    return reshape(lax.mul(a_reshaped, b_reshaped), out_shape)


@jit
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf`` / ``neginf``
    (default: the largest finite values of the dtype)."""
    del copy
    x = ensure_arraylike("nan_to_num", x)
    dtype = x.dtype
    if not dtypes.issubdtype(dtype, np.inexact):
        return x
    if dtypes.issubdtype(dtype, np.complexfloating):
        part = lambda p: nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(part(lax.real(x)), part(lax.imag(x)))
    info = dtypes.finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(ufuncs.isnan(x), asarray(nan, dtype=dtype), x)
    out = where(ufuncs.isposinf(out), asarray(posinf, dtype=dtype), out)
    return where(ufuncs.isneginf(out), asarray(neginf, dtype=dtype), out)


@jit(static_argnames="axis", inline=True)
def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = ensure_arraylike("unstack", x)
    return lax.unstack(x, axis=axis)


def diag_indices(n, ndim=2):
    """The indices ``(i, i, ..., i)`` of the main diagonal of an ``ndim``-d array."""
    n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diag_indices()")
    ndim = core.concrete_or_error(operator.index, ndim,
                                  "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    index_dtype = np.int64 if n > np.iinfo(np.int32).max else dtypes.default_int_dtype()
    return (lax.iota(index_dtype, n),) * ndim


def diag_indices_from(arr):
    arr = ensure_arraylike("diag_indices_from", arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], ndim=arr.ndim)


def _triu_size(n, m, k):
    """How many entries of an ``(n, m)`` matrix are on or above diagonal ``k``."""
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def _tri_indices(which, n, k, m):
    from glassjax.numpy import array_creation
    n = core.concrete_dim_or_error(n, "n argument of jnp.triu_indices")
    k = core.concrete_dim_or_error(k, "k argument of jnp.triu_indices")
    m = n if m is None else core.concrete_dim_or_error(m, "m argument of jnp.triu_indices")
    ones = array_creation.ones((n, m))
    if which == "triu":
        return nonzero(array_creation.triu(ones, k=k), size=_triu_size(n, m, k))
    return nonzero(array_creation.tril(ones, k=k), size=_triu_size(m, n, -k))


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle (on and above diagonal ``k``) of an
    ``(n, m)`` array."""
    return _tri_indices("triu", n, k, m)


def tril_indices(n, k=0, m=None):
    return _tri_indices("tril", n, k, m)


def _shape_2d(name, arr):
    shape = arr.shape if hasattr(arr, "shape") else ensure_arraylike(name, arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return shape


def triu_indices_from(arr, k=0):
    n, m = _shape_2d("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def tril_indices_from(arr, k=0):
    n, m = _shape_2d("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)
