"""The runtime: XLA clients, devices, device arrays, compilation and execution.

This is the only module that talks to jaxlib's client and array internals. The rest of
glassjax sees five ideas:

* a *backend* is a jaxlib ``Client`` for one platform ("cpu", "gpu", ...) with its devices;
* a device array (``glassjax.Array``) is jaxlib's C++ ``ArrayImpl``: buffers on one or more
  devices, an aval, and a *sharding* saying which device holds which piece;
* ``device_put`` copies host data (NumPy arrays, scalars) into a device array;
* ``compile`` turns a StableHLO module into a ``LoadedExecutable`` for some devices;
* ``execute`` runs an executable on device arrays and wraps its output buffers as arrays.

jaxlib was written for JAX, and its C++ calls back into Python in a few places that JAX
fills in: methods of the sharding classes, and imports of ``jax.core`` and
``jax._src.sharding_impls`` when it reads an array back or splits it into per-device
pieces. This module fills those places with glassjax's objects, so that ``jax`` is never
imported, even when it is installed.
"""
from __future__ import annotations

import contextlib
import os
import sys
import types
import warnings
from typing import Sequence

import numpy as np
from jaxlib import _jax
from jaxlib import utils as jaxlib_utils
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, sdy, stablehlo

from glassjax import caches, core, dtypes
from glassjax.config import config, cpu_device_count
from glassjax.slots import Slot, Slots
from glassjax.xla import compilation_cache, compiler

# XLA's C++ logs every device it creates at INFO level. Like JAX, show only warnings and
# errors unless $TF_CPP_MIN_LOG_LEVEL says otherwise (0 = everything).
jaxlib_utils.absl_set_min_log_level(int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "1")))

Device = xc.Device
Client = xc.Client
Array = xc.Array              # base class of ArrayImpl, for isinstance checks
ArrayImpl = xc.ArrayImpl      # the device array (see glassjax/array.py)
LoadedExecutable = xc.LoadedExecutable
DeviceList = _jax.DeviceList  # a tuple of devices that jaxlib's C++ shardings hold


def set_tracer_class(tracer_class: type) -> None:
    """Make ``isinstance(t, Array)`` true for instances ``t`` of ``tracer_class`` whose
    ``t._is_traced_array()`` returns True (jaxlib's metaclass asks them)."""
    _jax.set_tracer_class(tracer_class)


def install_methods(cpp_class: type, methods: type) -> type:
    """Copy the attributes defined in the Python class ``methods`` onto ``cpp_class``.

    jaxlib's C++ classes (arrays, shardings) carry the data; the behaviour users see is
    written in Python and attached to them, the way JAX's ``use_cpp_class`` does it.
    Attaching (rather than subclassing) matters because jaxlib creates the objects itself,
    e.g. the outputs of a computation, and it always creates the C++ class."""
    for klass in reversed(methods.__mro__[:-1]):      # base classes first, not object
        for name, value in vars(klass).items():
            if name not in ("__module__", "__dict__", "__weakref__", "__doc__"):
                setattr(cpp_class, name, value)
    return cpp_class


# ----------------------------------------------------------------------------------------
# Backends and devices
# ----------------------------------------------------------------------------------------

# JAX calls every CUDA/ROCm client "gpu"; plugins are named by their PJRT name.
_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu"}

_backends: dict[str, Client] | None = None  # platform -> client, default platform first

# A multi-process run (``glassjax.distributed.initialize``) joins the CPU client to the
# other processes: it sets the distributed-runtime client, this process's node id, the
# number of nodes and the cross-process collectives here, before any client exists.
_cpu_client_options: dict = {}


def set_cpu_client_options(**options) -> None:
    """Options for the CPU client about to be created (``distributed_client``,
    ``node_id``, ``num_nodes``, ``collectives`` of ``xc.make_cpu_client``)."""
    if _backends is not None:
        raise RuntimeError("the CPU client already exists; its options are fixed")
    _cpu_client_options.update(options)


def backends_are_initialized() -> bool:
    return _backends is not None


def _make_cpu_client() -> Client:
    return xc.make_cpu_client(num_devices=cpu_device_count(), **_cpu_client_options)


