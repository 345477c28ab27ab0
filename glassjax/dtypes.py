"""Dtypes as JAX sees them: the supported set, x64 canonicalization, weak types and the
type promotion lattice.

JAX departs from NumPy in three ways, all implemented here:

* **x64 canonicalization.** Unless ``jax_enable_x64`` is on, 64-bit types are replaced by
  their 32-bit counterparts (int64 -> int32, float64 -> float32, ...), so the default
  precision matches what accelerators do well.
* **Weak types.** A Python scalar has no precision of its own: ``x + 1`` keeps ``x``'s
  dtype whatever it is. Python ``int``/``float``/``complex`` values (and arrays derived
  from them) are *weakly typed*; Python ``bool`` is not.
* **A promotion lattice** instead of NumPy's table: ``result_type`` is the least upper
  bound of the operands' types on a small directed graph, in which the weak types sit
  below every strong type of their kind. It never forms float64 from int32 + float32
  and never promotes across kinds in surprising ways.
"""
import os
import sys
import warnings

import ml_dtypes
import numpy as np

from glassjax import caches, shape_poly
from glassjax.config import config

# -- the dtypes --------------------------------------------------------------------------

bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128

# Types NumPy lacks, from ml_dtypes. Their scalar types do not sit in NumPy's class
# hierarchy (bfloat16 is not a subclass of np.floating), so ``issubdtype`` special-cases them.
bfloat16 = ml_dtypes.bfloat16
int1, uint1 = ml_dtypes.int1, ml_dtypes.uint1
int2, int4, uint2, uint4 = ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz
float6_e2m3fn, float6_e3m2fn = ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn
float4_e2m1fn = ml_dtypes.float4_e2m1fn

# The dtype of tangents of integer and boolean values: a vector space with one element,
# so it takes no memory (itemsize 0).
float0 = np.dtype([("float0", np.void, 0)])

_SIGNED_SUB_BYTE = [np.dtype(int1), np.dtype(int2), np.dtype(int4)]
_UNSIGNED_SUB_BYTE = [np.dtype(uint1), np.dtype(uint2), np.dtype(uint4)]
_SMALL_FLOATS = [np.dtype(t) for t in (
    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e3m4, float8_e4m3, float8_e8m0fnu,
    float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz)]
_CUSTOM_FLOATS = [*_SMALL_FLOATS, np.dtype(bfloat16)]

_VALID_DTYPES = {
    float0, np.dtype(bool), *_SIGNED_SUB_BYTE, *_UNSIGNED_SUB_BYTE, *_CUSTOM_FLOATS,
    *map(np.dtype, "i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16".split()),
}


class extended(np.generic):
    """Abstract scalar type of every extended dtype, for ``issubdtype(d, extended)``."""


class prng_key(extended):
    """Abstract scalar type of typed PRNG key dtypes."""


class ExtendedDType:
    """Base of dtypes NumPy cannot represent (e.g. typed PRNG keys). Subclasses set
    ``type`` (a subclass of ``extended``) and ``name``."""
    type = extended
    name = "extended"

    def __str__(self):
        return self.name


def iinfo(dtype):
    """``np.iinfo`` that also knows the sub-byte integers (int1 ... uint4)."""
    return ml_dtypes.iinfo(dtype)


def finfo(dtype):
    """``np.finfo`` that also knows bfloat16 and the 8/6/4-bit floats."""
    return ml_dtypes.finfo(dtype)


# -- x64 canonicalization ----------------------------------------------------------------

_TO_32_BIT = {np.dtype(a): np.dtype(b) for a, b in
              [("int64", "int32"), ("uint64", "uint32"),
               ("float64", "float32"), ("complex128", "complex64")]}


def canonicalize_dtype(dtype):
    """The dtype JAX actually uses for ``dtype``: 64-bit types become 32-bit ones unless
    ``jax_enable_x64`` is set (read at every call, so context managers work)."""
    return _canonicalize(config.jax_enable_x64, dtype)


