"""Global arrays from their pieces: ``make_array_from_callback``,
``make_array_from_single_device_arrays``, ``make_array_from_process_local_data``.

A sharded array is a *global* value whose pieces live on many devices; in a
multi-process run each process holds only the pieces of its own (*addressable*)
devices and never sees the whole. These three functions build such an array from what a
process does have, in three shapes: a function giving the piece at any index, the
per-device arrays themselves, or this process's contiguous part of the data (the usual
data-loading case: process 0 loads rows 0-3, process 1 rows 4-7).

Everything here reads a sharding through ``devices_indices_map(shape)`` (device ->
the index, a tuple of slices, of the piece it holds) and the device list, so it works
with every sharding class.
"""
from __future__ import annotations

import collections
from typing import Callable, Sequence

import numpy as np

from glassjax import core, dtypes, errors, tree_util
from glassjax.layout import Format
from glassjax.mesh import Mesh
from glassjax.named_sharding import NamedSharding, spec_to_sharding
from glassjax.xla import runtime


# ----------------------------------------------------------------------------------------
# What a sharding says about one shape
# ----------------------------------------------------------------------------------------

def _is_local(device) -> bool:
    return device.process_index == device.client.process_index()


def addressable_indices(sharding, shape) -> dict:
    """Device -> index of the pieces held by this process's devices, in the sharding's
    device order (the order jaxlib expects per-device buffers in)."""
    index_of = sharding.devices_indices_map(tuple(shape))
    return {d: index_of[d] for d in sharding._device_assignment if _is_local(d)}


def _index_shape(index, shape) -> tuple:
    """The shape of ``x[index]`` for ``x`` of ``shape`` (slices of step 1)."""
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def shard_shape(sharding, shape) -> tuple:
    """The shape of every piece (all pieces of a sharding have one shape)."""
    index = next(iter(sharding.devices_indices_map(tuple(shape)).values()))
    return _index_shape(index, shape)


class NonUniformShardingError(ValueError):
    """Along some dimension, processes hold differently sized or overlapping parts."""


def _process_part_count(sharding, dim: int, ndim: int) -> int:
    """Into how many distinct parts the processes split dimension ``dim``: each process
    must hold the same number of slices there, and processes holding different slices
    must not overlap (otherwise no process-local shape determines the global one)."""
    if sharding.is_fully_replicated or sharding.is_fully_addressable:
        return 1
    # A stand-in shape where every dimension can be split over all the devices.
    index_of = sharding.devices_indices_map((sharding.num_devices,) * ndim)
    per_process = collections.defaultdict(set)
    for device, index in index_of.items():
        per_process[device.process_index].add(index[dim].indices(sharding.num_devices))
    all_slices = set().union(*per_process.values())
    counts = {len(slices) for slices in per_process.values()}
    distinct = {frozenset(slices) for slices in per_process.values()}
    if len(counts) > 1 or sum(map(len, distinct)) != len(all_slices):
        raise NonUniformShardingError(f"{sharding=} is non-uniform on {dim=}")
    return len(distinct)


# ----------------------------------------------------------------------------------------
# The three constructors
# ----------------------------------------------------------------------------------------

def _check_sharding(sharding):
    if isinstance(sharding, Format):
        sharding = sharding.sharding
    if not isinstance(sharding, runtime.Sharding):
        raise TypeError(f"sharding should be an instance of `jax.sharding`. Got {sharding} "
                        f"of type {type(sharding)}")
    return sharding


def _host_piece(value):
    """A callback's answer as something with a canonical dtype: device arrays stay,
    NumPy arrays and Python scalars become NumPy arrays of the dtype JAX would give."""
    if isinstance(value, core.Tracer):
        raise errors.UnexpectedTracerError(
            "jax.make_array_from_callback cannot be called within a traced context.")
    if isinstance(value, runtime.ArrayImpl):
        return value
    array = dtypes.coerce_to_array(value)
    return array.astype(dtypes.canonicalize_dtype(array.dtype), copy=False)


