"""``pmap``: run a function on several devices at once, one slice of the inputs each.

``pmap(f, axis_name='i')(x)`` with ``x: f32[4, 3]`` runs ``f`` on 4 devices, device k
getting ``x[k]: f32[3]``; ``lax.psum(y, 'i')`` inside ``f`` sums over the devices.

As in JAX 0.10.2, pmap is not a primitive of its own: it is ``jit`` of a ``shard_map``
over a one-axis mesh of the devices. The shard_map body receives blocks of size 1 along
the mapped axis, so pmap's wrapper squeezes that axis away on the way in and puts it
back (``broadcast_in_dim``) on the way out::

    jit[name=_fun jaxpr={ ... shard_map[... in_specs=(P('i',),) jaxpr={ lambda ; c:f32[1].
        let d:f32[] = squeeze[dimensions=(0,)] c; ...; g:f32[1] = broadcast_in_dim f ...

A pmap inside a pmap, which the seed documents describe (JAX 0.10.2 rejects it), runs
here as a named ``vmap`` inside the outer pmap's device program: the values, and the
collectives over either axis name, are those the seeds document.
"""
from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from glassjax import array_creation, caches, core, tree_util
from glassjax.jit import jit
from glassjax.lax import structural
from glassjax.mesh import Mesh, PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.shard_map import shard_map
from glassjax.vmap_api import vmap
from glassjax.xla import runtime

_DEFAULT_AXIS_NAME = "_internal_pmap_axis_name"


class _Nesting(threading.local):
    depth = 0      # how many pmap bodies are being traced around us


_nesting = _Nesting()