@caches.lru("dtypes._canonicalize", None, why="one entry per dtype and x64 flag")
def _canonicalize(x64, dtype):
    if isinstance(dtype, ExtendedDType):
        return dtype
    dtype = np.dtype(dtype)
    return dtype if x64 else _TO_32_BIT.get(dtype, dtype)


def _typed_scalar_type(base, plain_str):
    """A subclass of the Python scalar type ``base`` whose values carry the dtype JAX gave
    them, e.g. ``TypedFloat(1.0, dtype=float32)``. JAX canonicalizes Python scalars into
    these (``vjp`` does it to its primals), so users meet them when a primal comes back
    unchanged. They stay weakly typed, as Python scalars; arithmetic gives plain scalars."""
    name = f"Typed{base.__name__.capitalize()}"

    def __new__(cls, value, dtype):
        typed = base.__new__(cls, value)
        typed.dtype = np.dtype(dtype)
        return typed

    namespace = {
        "__new__": __new__,
        "__repr__": lambda self: f"{name}({base(self)}, dtype={self.dtype.name})",
        "__getnewargs__": lambda self: (base(self), self.dtype),
    }
    if plain_str:                   # JAX prints only TypedFloat as a plain number
        namespace["__str__"] = lambda self: str(base(self))
    return type(name, (base,), namespace)


TypedInt = _typed_scalar_type(int, plain_str=False)
TypedFloat = _typed_scalar_type(float, plain_str=True)
TypedComplex = _typed_scalar_type(complex, plain_str=False)
typed_scalar_types = {int: TypedInt, float: TypedFloat, complex: TypedComplex}

# Python's scalar types and the (uncanonicalized) dtypes NumPy gives them.
python_scalar_dtypes = {bool: np.dtype(bool), int: np.dtype(int64),
                        float: np.dtype(float64), complex: np.dtype(complex128)}
python_scalar_dtypes.update({typed: python_scalar_dtypes[base]
                             for base, typed in typed_scalar_types.items()})
# A symbolic dimension is a (weakly typed) Python int that is only known at run time.
python_scalar_dtypes[shape_poly.DimExpr] = python_scalar_dtypes[int]


def default_int_dtype():
    return canonicalize_dtype(int64)


def default_float_dtype():
    return canonicalize_dtype(float64)


def default_complex_dtype():
    return canonicalize_dtype(complex128)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def canonicalize_explicit_dtype(dtype, fun_name=""):
    """Canonicalize a dtype the user asked for by name, warning (as JAX does) when a
    64-bit request is truncated because x64 is off."""
    dtype = np.dtype(dtype)
    canonical = canonicalize_dtype(dtype)
    if canonical != dtype:
        where = f" requested in {fun_name}" if fun_name else ""
        warnings.warn(
            f"Explicitly requested dtype {dtype}{where} is not available, and will be "
            f"truncated to dtype {canonical.name}. To enable more dtypes, set the "
            "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
            "variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
            UserWarning, stacklevel=_user_stacklevel())
    return canonical


def _user_stacklevel():
    """The ``stacklevel`` that attributes a warning to the first caller outside glassjax,
    so the message points at the user's line, however deep inside glassjax we are."""
    frame, level = sys._getframe(1), 1        # level 1 is our caller, which warns
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


# -- validation --------------------------------------------------------------------------

def _is_valid(dtype):
    return isinstance(dtype, ExtendedDType) or dtype in _VALID_DTYPES


def check_valid_dtype(dtype):
    if not _is_valid(dtype):
        raise TypeError(f"Dtype {dtype} is not a valid JAX array type. Only arrays of "
                        "numeric types are supported by JAX.")


def check_and_canonicalize_user_dtype(dtype, fun_name=None):
    """Validate a ``dtype=`` argument and return the dtype to use: Python types give the
    default dtype of their kind, 64-bit requests are truncated (with a warning) unless x64
    is on, and dtypes JAX cannot hold (object, str, ...) raise TypeError."""
    if dtype is None:
        raise ValueError("dtype must be specified.")
    if isinstance(dtype, ExtendedDType):
        return dtype
    if isinstance(dtype, type) and dtype in python_scalar_dtypes:    # (not np.dtype('int64'),
        return canonicalize_dtype(python_scalar_dtypes[dtype])       # which equals int)
    np_dtype = np.dtype(dtype)
    if np_dtype not in _VALID_DTYPES:
        where = f" in {fun_name}" if fun_name else ""
        raise TypeError("JAX only supports number, bool, and string dtypes, "
                        f"got dtype {dtype}{where}")
    return canonicalize_explicit_dtype(np_dtype, fun_name or "")


