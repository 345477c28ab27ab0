"""Slicing: static ``slice`` and its transpose ``pad``, ``dynamic_slice`` /
``dynamic_update_slice`` (start indices known only at run time). The general ``gather`` /
``scatter`` that NumPy-style indexing is built on are in gather_scatter.py; batching a
dynamic slice turns it into one of them.

One duality organises the AD rules: the transpose of taking a slice is *padding* the
cotangent back to the operand's shape (``slice`` -> ``pad``, ``dynamic_slice`` ->
``dynamic_update_slice`` into zeros).

Out-of-bounds start indices are *clamped* by XLA for ``dynamic_slice`` and
``dynamic_update_slice`` so that the whole window fits; negative indices count from the
end (the wrappers add the axis size before binding). The sums some rules need (a
``pad``'s padding-value cotangent, one-hot picks) come from reductions.py, above,
through ``utils.above``. Read next: lax/gather_scatter.py.
"""
from __future__ import annotations

import dataclasses
import functools
import operator
from typing import Sequence

import numpy as np

from glassjax import core, dtypes, shape_poly
from glassjax.interpreters import ad, batching
from glassjax.jit import jit
from glassjax.lax import elementwise
from glassjax.lax.gather_scatter import (GatherDimensionNumbers, GatherScatterMode,
                                         ScatterDimensionNumbers, _gather_batch,
                                         _zeros_like, scatter)
from glassjax.lax.structural import (broadcast, broadcast_in_dim, broadcasted_iota,
                                     concatenate, expand_dims, full_like, squeeze)
from glassjax.lax.utils import (above, canonicalize_shape, check_same_dtypes,
                                check_shapelike, operand_weak_type, resized_sharding,
                                spec_of, standard_primitive, typed_text)
from glassjax.vmap_api import vmap
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo

_input_dtype = lambda x, *args, **params: x.dtype


_const = elementwise._const


# -- slice --------------------------------------------------------------------------------

def _check_within_operand(name, values, x):
    """A bound ``slice`` and ``dynamic_slice`` check (``name``: of the param checked)."""
    if not all(map(operator.ge, x.shape, values)):
        raise TypeError(f"slice {name} must be less than or equal to operand shape, got "
                        f"{name} {values} for operand shape {x.shape}.")


def _check_nonnegative(name, values):
    """Another bound ``slice`` and ``dynamic_slice`` check."""
    if not all(v >= 0 for v in values):
        raise TypeError(f"slice {name} must be greater than or equal to zero, got {name} "
                        f"of {values}.")


def _slice_shape_rule(x, *, start_indices, limit_indices, strides):
    check_shapelike("slice", start_indices=start_indices, limit_indices=limit_indices)
    if x.ndim != len(start_indices):
        raise TypeError("slice start_indices must have length equal to the number of "
                        f"dimensions of the operand, got indices {start_indices} for "
                        f"operand shape {x.shape}.")
    if len(start_indices) != len(limit_indices):
        raise TypeError("slice limit_indices must have the same length as start_indices, "
                        f"got start_indices {start_indices} and limit_indices "
                        f"{limit_indices}.")
    _check_within_operand("limit_indices", limit_indices, x)
    _check_nonnegative("start_indices", start_indices)
    if not all(map(operator.ge, limit_indices, start_indices)):
        raise TypeError("slice limit_indices must be greater than or equal to "
                        f"start_indices, got start_indices {start_indices} and "
                        f"limit_indices {limit_indices}.")
    diff = tuple(map(operator.sub, limit_indices, start_indices))
    if strides is None or tuple(strides) == (1,) * x.ndim:
        return diff
    check_shapelike("slice", strides=strides)
    if len(strides) != x.ndim:
        raise TypeError("slice strides must have length equal to the number of dimensions "
                        f"of the operand, got strides {strides} for operand shape "
                        f"{x.shape}.")
    if not all(s >= 0 for s in strides):
        raise TypeError(f"slice strides must be positive, got {strides}")
    return tuple(0 if d == 0 else (d - 1) // s + 1 for d, s in zip(diff, strides))


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    """Pad the cotangent back to the operand's shape: zeros before the start, after the
    limit, and (for strides > 1) between the taken elements."""
    shape = x.aval.shape
    if strides is None or np.all(np.equal(strides, 1)):
        pads = zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape))
    else:
        real_limits = np.add(start_indices, np.where(
            np.array(np.shape(ct)) == 0, 0,
            np.add(1, np.multiply(np.subtract(np.shape(ct), 1), strides))))
        pads = zip(start_indices, np.subtract(shape, real_limits), np.subtract(strides, 1))
    return [pad(ct, _const(ct, 0), pads)]


