"""Shape-changing primitives: broadcasting, reshaping, permuting, joining, tiling, iota.

None of these compute new numbers: each moves, copies or drops elements. That makes them
*linear*, so each one's transpose rule is another structural op (the transpose of a
concatenate is a split), or, for a broadcast, a sum: ``reduce_sum`` from reductions.py,
which sits above (its rules broadcast) and is reached through ``utils.above``. As
everywhere in lax, each primitive's rules and its public function sit together.
(``pad``, the transpose of ``slice``, lives with it in slicing.py.)
Read next: lax/comparison.py, the elementwise families (lax/elementwise.py).
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from glassjax import caches, core, dtypes, pretty, shape_poly
from glassjax.config import config
from glassjax.interpreters import ad, batching, staging
from glassjax.lax.conversion import _convert_element_type
from glassjax.lax.dim_as_value import dim_as_value
from glassjax.lax.utils import (above, resized_sharding, same_sharding, same_sharding_of_all,
                                spec_of, canonicalize_axis, canonicalize_shape,
                                check_same_dtypes, check_shapelike, ensure_index_tuple,
                                is_array, is_int_tuple, operand_memory_space,
                                standard_multi_result_primitive,
                                standard_primitive)
from glassjax.lax.sharding_constraint import reshard
from glassjax.mesh import AbstractMesh, PartitionSpec
from glassjax.named_sharding import NamedSharding, spec_to_sharding, type_sharding
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo

_input_dtype = lambda x, *args, **params: x.dtype


def _delete(tup, idx):
    """``tup`` without the entries at positions ``idx``."""
    idx = set(idx)
    return tuple(t for i, t in enumerate(tup) if i not in idx)


def _asarray(x):
    """An array for any array-like (JAX's ``lax.asarray``): Python scalars stay weak."""
    if is_array(x):
        return x
    return _convert_element_type(x, weak_type=dtypes.is_weakly_typed(x))


# -- broadcast_in_dim ---------------------------------------------------------------------

def _broadcast_in_dim_shape_rule(x, *, shape, broadcast_dimensions, sharding):
    check_shapelike("broadcast_in_dim", shape=shape,
                    broadcast_dimensions=broadcast_dimensions)
    if x.ndim != len(broadcast_dimensions):
        raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {broadcast_dimensions} "
                        f"for operand ndim {x.ndim}.")
    if len(shape) < x.ndim:
        raise TypeError("broadcast_in_dim target broadcast shape must have equal or "
                        "higher rank to the operand shape; got operand ndim "
                        f"{x.ndim} and target broadcast ndim {len(shape)}.")
    if not set(broadcast_dimensions) <= set(range(len(shape))):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of output "
                        f"dimensions, got {broadcast_dimensions} for operand ndim "
                        f"{x.ndim} and shape {shape}.")
    if not all(d in (1, shape[bd]) for d, bd in zip(x.shape, broadcast_dimensions)):
        raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be "
                        "equal to their corresponding dimensions in the target broadcast "
                        f"shape; got operand of shape {x.shape}, target broadcast shape "
                        f"{shape}, broadcast_dimensions {broadcast_dimensions} ")
    if len(broadcast_dimensions) != len(set(broadcast_dimensions)):
        raise TypeError("broadcast_in_dim broadcast_dimensions must not contain "
                        f"duplicates, got broadcast_dimensions {broadcast_dimensions}")
    return tuple(shape)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    """Sum the cotangent over the new axes and over axes expanded from size 1 (those
    are put back as size-1 axes)."""
    if not ad.is_undefined_primal(x):
        return [None]
    unit_dims = [i for i, d in enumerate(x.aval.shape) if d == 1]
    kept = _delete(broadcast_dimensions, unit_dims)
    summed_axes = _delete(tuple(range(len(shape))), kept)
    return [expand_dims(above.reduce_sum(ct, summed_axes), unit_dims)]


def _broadcast_in_dim_sharding(x, *, shape, broadcast_dimensions, sharding):
    """Operand dimensions keep their splits; new dimensions are whole."""
    if sharding is not None:
        return sharding.spec._normalized_spec_for_aval(len(shape))
    out = [None] * len(shape)
    for e, d in zip(spec_of(x), broadcast_dimensions):
        out[d] = e
    return out


def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))
    return broadcast_in_dim(x, (np.shape(x)[0],) + tuple(shape), new_dims), 0


broadcast_in_dim_p = standard_primitive(_broadcast_in_dim_shape_rule, _input_dtype,
                                        "broadcast_in_dim")
