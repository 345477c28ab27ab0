"""The core of glassjax: abstract values, the jaxpr IR, primitives, traces and tracers.

Everything in glassjax is built from four ideas that live here:

* An *abstract value* (``ShapedArray``) describes what is known about an array while
  tracing: its shape, dtype and whether its type is "weak" (came from a Python scalar).
* A *jaxpr* is a typed, first-order program: variables, literals and equations that apply
  primitives. ``ClosedJaxpr`` pairs a jaxpr with the values of its constants.
* A *primitive* is an operation the engine knows rules for. ``Primitive.bind`` hands the
  operation to the *current trace*.
* A *trace* interprets primitives: the ``EvalTrace`` at the bottom runs them on the device;
  the staging trace records them into a jaxpr; the JVP and batching traces transform them.
  Traces are *stackless*: there is one current trace, and each transformation's trace
  keeps a reference to the trace it emits into (its parent). A transformation makes itself
  current while it runs the user's function, so composing transformations needs no
  special cases.

The parts of a type that only many-device programs use (shard_map's manual axes, memory
spaces) are in placement.py; core imports them, so ``core.MemorySpace`` works too.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
import operator
import threading
import weakref
from typing import AbstractSet, Callable, Sequence, Union

import numpy as np

from glassjax import caches, dtypes, shape_poly, source_info
from glassjax.config import debug_key_reuse as _debug_key_reuse, internal_cell
from glassjax.debug_info import DebugInfo  # noqa: F401  (core.DebugInfo, as in JAX)
from glassjax.layout import Format
from glassjax.linear_util import Rule  # noqa: F401  (core.Rule, as the interpreters use it)
from glassjax.drawing import Drawing  # noqa: F401  (core.Drawing, as primitives use it)
from glassjax.placement import (ManualAxisType, MemorySpace, ShardingTypeError,  # noqa: F401
                                dim_with_axes, mem_kind_to_space, mem_space_to_kind,
                                placed_types)
from glassjax.rule_tables import Rules
from glassjax.slots import Slot, Slots
from glassjax.errors import (ConcretizationTypeError, InconclusiveDimensionOperation,
                             JaxprTypeError, TracerArrayConversionError,
                             TracerBoolConversionError, TracerIntegerConversionError,
                             UnexpectedTracerError)


# ----------------------------------------------------------------------------------------
# Hooks: what higher layers plug into this one
# ----------------------------------------------------------------------------------------

class Hooks(Slots):
    """Operations core and the interpreters need but higher layers define (see
    glassjax/slots.py): each slot names the module that fills it at import."""
    pp_jaxpr = Slot("glassjax.pretty", "the jaxpr printer: pp_jaxpr(jaxpr, **options)")
    pp_eqn = Slot("glassjax.pretty", "the printer of one equation")
    index_in_dim = Slot("glassjax.lax", "iterating over a tracer's leading axis")
    broadcast_in_dim = Slot("glassjax.lax", "zeros and batching's moved axes")
    transpose = Slot("glassjax.lax", "batching: moving the batch axis")
    expand_dims = Slot("glassjax.lax", "batching: adding a batch axis")
    add_any = Slot("glassjax.lax", "summing tangents and cotangents")
    convert_element_type = Slot("glassjax.lax", "convert_element_type(value, dtype, "
                                "weak_type): casting a zero or a tangent")
    stop_gradient = Slot("glassjax.lax", "what custom_jvp applies to its nondiff_argnums")
    stage_custom_jvp = Slot("glassjax.custom_derivatives",
                            "how staging records a custom_jvp call")
    stage_custom_vjp = Slot("glassjax.custom_derivatives",
                            "how staging records a custom_vjp call")
    linearize = Slot("glassjax.ad_api", "the pytree linearize that custom_root and "
                     "custom_linear_solve hand to the user's solvers")
    linear_transpose = Slot("glassjax.ad_api", "the pytree linear_transpose for those "
                            "same solvers")
    type_sharding = Slot("glassjax.named_sharding", "ShapedArray.sharding: the recorded "
                         "(mesh, spec) as a NamedSharding")
    record_sharding = Slot("glassjax.named_sharding", "the (mesh, spec) that a "
                           "NamedSharding given to ShapedArray(..., sharding=) records")
    struct_memory_space = Slot("glassjax.named_sharding", "the memory space a "
                               "ShapeDtypeStruct's sharding gives its type")
    key_reuse_eval = Slot("glassjax.key_reuse", "key_reuse_eval(primitive, impl, args, "
                          "params): eager evaluation while jax_debug_key_reuse is on")
    check_key_reuse = Slot("glassjax.key_reuse", "check_key_reuse(jaxpr): the checker "
                           "jit runs while jax_debug_key_reuse is on")


hooks = Hooks()


# ----------------------------------------------------------------------------------------
# Abstract values
# ----------------------------------------------------------------------------------------

_KEEP = object()     # (``ShapedArray.update``: "this field as it is")


_DEVICE = MemorySpace.Device


class AbstractValue:
    """The base of every abstract value (an array's, a ref's, a token's): what a traced
    value is known to be without its data."""
    __slots__ = ()


class ShapedArray(AbstractValue):
    """The abstract value of an array: shape, dtype and weak type, but no data.

    Inside a ``shard_map`` body traced with ``check_vma=True`` a value also records the
    manual mesh axes it *varies* over (``vma``, in mesh order): a block of an input split
    over ``'x'`` varies over ``'x'``, ``psum(v, 'x')`` no longer does. It prints as
    ``f32[2,2]{V:x}``. Equality ignores it: it describes a value, it does not change
    which values an operation accepts.

    On a mesh whose axes are ``Explicit`` the type also says how the value is split
    (JAX's *sharding in types*): ``_sharding`` is ``(abstract mesh, spec)``, the spec one
    entry per dimension (None, an axis name, or a tuple of names). It prints as
    ``f32[8@X,4]``; ``.sharding`` presents it as a ``NamedSharding``. None, the usual
    case, means no dimension is split over an Explicit axis. Primitives compute it with
    their ``sharding_rule`` (``Primitive.abstract_eval``). Equality ignores it too (jit
    keys its traces on it separately).

    ``memory_space`` says which memory holds the value (``MemorySpace``): a value put in
    host memory prints as ``f32<host>[3]``. Unlike the two above it is part of the type
    (equality): operations combine only values in the same memory
    (``Primitive.memory_space_rule``)."""
    __slots__ = ("shape", "dtype", "weak_type", "vma", "_sharding", "memory_space", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type=False, vma=(), sharding=None,
                 memory_space=_DEVICE):
        try:
            self.shape = tuple(map(int, shape))
        except InconclusiveDimensionOperation:       # a symbolic dimension stays one
            self.shape = tuple(map(shape_poly.canonicalize_dim, shape))
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:           # an extended dtype (typed PRNG keys) is kept as is
            if not isinstance(dtype, dtypes.ExtendedDType):
                raise
            self.dtype = dtype
        self.weak_type = bool(weak_type)
        self.vma = vma
        if sharding is not None and not isinstance(sharding, tuple):
            sharding = hooks.record_sharding(sharding, len(self.shape))   # a public one
        self._sharding = sharding
        self.memory_space = memory_space
        if sharding is not None or memory_space is not _DEVICE:
            placed_types.seen = True

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    @property
    def manual_axis_type(self) -> "ManualAxisType":
        """JAX's name for the manual-axes part of the type (``.varying``: the vma)."""
        return ManualAxisType(varying=self.vma)

    @property
    def sharding(self):
        """How the value is split, as a ``NamedSharding`` over an abstract mesh (over no
        mesh, with a spec of Nones, when it is not split over Explicit axes)."""
        return hooks.type_sharding(self._sharding, self.ndim)

    def update(self, shape=None, dtype=None, weak_type=None, vma=None, sharding=_KEEP,
               memory_space=None):
        """A copy with some fields replaced. A new shape drops the sharding unless one
        is given (the old spec describes other dimensions)."""
        if sharding is _KEEP:
            sharding = self._sharding if shape is None else None
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type,
                           self.vma if vma is None else vma, sharding,
                           self.memory_space if memory_space is None else memory_space)

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other):
        return self is other or (
            type(other) is ShapedArray and self.shape == other.shape
            and self.dtype == other.dtype and self.weak_type == other.weak_type
            and self.memory_space is other.memory_space)

    def __hash__(self):
        """Computed once: an aval never changes, and tracing hashes the same ones again
        and again (they key the abstract-eval caches)."""
        try:
            return self._hash
        except AttributeError:
            self._hash = hash((self.shape, self.dtype, self.weak_type, self.memory_space))
            return self._hash

    def str_short(self, short_dtypes=False):
        name = (dtypes.short_dtype_name(self.dtype) if short_dtypes
                else dtypes.dtype_to_string(self.dtype))
        if self.memory_space is not _DEVICE:
            name += f"<{self.memory_space.name.lower()}>"
        if self._sharding is None:
            text = f"{name}[{','.join(str(d) for d in self.shape)}]"
        else:
            text = f"{name}[{','.join(map(dim_with_axes, self.shape, self._sharding[1]))}]"
        if self.vma:
            axes = self.vma[0] if len(self.vma) == 1 else f"({','.join(self.vma)})"
            text += f"{{V:{axes}}}"
        return text

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def to_tangent_aval(self):
        """The aval of a tangent/cotangent for values of this aval: same shape and weak
        type; integer and boolean values have ``float0`` tangents."""
        dtype = dtypes.tangent_dtype(self.dtype)
        return self if dtype == self.dtype else ShapedArray(
            self.shape, dtype, self.weak_type, sharding=self._sharding,
            memory_space=self.memory_space)

    at_least_vspace = to_tangent_aval