def _axis_spec(axis_name, axis):
    """The spec of a value mapped at ``axis`` (None: the same on every device)."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map ``fun`` over a leading (or ``in_axes``) axis of its arguments, one slice per
    device, and compile it; see the module docstring."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    axis_name = _DEFAULT_AXIS_NAME if axis_name is None else axis_name
    static = _index_tuple(static_broadcasted_argnums)
    donate = _index_tuple(donate_argnums)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    for what, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) is int for leaf in tree_util.tree_leaves(axes)):
            raise TypeError(f"pmap {what} must be an int, None, or (nested) container "
                            f"with those types as leaves, but got {axes}.")
    signatures: dict = {}       # arguments' tree -> (in axes, donated)
    cache: dict = {}            # (static args, arguments' tree, devices) -> _Built

    def prepare(args, kwargs):
        """The jitted shard_map for this call signature, its mesh, the flat arguments
        and their specs. Runs on every call, so what depends only on the arguments'
        tree structure is worked out once per structure."""
        if static and max(static) >= len(args):
            raise ValueError(
                f"pmapped function has static_broadcasted_argnums={static} but was called "
                f"with only {len(args)} positional argument{'s' if len(args) > 1 else ''}."
                " All static broadcasted arguments must be passed positionally.")
        if static:
            dyn_args = tuple(a for i, a in enumerate(args) if i not in static)
            static_args = tuple((i, args[i]) for i in static)
        else:
            dyn_args, static_args = args, ()
        leaves, in_tree = tree_util.tree_flatten((dyn_args, kwargs))
        signature = signatures.get(in_tree)
        if signature is None:
            dyn_in_axes = (tuple(a for i, a in enumerate(in_axes) if i not in static)
                           if isinstance(in_axes, tuple) and static else in_axes)
            signature = signatures[in_tree] = (
                tuple(_flat_in_axes(dyn_in_axes, dyn_args, kwargs)),
                _donated_leaves(args, static, donate))
        axes_flat, donated = signature
        size = _mapped_size(leaves, axes_flat)
        mesh_devices = _mesh_devices(devices, backend, size, axis_size)
        key = (static_args, in_tree, mesh_devices)
        built = cache.get(key)
        if built is None:
            built = cache[key] = _build(fun, args, static, in_tree, axes_flat, out_axes,
                                        mesh_devices, axis_name, donated)
        return built, leaves

    def place(built, leaves):
        """The slices laid out over the mesh before the call, as JAX does (arrays already
        laid out so, e.g. the results of another pmap, are passed as they are)."""
        return [x if isinstance(x, core.Tracer) or (
            isinstance(x, runtime.ArrayImpl) and x._committed and
            (x._sharding is s or x._sharding == s))
            else runtime.device_put(x, s, committed=True)
            for x, s in zip(leaves, built.in_shardings)]

    def pmapped(*args, **kwargs):
        if _nesting.depth:         # a pmap inside a pmap: a named vmap on this device
            return vmap(fun, in_axes=in_axes, out_axes=out_axes,
                        axis_name=axis_name)(*args, **kwargs)
        built, leaves = prepare(args, kwargs)
        eager = core.trace_ctx.trace is core.eval_trace
        if eager and runtime.process_count() > 1:
            # Each process passes its own slices: together they make the global inputs;
            # each process gets back its own slices of the results.
            leaves = array_creation.host_local_array_to_global_array(
                leaves, built.mesh, [s.spec for s in built.in_shardings])
            out = built.jitted(*leaves)
            return array_creation.global_array_to_host_local_array(
                out, built.mesh, tree_util.tree_map(lambda ax: _axis_spec(axis_name, ax),
                                                    out_axes, is_leaf=lambda x: x is None))
        if not eager:           # (staged: the jit without layouts, as JAX prints it)
            return built.staged(*leaves)
        return built.jitted(*place(built, leaves))

    def lower(*args, **kwargs):
        """``pmap(f).lower(x)``: the lowered jit of the shard_map, inputs split."""
        built, leaves = prepare(args, kwargs)
        return built.jitted.lower(*place(built, leaves))

    pmapped.__name__ = getattr(fun, "__name__", "<unnamed function>")
    pmapped.__doc__ = getattr(fun, "__doc__", None)
    pmapped.__wrapped__ = fun
    pmapped.lower = lower
    return pmapped


class _Built(NamedTuple):
    """What pmap makes once per call signature."""
    mesh: Mesh
    jitted: object              # jit(shard_map(_fun)), results laid out over the mesh
    staged: object              # the same jit without layouts, for calls under a trace
    in_shardings: list          # where each flat argument is laid out


def _build(fun, args, static, in_tree, axes_flat, out_axes, devices, axis_name, donated):
    """``jit(shard_map(_fun))`` for one call signature, with its mesh and input layouts."""
    mesh = Mesh(np.array(devices, dtype=object), (axis_name,))
    statics = {i: args[i] for i in static}

    def _fun(*flat):
        blocks = [x if ax is None else structural.squeeze(x, (ax,))
                  for x, ax in zip(flat, axes_flat)]
        dyn_args, kwargs = tree_util.tree_unflatten(in_tree, blocks)
        dyn = iter(dyn_args)
        call_args = [statics[i] if i in statics else next(dyn)
                     for i in range(len(statics) + len(dyn_args))]
        _nesting.depth += 1
        try:
            out = fun(*call_args, **kwargs)
        finally:
            _nesting.depth -= 1
        out_flat, out_tree = tree_util.tree_flatten(out)
        axes = tree_util.broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
        out_flat = [x if ax is None else structural.expand_dims(x, (ax,))
                    for x, ax in zip(out_flat, axes)]
        return tree_util.tree_unflatten(out_tree, out_flat)

    in_specs = tuple(_axis_spec(axis_name, ax) for ax in axes_flat)
    out_specs = tree_util.tree_map(lambda ax: _axis_spec(axis_name, ax), out_axes,
                                   is_leaf=lambda x: x is None)
    mapped = shard_map(_fun, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                       check_vma=False)
    out_shardings = tree_util.tree_map(lambda spec: NamedSharding(mesh, spec), out_specs,
                                       is_leaf=lambda x: isinstance(x, PartitionSpec))
    return _Built(mesh, jit(mapped, donate_argnums=donated, out_shardings=out_shardings),
                  jit(mapped, donate_argnums=donated),
                  [NamedSharding(mesh, spec) for spec in in_specs])


def _donated_leaves(args, static, donate) -> tuple:
    """The flat leaf indices (among the dynamic arguments) of the donated arguments."""
    donated, start = [], 0
    for i, a in enumerate(args):
        if i in static:
            continue
        n = len(tree_util.tree_leaves(a))
        if i in donate:
            donated += range(start, start + n)
        start += n
    return tuple(donated)


def _index_tuple(x) -> tuple:
    return (x,) if isinstance(x, int) else tuple(x)


def _flat_in_axes(in_axes, dyn_args, kwargs) -> list:
    """One axis (or None) per leaf of ``(args, kwargs)``; keyword arguments are mapped
    over their leading axis."""
    try:
        return tree_util.broadcast_prefix((in_axes, 0), (tuple(dyn_args), kwargs),
                                          is_leaf=lambda x: x is None)
    except ValueError:
        raise ValueError(
            "pmap in_axes specification must be a tree prefix of the corresponding value, "
            f"got specification {in_axes} for value tree "
            f"{tree_util.tree_structure(tuple(dyn_args))}.\n\nThe 'full pytree' here is "
            "the tuple of arguments passed positionally to the pmapped function, and the "
            "value of `in_axes` must be a tree prefix of that tuple. But it was not a "
            "prefix.") from None


def _mapped_size(leaves, axes_flat) -> int:
    for x, ax in zip(leaves, axes_flat):
        shape = getattr(x, "shape", None)      # (as JAX: Python scalars don't count)
        if ax is not None and shape is not None:
            if ax >= len(shape):
                raise ValueError(f"pmap was requested to map its argument along axis "
                                 f"{ax}, which implies that its rank should be at least "
                                 f"{ax + 1}, but is only {len(shape)} (its shape is "
                                 f"{shape})")
            return int(shape[ax])
    raise ValueError("pmap requires at least one argument with a mapped axis.")


@caches.lru("pmap._mesh_devices", 256)
def _mesh_devices(devices, backend, size, axis_size) -> tuple:
    if axis_size is not None and axis_size != size:
        raise ValueError(f"Specified axis_size {axis_size} doesn't match received "
                         f"axis_size {size}.")
    if devices is not None:
        return devices[:size]
    if runtime.process_count(backend) > 1:
        # Every process maps over its local devices; the mesh holds them all, each
        # process's devices together, in process order.
        return tuple(d for p in runtime.process_indices(backend)
                     for d in runtime.local_devices(p, backend)[:size])
    # As in JAX 0.10.2, more slices than devices are cut among all the devices: a size
    # they do not divide fails there (IndivisibleError), a multiple of it in the body.
    return tuple(runtime.local_devices(backend=backend)[:size])