def check_python_int_in_range(value, dtype):
    """Python ints are unbounded; converting one to a fixed-width integer must not wrap."""
    info = iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python int {value} too large to convert to {np.dtype(dtype)}")


def coerce_to_array(x, dtype=None):
    """``np.asarray(x, dtype)`` with JAX's rules for Python scalars: without a dtype they
    take the default dtype of their kind (int32 unless x64), and Python ints that do not
    fit raise OverflowError instead of wrapping (NumPy's own error for a given dtype)."""
    if dtype is None and type(x) in python_scalar_dtypes:
        dtype = canonicalize_dtype(python_scalar_dtypes[type(x)])
        if type(x) is int:
            check_python_int_in_range(x, dtype)
    return np.asarray(x, dtype)


def typed_scalar(value, dtype):
    """A NumPy scalar of ``dtype`` holding ``value`` (a C-style cast, as
    ``lax.convert_element_type`` does: Python ints wrap, complex loses its imaginary part)."""
    return np.asarray(value).astype(dtype)[()]


# -- the dtype of a value ----------------------------------------------------------------

def dtype(x, canonicalize=True):
    """The dtype of anything JAX accepts: a Python scalar or scalar type, a NumPy or JAX
    array or scalar, an object with a ``dtype``, or a dtype-like ('float32', np.int8).

    Canonicalized by default, as in JAX; dtypes named explicitly (np.float64, 'float64')
    warn when x64 truncates them. ``canonicalize=False`` gives the dtype before
    canonicalization (a Python int is int64, as in NumPy)."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    aval = getattr(x, "aval", None)
    if aval is not None:    # arrays and tracers (the common case): the aval knows
        return canonicalize_dtype(aval.dtype) if canonicalize else aval.dtype
    explicit = False
    if isinstance(x, type) and x in python_scalar_dtypes:
        dt = python_scalar_dtypes[x]
    elif type(x) in python_scalar_dtypes:
        dt = python_scalar_dtypes[type(x)]
    elif isinstance(x, ExtendedDType):
        return x
    elif isinstance(x, (type, str, np.dtype)):
        dt, explicit = np.dtype(x), True
    elif isinstance(getattr(x, "dtype", None), (np.dtype, ExtendedDType)):
        dt = x.dtype
    else:
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if not _is_valid(dt):
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array type. "
                        "Only arrays of numeric types are supported by JAX.")
    if not canonicalize:
        return dt
    return canonicalize_explicit_dtype(dt, "dtype") if explicit else canonicalize_dtype(dt)


def is_weakly_typed(x):
    """Python int/float/complex values are weak, and so are values whose aval says so."""
    if type(x) in python_scalar_dtypes and type(x) is not bool:
        return True
    try:
        return x.aval.weak_type
    except AttributeError:
        return False


def is_python_scalar(x):
    """A Python scalar, or a rank-0 weakly typed value standing for one."""
    try:
        return x.aval.weak_type and np.ndim(x) == 0
    except AttributeError:
        return type(x) in python_scalar_dtypes


# -- the dtype hierarchy -----------------------------------------------------------------

def issubdtype(a, b):
    """``np.issubdtype`` that also places the ml_dtypes types and extended dtypes:
    bfloat16 is a floating type, int4 a signed integer, a PRNG key dtype a ``prng_key``."""
    return _issubdtype(a if isinstance(a, (type, np.dtype, ExtendedDType)) else np.dtype(a),
                       b if isinstance(b, (type, np.dtype, ExtendedDType)) else np.dtype(b))


@caches.lru("dtypes._issubdtype", 512)
def _issubdtype(a, b):
    if isinstance(b, ExtendedDType):
        return a == b
    a = a.type if isinstance(a, ExtendedDType) else _scalar_type(a)
    b = _scalar_type(b)
    if issubclass(b, extended) or issubclass(a, extended):
        return issubclass(a, b)
    for family, parents in _CUSTOM_FAMILIES:
        if a in family:
            return b is a or b in parents
    return bool(np.issubdtype(a, b))


def _scalar_type(t):
    return t if isinstance(t, type) and issubclass(t, np.generic) else np.dtype(t).type


# The ml_dtypes scalar types (grouped by family) and the NumPy abstract types above them.
_CUSTOM_FAMILIES = [
    ({d.type for d in _CUSTOM_FLOATS}, {np.floating, np.inexact, np.number, np.generic}),
    ({d.type for d in _SIGNED_SUB_BYTE}, {np.signedinteger, np.integer, np.number, np.generic}),
    ({d.type for d in _UNSIGNED_SUB_BYTE},
     {np.unsignedinteger, np.integer, np.number, np.generic}),
]


def _python_scalar_type(dtype):
    """The Python type whose values are weakly typed versions of ``dtype``'s kind."""
    for typ, kind in ((bool, np.bool_), (int, np.integer), (float, np.floating),
                      (complex, np.complexfloating)):
        if issubdtype(dtype, kind):
            return typ
    raise TypeError(f"Invalid scalar dtype {dtype}")