class AbstractRef(AbstractValue):
    """The type of a mutable array reference: ``Ref{float32[3]}``, around the type of the
    array it holds. Staged refs (``jax.new_ref`` under ``jit``/``make_jaxpr``, refs
    passed to them) are jaxpr variables of this type, read and written by the state
    primitives (lax/state.py)."""
    __slots__ = ("inner_aval",)
    made = False    # any yet? (until then nothing looks for refs; a flag: see caches.py)

    def __init__(self, inner_aval):
        AbstractRef.made = True
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    weak_type = property(lambda self: self.inner_aval.weak_type)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)
    vma = property(lambda self: self.inner_aval.vma)
    _sharding = property(lambda self: self.inner_aval._sharding)

    def update(self, **kw):
        return AbstractRef(self.inner_aval.update(**kw))

    def strip_weak_type(self):
        return self

    def to_tangent_aval(self):
        return AbstractRef(self.inner_aval.to_tangent_aval())

    at_least_vspace = to_tangent_aval

    def __eq__(self, other):
        return type(other) is AbstractRef and self.inner_aval == other.inner_aval

    def __hash__(self):
        return hash(("Ref", self.inner_aval))

    def str_short(self, short_dtypes=False):
        return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

    def __repr__(self):
        return self.str_short()

    __str__ = __repr__


caches.flag("core.AbstractRef.made", lambda: setattr(AbstractRef, "made", True))


class Effect:
    """A side effect an equation has besides computing its outputs. ``ordered`` effects
    must happen in program order; the others may be reordered by the compiler."""
    ordered = False


Effects = AbstractSet[Effect]     # an equation's or a jaxpr's effects (JAX's names)
no_effects: frozenset = frozenset()


class StateEffect(Effect):
    """The effect of reading, writing or making a staged ref: such equations are never
    dropped as unused, and a jaxpr having it must be discharged before it is compiled."""

    def __repr__(self):
        return "StateEffect"


state_effect = StateEffect()


class ShapeDtypeStruct:
    """A duck-typed stand-in for an array: anything with ``shape`` and ``dtype`` works.

    Immutable and hashable, as in JAX. ``sharding`` may also be a ``Format`` (a layout
    plus a sharding), as compiled functions report their outputs."""
    __slots__ = ("shape", "dtype", "weak_type", "_sharding", "_layout")

    def __init__(self, shape, dtype, *, sharding=None, weak_type=False):
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        init = functools.partial(object.__setattr__, self)
        init("shape", tuple(shape))
        # Kept as given (float64 stays float64, as in JAX); tracing canonicalizes it.
        init("dtype", dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype))
        init("weak_type", weak_type)
        is_format = isinstance(sharding, Format)
        init("_layout", sharding.layout if is_format else None)
        init("_sharding", sharding.sharding if is_format else sharding)

    @classmethod
    def like(cls, x) -> "ShapeDtypeStruct":
        """The struct of ``x``; an array committed to a device keeps its placement."""
        aval = shaped_abstractify(x)
        sharding = None
        if getattr(x, "_committed", True):
            sharding = getattr(x, "format", None) or getattr(x, "sharding", None)
        return cls(aval.shape, aval.dtype, sharding=sharding, weak_type=aval.weak_type)

    def __setattr__(self, name, value):
        raise RuntimeError(f"Cannot reassign attributes ({name}) of immutable "
                           "ShapeDtypeStruct objects")

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    sharding = property(lambda self: self._sharding)
    format = property(lambda self: Format(self._layout, self._sharding))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        sharding = f", sharding={self._sharding}" if self._sharding is not None else ""
        layout = f", format={self._layout}" if self._layout is not None else ""
        weak = ", weak_type=True" if self.weak_type else ""
        return (f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}"
                f"{sharding}{layout}{weak})")

    def _key(self):
        return (self.shape, self.dtype, self._sharding, self._layout, self.weak_type)

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


