"""``jnp.float32`` and friends: dtype names that also build arrays.

In NumPy ``np.float32(1)`` is a NumPy scalar. JAX has no scalars, only 0-d arrays, so
``jnp.float32(1)`` is ``jnp.asarray(1, dtype=float32)``. The names still work wherever a
dtype is expected (``jnp.zeros(3, jnp.int32)``, ``np.dtype(jnp.int8)``) because they
carry a ``dtype`` attribute, and ``isinstance(np.float32(1), jnp.float32)`` holds.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes


class _ScalarMeta(type):
    """The metaclass of the scalar types: calling one makes a 0-d (or larger) array."""

    @property
    def __numpy_dtype__(cls):
        return cls.dtype

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        from glassjax.numpy.array_creation import asarray
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)


def _make_scalar_type(np_scalar_type) -> _ScalarMeta:
    name = np.dtype(np_scalar_type).name
    meta = _ScalarMeta(name, (object,), {"dtype": np.dtype(np_scalar_type)})
    meta.__module__ = "glassjax.numpy"
    meta.__doc__ = (f"A JAX scalar constructor of type {name}: ``{name}(x)`` is a 0-d "
                    f"array of dtype {name}.")
    return meta


bool_ = _make_scalar_type(np.bool_)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
bfloat16 = _make_scalar_type(dtypes.bfloat16)
float16 = _make_scalar_type(np.float16)
float32 = single = _make_scalar_type(np.float32)
float64 = double = _make_scalar_type(np.float64)
complex64 = csingle = _make_scalar_type(np.complex64)
complex128 = cdouble = _make_scalar_type(np.complex128)

# NumPy's default-precision names are the 64-bit types (canonicalized to 32 bits when
# x64 is off, like any other 64-bit request).
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
