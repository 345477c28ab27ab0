"""What the Python array API standard (https://data-apis.org/array-api/) asks a library
to say about itself: ``x.__array_namespace__()`` (the module of functions that work on
``x``, so code written against the standard finds ``jax.numpy`` without importing it) and
``jnp.__array_namespace_info__()`` (its devices, dtypes and capabilities)."""
from __future__ import annotations

import types

import numpy as np

from glassjax import dtypes
from glassjax.config import config
from glassjax.numpy.scalar_types import isdtype
from glassjax.xla import runtime

__array_api_version__ = "2024.12"

# ``glassjax.numpy`` registers itself here when it is imported (it sits above this module).
namespace: types.ModuleType | None = None

# The standard's dtypes, in its order; the 64-bit ones only with jax_enable_x64.
_API_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float32", "float64", "complex64", "complex128"]
_X64_ONLY = {"int64", "uint64", "float64", "complex128"}


def __array_namespace__(self, *, api_version: None | str = None):
    """The array API namespace of a JAX array: ``jax.numpy``."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"{api_version=!r} is not available; "
                         f"available versions are: {[__array_api_version__]}")
    return namespace


def __array_namespace_info__() -> ArrayNamespaceInfo:
    return ArrayNamespaceInfo()


class ArrayNamespaceInfo:
    """The array API's inspection object (``jnp.__array_namespace_info__()``)."""

    def capabilities(self):
        # Inside transformations shapes cannot depend on data; XLA allows 64 dimensions.
        return {"boolean indexing": False, "data-dependent shapes": False,
                "max dimensions": 64}

    def default_device(self):
        return None          # arrays are uncommitted: JAX chooses where they live

    def devices(self):
        return [None, *runtime.devices()]

    def default_dtypes(self, *, device=None):
        del device           # the same on every device
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(),
                "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device=None, kind: str | tuple[str, ...] | None = None):
        """The standard's dtypes of ``kind`` (all numeric ones and bool by default)."""
        del device
        kinds = ("numeric", "bool") if kind is None else kind
        names = [n for n in _API_DTYPES if config.jax_enable_x64 or n not in _X64_ONLY]
        return {n: np.dtype(n) for n in names if isdtype(n, kinds)}
