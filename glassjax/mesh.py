"""Meshes and partition specs: the vocabulary of many-device programs.

A ``Mesh`` arranges devices in an n-dimensional grid whose axes have names, e.g. 8 CPU
devices as a ``('data': 4, 'model': 2)`` grid. A ``PartitionSpec`` (``P``) says, for each
dimension of an array, which mesh axes split it: ``P('data', None)`` cuts dimension 0
into 4 blocks along ``'data'`` and keeps dimension 1 whole, so each block is replicated
over the 2 devices of the ``'model'`` axis. A mesh plus a spec is a ``NamedSharding``
(``sharding_impls.py``); shard_map and pmap take a mesh and specs directly.

Each mesh axis has a type (``AxisType``): ``Auto`` axes leave the layout of intermediate
values to XLA's partitioner, ``Explicit`` axes put shardings into the types, ``Manual``
axes are the ones a ``shard_map`` body sees one block of.

Read next: ``sharding_impls.py`` (shardings built on these), ``shard_map.py``.
"""
from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import math
import threading
from typing import Any, Sequence

import numpy as np

from glassjax.xla import partition_specs, runtime


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


def _normalize_axis_types(axis_names, axis_types, api_name):
    if axis_types is None:
        axis_types = (AxisType.Auto,) * len(axis_names)
    elif not isinstance(axis_types, tuple):
        axis_types = (axis_types,)
    if not all(isinstance(a, AxisType) for a in axis_types):
        raise TypeError(f"axis_types passed to {api_name} must be of type "
                        f"`jax.sharding.AxisType`. Got {axis_types} of type "
                        f"{tuple(type(a) for a in axis_types)}")
    if len(axis_names) != len(axis_types):
        raise ValueError("Number of axis names should match the number of axis_types. "
                         f"Got axis_names={axis_names} and axis_types={axis_types}")
    return axis_types


class _MeshShape:
    """What concrete and abstract meshes share: named axes with sizes and types."""
    axis_names: tuple
    axis_sizes: tuple
    axis_types: tuple

    @property
    def shape(self) -> dict:
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self) -> tuple:
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes) if self.axis_names else 0

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def _axes_of_type(self, kind) -> tuple:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t == kind)

    @property
    def auto_axes(self):
        return self._axes_of_type(AxisType.Auto)

    @property
    def explicit_axes(self):
        return self._axes_of_type(AxisType.Explicit)

    @property
    def manual_axes(self):
        return self._axes_of_type(AxisType.Manual)

    def _all_axes_are(self, kind) -> bool:
        """Every axis is of type ``kind`` (never, on a mesh with no axes)."""
        return bool(self.axis_types) and all(t == kind for t in self.axis_types)

    are_all_axes_auto = property(lambda self: self._all_axes_are(AxisType.Auto))
    are_all_axes_explicit = property(lambda self: self._all_axes_are(AxisType.Explicit))
    are_all_axes_manual = property(lambda self: self._all_axes_are(AxisType.Manual))

    @property
    def _name_to_type(self) -> dict:
        return dict(zip(self.axis_names, self.axis_types))

    def _shape_str(self) -> str:
        return ", ".join(f"'{n}': {s}" for n, s in self.shape_tuple)