def _slice_batch(args, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, dims
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(d, 0)
    limits.insert(d, np.shape(x)[d])
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
    return slice(x, starts, limits, strides), d


def _slice_impl(x, *, start_indices, limit_indices, strides):
    """Eagerly, an unstrided slice runs as a ``dynamic_slice``: one compiled program
    then serves every slice of the same size, wherever it starts. (So the checks of the
    slice's shape rule are not run; the one the ``dynamic_slice`` cannot make is made
    here, with the ValueError JAX raises.)"""
    if not len(start_indices) == len(limit_indices) == np.ndim(x):
        raise ValueError("slice start_indices and limit_indices must have length equal to "
                         f"the number of dimensions of the operand, got start_indices "
                         f"{start_indices} and limit_indices {limit_indices} for operand "
                         f"shape {np.shape(x)}.")
    if strides is not None:
        return dispatch.apply_primitive(slice_p, x, start_indices=start_indices,
                                        limit_indices=limit_indices, strides=strides)
    sizes = tuple(np.array(limit_indices) - np.array(start_indices))
    return dispatch.apply_primitive(dynamic_slice_p, x, *start_indices, slice_sizes=sizes)


slice_p = standard_primitive(_slice_shape_rule, _input_dtype, "slice")
slice_p.sharding_rule = lambda x, **params: resized_sharding(
    "slicing", x, _slice_shape_rule(x, **params))
slice_p.def_impl(_slice_impl)
def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
    return lowering.slice_op(x, ctx.avals_out[0], start_indices, limit_indices,
                             strides or [1] * len(start_indices))


lowering.register_lowering(slice_p, _slice_lower)
ad.deflinear2(slice_p, _slice_transpose)
batching.primitive_batchers[slice_p] = _slice_batch


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001 - lax name
    """``operand[start:limit:stride]`` along every axis, with static bounds."""
    return slice_p.bind(operand, start_indices=tuple(start_indices),
                        limit_indices=tuple(limit_indices),
                        strides=None if strides is None else tuple(strides))


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """``slice`` along one axis (``None`` bounds and negative indices as in Python)."""
    start_indices = [0] * operand.ndim
    limit_indices = list(operand.shape)
    strides = [1] * operand.ndim
    axis_size = operand.shape[axis]
    start = shape_poly.canonicalize_dim(start_index) if start_index is not None else 0
    limit = shape_poly.canonicalize_dim(limit_index) if limit_index is not None else axis_size
    if shape_poly.is_constant_dim(start) and start < 0:
        start += axis_size
    if shape_poly.is_constant_dim(limit) and limit < 0:
        limit += axis_size
    axis = int(axis)
    start_indices[axis], limit_indices[axis] = start, limit
    strides[axis] = operator.index(stride)
    return slice(operand, start_indices, limit_indices, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """``operand[..., index]`` along ``axis`` with a static index."""
    index, axis = operator.index(index), int(axis)
    axis_size = operand.shape[axis]
    wrapped = index + axis_size if index < 0 else index
    if not 0 <= wrapped < axis_size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size "
                         f"{axis_size}")
    result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return result if keepdims else squeeze(result, (axis,))


# -- pad ----------------------------------------------------------------------------------

def _pad_dtype_rule(x, padding_value, *, padding_config):
    if x.dtype != padding_value.dtype:
        raise TypeError("pad operand and padding_value must be same dtype: got "
                        f"{x.dtype} and {padding_value.dtype}.")
    return x.dtype


def _pad_shape_rule(x, padding_value, *, padding_config):
    if padding_value.ndim != 0:
        raise ValueError("padding_value must be a scalar; got "
                         f"np.shape(padding_value)={padding_value.shape}")
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes of "
                         f"operand, got padding_config {padding_config} for operand "
                         f"shape {x.shape}")
    if not all(i >= 0 for _, _, i in padding_config):
        raise ValueError("interior padding in padding_config must be nonnegative, got "
                         f"padding_config {padding_config}")
    # Interior padding i puts i elements between neighbours: d elements take
    # d + (d - 1) * i places (none when d == 0).
    result = tuple(lo + hi + (0 if d == 0 else d + (d - 1) * i)
                   for (lo, hi, i), d in zip(padding_config, x.shape))
    if not all(d >= 0 for d in result):
        raise ValueError(f"Dimension size after padding is not at least 0, got result "
                         f"shape {result}, for padding_config {padding_config} and "
                         f"operand shape {x.shape}")
    return result


