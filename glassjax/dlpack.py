"""``jax.dlpack``: take arrays from other libraries without copying them.

DLPack is a small C struct (data pointer, device, dtype, shape, strides) that array
libraries hand each other inside a Python capsule: ``x.__dlpack__()``. jaxlib wraps the
memory it describes in a device array; when the data is suitably aligned the two share
one buffer, so no bytes move (and a later in-place change by the other library shows
through, which is why JAX warns not to do that).
"""
from __future__ import annotations

import enum

import numpy as np

from glassjax import dtypes
from glassjax.errors import JaxRuntimeError
from glassjax.xla import runtime

__all__ = ["from_dlpack", "is_supported_dtype"]


class DLDeviceType(enum.IntEnum):
    """Where a DLPack tensor lives (``__dlpack_device__()[0]``): the codes this
    runtime can read."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


_PLATFORMS = {DLDeviceType.kDLCPU: "cpu", DLDeviceType.kDLCUDA: "cuda",
              DLDeviceType.kDLCUDAHost: "cpu", DLDeviceType.kDLROCM: "rocm"}

SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128,
    np.bool_))


def is_supported_dtype(dtype) -> bool:
    """Whether arrays of ``dtype`` can pass through DLPack."""
    if dtype is None:     # (NumPy would silently read None as float64)
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    return np.dtype(dtype) in SUPPORTED_DTYPES


def from_dlpack(external_array, device=None, copy: bool | None = None):
    """An Array holding ``external_array``'s data (anything with ``__dlpack__`` and
    ``__dlpack_device__``), sharing its buffer unless a copy is asked for
    (``copy=True``) or needed (another ``device``, a misaligned buffer, or a dtype that
    canonicalizes, e.g. int64 without x64)."""
    if hasattr(device, "device_set"):
        if len(device.device_set) > 1:
            raise ValueError("from_dlpack can only unpack a dlpack tensor onto a singular "
                             f"device, but a Sharding with {len(device.device_set)} devices "
                             "was provided.")
        device, = device.device_set
    if not (hasattr(external_array, "__dlpack__") and
            hasattr(external_array, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    dl_device_type, device_id = external_array.__dlpack_device__()
    try:
        platform = _PLATFORMS[DLDeviceType(dl_device_type)]
    except (KeyError, ValueError):
        raise TypeError("Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {dl_device_type}, array: {external_array}") from None
    source = runtime.get_backend(platform).device_from_local_hardware_id(device_id)
    if device and device != source and copy is not None and not copy:
        raise ValueError(f"Specified {device=} which requires a copy since the source "
                         f"device is {source!r}, however copy=False. Set copy=True or "
                         "copy=None to perform the requested operation.")
    capsule = external_array.__dlpack__(stream=None)
    try:
        arr = runtime.from_dlpack(capsule, source, copy, int(dl_device_type))
    except JaxRuntimeError as err:
        message = str(err)
        if "is not aligned to" not in message:
            raise
        raise ValueError("Specified input which requires a copy since the source data "
                         f"buffer {message[message.index('is not aligned to'):]} However "
                         "copy=False. Set copy=True or copy=None to perform the requested "
                         "operation.") from None
    canonical = dtypes.canonicalize_dtype(arr.dtype)
    if canonical != arr.dtype:      # e.g. int64 without x64: a converted copy
        arr = runtime.device_put(runtime.to_numpy(arr).astype(canonical), source)
    if device and device != source:
        return runtime.device_put(arr, device, committed=True)
    if copy:    # (jaxlib 0.10.2 shares an aligned CPU buffer even when asked to copy,
        # and so does a device-to-device copy of it: the copy is made on the host)
        return runtime.device_put(runtime.to_numpy(arr).copy(), source)
    return arr
