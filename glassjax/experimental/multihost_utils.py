"""``jax.experimental.multihost_utils``: moving data between the processes of a
multi-process run.

Each function is one small SPMD program over the mesh of all devices arranged as
``('processes', 'local_devices')``: every process contributes the same-shaped value
(on each of its devices), and a collective over the ``'processes'`` axis combines them,
``all_gather`` to collect them all, ``psum`` to broadcast one of them. Converting
between a process's own part and a global array is in ``array_creation.py``.
"""
from __future__ import annotations

import zlib

import numpy as np

from glassjax import tree_util
from glassjax.array_creation import (global_array_to_host_local_array,
                                     host_local_array_to_global_array)
from glassjax.jit import jit
from glassjax.lax.parallel import all_gather, psum
from glassjax.mesh import Mesh, PartitionSpec as P
from glassjax.named_sharding import NamedSharding
from glassjax.shard_map import shard_map
from glassjax.xla import runtime


def _process_mesh() -> Mesh:
    """All devices, one row per process."""
    rows = [runtime.local_devices(p) for p in runtime.process_indices()]
    return Mesh(np.array(rows, dtype=object), ("processes", "local_devices"))


def _across_processes(x, combine):
    """``combine`` (a function of one process's block, under the ``'processes'`` axis)
    applied to the per-process values ``x`` (each process's own, stacked along a new
    leading axis in process order); every process gets the result as a NumPy array."""
    mesh = _process_mesh()
    stacked = host_local_array_to_global_array(np.expand_dims(np.asarray(x), 0), mesh,
                                               P("processes"))
    program = jit(shard_map(combine, mesh=mesh, in_specs=P("processes"), out_specs=P(),
                            check_vma=False))
    return np.asarray(program(stacked).addressable_data(0))


def _gather_dims(x, spec):
    """Inside a shard_map: undo ``spec``'s split of every dimension of ``x``."""
    for dim, axes in enumerate(spec):
        if axes is not None:
            x = all_gather(x, axes, axis=dim, tiled=True)
    return x


def process_allgather(in_tree, tiled: bool = False):
    """Every process's value of each leaf, on every process, as NumPy arrays: stacked on
    a new leading axis in process order (``tiled=True``: concatenated along axis 0).
    A global array (spanning the processes) is gathered whole instead; that needs
    ``tiled=True`` and, here, a ``NamedSharding``."""
    def gather(x):
        if isinstance(x, runtime.ArrayImpl) and not x.is_fully_addressable:
            if not tiled:
                raise ValueError("Gathering global non-fully-addressable arrays only "
                                 "supports tiled=True")
            sharding = x.sharding
            if not isinstance(sharding, NamedSharding):
                raise NotImplementedError("process_allgather of a global array laid out "
                                          f"as {sharding}: only NamedSharding")
            spec = sharding.spec._normalized_spec_for_aval(x.ndim)
            program = jit(shard_map(lambda block: _gather_dims(block, spec),
                                    mesh=sharding.mesh, in_specs=spec, out_specs=P(),
                                    check_vma=False))
            return np.asarray(program(x).addressable_data(0))
        value = np.asarray(x)
        if runtime.process_count() == 1:
            return value if tiled else np.expand_dims(value, 0)
        if tiled and value.ndim:
            return _across_processes(value, lambda block: all_gather(
                block[0], "processes", axis=0, tiled=True))
        return _across_processes(value, lambda block: all_gather(block[0], "processes"))
    return tree_util.tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
    """Process 0's value of each leaf (or that of the process passing
    ``is_source=True``), on every process: every other process contributes zeros to a
    sum over the processes."""
    if runtime.process_count() == 1:
        return tree_util.tree_map(np.asarray, in_tree)
    if is_source is None:
        is_source = runtime.process_index() == 0

    def broadcast(x):
        value = np.asarray(x)
        value = value if is_source else np.zeros_like(value)
        return _across_processes(value, lambda block: psum(block[0], "processes"))
    return tree_util.tree_map(broadcast, in_tree)


def assert_equal(in_tree, fail_message: str = ""):
    """Check that every process passed the same values (AssertionError otherwise)."""
    gathered = process_allgather(in_tree)
    same = tree_util.tree_map(
        lambda x, all_x: bool(np.all(all_x == np.asarray(x)[None])), in_tree, gathered)
    if not tree_util.tree_all(same):
        raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def sync_global_devices(name: str):
    """A barrier: returns once every process has called it with the same ``name``."""
    assert_equal(np.uint32(zlib.crc32(name.encode())),
                 f"sync_global_devices name mismatch ('{name}')")


__all__ = ["assert_equal", "broadcast_one_to_all", "global_array_to_host_local_array",
           "host_local_array_to_global_array", "process_allgather",
           "sync_global_devices"]
