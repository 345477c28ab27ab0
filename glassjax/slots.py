"""Upward slots: the one way a lower module calls code defined above it.

Imports point only downwards (tests/test_layers.py), yet a lower layer sometimes needs an
operation that a higher one defines: core prints jaxprs with pretty.py's printer, a
broadcast's transpose sums with lax's ``reduce_sum``. Such a need is inverted. The lower
module declares a *slot* in a ``Slots`` table, naming the module that fills it and what
for; that module fills it with ``register`` when it is imported. ``register`` refuses an
undeclared name (a typo fails at import) and a filler other than the declared one, so the
declaration is always the truth about who provides what. ``listing()`` shows every slot.
"""
from __future__ import annotations

import sys
from typing import NamedTuple

_tables: list[Slots] = []     # every table, in the order the modules made them


class Slot:
    """A named entry of a ``Slots`` table: ``filler`` is the module that fills it, ``why``
    what the lower module uses it for. Unfilled, it reads as None."""

    def __init__(self, filler: str, why: str):
        self.filler, self.why = filler, why

    def __set_name__(self, table, name):
        self.name = name

    def __get__(self, instance, table=None):
        return self if instance is None else instance.__dict__.get(self.name)

    def __set__(self, instance, value):
        raise AttributeError(f"fill slot {self.name!r} with {type(instance).__name__}"
                             f".register({self.name}=...) from {self.filler}")


class Slots:
    """A table of upward slots; a subclass declares them as ``name = Slot(filler, why)``
    and the lower module keeps its one instance (``core.hooks``, ``lax.utils.above``)."""

    def __init__(self):
        _tables.append(self)

    def register(self, **fills):
        """Fill slots; only the declared filler may, at its import."""
        caller = sys._getframe(1).f_globals["__name__"]
        for name, fn in fills.items():
            slot = getattr(type(self), name, None)
            if not isinstance(slot, Slot):
                raise AttributeError(f"{type(self).__name__} has no slot {name!r}")
            if caller != slot.filler:
                raise ImportError(f"slot {type(self).__name__}.{name} is filled by "
                                  f"{slot.filler}, not {caller}")
            self.__dict__[name] = fn


class Entry(NamedTuple):
    table: str      # the declaring class, e.g. ``glassjax.core.Hooks``
    name: str
    filler: str     # the module that fills it
    why: str
    filled: bool


def listing() -> list[Entry]:
    """Every upward slot: where it is declared, who fills it, what for, and whether it is
    filled yet (after ``import glassjax`` all are)."""
    return [Entry(f"{type(t).__module__}.{type(t).__qualname__}", name, slot.filler,
                  slot.why, name in t.__dict__)
            for t in _tables for name, slot in vars(type(t)).items()
            if isinstance(slot, Slot)]