def _pad_transpose(ct, x, padding_value, *, padding_config):
    """The operand's cotangent is the unpadded, un-dilated cotangent (a negative pad
    then a strided slice); the padding value's is the sum of everything else."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([x, padding_value])
    lo, hi, interior = zip(*padding_config)
    total = lambda v: above.reduce_sum(v, list(range(np.ndim(ct))))

    def t_operand():
        unpad_config = list(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
        unpadded = pad(ct, np.array(0., ct.dtype), unpad_config)
        return slice(unpadded, list(np.zeros_like(lo)), np.shape(unpadded),
                     list(np.add(interior, 1)))

    ct_x = t_operand() if ad.is_undefined_primal(x) else None
    ct_pad = (elementwise.sub(total(ct), total(ct_x)) if ad.is_undefined_primal(padding_value)
              else None)
    return [ct_x, ct_pad]


def _pad_batch(args, dims, *, padding_config):
    x, padding_value = args
    x_d, pad_d = dims
    if x_d is None:
        x_d = 0
        x = broadcast(x, (np.shape(padding_value)[pad_d],))
    padding_config = list(padding_config)
    padding_config.insert(x_d, (0, 0, 0))
    if pad_d is None:
        return pad(x, padding_value, padding_config), x_d
    # A batch of padding values: pad with zeros, then select the padding positions.
    out = pad(x, np.zeros((), dtypes.dtype(x)), padding_config)
    mask = pad(full_like(x, True, np.bool_), False, padding_config)
    padding = broadcast_in_dim(padding_value, np.shape(out), (x_d,))  # pad_d is 0
    return elementwise.select(mask, out, padding), x_d


pad_p = standard_primitive(_pad_shape_rule, _pad_dtype_rule, "pad")
pad_p.sharding_rule = lambda x, padding_value, **params: resized_sharding(
    "padding", x, _pad_shape_rule(x, padding_value, **params))
def _pad_lower(ctx, x, padding_value, *, padding_config):
    low, high, interior = ([c[k] for c in padding_config] for k in range(3))
    if not shape_poly.is_constant_shape((*low, *high, *interior)):   # symbolic amounts
        return hlo.dynamic_pad(lowering.aval_to_ir_type(ctx.avals_out[0]), x, padding_value,
                               *map(lowering.shape_tensor, (low, high, interior)))
    return hlo.pad(x, padding_value, *([int(v) for v in c] for c in (low, high, interior)))


lowering.register_lowering(pad_p, _pad_lower)
ad.deflinear2(pad_p, _pad_transpose)
batching.primitive_batchers[pad_p] = _pad_batch


def pad(operand, padding_value, padding_config):
    """Pad with ``padding_value``: ``padding_config`` holds ``(low, high, interior)``
    per axis. Negative low/high padding removes elements from the edges."""
    return pad_p.bind(operand, padding_value, padding_config=tuple(padding_config))


# -- dynamic_slice and dynamic_update_slice -----------------------------------------------

def _check_index_dtypes(name, indices, sep):
    if any(i.dtype != indices[0].dtype or not dtypes.issubdtype(i.dtype, np.integer)
           for i in indices):
        raise TypeError(f"index arguments to {name} must be integers of the same type, "
                        f"got{sep}{', '.join(i.dtype.name for i in indices)}")


def _dynamic_slice_shape_rule(x, *start_indices, slice_sizes):
    if not len(start_indices) == len(slice_sizes) == x.ndim:
        raise TypeError("dynamic_slice start_indices and slice_sizes must have length "
                        f"equal to the number of dimensions of the operand, got "
                        f"{len(start_indices)} start indices and slice_sizes {slice_sizes} "
                        f"for operand shape {x.shape}.")
    _check_within_operand("slice_sizes", slice_sizes, x)
    _check_nonnegative("slice_sizes", slice_sizes)
    if any(i.ndim != 0 for i in start_indices):
        raise TypeError("start_indices arguments to dynamic_slice must be scalars, "
                        f" got indices {tuple(start_indices)}")
    return tuple(slice_sizes)


def _dynamic_slice_dtype_rule(x, *start_indices, slice_sizes):
    _check_index_dtypes("dynamic_slice", start_indices, ": ")
    return x.dtype


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    t_out = tangents[0]
    if type(t_out) is not ad.Zero:
        t_out = dynamic_slice_p.bind(t_out, *primals[1:], slice_sizes=slice_sizes)
    out = dynamic_slice_p.bind(primals[0], *primals[1:], slice_sizes=slice_sizes)
    return out, (ad.Zero.from_primal_value(out) if type(t_out) is ad.Zero else t_out)


def _dynamic_slice_transpose(ct, x, *start_indices, slice_sizes):
    """Write the cotangent into zeros of the operand's shape at the same place."""
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)] + [None] * len(start_indices)
    zeros = _zeros_like(x, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *start_indices)] + \
        [None] * len(start_indices)


