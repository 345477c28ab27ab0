"""How an array is laid out in device memory: ``Layout`` and ``Format`` (layout + sharding).

XLA stores an array's dimensions in some order, possibly tiled. On CPU every array is
row-major and untiled, so glassjax only ever produces the default layout; these classes
exist so that what JAX reports about layouts (``x.format``, a compiled function's
``out_info`` and ``input_formats``) prints the same."""
from __future__ import annotations


class Layout:
    """The order of an array's dimensions in memory (``major_to_minor``) and its tiling."""
    __slots__ = ("major_to_minor", "tiling", "sub_byte_element_size_in_bits")

    def __init__(self, major_to_minor, tiling=(), sub_byte_element_size_in_bits=0):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = tuple(tiling)
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    @classmethod
    def default(cls, ndim: int) -> "Layout":
        """Row-major, untiled: what XLA's CPU client uses for every array."""
        return cls(range(ndim))

    def _key(self):
        return (self.major_to_minor, self.tiling, self.sub_byte_element_size_in_bits)

    def __eq__(self, other):
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
                f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})")


class Format:
    """A layout together with a sharding: everything about where and how data lives."""
    __slots__ = ("layout", "sharding")

    def __init__(self, layout=None, sharding=None):
        self.layout = layout
        self.sharding = sharding

    def __eq__(self, other):
        return (isinstance(other, Format) and
                (self.layout, self.sharding) == (other.layout, other.sharding))

    def __hash__(self):
        return hash((self.layout, self.sharding))

    def __repr__(self):
        return f"Format(layout={self.layout}, sharding={self.sharding})"