class TypedNdArray(np.ndarray):
    """A NumPy (host) value that carries its aval, e.g. a weakly typed float32 scalar.

    Staging folds conversions of host constants into these (``jnp.array(2.)`` inside a
    trace), so the constant stays a literal in the jaxpr yet keeps its weak type. NumPy
    arithmetic on one gives plain NumPy values; views of one have no aval (None). The
    aval is a slot (no ``__dict__``): a jaxpr's literals are these, one per use of a
    constant."""
    __slots__ = ("aval",)

    def __new__(cls, value, aval):
        obj = np.asarray(value, aval.dtype).view(cls)
        obj.aval = aval
        return obj

    def __array_finalize__(self, obj):
        self.aval = None

    @property
    def weak_type(self) -> bool:
        """JAX's attribute, as on an ``Array``: whether the value is weakly typed."""
        return self.aval is not None and self.aval.weak_type

    @property
    def val(self) -> np.ndarray:
        """The plain NumPy value (JAX's attribute)."""
        return np.asarray(self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy arithmetic on one gives a plain NumPy value, as in JAX."""
        plain = lambda x: np.asarray(x) if isinstance(x, TypedNdArray) else x
        if "out" in kwargs:
            kwargs["out"] = tuple(map(plain, kwargs["out"]))
        return getattr(ufunc, method)(*map(plain, inputs), **kwargs)

    def __repr__(self):
        """JAX's spelling, e.g. ``TypedNdArray([1., 2.], dtype=float32, weak_type=True)``;
        users meet it as the float0 gradient of an integer input."""
        aval = self.aval or ShapedArray(self.shape, self.dtype)
        return array_repr("TypedNdArray(", aval, lambda: np.asarray(self))


def canonicalize_value(x):
    """A host value as JAX holds it once canonicalized: Python scalars get their dtype
    (``TypedFloat(1.0, dtype=float32)``), NumPy values become ``TypedNdArray`` of the
    canonical dtype; bools, arrays and tracers are kept."""
    typed = dtypes.typed_scalar_types.get(type(x))
    if typed is not None:
        return typed(x, get_aval(x).dtype)
    if isinstance(x, (np.ndarray, np.generic)) and not isinstance(x, TypedNdArray):
        aval = get_aval(x)
        return TypedNdArray(x, aval)
    return x


def float0_zeros(shape) -> TypedNdArray:
    """The value of a float0 array (the tangent of an integer): it carries no data, so it
    lives on the host, as in JAX."""
    shape = tuple(shape)
    return TypedNdArray(np.zeros(shape, dtypes.float0), ShapedArray(shape, dtypes.float0))


def array_repr(prefix: str, aval: ShapedArray, value: Callable[[], np.ndarray]) -> str:
    """``Array([1., 2.], dtype=float32)``: NumPy's layout of the values (``value()``,
    not read for an empty array), then the dtype (its name, so float0 shows as
    ``void``) and the weak type."""
    dtype_str = f"dtype={aval.dtype.name}" + (", weak_type=True" if aval.weak_type else "")
    line_width = np.get_printoptions()["linewidth"]
    if aval.size == 0:
        body = f"[], shape={aval.shape}"
    else:
        body = np.array2string(value(), prefix=prefix, suffix=",", separator=", ",
                               max_line_width=line_width)
    # JAX's rule: when the dtype would overflow the last line, the separator before
    # it becomes len(prefix) spaces (it stays on the same line).
    last_line_len = len(body) - body.rfind("\n") + 1
    sep = " " if last_line_len + len(dtype_str) + 2 <= line_width else " " * len(prefix)
    return f"{prefix}{body},{sep}{dtype_str})"


def _scalar_type_aval(x):
    dtype = dtypes.dtype(x, canonicalize=True)
    if type(x) is int:              # a Python int must fit the default int type
        dtypes.check_python_int_in_range(x, dtype)
    return ShapedArray((), dtype, weak_type=dtypes.is_weakly_typed(x))


def check_not_masked(x):
    """NumPy masked arrays are refused: their mask would be silently dropped."""
    if isinstance(x, np.ma.MaskedArray):
        raise ValueError("numpy masked arrays are not supported as direct inputs to JAX "
                         "functions. Use arr.filled() to convert the value to a standard "
                         "numpy array.")


class AbstractToken(AbstractValue):
    """The type of a *token*: a value with no data that orders side effects. An
    operation that takes a token runs after the one that made it (``lax.after_all``
    joins several); XLA knows it as ``!stablehlo.token``."""

    def str_short(self, short_dtypes=False):
        return "Tok"

    def to_tangent_aval(self):
        return self

    def __repr__(self):
        return "AbstractToken()"


abstract_token = AbstractToken()


class Token:
    """A token outside a computation (``lax.create_token()`` run eagerly, or returned
    by a jitted function). It holds the empty device buffer XLA passes for it."""

    def __init__(self, buf):
        self._buf = buf

    def block_until_ready(self):
        self._buf.block_until_ready()
        return self


def get_aval(x) -> ShapedArray:
    """The abstract value of any JAX-compatible value (tracer, array, scalar)."""
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(x, Token):
        return abstract_token
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if type(x) in dtypes.python_scalar_dtypes:
        return _scalar_type_aval(x)
    if isinstance(x, (np.ndarray, np.generic)):
        check_not_masked(x)
        dtypes.check_valid_dtype(x.dtype)
        return _shared_aval(np.shape(x), dtypes.canonicalize_dtype(x.dtype))
    if is_ref_box(x):
        return x.jax_type
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


def is_ref_box(x) -> bool:
    """A mutable array reference held in Python (glassjax/ref.py's ``Ref``)?"""
    return type(getattr(x, "jax_type", None)) is AbstractRef


def shape_of(x) -> tuple:
    """``np.shape(x)``, read straight from the aval of an array or tracer: wrappers ask
    for the shape of every operand, and NumPy's dispatch costs more than many a wrapper's
    own work."""
    aval = getattr(x, "aval", None)
    return aval.shape if type(aval) is ShapedArray else np.shape(x)


def ndim_of(x) -> int:
    """``np.ndim(x)``, as fast as ``shape_of``."""
    return len(shape_of(x))


@caches.lru("core._shared_aval", 1024)
def _shared_aval(shape: tuple, dtype) -> ShapedArray:
    """One aval for NumPy values of a shape and dtype: avals are never changed, and a
    program of a thousand weights (or constants) needs no thousand copies."""
    return ShapedArray(shape, dtype)


def typeof(x) -> ShapedArray:
    """The JAX type (abstract value) of ``x``: ``float32[3]``, ``~float32[]`` (weak);
    ``jax.typeof``, with its error for values of no JAX type. A value that is no array
    but has a JAX type (a mutable array reference) gives it as ``jax_type``."""
    if hasattr(x, "jax_type"):
        return x.jax_type
    try:
        return get_aval(x)
    except TypeError:
        quoted = "{}" if isinstance(x, str) else "'{}'"
        raise TypeError(f"Argument '{x}' of type {quoted.format(type(x))} is not a valid "
                        "JAX type") from None


def shaped_abstractify(x) -> ShapedArray:
    """Like get_aval, but also accepts duck-typed objects with ``shape`` and ``dtype``
    (and a mutable array reference, whose type is a ``Ref``)."""
    if hasattr(x, "jax_type"):
        return x.jax_type
    if isinstance(x, (ShapeDtypeStruct,)) or (
            not isinstance(x, (Tracer, np.ndarray, np.generic)) and
            type(x) not in dtypes.python_scalar_dtypes and
            not isinstance(getattr(x, "aval", None), ShapedArray) and
            hasattr(x, "shape") and hasattr(x, "dtype")):
        space = hooks.struct_memory_space(getattr(x, "sharding", None))
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype),
                           getattr(x, "weak_type", False), memory_space=space or _DEVICE)
    try:
        return get_aval(x)
    except TypeError:
        if getattr(x, "__jax_array__", None) is None:
            raise
    # JAX no longer converts such objects implicitly where it only wants their type.
    raise ValueError("Triggering __jax_array__() during abstractification is no longer "
                     "supported. To avoid this error, either explicitly convert your "
                     "object using jax.numpy.array(), or register your object as a pytree.")