broadcast_in_dim_p.sharding_rule = _broadcast_in_dim_sharding
broadcast_in_dim_p.memory_space_rule = operand_memory_space
lowering.register_lowering(
    broadcast_in_dim_p, lambda ctx, x, *, shape, broadcast_dimensions, sharding:
    lowering.broadcast_in_dim(x, shape, broadcast_dimensions,
                              ctx.module_context.ir_type(ctx.avals_out[0])))
ad.deflinear2(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_batch
# A broadcast to the operand's own shape records nothing (that is how expand_dims(x, [])
# disappears); like JAX, only the shape is compared.
staging.forwarding_rules[broadcast_in_dim_p] = (
    lambda x, *, shape, broadcast_dimensions, sharding: 0 if x.shape == tuple(shape) else None)
pretty.pp_eqn_rules[broadcast_in_dim_p] = pretty.hide_params(lambda p: {
    k: v for k, v in p.items()
    if k not in ("shape", "sharding") and not (k == "broadcast_dimensions" and not v)})


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """Broadcast ``operand`` to ``shape``: its axis i becomes axis
    ``broadcast_dimensions[i]`` of the result; the other axes are new."""
    if (core.ndim_of(operand) == len(shape) and not len(broadcast_dimensions) and
            is_array(operand) and out_sharding is None):
        return operand
    aval = core.get_aval(operand)
    if (aval.shape == tuple(shape) and tuple(broadcast_dimensions) == tuple(range(aval.ndim))
            and out_sharding is not None and aval._sharding != type_sharding(
                out_sharding, aval.ndim)):
        # nothing to broadcast: only the layout changes (JAX's reshard)
        return reshard(operand, PartitionSpec(*out_sharding.spec)
                       if isinstance(out_sharding.mesh, AbstractMesh) else out_sharding)
    return broadcast_in_dim_p.bind(operand, shape=tuple(shape),
                                   broadcast_dimensions=tuple(broadcast_dimensions),
                                   sharding=out_sharding)


def broadcast_like(arr, like_arr):
    """``arr`` broadcast to the shape of ``like_arr``: new leading axes, and size-1 axes
    stretched (NumPy's trailing alignment)."""
    arr_aval = core.get_aval(arr)
    shape = np.shape(like_arr)
    if arr_aval.shape == shape:
        return _asarray(arr)
    lead = len(shape) - arr_aval.ndim
    if lead < 0 or not all(a in (1, s) for a, s in zip(arr_aval.shape, shape[lead:])):
        wanted = arr_aval.update(shape=shape, weak_type=False).str_short()
        raise ValueError(f"Incompatible types for broadcasting: input type="
                         f"{arr_aval.str_short()} and requested type={wanted}")
    return broadcast_in_dim(arr, shape, tuple(range(lead, len(shape))))


def broadcast(operand, sizes, *, out_sharding=None):
    """Add leading axes of the given ``sizes``."""
    if len(sizes) == 0 and out_sharding is None:
        return _asarray(operand)
    shape = core.shape_of(operand)
    dims = tuple(range(len(sizes), len(sizes) + len(shape)))
    return broadcast_in_dim(operand, tuple(sizes) + shape, dims,
                            out_sharding=out_sharding)


def broadcast_to_rank(x, rank: int):
    """Add leading size-1 axes to give ``x`` rank ``rank``."""
    ndim = core.ndim_of(x)
    if ndim == rank:
        return _asarray(x)
    return broadcast(x, (1,) * (rank - ndim))


def expand_dims(array, dimensions):
    """Insert size-1 axes at ``dimensions`` (a ``broadcast_in_dim``, as in JAX)."""
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    ndim_out = core.ndim_of(array) + len(dimensions)
    dims = [canonicalize_axis(i, ndim_out) for i in dimensions]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    shape = list(core.shape_of(array))
    for i in sorted(dims):
        shape.insert(i, 1)
    return broadcast_in_dim(array, shape, [i for i in range(ndim_out) if i not in dims])


# -- full and friends: a scalar broadcast -------------------------------------------------

def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with ``fill_value``: one scalar, broadcast."""
    shape = canonicalize_shape(shape)
    if np.shape(fill_value):
        raise TypeError("full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if dtype is None:
        weak_type = dtypes.is_weakly_typed(fill_value)
        dtype = dtypes.dtype(fill_value, canonicalize=True)
    else:
        weak_type = False
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "full")
    if sharding is not None and type_sharding(sharding, len(shape)) is None:
        sharding = None             # not split over Explicit axes: nothing to ask for
    return broadcast(_convert_element_type(fill_value, dtype, weak_type), shape,
                     out_sharding=sharding)


def shape_as_value(shape):
    """A shape as an integer vector: a NumPy int32 array (int64 if a dimension does not
    fit). The empty shape gives an empty array built with ``full``, as JAX builds it. A
    shape with symbolic dimensions is computed in the program: each dimension as a value
    (``dim_as_value``), made 1-D and concatenated."""
    if not shape_poly.is_constant_shape(shape):
        pieces = [expand_dims(_convert_element_type(dim_as_value(d), np.dtype(np.int32)),
                              (0,)) for d in shape]
        return concatenate(pieces, 0)
    too_big = any(d > np.iinfo(np.int32).max for d in shape)
    dtype = np.dtype(np.int64 if too_big else np.int32)
    if len(shape) == 0:
        return full((0,), np.array(0, dtype=dtype))
    return np.asarray(shape, dtype=dtype)


def broadcast_shapes(*shapes):
    """NumPy broadcasting of shapes, with rank promotion (ValueError when they are
    incompatible)."""
    return _broadcast_shapes(tuple(
        s if is_int_tuple(s) else tuple(core.concrete_dim_or_error(d) for d in s)
        for s in shapes))


@caches.lru("lax.structural._broadcast_shapes", 1024, shortcut=True)
def _broadcast_shapes(shapes: tuple) -> tuple:
    """``broadcast_shapes`` of shapes of ints, remembered: every ``x + b`` of a layer
    asks again (an error is raised, and never remembered; never remembered either in
    reference mode, ``glassjax_reference_mode``)."""
    if not shapes:
        return ()
    if all(s == shapes[0] for s in shapes):     # nothing to broadcast
        return shapes[0]
    ndim = max(len(s) for s in shapes)
    out = []
    for ds in zip(*[(1,) * (ndim - len(s)) + s for s in shapes]):
        non_1s = {d for d in ds if d != 1}
        if len(non_1s) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(non_1s.pop() if non_1s else 1)
    return tuple(out)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """Like ``full``, taking shape and dtype (and weak type) from the example ``x``, and
    its split over Explicit mesh axes unless another shape or ``sharding`` is asked.
    ``x`` may be duck-typed (a ``ShapeDtypeStruct``, as ``eval_shape`` returns), as in JAX:
    only its shape, dtype and sharding are read."""
    fill_shape = np.shape(x) if shape is None else canonicalize_shape(shape)
    weak_type = dtype is None and dtypes.is_weakly_typed(x)
    dtype = dtypes.dtype(dtype if dtype is not None else x, canonicalize=True)
    if sharding is None and shape is None and isinstance(x, core.Tracer):
        sharding = x.aval.sharding
    elif (sharding is None and not isinstance(x, core.Tracer) and not weak_type
          and getattr(x, "sharding", None) is not None and getattr(x, "_committed", True)
          and (fill_shape == np.shape(x) or x.sharding.is_fully_replicated)):
        sharding = x.sharding       # full() keeps it only if split over Explicit axes
    out = full(fill_shape, _convert_element_type(fill_value, dtype, weak_type),
               sharding=sharding)
    # It varies as ``x`` does (a ``pvary``), unless automatic casts are off.
    return staging.vary_as(out, x) if shape is None and config.jax_auto_pcast else out


def _zeros(x):
    return full_like(x, 0)


def _ones(x):
    return full_like(x, 1)


def _one(x):
    """A scalar 1 of ``x``'s type (broadcast by the op that uses it): what
    ``full_like(x, 1, shape=())`` gives, made directly (jvp rules ask for it often)."""
    aval = core.get_aval(x)
    return _convert_element_type(1, aval.dtype, aval.weak_type)


# -- iota ---------------------------------------------------------------------------------

def _iota_shape_rule(*, dtype, shape, dimension, sharding):
    check_shapelike("iota", shape=shape)
    if not any(dtypes.issubdtype(dtype, t) for t in (np.integer, np.floating,
                                                      np.complexfloating)):
        raise TypeError(f"iota does not accept dtype {dtypes.dtype_to_string(dtype)}. "
                        "Accepted dtypes are subtypes of integer, floating, "
                        "complexfloating.")
    if not 0 <= dimension < len(shape):
        raise ValueError("iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return shape


iota_p = standard_primitive(_iota_shape_rule, lambda *, dtype, **p: dtype, "iota",
                            weak_type_rule=lambda **p: False)
iota_p.sharding_rule = lambda *, shape, sharding, **p: (
    sharding.spec._normalized_spec_for_aval(len(shape)))
lowering.register_lowering(iota_p, lambda ctx, *, dtype, shape, dimension, sharding:
                           lowering.iota(ctx.avals_out[0], dimension))


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
    """An array of ``shape`` whose values count 0, 1, ... along ``dimension``."""
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "broadcasted_iota")
    shape = canonicalize_shape(shape)
    dimension = core.concrete_or_error(int, dimension,
                                       "dimension argument of lax.broadcasted_iota")
    if out_sharding is not None:    # (a type: over the abstract mesh, as JAX prints it)
        out_sharding = spec_to_sharding(out_sharding, "broadcasted_iota")
        out_sharding = NamedSharding(out_sharding.mesh.abstract_mesh, out_sharding.spec)
    return iota_p.bind(dtype=dtype, shape=shape, dimension=dimension, sharding=out_sharding)


def iota(dtype, size: int):
    """``[0, 1, ..., size - 1]`` (XLA's Iota)."""
    return broadcasted_iota(dtype, (size,), 0)


# -- empty --------------------------------------------------------------------------------

def empty(shape, dtype, *, out_sharding=None):
    """An array whose values are unspecified (on CPU: zeros), for buffers that will be
    overwritten. ``shape`` and ``dtype`` are kept as given, so a jaxpr prints them so."""
    return empty_p.bind(shape=shape, dtype=dtype, out_sharding=out_sharding)


empty_p = standard_primitive(
    lambda *, shape, **p: canonicalize_shape(shape),
    lambda *, dtype, **p: dtypes.dtype(dtype, canonicalize=True), "empty",
    weak_type_rule=lambda **p: False)
lowering.register_lowering(empty_p, lambda ctx, **p: lowering.full_like_aval(
    0, ctx.avals_out[0]))


def _empty_batch(axis_data, vals, dims, *, shape, dtype, out_sharding):
    """Under vmap, one empty array with the batch axis in front."""
    return empty_p.bind(shape=(axis_data.size, *shape), dtype=dtype,
                        out_sharding=out_sharding), 0


batching.fancy_primitive_batchers[empty_p] = _empty_batch


# -- reshape and squeeze ------------------------------------------------------------------

def _reshape_shape_rule(x, *, new_sizes, dimensions, sharding):
    if not all(d >= 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    # JAX checks the total size only when it lowers (a ValueError from the verifier);
    # checking it here gives the same exception type before any compilation.
    # (Symbolic sizes are not checked: JAX leaves them to shape refinement.)
    if shape_poly.is_constant_shape((*new_sizes, *x.shape)) and \
            math.prod(new_sizes) != math.prod(x.shape):
        raise ValueError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                         f"(size {math.prod(new_sizes)}) for operand shape {x.shape} "
                         f"(size {math.prod(x.shape)}).")
    if dimensions is not None and set(dimensions) != set(range(x.ndim)):
        raise TypeError("reshape dimensions must be a permutation of operand dimensions, "
                        f"got dimensions {dimensions} for shape {x.shape}.")
    return tuple(new_sizes)


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    out = reshape(ct, tuple(x.aval.shape[d] for d in dimensions))
    return [transpose(out, np.argsort(dimensions))]


def _reshape_sharding(x, *, new_sizes, dimensions, sharding):
    """JAX's rule: dimensions kept (up to size-1 ones) keep their splits; a dimension
    split into several hands its mesh axes to them major first, and dimensions merged
    into one give it their axes in order (each new size divisible by its axes'
    devices). Other reshapes of split values are refused: ``out_sharding`` must say."""
    if sharding is not None:
        return sharding.spec._normalized_spec_for_aval(len(new_sizes))
    spec = spec_of(x)
    if not any(spec):
        return None
    old, new = x.shape, tuple(new_sizes)
    refuse = functools.partial(_refuse_reshape, x, new)
    if [d for d in old if d != 1] == [d for d in new if d != 1]:
        kept = iter(e for d, e in zip(old, spec) if d != 1)
        return [None if d == 1 else next(kept) for d in new]
    out, i, j = [], 0, 0
    while i < len(old) or j < len(new):
        # the smallest groups old[i:i2], new[j:j2] of equal size (size-1 dimensions
        # join the group before them)
        i2, j2 = i + 1, j + 1
        a, b = (old[i] if i < len(old) else 1), (new[j] if j < len(new) else 1)
        while a != b or (i2 < len(old) and old[i2] == 1) or (j2 < len(new) and new[j2] == 1):
            if a <= b and i2 < len(old):
                a, i2 = a * old[i2], i2 + 1
            elif j2 < len(new):
                b, j2 = b * new[j2], j2 + 1
            else:
                break
        axes = [a for e in spec[i:i2] for a in ((e,) if isinstance(e, str) else e or ())]
        if i2 - i > 1 and j2 - j > 1 or dimensions is not None and axes and (
                i2 - i > 1 or j2 - j > 1):
            refuse()
        if i2 - i > 1 and None in _strip_trailing(list(spec[i:i2])):
            refuse()
        out += _deal_axes(x._sharding[0], axes, new[j:j2], refuse)
        i, j = i2, j2
    return out


def _strip_trailing(entries):
    while entries and entries[-1] is None:
        entries.pop()
    return entries


def _deal_axes(mesh, axes, sizes, refuse):
    """Mesh axes (major first) shared out among dimensions of ``sizes``: each takes axes
    while its size allows (it must divide evenly); all must be taken."""
    axes, dealt = list(axes), []
    for size in sizes:
        taken = []
        while size > 1 and axes:
            size, remainder = divmod(size, mesh.shape[axes[0]])
            if remainder:
                refuse()
            taken.append(axes.pop(0))
        dealt.append(None if not taken else taken[0] if len(taken) == 1 else tuple(taken))
    if axes:
        refuse()
    return dealt


def _refuse_reshape(x, new_sizes):
    raise core.ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via "
        "the `out_sharding` argument of jax.lax.reshape. Got operand type: "
        f"{x}, new sizes: {new_sizes}")


def _reshape_batch(args, dims, *, new_sizes, dimensions, sharding):
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    if dimensions is not None:
        dimensions = (0,) + tuple(np.add(1, dimensions))
    return reshape(x, np.shape(x)[:1] + tuple(new_sizes), dimensions), 0


def _reshape_lower(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = hlo.transpose(x, lowering.i64_array(dimensions))
    if not shape_poly.is_constant_shape(new_sizes):
        return lowering.reshape(x, ctx.avals_out[0])
    return lowering.result(ctx, "stablehlo.reshape", [x])


reshape_p = standard_primitive(_reshape_shape_rule, _input_dtype, "reshape")
reshape_p.sharding_rule = _reshape_sharding
lowering.register_lowering(reshape_p, _reshape_lower)
ad.deflinear2(reshape_p, _reshape_transpose)
batching.primitive_batchers[reshape_p] = _reshape_batch


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """Reshape ``operand`` to ``new_sizes``; with ``dimensions``, its axes are first
    permuted to that order (the elements are read in row-major order)."""
    new_sizes = canonicalize_shape(new_sizes)
    shape = core.shape_of(operand)
    same_shape = shape == new_sizes
    if dimensions is None:
        dims, same_dims = None, True
    else:
        dims = ensure_index_tuple(dimensions)
        same_dims = dims == tuple(range(len(shape)))
    if shape and same_shape and same_dims and is_array(operand):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes,
                          dimensions=None if dims is None or same_dims else dims,
                          sharding=out_sharding)


def _squeeze_shape(shape, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < len(shape) for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    if any(shape[d] != 1 for d in dimensions):
        raise ValueError("cannot select an axis to squeeze out which has size not equal "
                         f"to one, got shape={shape} and dimensions={dimensions}")
    return _delete(shape, dimensions)


def _squeeze_batch(args, dims, *, dimensions):
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    return squeeze(x, tuple(np.add(1, dimensions))), 0


squeeze_p = standard_primitive(lambda x, *, dimensions: _squeeze_shape(x.shape, dimensions),
                               _input_dtype, "squeeze")
squeeze_p.sharding_rule = lambda x, *, dimensions: [
    e for i, e in enumerate(spec_of(x)) if i not in dimensions]
lowering.register_lowering(squeeze_p, lambda ctx, x, *, dimensions: lowering.reshape(
    x, ctx.avals_out[0]))
ad.deflinear2(squeeze_p, lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])
batching.primitive_batchers[squeeze_p] = _squeeze_batch


def squeeze(array, dimensions):
    """Remove the size-1 axes ``dimensions``."""
    ndim = np.ndim(array)
    dimensions = tuple(sorted(canonicalize_axis(i, ndim) for i in dimensions))
    if not dimensions and is_array(array):
        return array
    return squeeze_p.bind(array, dimensions=dimensions)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge axes ``[start_dimension, stop_dimension)`` into one (a reshape)."""
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(operand.shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {operand.shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    size = math.prod(operand.shape[lo:hi])
    return reshape(operand, operand.shape[:lo] + (size,) + operand.shape[hi:])


# -- transpose and rev --------------------------------------------------------------------

def _transpose_shape_rule(x, *, permutation):
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError("transpose permutation must be a tuple/list/ndarray, got "
                        f"{type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {permutation} for operand shape {x.shape}.")
    return tuple(x.shape[p] for p in permutation)


def _transpose_batch(args, dims, *, permutation):
    (x,), (d,) = args, dims
    perm = (d,) + tuple(p if p < d else p + 1 for p in permutation)
    return transpose(x, perm), 0


transpose_p = standard_primitive(_transpose_shape_rule, _input_dtype, "transpose")
transpose_p.sharding_rule = lambda x, *, permutation: [spec_of(x)[p] for p in permutation]
lowering.register_lowering(transpose_p, lambda ctx, x, *, permutation: lowering.result(
    ctx, "stablehlo.transpose", [x], {"permutation": lowering.i64_array(permutation)}))
ad.deflinear2(transpose_p, lambda ct, x, *, permutation: [
    transpose(ct, np.argsort(permutation))])
batching.primitive_batchers[transpose_p] = _transpose_batch


def transpose(operand, permutation):
    """Permute the axes of ``operand``: result axis i is operand axis permutation[i]."""
    permutation = tuple(operator.index(d) for d in permutation)
    if permutation == tuple(range(core.ndim_of(operand))) and is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def _rev_shape_rule(x, *, dimensions):
    check_shapelike("rev", dimensions=dimensions)
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < x.ndim:
        raise TypeError("rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {x.ndim}.")
    return x.shape


def _rev_batch(args, dims, *, dimensions):
    (x,), (d,) = args, dims
    return rev(x, [i + 1 if i >= d else i for i in dimensions]), d


rev_p = standard_primitive(_rev_shape_rule, _input_dtype, "rev")
rev_p.sharding_rule = same_sharding
lowering.register_lowering(rev_p, lambda ctx, x, *, dimensions: hlo.reverse(
    x, lowering.i64_array(dimensions)))
ad.deflinear2(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])
batching.primitive_batchers[rev_p] = _rev_batch


def rev(operand, dimensions):
    """Reverse the order of elements along ``dimensions``."""
    return rev_p.bind(operand, dimensions=tuple(dimensions))


# -- concatenate, split, stack, unstack, tile ---------------------------------------------

def _shapes(xs):
    """The shapes of ``xs`` for an error message: ``(2, 3), (4, 3)``."""
    return ", ".join(str(x.shape) for x in xs)


def _check_operands(verb, xs, error):
    """What ``concatenate`` and ``stack`` (with their JAX error types) both require: at
    least one operand, all of the same rank."""
    if not xs:
        raise error(f"{verb} expects at least one operand, got 0.")
    if len({x.ndim for x in xs}) != 1:
        raise error(f"Cannot {verb} arrays with different numbers of dimensions: "
                    f"got {_shapes(xs)}.")


def _concatenate_shape_rule(*xs, dimension):
    _check_operands("concatenate", xs, TypeError)
    if not 0 <= dimension < xs[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {_shapes(xs)}.")
    others = [_delete(x.shape, [dimension]) for x in xs]
    if others[:-1] != others[1:]:
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions "
                        "other than the one being concatenated: concatenating along "
                        f"dimension {dimension} for shapes {_shapes(xs)}.")
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return tuple(shape)


def _concatenate_dtype_rule(*xs, dimension):
    return check_same_dtypes("concatenate", *xs)


def _concatenate_transpose(ct, *xs, dimension):
    if type(ct) is ad.Zero:
        return ad.zero_cotangents(xs)
    shapes = [x.aval.shape if ad.is_undefined_primal(x) else np.shape(x) for x in xs]
    return split(ct, tuple(s[dimension] for s in shapes), axis=dimension)


def _concatenate_batch(args, dims, *, dimension):
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    xs = [batching.moveaxis(x, d, 0) if d is not None else broadcast(x, (size,))
          for x, d in zip(args, dims)]
    return concatenate(xs, dimension + 1), 0


def _concatenate_lower(ctx, *xs, dimension):
    """Wide concatenates are built as a tree of 16-way ones (slow to compile otherwise)."""
    xs = list(xs)
    while len(xs) > 1:
        xs = [hlo.concatenate(xs[i:i + 16], dimension) for i in range(0, len(xs), 16)]
    return xs[0]


concatenate_p = standard_primitive(_concatenate_shape_rule, _concatenate_dtype_rule,
                                   "concatenate")
concatenate_p.sharding_rule = lambda *xs, dimension: same_sharding_of_all(
    "All operands should have the same sharding. Got shardings {}", *xs)
lowering.register_lowering(concatenate_p, _concatenate_lower)
ad.deflinear2(concatenate_p, _concatenate_transpose)
batching.primitive_batchers[concatenate_p] = _concatenate_batch


def concatenate(operands, dimension: int):
    """Join ``operands`` along the existing axis ``dimension``."""
    if len(operands) == 0:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and is_array(operands[0]):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=dimension)


def _split_shape_rule(x, *, sizes, axis):
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if x.shape[axis] != np.sum(sizes):
        raise ValueError(f"Sum of sizes {np.sum(sizes)} must be equal to dimension {axis} "
                         f"of the operand shape {list(x.shape)}")
    return [x.shape[:axis] + (s,) + x.shape[axis + 1:] for s in sizes]


def _split_transpose(cts, x, *, sizes, axis):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(x.aval)]
    return [concatenate([ad.instantiate_zeros(ct) for ct in cts], dimension=axis)]


def _split_batch(args, dims, *, sizes, axis):
    (x,), (d,) = args, dims
    return split(x, sizes, axis + 1 if axis >= d else axis), [d] * len(sizes)


def _split_lower(ctx, x, *, sizes, axis):
    shape = ctx.avals_in[0].shape
    start, outs = 0, []
    for size, aval in zip(sizes, ctx.avals_out):
        starts = [0] * len(shape)
        limits = list(shape)
        starts[axis], limits[axis] = start, start + size
        outs.append(lowering.slice_op(x, aval, starts, limits, [1] * len(shape)))
        start += size
    return outs


split_p = standard_multi_result_primitive(
    _split_shape_rule, lambda x, *, sizes, axis: [x.dtype] * len(sizes),
    lambda x, *, sizes, axis: [x.weak_type] * len(sizes), "split")
split_p.sharding_rule = lambda x, *, sizes, axis: [
    resized_sharding("split", x, shape) for shape in _split_shape_rule(x, sizes=sizes,
                                                                        axis=axis)]
lowering.register_lowering(split_p, _split_lower)
ad.deflinear2(split_p, _split_transpose)
batching.primitive_batchers[split_p] = _split_batch


def split(operand, sizes, axis: int = 0):
    """Cut ``operand`` along ``axis`` into pieces of the given ``sizes``."""
    operand = _asarray(operand)
    return split_p.bind(operand, sizes=tuple(sizes),
                        axis=canonicalize_axis(axis, np.ndim(operand)))


def _stack_shape_rule(*xs, axis):
    _check_operands("stack", xs, ValueError)
    if len({x.shape for x in xs}) != 1:
        raise ValueError(f"All input arrays must have the same shape. Got {_shapes(xs)}.")
    return xs[0].shape[:axis] + (len(xs),) + xs[0].shape[axis:]


def _stack_dtype_rule(*xs, axis):
    return check_same_dtypes("stack", *xs)


def _stack_transpose(ct, *xs, axis):
    if type(ct) is ad.Zero:
        return ad.zero_cotangents(xs)
    return unstack_p.bind(ct, axis=axis)


def _stack_batch(args, dims, *, axis):
    d = dims[0]
    if d is not None and all(b == d for b in dims):
        return (stack_p.bind(*args, axis=axis), d + 1) if axis <= d else \
            (stack_p.bind(*args, axis=axis + 1), d)
    size = next(np.shape(x)[b] for x, b in zip(args, dims) if b is not None)
    xs = [batching.moveaxis(x, b, 0) if b is not None else broadcast(x, (size,))
          for x, b in zip(args, dims)]
    return stack_p.bind(*xs, axis=axis + 1), 0


def _stack_lower(ctx, *xs, axis):
    """Each operand gets a size-1 axis, then they are concatenated along it."""
    shape = list(ctx.avals_in[0].shape)
    shape.insert(axis, 1)
    dims = [i for i in range(len(shape)) if i != axis]
    return _concatenate_lower(ctx, *[lowering.broadcast_in_dim(x, shape, dims) for x in xs],
                              dimension=axis)


stack_p = standard_primitive(_stack_shape_rule, _stack_dtype_rule, "stack")


def _stack_sharding(*xs, axis):
    """Operands split alike; the new dimension is whole."""
    spec = same_sharding_of_all("All operands should have the same sharding. Got "
                                "shardings {}", *xs)
    return (*spec[:axis], None, *spec[axis:])


stack_p.sharding_rule = _stack_sharding
lowering.register_lowering(stack_p, _stack_lower)
ad.deflinear2(stack_p, _stack_transpose)
batching.primitive_batchers[stack_p] = _stack_batch


def stack(operands, axis: int = 0):
    """Join equally shaped ``operands`` along a new axis ``axis``."""
    xs = [_asarray(x) for x in operands]
    return stack_p.bind(*xs, axis=canonicalize_axis(axis, np.ndim(xs[0]) + 1))


def _unstack_shape_rule(x, *, axis):
    if x.ndim == 0:
        raise ValueError("unstack requires arrays with rank > 0, however a scalar array of "
                         f"shape {x.shape} was passed.")
    return [_delete(x.shape, [axis])] * x.shape[axis]


def _unstack_transpose(cts, x, *, axis):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(x.aval)]
    return [stack_p.bind(*[ad.instantiate_zeros(ct) for ct in cts], axis=axis)]


def _unstack_batch(args, dims, *, axis):
    (x,), (d,) = args, dims
    if axis < d:
        outs = unstack_p.bind(x, axis=axis)
        return outs, [d - 1] * len(outs)
    outs = unstack_p.bind(x, axis=axis + 1)
    return outs, [d] * len(outs)


def _unstack_lower(ctx, x, *, axis):
    shape = ctx.avals_in[0].shape
    outs = []
    for i, aval in enumerate(ctx.avals_out):
        starts, limits = [0] * len(shape), list(shape)
        starts[axis], limits[axis] = i, i + 1
        piece = hlo.slice(x, starts, limits, [1] * len(shape))
        outs.append(hlo.reshape(lowering.aval_to_ir_type(aval), piece))
    return outs


unstack_p = standard_multi_result_primitive(
    _unstack_shape_rule, lambda x, *, axis: [x.dtype] * x.shape[axis],
    lambda x, *, axis: [x.weak_type] * x.shape[axis], "unstack")
lowering.register_lowering(unstack_p, _unstack_lower)
ad.deflinear2(unstack_p, _unstack_transpose)
batching.primitive_batchers[unstack_p] = _unstack_batch


def unstack(x, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple of arrays of one rank less."""
    x = _asarray(x)
    return tuple(unstack_p.bind(x, axis=canonicalize_axis(axis, np.ndim(x))))


def _tile_shape_rule(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError("reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return canonicalize_shape(tuple(np.multiply(x.shape, reps)))    # (a float rep: TypeError)


def _tile_transpose(ct, x, *, reps):
    """Fold the cotangent to ``(r0, d0, r1, d1, ...)`` and sum over the repeats."""
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    if not ad.is_undefined_primal(x):
        return [None]
    folded = reshape(ct, tuple(k for pair in zip(reps, x.aval.shape) for k in pair))
    return [above.reduce_sum(folded, tuple(2 * i for i in range(x.aval.ndim)))]


def _tile_batch(args, dims, *, reps):
    (x,), (d,) = args, dims
    reps = list(reps)
    reps.insert(d, 1)
    return tile(x, reps), d


def _tile_lower(ctx, x, *, reps):
    """Interleave size-1 axes, broadcast them to the repeat counts, merge pairs."""
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    expanded = aval_in.update(shape=tuple(j for d in aval_in.shape for j in (1, d)))
    x = lowering.reshape(x, expanded)
    shape = tuple(k for pair in zip(reps, aval_in.shape) for k in pair)
    x = lowering.broadcast_in_dim(x, shape, range(2 * aval_in.ndim))
    return lowering.reshape(x, aval_out)




def _tile_sharding(x, *, reps):
    """Repeating a split dimension would interleave the devices' blocks: JAX refuses."""
    for i, (r, entry) in enumerate(zip(reps, spec_of(x))):
        if r != 1 and entry is not None:
            raise core.ShardingTypeError(
                f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial."
                f" Got input type: {x} with reps: {reps}")
    return spec_of(x)


tile_p = standard_primitive(_tile_shape_rule, _input_dtype, "tile")
tile_p.sharding_rule = _tile_sharding
lowering.register_lowering(tile_p, _tile_lower)
ad.deflinear2(tile_p, _tile_transpose)
batching.primitive_batchers[tile_p] = _tile_batch


def tile(operand, reps):
    """Repeat ``operand`` ``reps[i]`` times along each axis i."""
    return tile_p.bind(operand, reps=tuple(reps))



# -- copy ---------------------------------------------------------------------------------

def _copy_lower(ctx, x):
    """XLA values are immutable: the new buffer comes from the executable's output."""
    return x


copy_p = standard_primitive(lambda x: x.shape, lambda x: x.dtype, "copy")
copy_p.sharding_rule = same_sharding
lowering.register_lowering(copy_p, _copy_lower)
ad.deflinear(copy_p, lambda ct: [copy_p.bind(ct)])
batching.defvectorized(copy_p)
