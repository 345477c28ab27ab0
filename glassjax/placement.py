"""Where a value lives: the advanced part of an array's type.

``ShapedArray`` (core.py) describes an array by shape, dtype and weak type; that is all a
first reading needs. Two more parts appear only in many-device programs, and they live
here: inside ``shard_map`` a type records the mesh axes a value varies over
(``ManualAxisType``), and a type may say which memory of its device the value is in
(``MemorySpace``: device memory, or host memory the device can reach). ``placed_types``
lets the common program, which never places anything, skip the rules that type results
by their operands' placement.
"""
from __future__ import annotations

import enum
from typing import NamedTuple

from glassjax import caches


class _ManualAxes(NamedTuple):
    varying: frozenset
    unreduced: frozenset
    reduced: frozenset


class ManualAxisType(_ManualAxes):
    """The manual-axes part of a type inside ``shard_map``: the mesh axes a value varies
    over, and (JAX's partial sums, which glassjax does not make) the axes it is an
    unreduced or reduced sum over. An axis is in at most one of varying and the others."""
    __slots__ = ()

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        varying, unreduced, reduced = map(frozenset, (varying, unreduced, reduced))
        for name, other in (("unreduced", unreduced), ("reduced", reduced)):
            if varying & other:
                raise ValueError(f"varying and {name} cannot have common mesh axes. Got "
                                 f"varying={varying} and {name}={other}")
        return super().__new__(cls, varying, unreduced, reduced)

    def update(self, **kwargs):
        return ManualAxisType(**{**self._asdict(), **kwargs})

    @property
    def empty(self) -> bool:
        return not (self.varying or self.unreduced or self.reduced)

    @property
    def vur(self) -> frozenset:
        return self.varying | self.unreduced | self.reduced

    def invarying(self, mesh) -> frozenset:
        """The manual axes of ``mesh`` the value is the same along."""
        return frozenset(mesh.manual_axes) - self.vur


def dim_with_axes(size, axes) -> str:
    """One dimension of a sharded type: ``8``, ``8@X`` or ``8@(X,Y)``."""
    if axes is None:
        return str(size)
    return f"{size}@{axes}" if isinstance(axes, str) else f"{size}@({','.join(axes)})"


class MemorySpace(enum.Enum):
    """Which memory of its device a value lives in (``jax.memory.Space``): the device's
    own, or the host memory it can reach (a sharding's ``memory_kind`` ``pinned_host``).
    ``Any`` leaves the choice to the compiler."""
    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __hash__ = object.__hash__      # (hashed often: by identity, as JAX does)


def mem_kind_to_space(kind) -> MemorySpace:
    """A sharding's memory kind as a memory space (JAX's: only ``pinned_host`` is Host;
    ``unpinned_host`` memory is typed like device memory)."""
    return MemorySpace.Host if kind == "pinned_host" else MemorySpace.Device


def mem_space_to_kind(space: MemorySpace) -> str:
    if space is MemorySpace.Any:
        raise AssertionError("unreachable")
    return "pinned_host" if space is MemorySpace.Host else "device"


class _PlacedTypes:
    """Whether any value was ever typed as living outside device memory or split over
    Explicit mesh axes (``ShapedArray``'s ``memory_space`` and ``_sharding``). Until one
    is, ``Primitive.abstract_eval`` skips the two passes that type outputs by their
    operands' placement: most programs never place anything, and those passes cost a
    look at every operand of every equation. (Staging's memos ask ``among`` after.)
    A registered flag (``glassjax/caches.py``): reference mode raises it."""
    __slots__ = ("seen",)

    def __init__(self):
        self.seen = False

    def among(self, avals) -> bool:
        """Is one of ``avals`` placed so (None and non-array types are not)?"""
        return self.seen and any(
            getattr(a, "_sharding", None) is not None or
            getattr(a, "memory_space", MemorySpace.Device) is not MemorySpace.Device for a in avals)


placed_types = _PlacedTypes()
caches.flag("core.placed_types.seen", lambda: setattr(placed_types, "seen", True))


class ShardingTypeError(Exception):
    """Operands whose shardings (in their types) an operation cannot combine."""