def valid_jaxtype(x) -> bool:
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


# ----------------------------------------------------------------------------------------
# The jaxpr IR
# ----------------------------------------------------------------------------------------

@dataclasses.dataclass(slots=True, eq=False)
class Var:
    """A jaxpr variable. Identity is the variable; names are chosen only when printing."""
    aval: ShapedArray | AbstractToken

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """An equation output nobody reads; printed as ``_``."""
    __slots__ = ()

    def __repr__(self):
        return "_"


@dataclasses.dataclass(slots=True, eq=False)
class Literal:
    """A scalar constant written inline in an equation, e.g. ``2.0:f32[]``."""
    val: object
    aval: ShapedArray

    def __repr__(self):
        return f"Literal({self.val})"


Atom = Union[Var, Literal]        # what an equation's operand is (JAX's name)


def gensym(suffix: str = ""):
    """A maker of fresh variables (``gensym()(aval)``, JAX's API); glassjax names
    variables when printing, so ``suffix`` is not used."""
    del suffix
    return Var


class JaxprEqn:
    """``outvars = primitive[params] invars``. ``source_info`` (a ``SourceInfo`` or None)
    says which user line staged it and under which name stack. (JAX's equations also
    carry a ``ctx``, the config they were staged under; glassjax keeps what of it matters,
    the XLA metadata, in ``source_info``, so a ``ctx`` given by code written for JAX is
    not kept.)"""
    __slots__ = ("invars", "outvars", "primitive", "params", "effects", "source_info")

    def __init__(self, invars, outvars, primitive, params, effects=frozenset(),
                 source_info=None, ctx=None):
        del ctx
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = params
        self.effects = effects
        self.source_info = source_info

    def replace(self, **kw):
        new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params, self.effects,
                       self.source_info)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self):
        return hooks.pp_eqn(self)


_PLAIN_PARAM_TYPES = frozenset({type(None), bool, int, str, np.bool_,
                                *(np.dtype(code).type for code in np.typecodes["AllInteger"]),
                                *(type(np.dtype(code)) for code in np.typecodes["All"])})
NO_PARAMS: dict = {}         # the params of every equation that has none (read-only)
_SHARED_PARAMS_SIZE = 1024
# (items, their types) -> the params dict equations share
_shared_params = caches.table("core.shared_params", bound=_SHARED_PARAMS_SIZE)


def shared_params(params: dict) -> dict:
    """``params``, or an equal dict already held by an earlier equation.

    A params dict costs about 180 bytes, as much as the rest of an equation, and big
    programs stage the same primitive with the same params over and over (``sin`` with
    ``accuracy=None``, a layer's ``dot_general`` dimension numbers). Equations treat
    params as read-only, so they may share one dict. Only params of plain values
    (``None``, bools, ints (NumPy's too), strings, dtypes, and tuples of those) are
    shared, and their types are part of the key, so ``1`` and ``True`` (equal, but
    printed apart) are never confused; floats (``0.0 == -0.0``) and objects are left
    alone."""
    types = params_signature(params)
    if types is None:
        return params
    key = (tuple(params.items()), types)
    shared = _shared_params.get(key)
    if shared is None:
        if len(_shared_params) >= _SHARED_PARAMS_SIZE:
            _shared_params.clear()
        shared = _shared_params[key] = params
    return shared


def params_signature(params: dict) -> tuple | None:
    """The types of ``params``' values, looking into tuples: with the values, a key
    under which equal params are also printed alike (``1`` and ``True`` are equal but
    differ here). None when a value is not plain (see ``shared_params``)."""
    types = tuple(map(type, params.values()))
    if _PLAIN_PARAM_TYPES.issuperset(types):
        return types
    try:
        return tuple(map(_plain_signature, params.values()))
    except TypeError:
        return None


def _plain_signature(value):
    """The type of a plain value, or the nested tuple of its elements' types for a
    tuple; TypeError for anything else."""
    if type(value) is tuple:
        types = tuple(map(type, value))
        if _PLAIN_PARAM_TYPES.issuperset(types):     # (a shape, axes: checked in C)
            return types
        if types and types[0] is tuple:
            return _nested_signature(value)
        return tuple(map(_plain_signature, value))
    if type(value) in _PLAIN_PARAM_TYPES:
        return type(value)
    raise TypeError(type(value))


# repr of a tuple of tuples -> its signature
_nested_signatures = caches.table("core.nested_signatures", bound=_SHARED_PARAMS_SIZE)


