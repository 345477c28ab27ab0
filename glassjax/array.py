"""``glassjax.Array``: the device array.

A device array is jaxlib's C++ ``ArrayImpl``: it owns the device buffers, the aval, the
sharding and the "committed" flag, and jaxlib's C++ (execution, the jit fast path) creates
and reads it directly. What a user sees of it (shape, printing, conversion to NumPy and
Python numbers) is written here in Python and attached to the C++ class, as JAX does. So
``type(x)`` is jaxlib's ``ArrayImpl``, exactly as in JAX.

``Array`` (exported as ``glassjax.Array``) is the C++ base class of ``ArrayImpl``, used for
``isinstance`` checks and annotations; tracers pass ``isinstance(t, glassjax.Array)`` too.
Operators and array methods (``+``, ``sum``, ``reshape``, ``at``, ...) are installed on
``ArrayImpl`` by ``glassjax.numpy``.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from glassjax import core
from glassjax.layout import Format, Layout
from glassjax.xla import runtime

ArrayImpl = runtime.ArrayImpl
Array = runtime.Array
Array.__module__ = "glassjax"
Array.__doc__ = """The type of glassjax arrays and of tracers standing for them.

Use it for ``isinstance`` checks and annotations; create arrays with ``glassjax.numpy``
(``jnp.array``, ``jnp.zeros``, ...) or ``glassjax.device_put``."""
runtime.set_tracer_class(core.Tracer)


class Shard:
    """One device's piece of an array: where it is, which part, and the data."""
    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


_cpp_is_ready = ArrayImpl.is_ready


class _ArrayMethods:
    """The Python side of ``ArrayImpl``. The C++ side already provides ``aval``,
    ``delete()``, ``is_deleted()``, ``block_until_ready()``,
    ``on_device_size_in_bytes()`` and ``unsafe_buffer_pointer()``."""

    __array_priority__ = 100
    __hash__ = None                      # arrays are mutable-looking values, like NumPy's

    # -- type ------------------------------------------------------------------------

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    # -- placement -------------------------------------------------------------------

    @property
    def sharding(self):
        return self._sharding

    @property
    def format(self) -> Format:
        return Format(Layout.default(self.ndim), self._sharding)

    @property
    def committed(self) -> bool:
        return self._committed

    @property
    def is_fully_addressable(self) -> bool:
        return self._sharding.is_fully_addressable

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding.is_fully_replicated

    def devices(self) -> set:
        self._check_if_deleted()
        return self._sharding.device_set

    @property
    def device(self):
        """The array's device, or its sharding if it spans several devices."""
        self._check_if_deleted()
        device_set = self._sharding.device_set
        return next(iter(device_set)) if len(device_set) == 1 else self._sharding

    @property
    def addressable_shards(self) -> list[Shard]:
        self._check_if_deleted()
        index_of = self._sharding.devices_indices_map(self.shape)
        result, seen = [], []
        for piece in runtime.shards(self):
            index = index_of[piece.sharding._device]
            result.append(Shard(piece.sharding._device, index, seen.count(index), piece))
            seen.append(index)
        return result

    @property
    def global_shards(self) -> list[Shard]:
        """Every device's shard; on another process's device its ``data`` is None."""
        local = self.addressable_shards
        if self.is_fully_addressable:
            return local
        index_of = self._sharding.devices_indices_map(self.shape)
        held = {s.device: s for s in local}
        return [held.get(d) or Shard(d, index_of[d], 0, None)
                for d in self._sharding._device_assignment]

    def addressable_data(self, index: int):
        return self.addressable_shards[index].data

    # -- values ----------------------------------------------------------------------

    def _check_if_deleted(self):
        runtime.check_not_deleted(self)

    def is_ready(self) -> bool:
        """Whether the value has been computed. (jaxlib's C++ method crashes on a freed
        buffer, so liveness is checked first.)"""
        self._check_if_deleted()
        return _cpp_is_ready(self)

    @property
    def _value(self) -> np.ndarray:
        """The value on the host, read-only (fetched once, then cached)."""
        self._check_if_deleted()
        return runtime.to_numpy(self)

    def __array__(self, dtype=None, context=None, copy=None):
        kwargs = {} if copy is None else {"copy": copy}
        return np.asarray(self._value, dtype=dtype, **kwargs)

    def copy_to_host_async(self):
        """Start the device-to-host transfer now, so a later read does not wait for it."""
        self._check_if_deleted()
        runtime.start_copy_to_host(self)

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def copy(self):
        return runtime.copy_array(self)

    def __reduce__(self):
        # Pickle through NumPy; the weak type is the one thing NumPy cannot carry.
        return _unpickle_array, (np.asarray(self), self.weak_type)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Share the buffer with another library (``np.from_dlpack(x)``); CPU only."""
        self.__dlpack_device__()
        return runtime.to_dlpack(self, stream)

    def __dlpack_device__(self):
        self._check_if_deleted()
        if len(self._sharding.device_set) != 1 or self.platform() != "cpu":
            raise BufferError("glassjax supports __dlpack__ only for arrays on one CPU "
                              "device.")
        return (1, 0)                                 # (kDLCPU, device 0)

    # -- Python protocols ------------------------------------------------------------

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        row_aval = self.aval.update(shape=self.shape[1:])
        device = self.device if len(self._sharding.device_set) == 1 else None
        return (runtime.device_put(row, device, committed=self.committed, aval=row_aval)
                for row in self._value)

    def _to_python(self, convert, check):
        """``bool(x)``, ``int(x)`` and the like: ``check`` raises NumPy's error for an
        array of the wrong shape (or dtype), then NumPy converts the value."""
        check(self.aval)
        return convert(self._value[()])

    __bool__ = functools.partialmethod(_to_python, bool, core.check_bool_conversion)
    __int__ = functools.partialmethod(_to_python, int, core.check_scalar_conversion)
    __float__ = functools.partialmethod(_to_python, float, core.check_scalar_conversion)
    __complex__ = functools.partialmethod(_to_python, complex, core.check_scalar_conversion)
    __index__ = functools.partialmethod(_to_python, operator.index,
                                        core.check_integer_conversion)

    def __format__(self, format_spec):
        # Like NumPy: 0-d arrays format as their scalar, so f"{x:.3f}" works.
        return format(self._value[()] if self.ndim == 0 else self._value, format_spec)

    def _has_whole_value(self) -> bool:
        """Whether this process holds every element (not so for an array spread over
        several processes' devices, unless each holds a full copy)."""
        return self.is_fully_addressable or self.is_fully_replicated

    def __repr__(self):
        if not self._has_whole_value():
            weak = ", weak_type=True" if self.aval.weak_type else ""
            return f"Array(shape={self.shape}, dtype={self.dtype.name}{weak})"
        return core.array_repr("Array(", self.aval, lambda: self._value)

    def __str__(self):
        return str(self._value) if self._has_whole_value() else repr(self)


def _unpickle_array(value: np.ndarray, weak_type: bool):
    return runtime.device_put(value, aval=core.ShapedArray(value.shape, value.dtype,
                                                           weak_type))


runtime.install_methods(ArrayImpl, _ArrayMethods)