def tangent_dtype(dtype):
    """Tangents of integers and booleans (and of float0) are float0."""
    return dtype if issubdtype(dtype, np.inexact) else float0


def complex_real_dtype(dtype):
    """The dtype of the real/imaginary parts of a complex dtype (complex64 -> float32)."""
    return np.dtype(finfo(dtype).dtype)


def to_numeric_dtype(dtype):
    """bool becomes int32; numeric dtypes are unchanged."""
    dtype = np.dtype(dtype)
    return np.dtype(int32) if dtype == bool_ else dtype


def to_inexact_dtype(dtype):
    """The floating dtype that integers and bools promote to in e.g. ``jnp.sin``: float64
    for 64-bit integers, float32 for narrower ones; inexact dtypes are unchanged."""
    dtype = np.dtype(dtype)
    if issubdtype(dtype, np.inexact):
        return dtype
    return np.dtype(float64) if dtype.itemsize == 8 else np.dtype(float32)


def to_complex_dtype(dtype):
    wide = to_inexact_dtype(dtype) in (np.dtype(float64), np.dtype(complex128))
    return np.dtype(complex128) if wide else np.dtype(complex64)


_short_names = caches.table("dtypes.short_names", why="one entry per dtype")


def short_dtype_name(dtype):
    """The dtype names used in jaxpr types: f32, i8, u32, c64, bf16, bool, float0.
    (Remembered per dtype: a printed jaxpr asks once per variable.)"""
    name = _short_names.get(dtype)
    if name is None:
        if isinstance(dtype, ExtendedDType):
            return str(dtype)
        name = "float0" if dtype == float0 else (
            np.dtype(dtype).name.replace("float", "f").replace("uint", "u")
            .replace("int", "i").replace("complex", "c"))
        _short_names[dtype] = name
    return name


def dtype_to_string(dtype):
    """A dtype's name for error messages and avals (float0 is a void dtype to NumPy)."""
    if isinstance(dtype, np.dtype) and dtype == float0:
        return "float0"
    try:
        return np.dtype(dtype).name
    except TypeError:
        return getattr(dtype, "name", str(dtype))


# -- the promotion lattice ---------------------------------------------------------------

class TypePromotionError(ValueError):
    """Raised when JAX type promotion fails."""