def _get_and_check_dtype(pieces: Sequence, dtype, fname: str):
    if dtype is None:
        if not pieces:
            raise ValueError("If the Array has no addressable shards, `dtype` must be "
                             f"provided via the `dtype` argument to `jax.{fname}`.")
        return pieces[0].dtype
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, fname)
    if pieces and pieces[0].dtype != dtype:
        raise ValueError(f"If `dtype` is provided to `jax.{fname}`, it must match the "
                         f"dtype of the addressable shards. Got dtype={dtype} and shard "
                         f"dtype={pieces[0].dtype}`.")
    return dtype


def _check_pieces(pieces, aval, sharding):
    expected_shape = shard_shape(sharding, aval.shape)
    for piece in pieces:
        if piece.dtype != aval.dtype:
            raise ValueError("Input buffers to `Array` must have matching dtypes. Got "
                             f"{piece.dtype}, expected {aval.dtype} for buffer: {piece}")
        if piece.shape != expected_shape:
            raise ValueError(f"Expected shard shape {expected_shape} doesn't match the "
                             f"single device array shape {piece.shape}. Shape of Array "
                             f"is {aval.str_short()} with sharding {sharding}")


def _assemble(aval, sharding, arrays):
    """The global array made of ``arrays`` (one single-device array per addressable
    device of ``sharding``, any order), after the checks JAX makes: jaxlib wants the
    buffers in the sharding's device order and checks nothing itself."""
    by_device = {next(iter(a.devices())).id: a for a in arrays}
    wanted = {d.id for d in sharding._device_assignment if _is_local(d)}
    if len(arrays) != len(wanted):
        raise ValueError(f"Expected {len(wanted)} per-device arrays (this is how many "
                         "devices are addressable by the sharding), but got "
                         f"{len(arrays)}")
    if len(by_device) != len(arrays):
        raise ValueError("When making an array from single-device arrays, the input "
                         "arrays must be from distinct devices, but got device IDs "
                         f"{[next(iter(a.devices())).id for a in arrays]}")
    if set(by_device) != wanted:
        message = "Addressable devices and per-device arrays devices do not match."
        if wanted - set(by_device):
            message += (f" Sharding contains devices {wanted - set(by_device)} that are "
                        "not present in per-device arrays.")
        if set(by_device) - wanted:
            message += (f" Per-device arrays contain devices {set(by_device) - wanted} "
                        "that are not present in the sharding.")
        raise ValueError(message)
    _check_pieces(arrays, aval, sharding)
    ordered = [by_device[d.id] for d in sharding._device_assignment if _is_local(d)]
    return runtime.ArrayImpl(aval, sharding, ordered, True, True)


def make_array_from_callback(shape: Sequence[int], sharding,
                             data_callback: Callable, dtype=None):
    """The global array of ``shape`` laid out as ``sharding``, whose piece at index
    ``idx`` (a tuple of slices into the global array) is ``data_callback(idx)``.

    The callback is called once per addressable device (once in all when the sharding
    replicates the array), so each process loads only what its devices hold."""
    sharding = _check_sharding(sharding)
    shape = tuple(shape)
    index_of = addressable_indices(sharding, shape)
    if sharding.is_fully_replicated:
        whole = _host_piece(data_callback((slice(None),) * len(shape)))
        pieces = [whole] * len(index_of)
    else:
        pieces = [_host_piece(data_callback(index)) for index in index_of.values()]
    dtype = _get_and_check_dtype(pieces, dtype, "make_array_from_callback")
    aval = core.ShapedArray(shape, dtype)
    _check_pieces(pieces, aval, sharding)
    devices = list(index_of)
    if not all(isinstance(p, runtime.ArrayImpl) and p.devices() == {d}
               for p, d in zip(pieces, devices)):
        pieces = [runtime.device_put(np.asarray(p), d, committed=True)
                  for p, d in zip(pieces, devices)]
    return _assemble(aval, sharding, pieces)


