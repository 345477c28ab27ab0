"""Changing the element type: ``convert_element_type``, ``bitcast_convert_type`` and
``reduce_precision``, and the typed scalar constants (``_const``) every rule uses.

This is the lowest elementwise family: ``full`` and the other structural ops convert
their fill values with it, and every other family builds constants with ``_const``.
Scalars known while tracing are converted on the host into literals
(``_convert_element_type``), so ``2 * x`` prints ``2.0:f32[]`` as in JAX.
Read next: lax/structural.py (shapes), then lax/comparison.py.
"""
from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from glassjax import core, dtypes, pretty
from glassjax.interpreters import ad, batching, staging
from glassjax.lax.utils import (same_sharding, _compare, _compare_kind, _complex_basetype, _float,
                                _zero_jvp, standard_primitive, unop_dtype_rule)
from glassjax.xla import lowering, runtime
from glassjax.xla.lowering import hlo


def _python_scalar_type(dtype):
    """The Python type whose weakly typed values have ``dtype`` (float for float32 when
    x64 is off), or None."""
    for typ in (int, float, builtins.complex):
        if dtypes.canonicalize_dtype(dtypes.python_scalar_dtypes[typ]) == dtype:
            return typ
    return None


def _const(example, value):
    """``value`` with ``example``'s dtype: the constants rules multiply by. A weakly typed
    scalar example gets a Python scalar (so the result stays weak), anything else a
    NumPy scalar; either way the constant is a literal in a jaxpr."""
    dtype = dtypes.dtype(example, canonicalize=True)
    if dtypes.is_weakly_typed(example) and np.ndim(example) == 0:
        typ = _python_scalar_type(dtype)
        if typ is not None:
            return typ(value)
    return np.array(value, dtype)


# ----------------------------------------------------------------------------------------
# Changing the element type
# ----------------------------------------------------------------------------------------

def _convert_lower(ctx, x, *, new_dtype, weak_type, sharding):
    """Complex to real keeps the real part; anything to bool is ``x != 0``."""
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if (dtypes.issubdtype(aval_in.dtype, np.complexfloating) and
            not dtypes.issubdtype(aval_out.dtype, np.complexfloating)):
        x = hlo.real(x)
        aval_in = aval_in.update(dtype=_complex_basetype(aval_in.dtype))
    if aval_out.dtype == np.bool_:
        x = _compare(x, lowering.full_like_aval(0, aval_in), "NE",
                     _compare_kind(aval_in.dtype))
    return lowering.convert(x, aval_out)


def _convert_jvp(t, ans, x, *, new_dtype, weak_type, sharding):
    """The tangent is converted too; to an integer type (float0 tangents) it is zero."""
    tangent_dtype = dtypes.tangent_dtype(new_dtype)
    if tangent_dtype == dtypes.float0:
        return ad.Zero.from_primal_value(ans)
    return convert_element_type_p.bind(t, new_dtype=tangent_dtype, weak_type=weak_type,
                                       sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    old = x.aval
    if type(ct) is ad.Zero:
        return [ad.Zero(old)]
    if dtypes.tangent_dtype(old.dtype) == dtypes.float0:
        return [ad.Zero(old.update(dtype=dtypes.float0, weak_type=False))]
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type,
                                        sharding=None)]


convert_element_type_p = standard_primitive(
    lambda x, **p: x.shape, lambda x, *, new_dtype, **p: np.dtype(new_dtype),
    "convert_element_type", weak_type_rule=lambda x, *, weak_type, **p: weak_type)
convert_element_type_p.sharding_rule = same_sharding


def _convert_memory_space(prim, operand, *, new_dtype, weak_type, **params):
    """A conversion to the operand's own type is the operand itself (JAX returns it as
    it is), so it stays where it is; any other follows ``core.same_memory_space``."""
    if operand.dtype == new_dtype and operand.weak_type == weak_type:
        return operand.memory_space
    return core.same_memory_space(prim, operand)