def _lattice(strict, x64):
    """Each node of the promotion lattice -> the nodes immediately above it. Nodes are the
    strong dtypes plus the weak types, spelt as the Python types ``int``, ``float``,
    ``complex``."""
    b1 = np.dtype(bool)
    u8, u16, u32, u64, i8, i16, i32, i64 = map(np.dtype, "u1 u2 u4 u8 i1 i2 i4 i8".split())
    bf16, f16, f32, f64, c64, c128 = map(np.dtype, (bfloat16, "f2", "f4", "f8", "c8", "c16"))
    sub_byte_ints = _SIGNED_SUB_BYTE + _UNSIGNED_SUB_BYTE
    if strict:   # only weak types promote: to any type of their own or a higher kind
        ints = [u8, u16, u32, u64, i8, i16, i32, i64, *sub_byte_ints]
        floats = [*_CUSTOM_FLOATS, f16, f32, f64]
        return {int: [float, *ints], float: [complex, *floats], complex: [c64, c128],
                **{t: [] for t in [b1, *ints, *floats, c64, c128]}}
    return {
        b1: [int],
        int: [u8, i8, *sub_byte_ints],
        u8: [i16, u16], u16: [i32, u32],
        # With x64 off no promotion may create a 64-bit type from 32-bit inputs: there
        # uint32 + int32 gives int32 (as if uint32 sat below int32).
        u32: [i64, u64] if x64 else [i32, u64],
        u64: [float],
        i8: [i16], i16: [i32], i32: [i64], i64: [float],
        **{t: [] for t in sub_byte_ints + _SMALL_FLOATS},
        float: [*_SMALL_FLOATS, bf16, f16, complex],
        bf16: [f32], f16: [f32], f32: [f64, c64], f64: [c128],
        complex: [c64], c64: [c128], c128: [],
    }


@caches.lru("dtypes._upper_bounds", None, why="four lattices (strict or not, x64 or not)")
def _upper_bounds(strict, x64):
    """node -> every node reachable upwards from it (itself included)."""
    lattice = _lattice(strict, x64)

    def above(node):
        return {node}.union(*(above(n) for n in lattice[node]))
    return {node: above(node) for node in lattice}


@caches.lru("dtypes._least_upper_bound", 512)
def _least_upper_bound(strict, x64, *nodes):
    """The unique node that is above all ``nodes`` and below every other such node."""
    upper_bounds = _upper_bounds(strict, x64)
    for n in nodes:
        if n not in upper_bounds:
            raise ValueError(f"dtype={n!r} is not a valid dtype for JAX type promotion.")
    common = set.intersection(*(upper_bounds[n] for n in nodes))
    least = (common & set(nodes)) or {c for c in common if common <= upper_bounds[c]}
    if len(least) == 1:
        return least.pop()
    raise TypePromotionError(_no_promotion_message(strict, nodes))


def _no_promotion_message(strict, nodes):
    names = tuple(str(n) for n in nodes)
    prefix = f"Input dtypes {names} have no available implicit dtype promotion path"
    if strict:
        return (f"{prefix} when jax_numpy_dtype_promotion=strict. Try explicitly casting "
                "inputs to the desired output type, or set jax_numpy_dtype_promotion=standard.")
    small_float_bits = [n.name[5] for n in nodes if n in _SMALL_FLOATS]
    if small_float_bits:
        what = f"{max(small_float_bits)}-bit floats"     # 8 before 6 before 4, as in JAX
    elif any(n in _SIGNED_SUB_BYTE + _UNSIGNED_SUB_BYTE for n in nodes):
        what = "1-bit, 2-bit and 4-bit integers"
    else:
        return f"{prefix}. Try explicitly casting inputs to the desired output type."
    example = "float32" if small_float_bits else "int32"
    return (f"{prefix}. To avoid unintended promotion, {what} do not support implicit "
            "promotion. If you'd like your inputs to be promoted to another type, you can "
            f"do so explicitly using e.g. x.astype('{example}')")


def _weak_node(x):
    """Promote-types arguments: the Python types stand for weak types (checked by identity,
    since np.dtype('int64') == int), anything else is a dtype-like."""
    return x if any(x is t for t in (int, float, complex)) else np.dtype(x)


def scalar_type_of(x) -> type:
    """The Python scalar type standing for ``x``'s dtype (``float`` for bfloat16 too)."""
    typ = dtype(x)
    for kind, scalar_type in ((np.bool_, bool), (np.integer, int), (np.floating, float),
                              (np.complexfloating, complex)):
        if issubdtype(typ, kind):
            return scalar_type
    raise TypeError(f"Invalid scalar value {x}")