def make_array_from_single_device_arrays(shape: Sequence[int], sharding,
                                         arrays: Sequence, *, dtype=None):
    """The global array of ``shape`` laid out as ``sharding`` whose pieces are
    ``arrays``: one single-device array per addressable device of the sharding (in any
    order: each goes where its device is), each of the shard shape."""
    sharding = _check_sharding(sharding)
    if isinstance(arrays, tuple):
        arrays = list(arrays)
    if not isinstance(arrays, list):
        raise TypeError("jax.make_array_from_single_device_arrays `arrays` argument must "
                        f"be a list or tuple, but got {type(arrays)}.")
    if any(isinstance(a, core.Tracer) for a in arrays):
        raise ValueError("jax.make_array_from_single_device_arrays requires a list of "
                         f"concrete arrays as input, but got types {set(map(type, arrays))}")
    dtype = _get_and_check_dtype(arrays, dtype, "make_array_from_single_device_arrays")
    return _assemble(core.ShapedArray(tuple(shape), dtype), sharding, arrays)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """The global array whose part held by this process's devices is ``local_data``.

    Along each dimension ``local_data`` either is the whole dimension (every process
    passes the same values there) or is this process's contiguous part of it, e.g. rows
    0-3 on process 0 and rows 4-7 on process 1 for an array split over both processes'
    devices. ``global_shape`` defaults to the local shape times the number of parts the
    processes split each dimension into. ``sharding``, ``global_shape`` may be pytree
    prefixes of ``local_data``."""
    leaves, treedef = tree_util.tree_flatten(local_data)
    shardings = [_check_sharding(spec_to_sharding(s, "make_array_from_process_local_data"))
                 for s in tree_util.broadcast_prefix(sharding, local_data)]
    shapes = tree_util.broadcast_prefix(
        global_shape, local_data, is_leaf=lambda x: x is None or isinstance(x, tuple))
    if runtime.process_count() == 1:
        for shape, data in zip(shapes, leaves):
            if shape is not None and tuple(shape) != np.shape(data):
                raise ValueError(
                    "When calling `make_array_from_process_local_data` on a single "
                    "process, global_shape should be None or equal to local_data.shape."
                    f"Got global_shape={shape} and local_data.shape={np.shape(data)}.")
        out = [runtime.device_put(data, s, committed=True)
               for data, s in zip(leaves, shardings)]
    else:
        out = [_from_process_local_data(np.asarray(data), s, shape)
               for data, s, shape in zip(leaves, shardings, shapes)]
    return tree_util.tree_unflatten(treedef, out)


def _from_process_local_data(local_data: np.ndarray, sharding, global_shape):
    ndim = local_data.ndim
    if global_shape is None:
        global_shape = []
        for dim, size in enumerate(local_data.shape):
            try:
                global_shape.append(size * _process_part_count(sharding, dim, ndim))
            except NonUniformShardingError:
                global_shape.append(None)
        if None in global_shape:
            raise ValueError("Unable to compute global_shape due to non-uniform sharding. "
                             "Specify global shape directly. Partially computed "
                             f"global_shape={tuple(global_shape)}.")
    elif None in global_shape:
        raise ValueError(f"{global_shape=} has Nones. This is not supported.")
    global_shape = tuple(global_shape)
    index_of = addressable_indices(sharding, global_shape)
    piece_shape = shard_shape(sharding, global_shape)
    # Along a split dimension, the process's pieces start at a few distinct offsets of
    # the global array; in local_data they sit side by side, in the same order.
    starts = [sorted({index[dim].indices(n)[0] for index in index_of.values()})
              for dim, n in enumerate(global_shape)]
    whole = [size == n for size, n in zip(local_data.shape, global_shape)]
    for dim, (size, n) in enumerate(zip(local_data.shape, global_shape)):
        held = piece_shape[dim] * len(starts[dim])
        if not whole[dim] and size != held:
            raise ValueError(
                "Invalid host data, each dimension should match either global or process "
                f"shape. In dimension {dim}, the process data has {size} elements. "
                f"Process addresses {held} elements and global_shape={global_shape}.")

    def local_index(index):
        return tuple(
            s if whole[dim] else
            slice(starts[dim].index(s.indices(n)[0]) * piece_shape[dim],
                  (starts[dim].index(s.indices(n)[0]) + 1) * piece_shape[dim])
            for dim, (s, n) in enumerate(zip(index, global_shape)))

    return make_array_from_callback(global_shape, sharding,
                                    lambda index: local_data[local_index(index)])