def _batch_dynamic_slice_indices(indices, dims):
    """Scalar start indices (some batched) as one ``(batch, n)`` index array for a
    gather or scatter."""
    if len(indices) == 0:
        return np.array([], "int32"), None
    size = next((np.shape(x)[d] for x, d in zip(indices, dims) if d is not None), None)
    if size is None:
        return concatenate([broadcast(i, (1,)) for i in indices], 0), None
    return concatenate([broadcast_in_dim(x, (size, 1), (0,) if d is not None else ())
                        for x, d in zip(indices, dims)], dimension=1), 0


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    """A batched dynamic_slice is a gather (with clamping, as dynamic_slice clamps)."""
    x, *start_indices = args
    x_d, *index_dims = dims
    ndims = np.ndim(x) - (0 if x_d is None else 1)
    axes = tuple(range(ndims))
    dnums = GatherDimensionNumbers(offset_dims=axes, collapsed_slice_dims=(),
                                   start_index_map=axes)
    index, index_d = _batch_dynamic_slice_indices(start_indices, index_dims)
    return _gather_batch([x, index], [x_d, index_d], dimension_numbers=dnums,
                         slice_sizes=slice_sizes, unique_indices=True,
                         indices_are_sorted=True, mode=GatherScatterMode.CLIP,
                         fill_value=None)


dynamic_slice_p = standard_primitive(_dynamic_slice_shape_rule, _dynamic_slice_dtype_rule,
                                     "dynamic_slice", weak_type_rule=operand_weak_type)
dynamic_slice_p.sharding_rule = lambda x, *starts, slice_sizes: resized_sharding(
    "dynamic_slice", x, slice_sizes)
lowering.register_lowering(dynamic_slice_p, lambda ctx, x, *starts, slice_sizes:
                           hlo.dynamic_slice(x, list(starts),
                                             [int(s) for s in slice_sizes]))
ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose
batching.primitive_batchers[dynamic_slice_p] = _dynamic_slice_batch


