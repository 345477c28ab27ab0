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

# Types NumPy lacks (from ml_dtypes): narrow floats and sub-byte integers.
float8_e3m4 = _make_scalar_type(dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type(dtypes.float8_e4m3)
float8_e4m3b11fnuz = _make_scalar_type(dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _make_scalar_type(dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type(dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type(dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type(dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _make_scalar_type(dtypes.float8_e8m0fnu)
float6_e2m3fn = _make_scalar_type(dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type(dtypes.float6_e3m2fn)
float4_e2m1fn = _make_scalar_type(dtypes.float4_e2m1fn)
int1 = _make_scalar_type(dtypes.int1)
int2 = _make_scalar_type(dtypes.int2)
int4 = _make_scalar_type(dtypes.int4)
uint1 = _make_scalar_type(dtypes.uint1)
uint2 = _make_scalar_type(dtypes.uint2)
uint4 = _make_scalar_type(dtypes.uint4)


_DTYPE_KINDS = {
    "bool": {np.dtype(bool)},
    "signed integer": {*dtypes._SIGNED_SUB_BYTE,
                       *map(np.dtype, (np.int8, np.int16, np.int32, np.int64))},
    "unsigned integer": {*dtypes._UNSIGNED_SUB_BYTE,
                         *map(np.dtype, (np.uint8, np.uint16, np.uint32, np.uint64))},
    "real floating": {*dtypes._CUSTOM_FLOATS, *map(np.dtype, (np.float16, np.float32,
                                                             np.float64))},
    "complex floating": {np.dtype(np.complex64), np.dtype(np.complex128)},
}
_DTYPE_KINDS["integral"] = _DTYPE_KINDS["signed integer"] | _DTYPE_KINDS["unsigned integer"]
_DTYPE_KINDS["numeric"] = (_DTYPE_KINDS["integral"] | _DTYPE_KINDS["real floating"]
                           | _DTYPE_KINDS["complex floating"])


def isdtype(dtype, kind):
    """The array API's dtype test: is ``dtype`` of ``kind`` (a dtype, one of the names
    ``'bool'``, ``'signed integer'``, ``'unsigned integer'``, ``'integral'``,
    ``'real floating'``, ``'complex floating'``, ``'numeric'``, or a tuple of these)?"""
    the_dtype = np.dtype(dtype)
    options = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _DTYPE_KINDS:
            options |= _DTYPE_KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as e:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of "
                                 f"{list(_DTYPE_KINDS)}, or a compatible input for "
                                 "jnp.dtype()") from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}"
                            ) from e
    return the_dtype in options