def _plugin_client_factories() -> dict:
    """PJRT plugins (GPU, TPU, ...) named in ``PJRT_NAMES_AND_LIBRARY_PATHS``
    ("name:path,name:path"), the jax-free way JAX also supports to load them."""
    factories = {}
    for entry in filter(None, os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", "").split(",")):
        name, path = entry.split(":", 1)

        def factory(name=name, path=path):
            xc.load_pjrt_plugin_dynamically(name, path)
            xc.initialize_pjrt_plugin(name)
            return xc.make_c_api_client(name)
        factories[_PLATFORM_ALIASES.get(name, name)] = factory
    return factories


def _make_backends() -> dict[str, Client]:
    """Create the clients, honouring ``jax_platforms`` ("cpu", "cuda,cpu", ...): only the
    listed platforms, the first one being the default. Without it, every platform that
    initialises; plugins (accelerators) before the CPU."""
    factories = {**_plugin_client_factories(), "cpu": _make_cpu_client}
    if config.jax_platforms:
        wanted = [_PLATFORM_ALIASES.get(p.strip(), p.strip())
                  for p in config.jax_platforms.split(",")]
        for platform in wanted:
            if platform not in factories:
                raise RuntimeError(
                    f"Unable to initialize backend '{platform}': Backend '{platform}' is "
                    f"not in the list of known backends: {list(factories)}. (set "
                    "JAX_PLATFORMS='' to automatically choose an available backend)")
        return {platform: factories[platform]() for platform in wanted}
    backends = {}
    for platform, factory in factories.items():
        try:
            backends[platform] = factory()
        except Exception as err:
            if platform == "cpu":
                raise
            warnings.warn(f"Platform '{platform}' failed to initialize, skipping it: {err}")
    return backends


def backends() -> dict[str, Client]:
    """All initialised clients by platform, created on first use."""
    global _backends
    if _backends is None:
        _backends = _make_backends()
    return _backends


def get_backend(platform: str | Client | None = None) -> Client:
    if isinstance(platform, Client):
        return platform
    available = backends()
    if platform is None:
        return next(iter(available.values()))
    client = available.get(_PLATFORM_ALIASES.get(platform, platform))
    if client is None:
        if platform == "gpu":
            raise RuntimeError(
                f"Unknown backend: '{platform}' requested, but no platforms that are "
                f"instances of {platform} are present. Platforms present are: "
                + ",".join(available))
        raise RuntimeError(f"Unknown backend {platform}. Available backends are "
                           f"{list(available)}")
    return client


def default_backend() -> str:
    """The platform computations run on by default, e.g. ``'cpu'``."""
    return get_backend().platform


def devices(backend=None) -> list[Device]:
    """All devices of a backend (all processes), ordered by id."""
    return get_backend(backend).devices()


def process_index(backend=None) -> int:
    return get_backend(backend).process_index()


def process_count(backend=None) -> int:
    return _process_count(get_backend(backend))


@caches.lru("xla.runtime._process_count", None, why="one entry per client")
def _process_count(client: Client) -> int:
    """(Fixed once a client exists; pmap asks on every call.)"""
    return max(d.process_index for d in client.devices()) + 1


def process_indices(backend=None) -> list[int]:
    """The indices of every process attached to the backend's devices."""
    return list(range(process_count(backend)))


def live_arrays(platform=None) -> list:
    """Every device array not yet freed on the backend (e.g. to find leaks)."""
    return get_backend(platform).live_arrays()


# JAX's old names for the process functions, kept with its deprecation warnings (their
# texts included).
def host_id(backend=None) -> int:
    warnings.warn("jax.process_index has been renamed to jax.process_index. This alias "
                  "will eventually be removed; please update your code.")
    return process_index(backend)


def host_count(backend=None) -> int:
    warnings.warn("jax.process_count has been renamed to jax.process_count. This alias "
                  "will eventually be removed; please update your code.")
    return process_count(backend)


def host_ids(backend=None) -> list[int]:
    warnings.warn("jax.process_indexs has been renamed to jax.process_indices. This alias "
                  "will eventually be removed; please update your code.")
    return process_indices(backend)


def print_environment_info(return_string: bool = False):
    """The versions and devices a bug report should mention (printed, or returned)."""
    import platform
    import textwrap
    import jaxlib.version

    from glassjax.version import __version__
    backend = get_backend()
    info = textwrap.dedent(f"""\
        glassjax: {__version__}
        jaxlib: {jaxlib.version.__version__}
        numpy:  {np.__version__}
        python: {sys.version.replace(chr(10), ' ')}
        device info: {backend.platform}-{backend.device_count()}, \
{backend.local_device_count()} local devices"
        process_count: {process_count()}
        platform: {platform.uname()}
        """)
    if return_string:
        return info
    print(info)


def local_devices(process_index: int | None = None, backend=None) -> list[Device]:
    """The devices attached to one process (this one by default)."""
    if process_index is None:
        process_index = get_backend(backend).process_index()
    if not 0 <= process_index < process_count(backend):
        raise ValueError(f"Unknown process_index {process_index}")
    return [d for d in devices(backend) if d.process_index == process_index]


def device_count(backend=None) -> int:
    return get_backend(backend).device_count()


def local_device_count(backend=None) -> int:
    return get_backend(backend).local_device_count()


def default_device() -> Device:
    """Where uncommitted data and computations go: ``jax_default_device`` if set (a
    device or a platform name), else the first local device."""
    chosen = config.jax_default_device
    if chosen is None:
        return _first_local_device()
    return devices(chosen)[0] if isinstance(chosen, str) else chosen


@caches.lru("xla.runtime._first_local_device", None, why="one device")
def _first_local_device() -> Device:
    return local_devices()[0]


# ----------------------------------------------------------------------------------------
# Shardings
# ----------------------------------------------------------------------------------------
# jaxlib's C++ sharding classes hold the device list (the C++ code reads it); the Python
# properties below are what glassjax and jaxlib's ``batched_device_put`` ask of them.
# Two kinds are enough here: a SingleDeviceSharding (the whole array on one device) and a
# GSPMDSharding (an XLA HloSharding over a device list: tiled or replicated).

class ShardingMethods:
    """Behaviour shared by both sharding classes (via ``_device_assignment``)."""

    @property
    def device_set(self) -> set:
        return set(self._device_assignment)

    @property
    def num_devices(self) -> int:
        return len(self._device_assignment)

    @property
    def memory_kind(self):
        return self._memory_kind

    @property
    def is_fully_addressable(self) -> bool:
        return all(d.process_index == d.client.process_index()
                   for d in self._device_assignment)

    def addressable_devices_indices_map(self, global_shape) -> dict:
        """``devices_indices_map`` for this process's devices only."""
        return {d: index for d, index in self.devices_indices_map(global_shape).items()
                if d.process_index == d.client.process_index()}

    # Two shardings are equal when they put the same pieces on the same devices.
    def __hash__(self):
        return hash((self._device_assignment, self._to_xla_hlo_sharding(0)))

    def __eq__(self, other):
        return (type(other) is type(self) and
                self._device_assignment == other._device_assignment and
                self._to_xla_hlo_sharding(0) == other._to_xla_hlo_sharding(0) and
                self.memory_kind == other.memory_kind)


class _SingleDeviceShardingMethods(ShardingMethods):
    @property
    def _device_assignment(self) -> tuple:
        return (self._device,)

    is_fully_replicated = True

    def devices_indices_map(self, global_shape) -> dict:
        return {self._device: (slice(None),) * len(global_shape)}

    def _to_xla_hlo_sharding(self, num_dimensions: int):
        return xc.HloSharding.replicate()

    def with_memory_kind(self, kind: str):
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self._memory_kind})"