def _nested_signature(value: tuple):
    """``_plain_signature`` of a tuple of tuples (dimension numbers), remembered by its
    text: plain values whose types differ print apart (``1`` and ``True``, ``'f4'``
    and ``dtype('f4')``), so one text has one signature. The same dimension numbers
    come back for every layer, and printing them (in C) costs less than a walk."""
    text = repr(value)
    signature = _nested_signatures.get(text)
    if signature is None:
        if len(_nested_signatures) >= _SHARED_PARAMS_SIZE:
            _nested_signatures.clear()
        signature = _nested_signatures[text] = tuple(map(_plain_signature, value))
    return signature


class Jaxpr:
    """A typed first-order program: ``{ lambda constvars ; invars . let eqns in outvars }``."""
    __slots__ = ("constvars", "invars", "outvars", "eqns", "effects", "debug_info",
                 "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns, effects=frozenset(),
                 debug_info=None):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.effects = effects
        self.debug_info = debug_info

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    def replace(self, **kw):
        fields = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                      eqns=self.eqns, effects=self.effects, debug_info=self.debug_info)
        fields.update(kw)
        return Jaxpr(**fields)

    def pretty_print(self, **kw):
        return hooks.pp_jaxpr(self, **kw)

    def __str__(self):
        return self.pretty_print()

    __repr__ = __str__

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""
    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence):
        assert len(consts) == len(jaxpr.constvars), (len(consts), len(jaxpr.constvars))
        self.jaxpr = jaxpr
        self.consts = list(consts)

    literals = property(lambda self: self.consts)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    eqns = property(lambda self: self.jaxpr.eqns)
    effects = property(lambda self: self.jaxpr.effects)
    in_avals = property(lambda self: [v.aval for v in self.jaxpr.invars])
    out_avals = property(lambda self: [v.aval for v in self.jaxpr.outvars])

    def map_jaxpr(self, f):
        return ClosedJaxpr(f(self.jaxpr), self.consts)

    def replace(self, *, jaxpr=None, consts=None):
        return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                           self.consts if consts is None else consts)

    def pretty_print(self, **kw):
        return self.jaxpr.pretty_print(**kw)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def jaxprs_in_params(params):
    """The sub-jaxprs (Jaxpr or ClosedJaxpr, also inside tuples) among an eqn's params."""
    for val in params.values():
        for v in (val if isinstance(val, tuple) else (val,)):
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr):
    """A Python function that evaluates ``closed_jaxpr`` with the current trace (named
    ``jaxpr_as_fun``, as ``jit`` of it prints)."""
    def jaxpr_as_fun(*args):
        return eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)
    return jaxpr_as_fun


# ----------------------------------------------------------------------------------------
# Primitives
# ----------------------------------------------------------------------------------------

# The rules a primitive holds as attributes, each also kept in a table of its own, so
# that ``describe`` finds where it was registered (see rule_tables.py).
_attribute_tables = {
    "abstract_eval_rule": Rules("abstract_eval", "shapes and dtypes of the results"),
    "impl": Rules("impl", "eager evaluation"),
    "sharding_rule": Rules("sharding", "sharding in types: how the results are split"),
    "memory_space_rule": Rules("memory_space", "memory space of the results"),
    "drawing": Rules("drawing", "notebook: how the graph draws the equation"),
}


class Primitive:
    """A named operation. Its rules live in tables filled next to its definition:
    ``impl`` (run eagerly) and ``abstract_eval`` here; lowering, jvp, transpose and
    batching rules in their interpreters' tables; ``drawing`` (a ``Drawing``, or None
    for a first-order primitive) says how the notebook draws it.

    ``sharding_rule(*avals, **params)``: sharding in types. Given operands of which some
    are split over Explicit mesh axes (or an ``out_sharding`` / ``sharding`` param over
    such a mesh), the spec of the output (one entry per dimension; a list of specs with
    ``multiple_results``), or None for "not split"; a primitive without the rule gives
    unsplit outputs, except a higher-order one (jit, cond, scan, ...), whose outputs
    are typed by the jaxpr it holds.

    ``memory_space_rule(prim, *avals, **params)``: the memory space of the outputs when
    an operand is not in device memory (``same_memory_space`` for lax's array
    operations); a primitive without the rule types its outputs itself (``device_put``
    moves values, ``jit`` and control flow take them from their jaxprs).

    ``takes_refs``: staged mutable array refs may be operands (the state primitives,
    and the calls and loops whose bodies use them); other primitives refuse them.

    ``abstract_eval_is_pure``: the output types are a function of the operand types,
    the params and the x64 flag alone (true of lax's array operations, not of
    collectives, which read the axis environment): tracing may then remember them."""
    multiple_results = False
    call_primitive = False   # takes a jaxpr param and is transparent to transformations
    abstract_eval_is_pure = False   # output types depend on operand types and params only
    sharding_rule = None
    memory_space_rule = None
    drawing = None
    takes_refs = False

    def __init__(self, name: str):
        self.name = name
        self.impl = None
        self.abstract_eval_rule = None

    def __repr__(self):
        return self.name

    def __setattr__(self, name, value):
        table = _attribute_tables.get(name)
        if table is not None and value is not None:
            table[self] = value
        object.__setattr__(self, name, value)

    def def_impl(self, impl):
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule):
        self.abstract_eval_rule = rule
        return rule

    def abstract_eval(self, *avals, **params):
        """Output aval(s) for input avals; a list when ``multiple_results``."""
        if self.abstract_eval_rule is None:
            raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented")
        out = self.abstract_eval_rule(*avals, **params)
        if not placed_types.seen:
            return self._typed_by_params(avals, out, params)
        if self.memory_space_rule is not None:
            for a in avals:
                if getattr(a, "memory_space", _DEVICE) is not _DEVICE:
                    space = self.memory_space_rule(self, *avals, **params)
                    out = ([_in_space(o, space) for o in out] if self.multiple_results
                           else _in_space(out, space))
                    break
        for a in avals:
            if getattr(a, "_sharding", None) is not None:
                return _split_outputs(self, avals, out, a._sharding[0], params)
        return self._typed_by_params(avals, out, params)

    def _typed_by_params(self, avals, out, params):
        """``out``, split as an ``out_sharding``/``sharding`` param over a mesh with
        Explicit axes asks (broadcast_in_dim's, dot_general's, ...)."""
        if self.sharding_rule is not None and params:
            # an output sharding asked for by a param (broadcast_in_dim's, ...)
            asked = params.get("out_sharding") or params.get("sharding")
            mesh = getattr(asked, "mesh", None)
            if mesh is not None and mesh.explicit_axes:
                return _split_outputs(self, avals, out, mesh.abstract_mesh, params)
        return out

    def bind(self, *args, **params):
        """Apply the primitive: hand it to the current trace."""
        return trace_ctx.trace.process_primitive(self, args, params)

    def bind_with_trace(self, trace, args, params):
        with set_current_trace(trace):
            return trace.process_primitive(self, args, params)

    def get_bind_params(self, params):
        """Split eqn params into (subfunctions, bind params): identity for most primitives."""
        return [], params