class Mesh(_MeshShape):
    """``Mesh(devices, axis_names, axis_types=None)``: ``devices`` is an array of devices
    (any nesting of lists works) with one dimension per axis name."""

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.array(devices, dtype=object) if not isinstance(devices, np.ndarray) \
            else devices
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if any(name is None for name in axis_names):
            raise ValueError(f"Mesh axis names cannot be None. Got: {axis_names}")
        if devices.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the "
                "length of its second argument (`axis_names`), but got devices.ndim == "
                f"{devices.ndim} and len(axis_names) == {len(axis_names)}.")
        devices = devices.copy()
        devices.flags.writeable = False
        self.devices = devices
        self.axis_names = axis_names
        self.axis_sizes = tuple(devices.shape)
        self.axis_types = _normalize_axis_types(axis_names, axis_types, "Mesh")

    # Two meshes are the same mesh when they hold the same devices in the same places.
    @functools.cached_property
    def _key(self):
        return (tuple(d.id for d in self.devices.flat), self.axis_sizes, self.axis_names,
                self.axis_types)

    def __eq__(self, other):
        return self is other or isinstance(other, Mesh) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __str__(self):
        if self.empty:
            return "Mesh()"
        return f"Mesh({self._shape_str()}, axis_types={self.axis_types})"

    def __repr__(self):
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names!r}, "
                f"axis_types={self.axis_types})")

    def update(self, devices=None, axis_names=None, axis_types=None):
        return Mesh(self.devices if devices is None else devices,
                    self.axis_names if axis_names is None else axis_names,
                    self.axis_types if axis_types is None else axis_types)

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @functools.cached_property
    def _flat_devices_tuple(self) -> tuple:
        return tuple(self.devices.flat)

    @functools.cached_property
    def _internal_device_list(self):
        """jaxlib's C++ ``NamedSharding`` reads the devices from here."""
        return runtime.DeviceList(self._flat_devices_tuple)

    @property
    def local_devices(self) -> list:
        return [d for d in self.devices.flat
                if d.process_index == d.client.process_index()]

    @property
    def is_multi_process(self) -> bool:
        return self.devices.size != len(self.local_devices)

    @functools.cached_property
    def abstract_mesh(self) -> "AbstractMesh":
        """The mesh without its devices (but with their kind): what types refer to."""
        if self.empty:
            return AbstractMesh((), ())
        device = self.devices.flat[0]
        # JAX records the core count of TPU and GPU devices only.
        cores = {"tpu": "num_cores", "gpu": "core_count"}.get(device.platform)
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types,
                            abstract_device=AbstractDevice(
                                device_kind=device.device_kind,
                                num_cores=getattr(device, cores, None) if cores else None,
                                platform=device.platform))

    # ``with mesh:`` is JAX's old spelling of ``with set_mesh(mesh):``.
    def __enter__(self):
        _mesh_stack.meshes.append(self)
        return self

    def __exit__(self, *exc):
        _mesh_stack.meshes.pop()
        return False


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """The kind of device a mesh is made of, without the devices: enough to compile for
    them ahead of time (``AbstractMesh(..., abstract_device=...)``)."""
    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return f"AbstractDevice({self._repr()})"

    def _repr(self):
        return (f"device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform}")


class AbstractMesh(_MeshShape):
    """Axis names, sizes and types without devices: what tracing needs of a mesh (and
    what a value's type names, ``float32[8@X]``). A mesh's own ``abstract_mesh`` also
    keeps the kind of its devices."""
    _internal_device_list = None        # (jaxlib's NamedSharding asks every mesh)

    def __init__(self, axis_sizes: tuple, axis_names: tuple, axis_types=None, *,
                 abstract_device=None):
        self.axis_sizes = tuple(axis_sizes)
        self.axis_names = tuple(axis_names)
        self.axis_types = _normalize_axis_types(self.axis_names, axis_types,
                                                "AbstractMesh")
        self.abstract_device = abstract_device

    def _key(self):
        return (self.axis_sizes, self.axis_names, self.axis_types, self.abstract_device)

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        device = ("" if self.abstract_device is None else
                  f", {self.abstract_device._repr()}")
        return (f"AbstractMesh({self._shape_str() or '()'}, "
                f"axis_types={self.axis_types}{device})")

    @property
    def abstract_mesh(self) -> "AbstractMesh":
        return self

    def update(self, axis_sizes=None, axis_names=None, axis_types=None, **kwargs):
        kwargs.setdefault("abstract_device", self.abstract_device)
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            **kwargs)

    def update_axis_types(self, name_to_type: dict) -> "AbstractMesh":
        return self.update(axis_types=tuple(name_to_type.get(n, t) for n, t in
                                            zip(self.axis_names, self.axis_types)))


