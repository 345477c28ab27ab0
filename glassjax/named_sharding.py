"""``NamedSharding(mesh, spec)``: an array laid out over a mesh by a partition spec.

``NamedSharding(mesh, P('x', None))`` over a ``('x': 4, 'y': 2)`` mesh cuts dimension 0
into 4 blocks; the device at mesh position ``(i, j)`` holds block ``i``, so each block
lives on the 2 devices of row ``i`` (replicated over ``'y'``). Everything else follows
from that one rule:

* ``devices_indices_map(shape)``: which slice of the array each device holds;
* ``_to_xla_hlo_sharding(ndim)``: the same layout as XLA's ``HloSharding`` (a tile grid
  over device *positions* in the mesh), which jaxlib's C++ and the compiler read;
* ``sdy_sharding(ndim)``: the same layout as a Shardy attribute, e.g.
  ``#sdy.sharding<@mesh, [{"x"}, {}]>``, written on the arguments of a lowered program.

The data lives in jaxlib's C++ ``NamedSharding`` (so C++ dispatch can compare shardings
without Python); the methods are attached here, as ``xla/runtime.py`` does for the other
sharding classes. ``gspmd_to_named`` goes the other way: XLA reports the layouts it chose
for a program's results as ``HloSharding``s, which we name over the program's mesh.
"""
from __future__ import annotations

import itertools
import math

from jaxlib import xla_client as xc

from glassjax import caches, core
from glassjax.mesh import AbstractMesh, Mesh, PartitionSpec, get_abstract_mesh, get_mesh
from glassjax.xla import runtime


class IndivisibleError(ValueError):
    """An array dimension does not split evenly over the devices a sharding gives it."""


class DuplicateSpecError(Exception):
    """A partition spec names one mesh axis for two dimensions."""


def dim_axes(spec: PartitionSpec, ndim: int) -> list[tuple]:
    """For each of ``ndim`` dimensions, the mesh axes splitting it (major to minor)."""
    entries = list(spec._normalized_spec_for_aval(ndim))
    return [() if p is None else tuple(p) if isinstance(p, tuple) else (p,)
            for p in entries]


def splits(mesh, spec: PartitionSpec, ndim: int) -> list[int]:
    """How many blocks ``spec`` cuts each of ``ndim`` dimensions into over ``mesh``."""
    return [math.prod(mesh.shape[a] for a in axes) for axes in dim_axes(spec, ndim)]


def sdy_dims(spec: PartitionSpec, ndim: int) -> str:
    """The dimensions part of a Shardy sharding, e.g. ``[{"x"}, {}]``."""
    return "[" + ", ".join("{" + ", ".join(f'"{a}"' for a in axes) + "}"
                           for axes in dim_axes(spec, ndim)) + "]"


def check_pspec(mesh, spec, aval=None):
    """The checks JAX makes when a NamedSharding is built: known axis names, each used
    at most once. (jaxlib's C++ constructor calls this through ``jax._src``.)"""
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"spec must be a PartitionSpec. Got {spec} of type {type(spec)}")
    used = spec.mesh_axes()
    unknown = [a for a in used if a not in mesh.axis_names]
    if unknown:
        raise ValueError(f"Resource axis: {unknown[0]} of {spec} is not found in mesh: "
                         f"{tuple(mesh.axis_names)}.")
    duplicates = sorted({a for a in used if used.count(a) > 1})
    if duplicates:
        raise DuplicateSpecError(
            f"A single NamedSharding spec specification can map every mesh axis to at most "
            f"one positional dimension, but {spec} has duplicate entries for "
            f"`{duplicates[0]}`")


runtime.answer_jaxlib_import("jax._src.named_sharding", check_pspec=check_pspec)