class CallPrimitive(Primitive):
    """JAX's primitive for calling a jaxpr held in its ``call_jaxpr`` param (an open
    ``Jaxpr``): ``call_p`` (call.py). Binding it applies the jaxpr to the operands under
    the current trace; the call's rules transform the jaxpr."""
    multiple_results = True
    call_primitive = True


class ClosedCallPrimitive(CallPrimitive):
    """A ``CallPrimitive`` whose ``call_jaxpr`` is a ``ClosedJaxpr`` (``closed_call_p``)."""


def same_memory_space(prim, *avals, **params) -> MemorySpace:
    """JAX's default rule: operands (scalars aside: a constant goes anywhere) must share
    one memory space, which the outputs get; all in ``Any`` stay in ``Any``."""
    arrays = [a for a in avals if type(a) is ShapedArray]      # (not tokens)
    if all(a.memory_space is MemorySpace.Any for a in arrays):
        return MemorySpace.Any
    first = None
    for a in arrays:
        if not a.ndim:
            continue
        if first is not None and first.memory_space is not a.memory_space:
            raise ValueError(f"memory_space of all inputs passed to `{prim.name}` must be "
                             f"the same. Got one operand with type: {first.str_short()} "
                             f"and another operand with type: {a.str_short()}")
        first = a
    return _DEVICE if first is None else first.memory_space


def _in_space(out, space):
    if type(out) is not ShapedArray or out.memory_space is space:
        return out
    return out.update(memory_space=space)


def _split_outputs(prim, avals, out, mesh, params):
    """Sharding in types: the outputs of ``prim`` on operands split over the Explicit
    axes of ``mesh``, typed by its ``sharding_rule``. A mesh axis may split one
    dimension only: JAX's error otherwise."""
    if prim.sharding_rule is None and _holds_jaxpr(params):
        return out          # typed by its body (jit, cond, while, scan, custom_jvp, ...)
    specs = prim.sharding_rule(*avals, **params) if prim.sharding_rule else None
    if not prim.multiple_results:
        return _split_like(prim, avals, out, mesh, specs)
    return [_split_like(prim, avals, o, mesh, s)
            for o, s in zip(out, specs or [None] * len(out))]


def _holds_jaxpr(params) -> bool:
    """A higher-order primitive: its outputs' types come from a jaxpr it holds."""
    return any(isinstance(p, (Jaxpr, ClosedJaxpr)) or
               (type(p) is tuple and p and isinstance(p[0], (Jaxpr, ClosedJaxpr)))
               for p in params.values())


def _split_like(prim, avals, out, mesh, spec):
    if type(out) is not ShapedArray:
        return out
    if spec is None or not any(spec):
        return out if out._sharding is None else out.update(sharding=None)
    typed = out.update(sharding=(mesh, tuple(spec)))
    axes = [a for e in spec if e is not None for a in ((e,) if isinstance(e, str) else e)]
    if len(axes) != len(set(axes)):
        operands = ", ".join(a.str_short(short_dtypes=True) for a in avals)
        raise ShardingTypeError(f"{prim} operation with inputs: {operands} produces an "
                                f"illegally sharded result: "
                                f"{typed.str_short(short_dtypes=True)}")
    return typed


# ----------------------------------------------------------------------------------------
# Traces and tracers
# ----------------------------------------------------------------------------------------

class Trace:
    """An interpretation of primitives. Subclasses implement ``process_primitive`` and, for
    higher-order primitives that need it, ``process_custom_jvp_call`` and friends."""

    def process_primitive(self, primitive, tracers, params):
        raise NotImplementedError

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        raise NotImplementedError(f"{type(self).__name__} does not support custom_jvp")

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        raise NotImplementedError(f"{type(self).__name__} does not support custom_vjp")

    def __repr__(self):
        return f"{type(self).__name__}"

    @property
    def main(self):
        """JAX's older name for what identifies a transformation (equinox tells its own
        JVP tracers from others' by it): the trace's tag where it has one (vmap's
        traces), else the trace itself, since glassjax makes one trace per JVP."""
        return getattr(self, "tag", self)


class EvalTrace(Trace):
    """The bottom of every trace: runs primitives eagerly on concrete values.

    Host values are canonicalized first, as JAX's ``bind`` does, so a primitive that
    returns its input (``stop_gradient``, ``checkpoint`` of the identity) gives back
    ``TypedFloat(3.0, dtype=float32)`` for ``3.0``, as in JAX."""

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise escaped_tracer_error(a)
        if primitive.impl is None:
            raise NotImplementedError(f"Evaluation rule for '{primitive.name}' not implemented")
        args = list(map(canonicalize_value, args))
        if hooks.key_reuse_eval is not None and _debug_key_reuse.value:
            return hooks.key_reuse_eval(primitive, primitive.impl, args, params)
        return primitive.impl(*args, **params)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        del primitive, jvp, symbolic_zeros
        with set_current_trace(self):
            return fun.call_wrapped(*tracers)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        del primitive, fwd, bwd, out_trees, symbolic_zeros
        with set_current_trace(self):
            return fun.call_wrapped(*tracers)


eval_trace = EvalTrace()


class TraceContext(threading.local):
    """What is current while Python code runs: the trace, and the named axes in scope
    (from pmap, vmap's ``axis_name`` or make_jaxpr's ``axis_env``). One per thread, as
    JAX's ``trace_ctx``: a thread tracing a function leaves the others eager (an
    attribute of a ``threading.local`` is read as fast as any other)."""

    def __init__(self):
        self.trace = eval_trace
        self.axis_env: dict = {}
        # The manual mesh axes whose variance is tracked (a shard_map body traced with
        # check_vma=True), in mesh order; None when not tracking.
        self.vma_axes: tuple | None = None


trace_ctx = TraceContext()


@contextlib.contextmanager
def tracking_vma(axes):
    """Track which of the mesh axes ``axes`` values vary over (see ShapedArray)."""
    prev = trace_ctx.vma_axes
    trace_ctx.vma_axes = tuple(axes)
    try:
        yield
    finally:
        trace_ctx.vma_axes = prev