def _dynamic_update_slice_shape_rule(x, update, *start_indices):
    if x.ndim != update.ndim:
        raise TypeError("dynamic_update_slice update must have the same rank as operand, "
                        f"got update shape {update.shape} for operand shape {x.shape}.")
    if x.ndim != len(start_indices):
        raise TypeError("dynamic_update_slice start_indices must have length equal to the "
                        f"rank of operand, got indices {list(start_indices)} for operand "
                        f"shape {x.shape}.")
    if not all(map(operator.ge, x.shape, update.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {update.shape} for operand shape "
                        f"{x.shape}.")
    if any(i.ndim != 0 for i in start_indices):
        raise TypeError("start_indices arguments to dynamic_update_slice must be scalars, "
                        f"got indices {tuple(start_indices)}")
    return x.shape


def _dynamic_update_slice_dtype_rule(x, update, *start_indices):
    check_same_dtypes("dynamic_update_slice", x, update)
    _check_index_dtypes("dynamic_update_slice", start_indices, " ")
    return x.dtype


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *start_indices = primals
    g_x, g_update = tangents[:2]
    out = dynamic_update_slice_p.bind(x, update, *start_indices)
    if type(g_x) is ad.Zero and type(g_update) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    t_out = dynamic_update_slice_p.bind(ad.instantiate_zeros(g_x),
                                        ad.instantiate_zeros(g_update), *start_indices)
    return out, t_out


def _dynamic_update_slice_transpose(ct, x, update, *start_indices):
    """The operand gets the cotangent with the updated window zeroed; the update gets
    the window of the cotangent."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([x, update, *start_indices])
    update_shape = update.aval.shape if ad.is_undefined_primal(update) else np.shape(update)
    zeros = full_like(ct, 0, shape=update_shape)
    ct_x = (dynamic_update_slice_p.bind(ct, zeros, *start_indices)
            if ad.is_undefined_primal(x) else None)
    ct_update = (dynamic_slice_p.bind(ct, *start_indices, slice_sizes=update_shape)
                 if ad.is_undefined_primal(update) else None)
    return [ct_x, ct_update] + [None] * len(start_indices)


def _dynamic_update_slice_batch(args, dims):
    """A batched dynamic_update_slice is a scatter (with clamping)."""
    x, update, *start_indices = args
    x_d, update_d, *index_dims = dims
    update_shape = (np.shape(update) if update_d is None
                    else tuple(np.delete(np.shape(update), update_d)))
    axes = tuple(range(len(update_shape)))
    dnums = ScatterDimensionNumbers(update_window_dims=axes, inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=axes)
    index, index_d = _batch_dynamic_slice_indices(start_indices, index_dims)
    scatter_fn = functools.partial(scatter, dimension_numbers=dnums,
                                   indices_are_sorted=True, unique_indices=True,
                                   mode=GatherScatterMode.CLIP)
    return vmap(scatter_fn, in_axes=(x_d, index_d, update_d),
                out_axes=0)(x, index, update), 0


dynamic_update_slice_p = standard_primitive(
    _dynamic_update_slice_shape_rule, _dynamic_update_slice_dtype_rule,
    "dynamic_update_slice")


def _dynamic_update_slice_sharding(x, update, *starts):
    """The update must be split as the operand is (JAX moves no data for it)."""
    if spec_of(x) != spec_of(update):
        mesh = (x._sharding or update._sharding)[0]
        raise core.ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got "
            f"operand sharding {typed_text(x, mesh)} and update sharding "
            f"{typed_text(update, mesh)}.")
    return spec_of(x)


dynamic_update_slice_p.sharding_rule = _dynamic_update_slice_sharding
lowering.register_lowering(dynamic_update_slice_p, lambda ctx, x, update, *starts:
                           hlo.dynamic_update_slice(x, update, list(starts)))
ad.primitive_jvps[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.primitive_transposes[dynamic_update_slice_p] = _dynamic_update_slice_transpose
batching.primitive_batchers[dynamic_update_slice_p] = _dynamic_update_slice_batch


def _dynamic_slice_indices(operand, start_indices, allow_negative_indices):
    """Start indices with negative ones counted from the end of their axis: static
    ints are fixed here, traced ones get ``select(i < 0, i + size, i)``."""
    if len(start_indices) != operand.ndim:
        raise ValueError("Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {operand.shape})")
    if not isinstance(start_indices, Sequence):
        if start_indices.ndim != 1:
            raise ValueError("Slice indices must be a 1D sequence, got "
                             f"{start_indices.shape}")
        start_indices = list(start_indices)
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(start_indices)
    result = []
    for i, d, allow_negative in zip(start_indices, operand.shape, allow_negative_indices):
        dtype = dtypes.dtype(i, canonicalize=True)
        if dtypes.issubdtype(dtype, np.unsignedinteger):
            result.append(i)
        elif isinstance(i, (int, np.integer)):
            if i < 0 and not allow_negative:
                raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                                 "allow_negative_indices=False")
            result.append(elementwise.convert_element_type(i + d if i < 0 else i, dtype))
        elif allow_negative and type(i) in dtypes.python_scalar_dtypes:   # e.g. a float
            size = elementwise.convert_element_type(d, dtype)
            result.append(elementwise.select(i < 0, i + size, i))
        elif allow_negative:
            size = elementwise.convert_element_type(d, dtype)
            is_negative = elementwise.lt(i, _const(i, 0))
            wrapped = elementwise.add(
                elementwise._convert_element_type(i, dtype, weak_type=False), size)
            result.append(elementwise.select(is_negative, wrapped, i))
        else:
            result.append(i)
    return result


@dataclasses.dataclass(frozen=True)
class Slice:
    """``jax.ds(start, size, stride)``: ``size`` elements from ``start`` by ``stride``, where
    ``start`` may be traced (the size is static). It indexes arrays (a ``dynamic_slice``)
    and refs."""
    start: object
    size: int
    stride: int = 1


def ds(start, size, stride: int = 1) -> Slice:
    return Slice(start, size, stride)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The window of ``slice_sizes`` starting at (traced) ``start_indices``. Windows
    that would run past the end are shifted back inside the array."""
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *start_indices,
                                slice_sizes=tuple(canonicalize_shape(slice_sizes)))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with the window at ``start_indices`` replaced by ``update``."""
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *start_indices)


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """``dynamic_slice`` along one axis (whole extent along the others)."""
    start_indices = [_const(start_index, 0)] * operand.ndim
    slice_sizes = list(operand.shape)
    axis = int(axis)
    allow_negative = [False] * operand.ndim
    allow_negative[axis] = allow_negative_indices
    start_indices[axis] = start_index
    slice_sizes[axis] = operator.index(slice_size)
    return dynamic_slice(operand, start_indices, slice_sizes,
                         allow_negative_indices=allow_negative)


@functools.partial(jit, static_argnames=["axis", "keepdims", "allow_negative_indices"])
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """``operand[..., index]`` along ``axis`` with a traced index (a jitted helper,
    printed as ``jit[name=dynamic_index_in_dim]``, as in JAX)."""
    result = dynamic_slice_in_dim(operand, index, 1, axis,
                                  allow_negative_indices=allow_negative_indices)
    return result if keepdims else squeeze(result, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """``dynamic_update_slice`` at ``start_index`` along one axis (0 along the others)."""
    axis = int(axis)
    start_indices = [_const(start_index, 0)] * np.ndim(operand)
    start_indices[axis] = start_index
    allow_negative = [False] * operand.ndim
    allow_negative[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, start_indices,
                                allow_negative_indices=allow_negative)


@functools.partial(jit, static_argnames=["axis", "allow_negative_indices"])
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """Replace ``operand[..., index]`` along ``axis`` (``update`` may lack that axis)."""
    axis = int(axis)
    if np.ndim(update) != np.ndim(operand):
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


# ----------------------------------------------------------------------------------------
# Indexing along the last axis, for rules (jnp's take_along_axis lives a layer above)
# ----------------------------------------------------------------------------------------

def _last_axis_hits(indices, n):
    """``iota == indices[..., None]``: True where the last axis of an ``n``-wide array is
    picked by ``indices``."""
    shape = tuple(np.shape(indices)) + (n,)
    positions = broadcasted_iota(indices.dtype, shape, len(shape) - 1)
    return elementwise.eq(positions, expand_dims(indices, (len(shape) - 1,)))


def take_along_last_axis(x, indices):
    """``x[..., indices]``: ``x`` (..., n) indexed along its last axis by ``indices``
    (..., k), batched alike. A one-hot selection and a sum, exact for every value."""
    *batch, n = np.shape(x)
    hits = _last_axis_hits(indices, n)
    dims = tuple(range(len(batch))) + (len(batch) + 1,)
    picked = elementwise.select(hits, broadcast_in_dim(x, hits.shape, dims),
                                full_like(x, 0, shape=hits.shape))
    return above.reduce_sum(picked, (hits.ndim - 1,))


def put_along_last_axis(x, indices, values):
    """``x`` with ``x[..., indices] = values``, one index and value per leading index."""
    hits = _last_axis_hits(indices, np.shape(x)[-1])
    values = broadcast_in_dim(values, hits.shape, tuple(range(np.ndim(values))))
    return elementwise.select(hits, values, x)