class _NamedShardingMethods(runtime.ShardingMethods):

    @property
    def _device_assignment(self) -> tuple:
        return self.mesh._flat_devices_tuple

    @property
    def memory_kind(self):
        return self._memory_kind

    @property
    def is_fully_replicated(self) -> bool:
        return all(self.mesh.shape[a] == 1 for a in self.spec.mesh_axes())

    def devices_indices_map(self, global_shape) -> dict:
        """Device -> the slice of an array of ``global_shape`` it holds."""
        mesh, ndim = self.mesh, len(global_shape)
        self.check_shape(global_shape)
        per_dim = dim_axes(self.spec, ndim)
        axis_pos = {name: i for i, name in enumerate(mesh.axis_names)}
        indices = {}
        for position in itertools.product(*map(range, mesh.axis_sizes)):
            index = []
            for axes, size in zip(per_dim, global_shape):
                tiles, block = 1, 0
                for a in axes:
                    tiles, block = tiles * mesh.shape[a], block * mesh.shape[a] + \
                        position[axis_pos[a]]
                step = size // tiles
                index.append(slice(None) if tiles == 1 else
                             slice(block * step, (block + 1) * step))
            indices[mesh.devices[position]] = tuple(index)
        return indices

    def check_shape(self, global_shape):
        """Every split dimension must divide evenly among its devices."""
        if len(global_shape) < len(self.spec):
            raise ValueError(
                f"One of device_put args is incompatible with its sharding annotation "
                f"{self!r}: Sharding {self!r} is only valid for values of rank at least "
                f"{len(self.spec)}, but was applied to a value of rank {len(global_shape)}.")
        tiles = splits(self.mesh, self.spec, len(global_shape))
        for dim, (size, n) in enumerate(zip(global_shape, tiles)):
            if size % n:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {dim} is partitioned {n} "
                    f"times, but the dimension size is {size} (full shape: "
                    f"{tuple(global_shape)}, per-dimension tiling factors: {tiles} should "
                    f"evenly divide the shape)")

    def _to_xla_hlo_sharding(self, num_dimensions: int):
        return _hlo_sharding(self.mesh.axis_names, self.mesh.axis_sizes,
                             tuple(map(tuple, dim_axes(self.spec, num_dimensions))))

    def sdy_sharding(self, num_dimensions: int, mesh_name: str = "mesh") -> str:
        """The Shardy attribute text of this layout for a value of ``num_dimensions``."""
        return f"#sdy.sharding<@{mesh_name}, {sdy_dims(self.spec, num_dimensions)}>"

    # As in JAX, equal when mesh and spec are (P('x') and P('x', None) are different
    # specs, though they lay arrays out alike).
    def __hash__(self):
        return hash((self.mesh, self.spec, self._memory_kind))

    def __eq__(self, other):
        if type(other) is not type(self):
            return runtime.ShardingMethods.__eq__(self, other)
        return (self.mesh == other.mesh and self.spec == other.spec and
                self._memory_kind == other._memory_kind)

    def __repr__(self):
        kind = "" if self.memory_kind is None else f", memory_kind={self.memory_kind}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec!r}{kind})"

    def with_spec(self, spec):
        return NamedSharding(self.mesh, spec, memory_kind=self._memory_kind)

    def with_memory_kind(self, kind):
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    def update(self, *, mesh=None, spec=None, memory_kind=None):
        """This sharding with ``mesh``, ``spec`` (a PartitionSpec or a sequence of
        entries) or ``memory_kind`` replaced."""
        if spec is not None and not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec)
        return NamedSharding(self.mesh if mesh is None else mesh,
                             self.spec if spec is None else spec,
                             memory_kind=self._memory_kind if memory_kind is None
                             else memory_kind)


@caches.lru("named_sharding._hlo_sharding", 1024)
def _hlo_sharding(axis_names, axis_sizes, per_dim):
    """XLA's tile grid for a mesh layout: each dimension split into the product of its
    axes' sizes; the devices listed by transposing the mesh so the used axes come first
    (in spec order) and the unused ones last, where they replicate each tile."""
    used = [a for axes in per_dim for a in axes]
    unused = [a for a in axis_names if a not in used]
    if all(axis_sizes[axis_names.index(a)] == 1 for a in used):
        return xc.HloSharding.replicate()
    size_of = dict(zip(axis_names, axis_sizes))
    tiles = [math.prod(size_of[a] for a in axes) for axes in per_dim]
    perm = [axis_names.index(a) for a in used + unused]
    replicas = math.prod(size_of[a] for a in unused)
    if replicas == 1:
        return xc.HloSharding.iota_tile(tiles, list(axis_sizes), perm)
    return xc.HloSharding.iota_tile(tiles + [replicas], list(axis_sizes), perm,
                                    [xc.OpSharding.Type.REPLICATED])


def _make_named_sharding(mesh, spec, *, memory_kind=None):
    """Over a concrete mesh the memory kind defaults to ``device``; over an abstract one
    (a value's type) there is no memory to name unless asked."""
    if isinstance(mesh, AbstractMesh):
        with runtime.answering_jaxlib_imports():
            return _CppNamedSharding(mesh, spec, memory_kind)
    if not isinstance(mesh, Mesh):
        raise TypeError(f"mesh should be of type `jax.sharding.Mesh`. Got {mesh} of type "
                        f"{type(mesh)}")
    with runtime.answering_jaxlib_imports():
        return _CppNamedSharding(mesh, spec, memory_kind or "device")


_CppNamedSharding = runtime.install_methods(xc.NamedSharding, _NamedShardingMethods)


class _NamedShardingFactory(type):
    """``NamedSharding(mesh, spec)`` builds jaxlib's C++ object, and
    ``isinstance(s, NamedSharding)`` asks about it."""

    def __call__(cls, mesh, spec, *, memory_kind=None):
        return _make_named_sharding(mesh, spec, memory_kind=memory_kind)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _CppNamedSharding)