def constants_are_eager() -> bool:
    """Whether a value computed now from constants alone is computed at once on the
    device (under the eval trace, and under the transformations that hand constants to
    an eager parent: JVP, linearize, vmap, partial evaluation's known side) rather than
    written into a jaxpr. JAX draws the same line: a scalar converted while linearizing
    concrete values is a device array (a constvar of the linear jaxpr), while under
    ``make_jaxpr`` it is a literal."""
    trace = trace_ctx.trace
    while trace is not eval_trace:
        trace = getattr(trace, "parent_trace", None) or getattr(trace, "known_trace", None)
        if trace is None:
            return False
    return True


# Whether a trace other than the eval trace is current, as a jaxlib option included in
# the C++ jit cache key: the C++ fast path (glassjax.xla.fastpath) must never run an
# executable while a trace is current, where the call has to be traced instead.
_tracing = internal_cell("glassjax_tracing", False, in_jit_key=True)


class set_current_trace:
    """``with set_current_trace(trace):`` makes ``trace`` current for the block. (A class
    rather than a generator-based context manager: transformations enter one for almost
    every primitive they process, and this is several times cheaper.) jaxlib's
    ``_tracing`` flag is swapped only when it changes, between the eval trace and any
    other: most entries go from one transformation's trace to another's, and the swap
    (a call into jaxlib) would cost as much as the rest."""
    __slots__ = ("trace", "prev", "prev_tracing")

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        prev = self.prev = trace_ctx.trace
        trace_ctx.trace = self.trace
        tracing = self.trace is not eval_trace
        self.prev_tracing = (None if (prev is not eval_trace) is tracing
                             else _tracing.swap_local(tracing))

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev
        if self.prev_tracing is not None:
            _tracing.set_local(self.prev_tracing)


class take_current_trace(set_current_trace):
    """``with take_current_trace() as parent:`` hands over the current trace and makes
    the eval trace current for the block: how JAX's code (and libraries' own traces, as
    haiku's) find the trace a new one interprets into."""
    __slots__ = ()

    def __init__(self):
        self.trace = eval_trace

    def __enter__(self):
        super().__enter__()
        return self.prev


class OpaqueTraceState:
    """Which trace is current, as a token that only compares: libraries that hold state
    across calls (flax nnx) record it when a value is created and refuse to update the
    value under another trace. It holds the trace weakly, as JAX's does."""
    __slots__ = ("_trace_ref",)

    def __init__(self, trace):
        self._trace_ref = weakref.ref(trace)

    def __eq__(self, other):
        return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref

    __hash__ = None


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
    """The current trace as an :class:`OpaqueTraceState` (``convention`` is unused, as in
    JAX)."""
    del convention
    return OpaqueTraceState(trace_ctx.trace)


def find_top_trace(_):
    """The current trace: with one current trace at a time (not a stack searched by the
    arguments' traces) the arguments do not matter, as in JAX 0.10.2."""
    return trace_ctx.trace


def nonempty_axis_env() -> bool:
    """Whether some named axis (vmap's ``axis_name``, pmap's) is in scope."""
    return bool(trace_ctx.axis_env)


def unsafe_get_axis_names() -> list:
    return list(trace_ctx.axis_env)


@contextlib.contextmanager
def extend_axis_env(axes):
    """Bring named axes ``[(name, size), ...]`` into scope for collectives."""
    prev = trace_ctx.axis_env
    trace_ctx.axis_env = {**prev, **dict(axes)}
    try:
        yield
    finally:
        trace_ctx.axis_env = prev


def axis_size(name):
    try:
        return trace_ctx.axis_env[name]
    except KeyError:
        raise NameError(f"unbound axis name: {name}") from None


# Converting an array to a Python value: the shape is checked first, for device arrays
# and tracers alike, so a non-scalar fails the same way with or without a trace.

def check_bool_conversion(aval):
    if aval.size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use "
                         "`array.size > 0` to check that an array is not empty.")
    if aval.size > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")


def check_scalar_conversion(aval):
    if aval.ndim > 0:
        raise TypeError("Only scalar arrays can be converted to Python scalars; "
                        f"got arr.ndim={aval.ndim}")


def check_integer_conversion(aval):
    if aval.shape != () or aval.dtype.kind not in "iu":
        raise TypeError("Only integer scalar arrays can be converted to a scalar index.")


class Tracer:
    """A stand-in for an array while a trace runs the user's function.

    Tracers behave like arrays (operators and methods are installed by
    ``glassjax.numpy.array_methods``) and turn every operation into a ``bind`` on their
    trace. Converting one to a Python value needs a concrete value, which only some
    traces know (``to_concrete_value``)."""
    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, trace):
        self._trace = trace

    @property
    def aval(self):
        raise NotImplementedError

    def to_concrete_value(self):
        """The concrete value behind this tracer when the trace knows it, else None."""
        return None

    def _is_traced_array(self):
        """Asked by jaxlib's ``isinstance(x, Array)``: a tracer of an array is an Array."""
        return isinstance(self.aval, ShapedArray)

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self):
        check_bool_conversion(self.aval)
        return self._concretize(bool, TracerBoolConversionError)

    def __index__(self):
        check_integer_conversion(self.aval)
        return self._concretize(operator.index, TracerIntegerConversionError)

    def __int__(self):
        check_scalar_conversion(self.aval)
        return self._concretize(int, _function_error(int))

    def __float__(self):
        check_scalar_conversion(self.aval)
        return self._concretize(float, _function_error(float))

    def __complex__(self):
        check_scalar_conversion(self.aval)
        return self._concretize(complex, _function_error(complex))

    def _concretize(self, convert, make_error):
        value = self.to_concrete_value()
        if value is None:
            raise make_error(self)
        value = np.asarray(value)
        return convert(value.item() if convert is operator.index and value.size == 1
                       else value)

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(self)

    def tolist(self):
        """Python lists need the values: only a concrete tracer has them."""
        origin = getattr(self, "_origin_msg", lambda: "")()
        return self._concretize(lambda v: v.tolist(), lambda t: ConcretizationTypeError(
            t, f"The tolist() method was called on traced array with shape "
               f"{t.aval.str_short()}.{origin}"))

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__}")

    def __iter__(self):
        """Rows, each a static ``slice`` of stride 1 (then squeezed), as JAX iterates."""
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (hooks.index_in_dim(self, i, keepdims=False)
                for i in range(self.shape[0]))

    def __repr__(self):
        return f"{type(self).__name__}({self.aval})"

    def __reduce__(self):
        raise ConcretizationTypeError(self, "The tracer cannot be pickled")


def _function_error(fun):
    """The ConcretizationTypeError JAX raises for ``int(tracer)`` and friends."""
    name = fun.__name__
    context = (f"The problem arose with the `{name}` function. If trying to convert the "
               f"data type of a value, try using `x.astype({name})` or "
               f"`jnp.array(x, {name})` instead.")
    return lambda tracer: ConcretizationTypeError(tracer, context)