# ----------------------------------------------------------------------------------------
# Host-local <-> global arrays (what multi-process pmap does with its inputs and outputs)
# ----------------------------------------------------------------------------------------
# In a multi-process pmap every process passes arrays of its own (local) size: with 2
# devices per process, x: f32[2] on each, which together stand for one f32[4] array
# split over all 4 devices. These two functions convert between the views.

def local_mesh(mesh: Mesh) -> Mesh:
    """The block of ``mesh`` made of this process's devices."""
    local = np.vectorize(_is_local, otypes=[bool])(mesh.devices)
    if not local.any():
        raise ValueError(f"no device of {mesh} belongs to this process")
    block = tuple(slice(i.min(), i.max() + 1) for i in np.nonzero(local))
    if not local[block].all():
        raise ValueError(f"this process's devices do not form a block of {mesh}")
    return Mesh(mesh.devices[block], mesh.axis_names, mesh.axis_types)


def _per_leaf_specs(tree, pspecs) -> list:
    specs = tree_util.broadcast_prefix(pspecs, tree, is_leaf=lambda x: x is None)
    if any(spec is None for spec in specs):
        raise ValueError("`None` is not a valid input to the pspecs argument. Please use "
                         "jax.sharding.PartitionSpec() if you wanted to replicate your "
                         "input.")
    return specs


def host_local_array_to_global_array(local_inputs, global_mesh: Mesh, pspecs):
    """Each leaf of ``local_inputs`` is this process's part of a global array laid out
    as ``NamedSharding(global_mesh, spec)``; return the global arrays. A device array
    already laid out over the local mesh keeps its buffers (no copy)."""
    leaves, treedef = tree_util.tree_flatten(local_inputs)
    specs = _per_leaf_specs(local_inputs, pspecs)
    out = []
    for x, spec in zip(leaves, specs):
        if isinstance(x, runtime.ArrayImpl) and not x.is_fully_addressable:
            out.append(x)                                   # already global
            continue
        sharding = NamedSharding(global_mesh, spec)
        local = NamedSharding(local_mesh(global_mesh), spec)
        if (isinstance(x, runtime.ArrayImpl) and
                x.sharding.devices_indices_map(x.shape) == local.devices_indices_map(x.shape)):
            shape = tuple(n * _process_part_count(sharding, dim, x.ndim)
                          for dim, n in enumerate(x.shape))
            out.append(make_array_from_single_device_arrays(
                shape, sharding, [s.data for s in x.addressable_shards]))
        else:
            out.append(_from_process_local_data(_host_piece(np.asarray(x)), sharding,
                                                None))
    return tree_util.tree_unflatten(treedef, out)


def global_array_to_host_local_array(global_inputs, global_mesh: Mesh, pspecs):
    """The inverse: each global array (laid out as ``NamedSharding(global_mesh, spec)``)
    as the array of this process's part, on its devices (sharing their buffers)."""
    leaves, treedef = tree_util.tree_flatten(global_inputs)
    specs = _per_leaf_specs(global_inputs, pspecs)
    out = []
    for x, spec in zip(leaves, specs):
        sharding = NamedSharding(global_mesh, spec)
        if x.sharding.devices_indices_map(x.shape) != sharding.devices_indices_map(x.shape):
            raise ValueError(f"global_array_to_host_local_array: the array is laid out as "
                             f"{x.sharding}, not as {sharding}")
        shape = tuple(n // _process_part_count(sharding, dim, x.ndim)
                      for dim, n in enumerate(x.shape))
        out.append(make_array_from_single_device_arrays(
            shape, NamedSharding(local_mesh(global_mesh), spec),
            [s.data for s in x.addressable_shards]))
    return tree_util.tree_unflatten(treedef, out)