# ----------------------------------------------------------------------------------------
# The current mesh (``jax.set_mesh``)
# ----------------------------------------------------------------------------------------

class _MeshStack(threading.local):
    def __init__(self):
        self.meshes: list = []      # concrete meshes (set_mesh) and abstract ones
        self.set_meshes: list = []  # those of set_mesh only (not ``with mesh:``)


_mesh_stack = _MeshStack()


def get_mesh() -> Mesh | None:
    """The mesh set by the innermost ``set_mesh`` (or ``with mesh:``), or None."""
    return next((m for m in reversed(_mesh_stack.meshes) if isinstance(m, Mesh)), None)


def get_concrete_mesh() -> Mesh | None:
    """The mesh of the innermost ``set_mesh``, or None: what a ``jit`` equation records
    as its ``ctx_mesh`` (JAX's old ``with mesh:`` does not count)."""
    return _mesh_stack.set_meshes[-1] if _mesh_stack.set_meshes else None


def get_abstract_mesh() -> AbstractMesh:
    """What tracing knows of the current mesh: the innermost ``set_mesh``'s, or the one
    a ``use_abstract_mesh`` block (``auto_axes``, ``explicit_axes``) put over it."""
    if not _mesh_stack.meshes:
        return AbstractMesh((), ())
    return _mesh_stack.meshes[-1].abstract_mesh


class use_abstract_mesh:
    """Trace under ``mesh`` (an ``AbstractMesh``) in this block: it changes what
    ``get_abstract_mesh`` says (e.g. the axis types), not the devices of ``set_mesh``,
    so it cannot change the mesh's size."""
    __slots__ = ["mesh"]

    def __init__(self, mesh: AbstractMesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. Got type:"
                             f" {type(mesh)}")
        self.mesh = mesh

    def __enter__(self):
        prev = get_abstract_mesh()
        if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
            raise ValueError(
                f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
                f"{self.mesh} with size={self.mesh.size} and prev mesh: {prev} with "
                f"size={prev.size}")
        _mesh_stack.meshes.append(self.mesh)
        return self.mesh

    def __exit__(self, *exc):
        _mesh_stack.meshes.pop()
        return False


class set_mesh(contextlib.ContextDecorator):
    """Make ``mesh`` the current mesh: ``P``-only shardings (``reshard``,
    ``with_sharding_constraint``), ``shard_map`` without ``mesh=`` and ``jax.make_mesh``
    users read it. Works as a context manager, and as a plain call for the rest of the
    program (JAX's global ``set_mesh``)."""

    def __init__(self, mesh: Mesh):
        if not isinstance(mesh, Mesh):
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        self.mesh = mesh
        _mesh_stack.meshes.append(mesh)
        _mesh_stack.set_meshes.append(mesh)

    def __enter__(self):
        return self.mesh

    def __exit__(self, *exc):
        _mesh_stack.meshes.remove(self.mesh)
        _mesh_stack.set_meshes.remove(self.mesh)
        return False


# ----------------------------------------------------------------------------------------
# PartitionSpec
# ----------------------------------------------------------------------------------------

class UnconstrainedSingleton:
    """``P.UNCONSTRAINED``: let the partitioner choose how this dimension is split."""

    def __repr__(self):
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_unconstrained, ())


UNCONSTRAINED = UnconstrainedSingleton()
partition_specs.set_unconstrained(UNCONSTRAINED)     # jaxlib's canonicalization knows it


def _unconstrained():
    return UNCONSTRAINED