convert_element_type_p.memory_space_rule = _convert_memory_space
batching.defvectorized(convert_element_type_p)
lowering.register_lowering(convert_element_type_p, _convert_lower)
ad.defjvp2(convert_element_type_p, _convert_jvp)
ad.primitive_transposes[convert_element_type_p] = _convert_transpose
def _convert_fold(x, *, new_dtype, weak_type, sharding):
    """Converting a host scalar needs no device: fold it into a typed host constant."""
    host = type(x) in dtypes.python_scalar_dtypes or isinstance(x, (np.ndarray, np.generic))
    if not host or np.shape(x):
        return None
    value = np.asarray(x)
    if (dtypes.issubdtype(value.dtype, np.complexfloating) and
            not dtypes.issubdtype(new_dtype, np.complexfloating)):
        value = value.real
    converted = _host_convert(value, new_dtype)
    return None if converted is None else core.TypedNdArray(
        converted, core.ShapedArray((), new_dtype, weak_type))


staging.const_fold_rules[convert_element_type_p] = _convert_fold
staging.forwarding_rules[convert_element_type_p] = (
    lambda x, *, new_dtype, weak_type, sharding:
    0 if x.dtype == new_dtype and x.weak_type == weak_type and sharding is None else None)
pretty.pp_eqn_rules[convert_element_type_p] = pretty.hide_params(
    lambda p: {k: v for k, v in p.items() if k != "sharding"})


def convert_element_type(operand, new_dtype):
    """Cast ``operand`` to ``new_dtype`` (the result is not weakly typed)."""
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "convert_element_type")
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _host_convert(value, new_dtype, staging_now=True):
    """A Python or NumPy scalar converted on the host, or None where only the device
    can convert it (out-of-range values). NaN/inf to an integer is NumPy's
    answer while staging (JAX's constant folding gives it: ``max(x, initial=-inf)`` on
    ints shows ``-2147483648:i32[]``), XLA's (saturating) when running eagerly."""
    host = np.asarray(value)
    if new_dtype == dtypes.float0:     # (no data: any value gives ``(b'',)``)
        return host.astype(new_dtype)
    if (dtypes.issubdtype(host.dtype, np.inexact) and not np.isfinite(host) and
            dtypes.issubdtype(new_dtype, np.integer)):
        return host.astype(new_dtype) if staging_now else None
    try:   # Python ints may exceed int64: converted from NumPy's object array
        return (host.astype(new_dtype) if type(value) is int
                else np.asarray(value, dtype=new_dtype))
    except OverflowError:
        return None


def _host_scalar_constant(value, new_dtype, weak_type):
    """``value`` converted on the host (None where only the device can convert it).

    Running eagerly (``core.constants_are_eager``), the result is a device array, as
    every lax function returns one. While staging it is a constant the trace writes as a
    literal: a host array carrying its aval (weak type included), what JAX's constant
    folding gives, so a literal returned from a jaxpr (``checkpoint(zeros_like)``) is an
    array as in JAX. A float0 result is left to the equation, as in JAX (where staging
    folds a constant operand into a literal)."""
    if new_dtype == dtypes.float0:
        return None
    converted = _host_convert(value, new_dtype, staging_now=not core.constants_are_eager())
    if converted is None:
        return None
    aval = core.ShapedArray((), new_dtype, weak_type)
    if core.constants_are_eager():
        return runtime.device_put(converted, aval=aval)
    return staging.lift(core.TypedNdArray(converted, aval))


def _convert_element_type(operand, new_dtype=None, weak_type=False):
    """Cast ``operand`` to ``new_dtype`` with weak type ``weak_type``: what
    ``convert_element_type``, ``full`` and jnp's type promotion use.

    Scalars known while tracing (Python and NumPy scalars) are converted right here into
    constants of the new type, so they stay literals in a jaxpr (``2.0:f32[]``) rather
    than becoming ``convert_element_type`` equations (JAX gets there by constant
    folding); a staging trace lifts them into tracers, so arithmetic on them is staged
    too. An array or tracer already of the requested type is returned as is."""
    if isinstance(operand, core.Tracer):
        # The common case while tracing (jnp functions convert every result to its
        # promoted type, which it nearly always has already): decided by the aval alone.
        aval = operand.aval
        dtype = dtypes.canonicalize_dtype(aval.dtype)
        if (dtype == aval.dtype and (new_dtype is None or dtype == new_dtype) and
                aval.weak_type == bool(weak_type) and operand.to_concrete_value() is None):
            return staging.take_in(operand)
    if hasattr(operand, "__jax_array__"):
        operand = operand.__jax_array__()
    old_dtype = dtypes.dtype(operand, canonicalize=True)
    if new_dtype is None:
        new_dtype = old_dtype
    elif not isinstance(new_dtype, dtypes.ExtendedDType):   # (typed keys: already one)
        new_dtype = np.dtype(new_dtype)
    weak_type = bool(weak_type)
    same_type = old_dtype == new_dtype and dtypes.is_weakly_typed(operand) == weak_type
    if (dtypes.issubdtype(old_dtype, np.complexfloating) and
            not dtypes.issubdtype(new_dtype, np.complexfloating)):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
    if type(operand) in dtypes.python_scalar_dtypes or isinstance(operand, np.generic) or (
            isinstance(operand, np.ndarray) and operand.ndim == 0):
        constant = _host_scalar_constant(operand, new_dtype, weak_type)
        if constant is not None:
            return constant
    elif same_type and not isinstance(operand, np.ndarray) and not (
            isinstance(operand, core.Tracer) and operand.to_concrete_value() is not None):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type,
                                       sharding=None)