def itemsize_bits(dtype_like) -> int:
    """Bits per element, right for sub-byte types (int4: 4) where ``itemsize`` is not."""
    if dtype_like is None:
        raise ValueError("dtype cannot be None.")
    if np.dtype(dtype_like) == np.bool_:
        return 8
    if issubdtype(dtype_like, np.integer):
        return iinfo(dtype_like).bits
    if issubdtype(dtype_like, np.floating):
        return finfo(dtype_like).bits
    if issubdtype(dtype_like, np.complexfloating):
        return 2 * finfo(dtype_like).bits
    raise ValueError(f"unexpected input: dtype={dtype_like!r}")


def promote_types(a, b):
    """``jnp.promote_types``: the lattice join of two dtypes (Python scalar types count as
    weak). Not canonicalized: int + float gives float64, as in JAX."""
    strict = config.jax_numpy_dtype_promotion == "strict"
    return np.dtype(_least_upper_bound(strict, config.jax_enable_x64,
                                       _weak_node(a), _weak_node(b)))


def _lattice_node(dt, weak):
    """A weak dtype sits at its kind's weak node (bool has no weak version)."""
    return _python_scalar_type(dt) if weak and dt != bool_ else dt


def lattice_result_type(*args):
    """``(dtype, weak_type)`` of the result of an operation on ``args``, before weak
    results are widened to the default dtype of their kind (see ``result_type``)."""
    avals = [getattr(x, "aval", None) for x in args]
    first = avals[0] if avals else None
    if (first is not None and not first.weak_type and
            all(a is not None and a.dtype == first.dtype and not a.weak_type
                for a in avals[1:]) and canonicalize_dtype(first.dtype) == first.dtype):
        return first.dtype, False   # (the common case: arrays of one strong dtype, x @ w)
    dts = [dtype(x) if a is None else canonicalize_dtype(a.dtype)   # (arrays: fast path)
           for x, a in zip(args, avals)]
    weak = [a.weak_type if a is not None else
            any(x is t for t in (int, float, complex)) or is_weakly_typed(x)
            for x, a in zip(args, avals)]
    strict = config.jax_numpy_dtype_promotion == "strict"
    if len(args) == 1:
        out, out_weak = dts[0], weak[0]
    elif len(set(dts)) == 1 and not all(weak):
        out, out_weak = dts[0], False
    elif all(weak) and not strict:
        # Join the strong versions and make the result weak: this keeps e.g. a weak
        # int16 + a weak int16 at int16 instead of jumping to the default int.
        out = _least_upper_bound(strict, config.jax_enable_x64, *dict.fromkeys(dts))
        out, out_weak = canonicalize_dtype(out), True
    else:
        # (in argument order, without repeats: error messages list them as JAX does)
        nodes = dict.fromkeys(_lattice_node(d, w) for d, w in zip(dts, weak))
        out = _least_upper_bound(strict, config.jax_enable_x64, *nodes)
        out_weak = any(out is t for t in (int, float, complex))
        out = canonicalize_dtype(python_scalar_dtypes[out] if out_weak else out)
    return out, bool(out_weak) and out != bool_


def result_type(*args, return_weak_type_flag=False):
    """``jnp.result_type`` with weak types: the dtype an operation on ``args`` produces.
    ``None`` stands for the default float; a weakly typed result takes the default dtype
    of its kind (a weak bfloat16 alone gives float32, a weak uint8 uint32)."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    out, weak = lattice_result_type(*(default_float_dtype() if x is None else x
                                      for x in args))
    if weak:
        out = _default_dtype_of_kind(out)
    return (out, weak) if return_weak_type_flag else out


def _default_dtype_of_kind(dtype):
    """int32 for any signed integer, uint32 for unsigned, float32 for any float (bfloat16
    included), complex64 for complex; the 64-bit versions under x64."""
    for kind, widest in ((np.unsignedinteger, uint64), (np.integer, int64),
                         (np.floating, float64), (np.complexfloating, complex128)):
        if issubdtype(dtype, kind):
            return canonicalize_dtype(widest)
    raise TypeError(f"Invalid scalar dtype {dtype}")