class NamedSharding(metaclass=_NamedShardingFactory):
    """``NamedSharding(mesh, spec, *, memory_kind=None)``: see the module docstring."""


def as_typed(sharding, ndim: int):
    """The sharding a computed value of ``ndim`` dimensions is reported with: over a mesh
    of ``Explicit`` axes the layout is part of the value's type, whose spec has one entry
    per dimension (JAX prints ``P('x', None)`` where ``P('x')`` was asked)."""
    if not isinstance(sharding, NamedSharding) or not sharding.mesh.explicit_axes:
        return sharding
    return sharding.with_spec(sharding.spec._normalized_spec_for_aval(ndim))


# -- sharding in types ---------------------------------------------------------------------

def type_sharding(sharding, ndim: int):
    """The part of an array's layout its type records, as ``ShapedArray._sharding``:
    ``(abstract mesh, spec)`` with one spec entry per dimension naming only the mesh's
    ``Explicit`` axes; None when no dimension is split over one (``Auto`` axes are the
    compiler's business, not the type's)."""
    if not isinstance(sharding, NamedSharding) or not sharding.mesh.explicit_axes:
        return None
    explicit = set(sharding.mesh.explicit_axes)
    spec = []
    for axes in dim_axes(sharding.spec, ndim):
        kept = tuple(a for a in axes if a in explicit)
        spec.append(None if not kept else kept[0] if len(kept) == 1 else kept)
    return (sharding.mesh.abstract_mesh, tuple(spec)) if any(spec) else None


def typeof_sharding(aval):
    """JAX's ``typeof(x).sharding``, as an ``out_sharding`` to pass on (JAX types every
    value made under ``set_mesh``): the value's split over its mesh, or whole over the
    abstract mesh in force; None outside any mesh."""
    if aval._sharding is not None:
        return _present(aval._sharding, aval.ndim)
    mesh = get_abstract_mesh()
    return None if mesh.empty else NamedSharding(mesh, PartitionSpec(*[None] * aval.ndim))


def typed_aval(aval: core.ShapedArray, sharding) -> core.ShapedArray:
    """``aval`` with the type part of ``sharding`` (an array's layout) recorded: its
    split over Explicit axes, and the memory space its memory kind names (a sharding
    without a memory kind leaves it be)."""
    if type(aval) is not core.ShapedArray:      # (tokens)
        return aval
    typed = type_sharding(sharding, aval.ndim)
    kind = getattr(sharding, "memory_kind", None)
    space = aval.memory_space if kind is None else core.mem_kind_to_space(kind)
    if typed == aval._sharding and space is aval.memory_space:
        return aval
    return aval.update(sharding=typed, memory_space=space)


def _present(typed, ndim: int):
    """``ShapedArray.sharding``: the recorded ``(mesh, spec)`` as a NamedSharding over
    the abstract mesh (over the empty mesh, all None, when nothing is recorded)."""
    if typed is None:
        return NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * ndim))
    return NamedSharding(typed[0], PartitionSpec(*typed[1]))


core.hooks.register(type_sharding=_present, record_sharding=type_sharding,
                    struct_memory_space=lambda sharding: (
                        core.mem_kind_to_space(sharding.memory_kind)
                        if isinstance(sharding, NamedSharding) and sharding.memory_kind
                        else None))
runtime.hooks.register(typed_aval=typed_aval)


def spec_to_sharding(sharding, fname: str):
    """A bare PartitionSpec means a NamedSharding over the mesh of ``set_mesh`` (any
    other value is returned as it is)."""
    if not isinstance(sharding, PartitionSpec):
        return sharding
    mesh = get_mesh()
    if mesh is None or mesh.empty:
        raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is "
                         f"passed to {fname}")
    return NamedSharding(mesh, sharding)


@caches.lru("named_sharding.gspmd_to_named", 1024)
def gspmd_to_named(hlo: xc.HloSharding, mesh: Mesh, ndim: int):
    """The NamedSharding over ``mesh`` whose tile grid is ``hlo``, or None if no spec
    gives it (XLA may choose layouts a spec cannot say). Each mesh axis splits one
    dimension or none, and the axes splitting one dimension come in some order (major
    to minor): every such spec is tried, unsplit axes first, so that axes of size 1
    stay out of the spec."""
    names = mesh.axis_names
    for choice in itertools.product(range(-1, ndim), repeat=len(names)):
        groups = [[n for n, c in zip(names, choice) if c == d] for d in range(ndim)]
        for per_dim in itertools.product(*map(itertools.permutations, groups)):
            if _hlo_sharding(names, mesh.axis_sizes, per_dim) == hlo:
                spec = [None if not axes else axes[0] if len(axes) == 1 else axes
                        for axes in per_dim]
                while spec and spec[-1] is None:
                    spec.pop()
                return NamedSharding(mesh, PartitionSpec(*spec))
    return None