def _bitcast_shape_rule(operand, *, new_dtype):
    """Same-size types keep the shape; a narrower type adds a trailing axis of pieces, a
    wider one consumes the trailing axis."""
    old_bits = np.dtype(operand.dtype).itemsize * 8
    new_bits = np.dtype(new_dtype).itemsize * 8
    if old_bits == new_bits:
        return operand.shape
    if old_bits > new_bits:
        return (*operand.shape, old_bits // new_bits)
    dim_size = operand.shape[-1] if operand.shape else 1
    if dim_size * old_bits != new_bits:
        raise ValueError(f"Attempting to convert array of shape {operand.shape} from "
                         f"{operand.dtype} of size {old_bits} bits to {new_dtype} of size "
                         f"{new_bits}, bits but {dim_size} * {old_bits} != {new_bits}")
    return operand.shape[:-1]


def _bitcast_dtype_rule(operand, *, new_dtype):
    old_dtype = operand.dtype
    if any(dtypes.issubdtype(d, t) for d in (old_dtype, new_dtype)
           for t in (np.bool_, np.complexfloating)) and old_dtype != new_dtype:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={old_dtype}, new_dtype={new_dtype!r}. Consider using the "
                        "arr.view() method instead.")
    return new_dtype


bitcast_convert_type_p = standard_primitive(_bitcast_shape_rule, _bitcast_dtype_rule,
                                            "bitcast_convert_type",
                                            weak_type_rule=lambda *a, **p: False)
batching.defvectorized(bitcast_convert_type_p)
lowering.register_lowering(bitcast_convert_type_p, lambda ctx, x, *, new_dtype: (
    hlo.bitcast_convert(lowering.aval_to_ir_type(ctx.avals_out[0]), x)))
_zero_jvp(bitcast_convert_type_p)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype``."""
    new_dtype = dtypes.check_and_canonicalize_user_dtype(new_dtype, "bitcast_convert_type")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


def _reduce_precision_shape_rule(operand, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got "
                         f"{exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return operand.shape


def _reduce_precision_dtype_rule(operand, **params):
    return unop_dtype_rule(lambda d: d, _float, "reduce_precision", operand)


reduce_precision_p = standard_primitive(_reduce_precision_shape_rule,
                                        _reduce_precision_dtype_rule, "reduce_precision")
reduce_precision_p.sharding_rule = same_sharding
batching.defvectorized(reduce_precision_p)
lowering.register_lowering(reduce_precision_p, lambda ctx, x, *, exponent_bits,
                           mantissa_bits: hlo.reduce_precision(x, exponent_bits,
                                                               mantissa_bits))
ad.deflinear(reduce_precision_p, lambda t, **params: [reduce_precision_p.bind(t, **params)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round floats to a narrower format (e.g. 5 exponent and 10 mantissa bits: float16)
    while keeping their dtype."""
    exponent_bits = core.concrete_or_error(
        operator.index, exponent_bits, "exponent_bits argument of lax.reduce_precision")
    mantissa_bits = core.concrete_or_error(
        operator.index, mantissa_bits, "mantissa_bits argument of lax.reduce_precision")
    return reduce_precision_p.bind(operand, exponent_bits=exponent_bits,
                                   mantissa_bits=mantissa_bits)