def escaped_tracer_error(tracer, detail=None):
    msg = ("Encountered an unexpected tracer. A function transformed by JAX had a side "
           "effect, allowing for a reference to an intermediate value with type "
           f"{tracer.aval.str_short()} wrapped in a {type(tracer).__name__} to escape the "
           "scope of the transformation.\nJAX transformations require that functions "
           "explicitly return their outputs, and disallow saving intermediate values to "
           "global state.")
    if detail:
        msg += "\n" + detail
    return UnexpectedTracerError(msg)


# ----------------------------------------------------------------------------------------
# Evaluating and checking jaxprs
# ----------------------------------------------------------------------------------------

class Environment:
    """What an interpreter knows about each variable of the jaxpr it walks: a value, a
    cotangent-to-be, an MLIR value, a pair of flags... Literals read through ``literal``
    (their constant, by default); writes to ``_`` (a ``DropVar``) are dropped."""

    def __init__(self, literal=lambda lit: lit.val):
        self.values: dict = {}
        self.literal = literal

    def read(self, atom):
        return self.literal(atom) if type(atom) is Literal else self.values[atom]

    def write(self, var, value):
        if type(var) is not DropVar:
            self.values[var] = value


def steps(jaxpr: Jaxpr, consts, args, env: Environment | None = None):
    """The loop every jaxpr interpreter shares: write the constants and
    inputs into ``env``; for each equation, yield ``(eqn, its inputs)`` and be sent one
    value per output, which are written; return the values of the outputs.

    A generator, so that a caller can stop between equations (the notebook's stepper
    waits there for the learner); ``interpret`` is the same loop without the pauses."""
    env = Environment() if env is None else env
    for v, x in zip(jaxpr.constvars, consts):
        env.write(v, x)
    for v, x in zip(jaxpr.invars, args):
        env.write(v, x)
    for eqn in jaxpr.eqns:
        outs = yield eqn, [env.read(x) for x in eqn.invars]
        for v, x in zip(eqn.outvars, outs):
            env.write(v, x)
    return [env.read(v) for v in jaxpr.outvars]


def interpret(jaxpr: Jaxpr, consts, args, apply_eqn, env: Environment | None = None):
    """Run the loop of ``steps`` to the end, ``apply_eqn(eqn, inputs)`` giving each
    equation's outputs; return the values of the outputs.

    Evaluation (``eval_jaxpr``), lowering to MLIR, transposition's forward sweep and
    partial evaluation's known/unknown split are each this loop with their own
    ``apply_eqn``. It is ``steps`` written as a plain loop rather than driven through
    the generator, which costs more per equation than the loop's own work."""
    env = Environment() if env is None else env
    read, write = env.read, env.write
    for v, x in zip(jaxpr.constvars, consts):
        write(v, x)
    for v, x in zip(jaxpr.invars, args):
        write(v, x)
    for eqn in jaxpr.eqns:
        outs = apply_eqn(eqn, [read(x) for x in eqn.invars])
        for v, x in zip(eqn.outvars, outs):
            write(v, x)
    return [read(v) for v in jaxpr.outvars]


def eval_jaxpr(jaxpr: Jaxpr, consts, *args, propagate_source_info=True):
    """Interpret ``jaxpr`` by binding each equation with the current trace.

    With the eval trace current this runs the program eagerly; under a transformation it
    re-traces the program through that transformation, each new equation keeping the
    source line and name stack of the one it came from (only the name stack, with
    ``propagate_source_info=False``: inlining a call)."""
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
    return interpret(jaxpr, consts, args, functools.partial(
        eval_equation, propagate_source_info=propagate_source_info))


def eval_equation(eqn, invals, propagate_source_info=True) -> list:
    """Bind one equation's primitive to ``invals`` (with the current trace), as staged
    from the same user line as ``eqn``."""
    subfuns, params = eqn.primitive.get_bind_params(eqn.params)
    with source_info.restage(eqn.source_info, propagate_source_info):
        outs = eqn.primitive.bind(*subfuns, *invals, **params)
    return outs if eqn.primitive.multiple_results else [outs]


def check_jaxpr(jaxpr: Jaxpr):
    """Type-check a jaxpr: every variable is bound once before use, and every equation's
    output types are what its primitive's abstract evaluation says they should be."""
    bound: set = set()

    def bind_var(v):
        if isinstance(v, DropVar):
            return
        if v in bound:
            raise JaxprTypeError(f"variable {v} bound twice")
        bound.add(v)

    def read_atom(a, where):
        if isinstance(a, Literal):
            return a.aval
        if a not in bound:
            raise JaxprTypeError(f"variable {a} used before it is bound in {where}")
        return a.aval

    for v in itertools.chain(jaxpr.constvars, jaxpr.invars):
        bind_var(v)
    for eqn in jaxpr.eqns:
        in_avals = [read_atom(a, eqn.primitive.name) for a in eqn.invars]
        for sub in jaxprs_in_params(eqn.params):
            check_jaxpr(sub)
        expected = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
        expected = expected if eqn.primitive.multiple_results else [expected]
        got = [v.aval for v in eqn.outvars]
        if [typecompat_key(a) for a in expected] != [typecompat_key(a) for a in got]:
            raise JaxprTypeError(
                f"equation {eqn.primitive.name} produces {[str(a) for a in got]} but its "
                f"rule says {[str(a) for a in expected]}")
        for v in eqn.outvars:
            bind_var(v)
    for v in jaxpr.outvars:
        read_atom(v, "outvars")


def typecompat_key(aval):
    return (aval.shape, aval.dtype) if isinstance(aval, ShapedArray) else aval


# ----------------------------------------------------------------------------------------
# Small helpers shared by the interpreters
# ----------------------------------------------------------------------------------------

def concrete_or_error(convert: Callable | None, x, context: str = ""):
    """``convert(x)`` for a value that must be known while tracing (static shapes, loop
    bounds, ...), or a ConcretizationTypeError that says why it was needed."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, context)
        x = value
    return x if convert is None else convert(x)


def concrete_dim_or_error(x, context=""):
    """An integer dimension (a symbolic one stays symbolic), else JAX's error."""
    if shape_poly.is_symbolic_dim(x):
        return x
    return concrete_or_error(operator.index, x, context)


def unzip2(pairs):
    """Two tuples from pairs, as JAX's: rules (a JVP rule gets ``primals, tangents``,
    a batching rule ``vals, dims``) receive tuples, as users' rules written for JAX
    expect."""
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=frozenset(),
                  source_info=None):
    return JaxprEqn(invars, outvars, primitive, params, effects, source_info)