class PartitionSpec:
    """``P(*partitions)``: one entry per array dimension, each ``None`` (not split), a mesh
    axis name, or a tuple of names (split over their product). A class of its own, not a
    tuple, so pytree functions treat a spec as a leaf."""
    __slots__ = ("_partitions", "unreduced", "reduced")

    UNCONSTRAINED = UNCONSTRAINED

    def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
        object.__setattr__(self, "_partitions",
                           partition_specs.canonicalize_all(partitions))
        object.__setattr__(self, "unreduced", frozenset(unreduced))
        object.__setattr__(self, "reduced", frozenset(reduced))

    def __setattr__(self, name, value):
        raise AttributeError("PartitionSpec is immutable")

    @property
    def partitions(self) -> tuple:
        return self._partitions

    def __repr__(self):
        inner = repr(self._partitions)[1:-1]
        extras = [f"{name}={set(axes)!r}" for name, axes in
                  (("unreduced", self.unreduced), ("reduced", self.reduced)) if axes]
        if not extras:
            return f"P({inner})"
        inner = "" if not inner else inner + " " if inner.endswith(",") else inner + ", "
        return f"P({inner}{', '.join(extras)})"

    def __eq__(self, other):
        if isinstance(other, PartitionSpec):
            return (self._partitions, self.unreduced, self.reduced) == (
                other._partitions, other.unreduced, other.reduced)
        if isinstance(other, tuple) and not self.unreduced and not self.reduced:
            return self._partitions == partition_specs.canonicalize_all(other)
        return NotImplemented

    def __hash__(self):
        return hash((self._partitions, self.unreduced, self.reduced))

    def __getitem__(self, i):
        return self._partitions[i]

    def __iter__(self):
        return iter(self._partitions)

    def __len__(self):
        return len(self._partitions)

    def __add__(self, other):
        if isinstance(other, (tuple, PartitionSpec)):
            return PartitionSpec(*self, *other)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, tuple):
            return PartitionSpec(*other, *self)
        return NotImplemented

    def __reduce__(self):
        return (_make_spec, (self._partitions, self.unreduced, self.reduced))

    def index(self, value):
        return self._partitions.index(partition_specs.canonicalize(value))

    def count(self, value):
        return self._partitions.count(partition_specs.canonicalize(value))

    def update(self, partitions=None, unreduced=None, reduced=None):
        return PartitionSpec(*(self._partitions if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def _normalized_spec_for_aval(self, ndim: int) -> "PartitionSpec":
        """One entry per dimension: missing trailing entries and UNCONSTRAINED are None."""
        out = [None if p is UNCONSTRAINED else p for p in self._partitions]
        return self.update(partitions=out + [None] * (ndim - len(out)))

    def _check_compatible_wrt_shape(self, shape):
        if len(shape) < len(self._partitions):
            hint = " For scalars the PartitionSpec should be P()" if not shape else ""
            raise ValueError(f"PartitionSpec {self} is only valid for values of rank at "
                             f"least {len(self._partitions)}, but was applied to a value "
                             f"of rank {len(shape)}.{hint}")

    def mesh_axes(self) -> tuple:
        """Every mesh axis name the spec splits a dimension over, in order."""
        return tuple(name for p in self._partitions if p is not None and
                     p is not UNCONSTRAINED
                     for name in (p if isinstance(p, tuple) else (p,)))


def _make_spec(partitions, unreduced, reduced):
    return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


P = PartitionSpec
AxisName = Any


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *,
              devices=None) -> Mesh:
    """A mesh of the given shape over the first ``prod(axis_shapes)`` devices, in device
    order. As in JAX 0.10, the axes are ``Explicit`` unless ``axis_types`` says
    otherwise."""
    devices = runtime.devices() if devices is None else devices
    axis_shapes = tuple(axis_shapes)
    # (one name may be given bare: ``('batch')`` is the string "batch", as Mesh takes it)
    axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    size = math.prod(axis_shapes)
    if len(axis_shapes) != len(axis_names):
        raise ValueError("Number of axis names should match the number of axis shapes. "
                         f"Got axis_shapes={axis_shapes} and axis_names={axis_names}")
    if size > len(devices):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_names)
    chosen = np.array(list(devices)[:size], dtype=object).reshape(axis_shapes)
    return Mesh(chosen, axis_names, axis_types)