class _GSPMDShardingMethods(ShardingMethods):
    @property
    def _device_assignment(self) -> tuple:
        return tuple(self._devices)

    @property
    def is_fully_replicated(self) -> bool:
        return self._hlo_sharding.is_replicated()

    def devices_indices_map(self, global_shape) -> dict:
        """Device -> index (a tuple of slices) of the piece it holds. The HloSharding
        splits each dimension into ``tile_dims[i]`` equal tiles, and lists the devices in
        row-major order of tiles."""
        hlo = self._hlo_sharding
        if hlo.is_replicated():
            return {d: (slice(None),) * len(global_shape) for d in self._devices}
        tile_dims = hlo.tile_assignment_dimensions()
        if hlo.replicate_on_last_tile_dim():
            tile_dims = tile_dims[:-1]
        repeats = len(hlo.tile_assignment_devices()) // int(np.prod(tile_dims))
        indices = {}
        for position, device_index in enumerate(hlo.tile_assignment_devices()):
            tile = [int(t) for t in np.unravel_index(position // repeats, tile_dims)]
            indices[self._devices[device_index]] = tuple(
                slice(None) if tiles == 1 else
                slice(t * (size // tiles), (t + 1) * (size // tiles))
                for t, tiles, size in zip(tile, tile_dims, global_shape))
        return indices

    def _to_xla_hlo_sharding(self, num_dimensions: int):
        return self._hlo_sharding

    def with_memory_kind(self, kind: str):
        return GSPMDSharding(self._devices, self._hlo_sharding, memory_kind=kind)

    def __repr__(self):
        return f"GSPMDSharding({self._hlo_sharding!r}, memory_kind={self._memory_kind})"


Sharding = xc.Sharding     # the base class of both
SingleDeviceSharding = install_methods(xc.SingleDeviceSharding, _SingleDeviceShardingMethods)
GSPMDSharding = install_methods(xc.GSPMDSharding, _GSPMDShardingMethods)


def split_sharding(devices: Sequence[Device], ndim: int) -> GSPMDSharding:
    """Axis 0 split evenly over ``devices`` (device i holds block i): the layout of
    pmapped values."""
    return GSPMDSharding(list(devices), xc.HloSharding.iota_tile([len(devices)] +
                                                                 [1] * (ndim - 1)))


def replicated_sharding(devices: Sequence[Device]) -> GSPMDSharding:
    """A full copy of the array on every device."""
    return GSPMDSharding(list(devices), xc.HloSharding.replicate())


def _as_sharding(device_or_sharding, x=None):
    """A device, sharding or memory space (``jax.memory.Space``: the same layout as
    ``x`` has, or the default device's, in that memory) as a sharding."""
    if isinstance(device_or_sharding, Device):
        return SingleDeviceSharding(device_or_sharding)
    if isinstance(device_or_sharding, core.MemorySpace):
        layout = x._sharding if isinstance(x, ArrayImpl) else \
            SingleDeviceSharding(default_device())
        return layout.with_memory_kind(core.mem_space_to_kind(device_or_sharding))
    return device_or_sharding


# ----------------------------------------------------------------------------------------
# jaxlib's imports of jax
# ----------------------------------------------------------------------------------------
# When jaxlib's C++ makes a single-device array out of a piece of another one, which it
# does whenever an array is read back to the host or split into per-device pieces, it
# imports ``jax.core`` (for ``ShapedArray``, the piece's aval; the first answer is cached
# for good) and ``jax._src.sharding_impls`` (for ``make_single_device_sharding``). Without
# jax these imports fail and the pieces get aval None; with jax installed they would load
# all of jax. So around such calls we answer them with glassjax's own objects.

def _module(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


_JAXLIB_IMPORT_ANSWERS = {
    "jax": _module("jax", __path__=[]),
    "jax._src": _module("jax._src", __path__=[]),
    "jax.core": _module("jax.core", ShapedArray=core.ShapedArray),
    "jax._src.sharding_impls": _module(
        "jax._src.sharding_impls",
        make_single_device_sharding=lambda device, memory_kind=None:
            SingleDeviceSharding(device, memory_kind=memory_kind)),
}


def answer_jaxlib_import(name: str, **attributes) -> None:
    """Add an answer for jaxlib's import of ``name`` (a ``jax._src`` module): a layer
    above the runtime registers what only it knows, e.g. ``check_pspec``, which the C++
    ``NamedSharding`` constructor calls."""
    _JAXLIB_IMPORT_ANSWERS[name] = _module(name, **attributes)


@contextlib.contextmanager
def answering_jaxlib_imports():
    """Put our answers in ``sys.modules`` for the duration (then remove them, so a later
    ``import jax`` by the user is unaffected). Modules already imported (jax itself, or
    a ``jax`` alias of glassjax) are left be."""
    added = [name for name in _JAXLIB_IMPORT_ANSWERS if name not in sys.modules]
    sys.modules.update({name: _JAXLIB_IMPORT_ANSWERS[name] for name in added})
    try:
        yield
    finally:
        for name in added:
            del sys.modules[name]


# ----------------------------------------------------------------------------------------
# Device arrays
# ----------------------------------------------------------------------------------------

class _Hooks(Slots):
    """What device arrays need from the sharding layer above."""
    typed_aval = Slot("glassjax.named_sharding", "typed_aval(aval, sharding): the aval of "
                      "an array laid out by sharding (over a mesh of Explicit axes the "
                      "type records the split)")


hooks = _Hooks()


class InvalidInputError(TypeError):
    """A value with no device representation (a ``ShapeDtypeStruct``, say); ``value`` is
    it, so that a caller that knows the argument's name can say which one it was."""

    def __init__(self, value):
        super().__init__(f"Argument '{value}' of type {type(value)} is not a valid JAX type")
        self.value = value


def _host_aval(x) -> core.ShapedArray:
    """The aval a host value gets on the device: canonical dtype (float64 becomes float32
    unless x64 is on), weak type for Python scalars."""
    if not (isinstance(x, (np.ndarray, np.generic)) or type(x) in dtypes.python_scalar_dtypes):
        raise InvalidInputError(x)
    return core.get_aval(x)


def check_not_deleted(x: ArrayImpl) -> None:
    """Raise JAX's error for a deleted or donated array. jaxlib's C++ does not check
    every entry point (moving a freed buffer to another device, or exporting it by
    DLPack, crashes the process), so every function here that hands an array's buffers
    to jaxlib calls this first."""
    if x.is_deleted():
        raise RuntimeError(f"Array has been deleted with shape={x.aval.str_short()}.")


def device_put(x, device=None, *, committed: bool = False,
               aval: core.ShapedArray | None = None) -> ArrayImpl:
    """Put ``x`` (NumPy array, NumPy or Python scalar, or device array) on ``device``: a
    Device, a sharding, a memory space (``x``'s layout in that memory of its devices), or
    None for the default device (an Array then stays where it is).

    A *committed* array is pinned to its devices: computations on it run there, and
    mixing arrays committed to different devices is an error. ``committed=True`` commits
    the result; otherwise host data gives an uncommitted array and an Array keeps its own
    commitment. ``aval`` overrides the aval (e.g. to mark a NumPy array weakly typed)."""
    if isinstance(x, ArrayImpl):
        return x if device is None and not committed else _move(x, device, committed)
    aval = aval or _host_aval(x)
    if aval.dtype == dtypes.float0:     # float0 has no bytes; XLA holds it as bools
        aval, x = aval.update(dtype=np.bool_), np.zeros(aval.shape, np.bool_)
    value = dtypes.coerce_to_array(x, aval.dtype)      # checks Python ints fit
    sharding = _as_sharding(device or default_device(), x)
    pieces = sharding.devices_indices_map(aval.shape)   # device -> index of its piece
    # (jaxlib takes the pieces in the order of the sharding's device list)
    devices = [d for d in sharding._device_assignment if d in pieces]
    aval = hooks.typed_aval(aval, sharding)
    return xc.batched_device_put(aval, sharding, [value[pieces[d]] for d in devices],
                                 devices, committed, enable_x64=config.jax_enable_x64)


def same_pieces(a: Sharding, b: Sharding, ndim: int) -> bool:
    """Whether shardings ``a`` and ``b`` cut an ``ndim``-dimensional array into the same
    pieces and give the i-th device of each list the same piece (the devices themselves
    may differ)."""
    if a.num_devices != b.num_devices:
        return False
    if a.num_devices == 1:                  # (the common case, kept quick)
        return True
    ha, hb = a._to_xla_hlo_sharding(ndim), b._to_xla_hlo_sharding(ndim)
    return ha == hb or ha.is_replicated() and hb.is_replicated()


def same_layout(a: Sharding, b: Sharding, ndim: int) -> bool:
    """Whether ``a`` and ``b`` put the same piece on each device (JAX's
    ``Sharding.is_equivalent_to``): ``NamedSharding(mesh, P('x'))`` and the
    ``GSPMDSharding`` XLA reports for it are the same layout."""
    return (a is b or a._device_assignment == b._device_assignment and
            a.memory_kind == b.memory_kind and same_pieces(a, b, ndim))


def _move(x: ArrayImpl, device, committed: bool) -> ArrayImpl:
    """``x`` laid out as ``device`` (a Device or sharding) says. jaxlib can only move
    whole pieces between devices; a different cut of the array goes via the host."""
    check_not_deleted(x)
    source = x._sharding
    target = source if device is None else _as_sharding(device, x)
    if not same_pieces(source, target, x.ndim):
        return device_put(to_numpy(x), target, committed=committed or x._committed,
                          aval=x.aval)
    if target != source:
        x, = xc.batched_copy_array_to_devices_with_sharding(
            [x], [DeviceList(target._device_assignment)], [target],
            [xc.ArrayCopySemantics.REUSE_INPUT])
    aval = hooks.typed_aval(x.aval, target)
    if (committed and not x._committed) or aval is not x.aval:
        # the same buffers in a new array: committed, or of the new layout's type
        x = ArrayImpl(aval, target, shards(x), committed or x._committed, True)
    return x


def copy_array(x: ArrayImpl) -> ArrayImpl:
    """A new device array with its own buffers, on the same devices."""
    check_not_deleted(x)
    sharding = x._sharding
    copy, = xc.batched_copy_array_to_devices_with_sharding(
        [x], [DeviceList(sharding._device_assignment)], [sharding],
        [xc.ArrayCopySemantics.ALWAYS_COPY])
    return copy


def committed_devices(args, arg_names=None, fun_name="") -> tuple | None:
    """The devices committed arrays among ``args`` pin a computation to (an error if they
    disagree), in their sharding's order, or None when no argument is committed (the
    computation then runs on the default device and its results are uncommitted too).
    The error names the first two arguments that disagree, by ``arg_names`` and as
    arguments of ``fun_name``."""
    committed = [(i, a) for i, a in enumerate(args) if isinstance(a, ArrayImpl) and
                 a._committed]
    if not committed:
        return None
    first = committed[0][1]._sharding._device_assignment
    j = next((j for j, a in committed if a._sharding._device_assignment != first), None)
    if j is not None:
        i = committed[0][0]

        def describe(k):
            devices = args[k]._sharding._device_assignment
            name = arg_names[k] if arg_names is not None else ""
            return (f"argument {name} of {fun_name} with shape {args[k].aval.str_short()} "
                    f"and with device ids {[d.id for d in devices]} on platform "
                    f"{devices[0].platform.upper()}")
        raise ValueError("Received incompatible devices for jitted computation. Got "
                         f"{describe(i)} and {describe(j)}")
    return tuple(first)


def shards(x: ArrayImpl) -> list[ArrayImpl]:
    """The per-device pieces of ``x`` (single-device arrays), in device-assignment order."""
    check_not_deleted(x)
    if isinstance(x._sharding, SingleDeviceSharding):
        return [x]
    with answering_jaxlib_imports():
        return x._arrays


def to_numpy(x: ArrayImpl) -> np.ndarray:
    """The value of ``x`` as a read-only NumPy array.

    On CPU, jaxlib can hand out a view of a device buffer without copying; a real copy
    (other platforms, or pieces assembled from several devices) is cached on the array,
    so reading an array twice transfers it once."""
    check_not_deleted(x)
    if x._npy_value is not None:
        return x._npy_value
    sharding = x._sharding
    if not sharding.is_fully_addressable and not sharding.is_fully_replicated:
        raise RuntimeError(
            "Fetching value for `jax.Array` that spans non-addressable (non process local) "
            "devices is not possible. You can use "
            "`jax.experimental.multihost_utils.process_allgather` to print the global "
            "array or use `.addressable_shards` method of jax.Array to inspect the "
            "addressable (process local) shards.")
    pieces = shards(x)
    with answering_jaxlib_imports():
        if len(pieces) == 1 or x._sharding.is_fully_replicated:
            value, did_copy = pieces[0]._single_device_array_to_np_array_did_copy()
        else:
            value, did_copy = np.empty(x.aval.shape, x.aval.dtype), True
            index_of = x._sharding.devices_indices_map(x.aval.shape)
            for piece in pieces:
                value[index_of[piece._sharding._device]], _ = (
                    piece._single_device_array_to_np_array_did_copy())
    value.flags.writeable = False
    if did_copy:
        x._npy_value = value
    return value


def start_copy_to_host(x: ArrayImpl) -> None:
    """Start transferring ``x`` to the host without waiting, so a later read is quick."""
    if x._npy_value is None:
        pieces = shards(x)
        with answering_jaxlib_imports():
            for piece in pieces:
                piece._copy_single_device_array_to_host_async()


def to_dlpack(x: ArrayImpl, stream=None):
    """A DLPack capsule sharing ``x``'s buffer (single-device arrays only)."""
    check_not_deleted(x)
    with answering_jaxlib_imports():
        return _jax.buffer_to_dlpack_managed_tensor(x, stream=stream)


def from_dlpack(capsule, device: Device, copy: bool | None, device_type: int) -> ArrayImpl:
    """A device array on ``device`` holding a DLPack capsule's buffer (shared unless
    ``copy``; jaxlib raises ``JaxRuntimeError`` when it cannot share it)."""
    with answering_jaxlib_imports():      # (jaxlib builds the aval)
        return _jax.dlpack_managed_tensor_to_buffer(capsule, device, None, copy, device_type)


# ----------------------------------------------------------------------------------------
# Compiling and executing
# ----------------------------------------------------------------------------------------

_dialect_registry = ir.DialectRegistry()
_jax_mlir_ext.register_dialects(_dialect_registry)   # func, arith, ... (MLIR upstream)


def mlir_context() -> ir.Context:
    """A fresh MLIR context that knows the dialects glassjax emits: StableHLO, CHLO and
    Shardy (``sdy``) besides MLIR's own (``func``). Each module gets its own context, as
    in JAX, so types and attributes of old modules are not kept alive. Of MLIR's own
    dialects only ``func`` is loaded (the others in the registry load when a parsed text
    names them): loading them all took longer than lowering a small program."""
    context = ir.Context()
    context.append_dialect_registry(_dialect_registry)
    context.dialects["func"]        # (looking a dialect up loads it)
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    sdy.register_dialect(context)
    return context


def module_text(module: ir.Module, *, debug_info: bool = False) -> str:
    """The module as MLIR prints it (``str(module)``), printed faster: to bytes, as the
    printer writes each of the many small pieces of a line through a Python callback
    (decoding each costs more than the printing), and verified once up front rather
    than again by the printer. An invalid module prints as ``str`` shows it: in the
    generic form the verifier's errors refer to."""
    try:
        module.operation.verify()
    except ir.MLIRError:
        return module.operation.get_asm(enable_debug_info=debug_info)
    return module.operation.get_asm(binary=True, assume_verified=True,
                                    enable_debug_info=debug_info).decode()


def refine_polymorphic_shapes(module: ir.Module) -> ir.Module:
    """A module whose ``main`` has static shapes but whose functions compute with dynamic
    ones (it calls a shape-polymorphic exported function), with every shape made static
    by jaxlib's shape refinement, which also checks the ``shape_assertion``s."""
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            module.operation.get_asm(binary=True), enable_shape_assertions=True,
            validate_static_shapes=True, enable_shardy=True)
    except Exception as err:
        raise ValueError(f"Error refining shapes. {err}") from err
    with mlir_context():
        return ir.Module.parse(refined)


def serialize_portable_artifact(module: ir.Module, target_version: str) -> bytes:
    """``module`` as a StableHLO portable artifact readable by releases back to
    ``target_version`` (what ``Exported.mlir_module_serialized`` holds)."""
    return _jax.mlir.serialize_portable_artifact(module, target_version, False)


def approx_top_k_output_size(input_size: int, rank: int, k: int, recall_target: float,
                             aggregate_to_topk: bool, input_size_override: int) -> int:
    """How many candidates XLA's approximate top-k keeps along the reduced axis (it
    depends on XLA's own partitioning of the search)."""
    return _jax.approx_top_k_reduction_output_size(
        input_size, rank, k, recall_target, aggregate_to_topk, input_size_override)[0]


def compile(module: ir.Module | str, *, devices: Sequence[Device] | None = None,
            num_replicas: int = 1, num_partitions: int = 1,
            host_callbacks: Sequence = ()) -> LoadedExecutable:
    """Compile a StableHLO module (an ``ir.Module`` or its text) for ``devices``.

    ``num_replicas`` copies of the program run in lock step, one per device (the
    replica style of collectives such as ``stablehlo.all_reduce``); with
    ``num_partitions`` > 1 XLA's SPMD partitioner splits one program over the devices.
    ``host_callbacks`` are the Python functions the program's
    ``xla_ffi_python_cpu_callback`` custom calls invoke, by index; jaxlib keeps them alive
    as long as the executable."""
    if isinstance(module, str):
        with mlir_context():
            module = ir.Module.parse(module)
    devices = list(devices or [default_device()])
    if len(devices) != num_replicas * num_partitions:
        raise ValueError(f"compile: {len(devices)} devices given for {num_replicas} "
                         f"replicas x {num_partitions} partitions")
    options = xc.CompileOptions()
    options.num_replicas = num_replicas
    options.num_partitions = num_partitions
    options.device_assignment = xc.DeviceAssignment.create(
        np.array([d.id for d in devices]).reshape(num_replicas, num_partitions))
    # JAX's compile options for a jit, field for field (its ``get_compile_options``),
    # so both libraries compile with the same XLA settings: the SPMD partitioner is on
    # even for one device, and no feedback-directed profile is looked for.
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    build.memory_fitting_level = 29     # XLA's O2: JAX's default (jax_memory_fitting_level)
    options.profile_version = -1        # (JAX's "no profile, do not retrieve one")
    client, device_list = devices[0].client, DeviceList(tuple(devices))
    return compilation_cache.compile_or_load(
        lambda: module_text(module), options, client, device_list,
        lambda: compiler.backend_compile_and_load(client, module, device_list, options,
                                                  host_callbacks),
        cacheable=not host_callbacks)


# How XLA holds a token that enters or leaves a program: an empty buffer.
_TOKEN_BUFFER = core.ShapedArray((0,), np.bool_)


def execute(executable: LoadedExecutable, args: Sequence[ArrayImpl],
            out_avals: Sequence[core.ShapedArray], *, out_shardings=None,
            committed: bool = False, with_token: bool = False):
    """Run ``executable`` on device arrays already placed on its devices.

    On one device, arguments and results are ordinary arrays. On N devices each argument
    is a global array whose pieces sit on the executable's devices, laid out as the
    program expects; each result is the global array of aval ``out_avals[i]`` whose
    pieces the program left as ``out_shardings[i]`` says (needed unless the program
    runs on one device).
    Results are built by jaxlib's result handlers with our avals, which keeps jaxlib from
    constructing avals of its own (it would import ``jax.core`` for that). A float0
    result (the tangent of an integer) carries no data: like JAX, we return host zeros.
    With ``with_token`` the result is ``(arrays, token)``: ``token.block_until_ready()``
    waits for the whole execution, including host callbacks no output depends on."""
    if out_shardings is None:
        device, = executable.local_devices()
        out_shardings = [SingleDeviceSharding(device)] * len(out_avals)
    device_avals = [_TOKEN_BUFFER if aval is core.abstract_token    # tokens: no data
                    else aval.update(dtype=np.bool_) if aval.dtype == dtypes.float0
                    else aval.dtype.physical_aval(aval)   # typed keys: their words
                    if isinstance(aval.dtype, dtypes.ExtendedDType) else aval
                    for aval in out_avals]
    handlers = [xc.array_result_handler(aval, sharding, committed, _skip_checks=True)
                for aval, sharding in zip(device_avals, out_shardings)]
    execution = executable.execute_sharded(list(args), with_tokens=with_token)
    token = execution.consume_token() if with_token else None
    results = execution.consume_with_handlers(handlers)
    arrays = [core.Token(result) if aval is core.abstract_token
              else core.float0_zeros(aval.shape) if aval.dtype == dtypes.float0
              else aval.dtype.wrap_physical(result)
              if isinstance(aval.dtype, dtypes.ExtendedDType) else result
              for aval, result in zip(out_avals, results)]
    return (arrays, token) if with_token else arrays


def optimized_hlo_text(executable: LoadedExecutable) -> str:
    """The HLO XLA actually runs, after its optimisation passes (``Compiled.as_text()``)."""
    return executable.get_hlo_text()


def cost_analysis(executable: LoadedExecutable) -> dict:
    """XLA's cost estimates (flops, bytes accessed, ...) for the optimised program."""
    return executable.cost_analysis()


def memory_analysis(executable: LoadedExecutable):
    """XLA's memory estimates (argument, output, temporary bytes) for the program."""
    return executable.get_compiled_memory_stats()


def hlo_computation(module: ir.Module, *, tuple_args: bool = False,
                    return_tuple: bool = True, debug_info: bool = False):
    """The unoptimized XLA HLO of a StableHLO module (an ``XlaComputation`` with
    ``as_hlo_text()``), which the seeds' ``xla_computation`` returns (results as one
    tuple; ``lower(...).as_text("hlo")`` returns a single result bare). With
    ``debug_info``, XLA names instructions after the module's locations."""
    return _jax.mlir.mlir_module_to_xla_computation(
        module_text(module, debug_info=debug_info), use_tuple_args=tuple_args,
        return_tuple=return_tuple)
