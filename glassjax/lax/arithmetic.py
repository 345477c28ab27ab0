"""Arithmetic: negation, sign and rounding, the binary operations (``add``, ``sub``,
``mul``, ``div``, ``rem``, ``max``, ``min``, ...), ``integer_pow``, complex numbers and
``abs``, and the gradient plumbing (``stop_gradient``, ``optimization_barrier``,
``add_any``).

For each primitive, in order: the primitive (shape, dtype and weak-type rules from
``unop`` or ``naryop``, which also give it its batching rule), its lowering, its JVP
rule, its transpose rule if it is linear, and the public ``lax`` function. A binary op
broadcasts a rank-0 operand, so its transpose sums the cotangent back down
(``_unbroadcast``, with ``reduce_sum`` from reductions.py through ``utils.above``).
Read next: lax/transcendental.py.
"""
from __future__ import annotations

import builtins
import enum

import numpy as np

from glassjax import core, dtypes, pretty, tree_util
from glassjax.interpreters import ad, batching
from glassjax.lax import structural
from glassjax.lax.comparison import eq, ge, select
from glassjax.lax.conversion import _const, convert_element_type
from glassjax.lax.structural import _ones, _zeros
from glassjax.lax.utils import (same_sharding, _any, _compare, _complex, _complex_basetype, _float,
                                _hide_none, _int, _num, _zero_jvp, above,
                                broadcast_operands, naryop, spec_of, standard_primitive, unop,
                                unop_dtype_rule)
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo


def _replace_zero(x):
    """``x`` with its zeros replaced by ones (a safe divisor / log argument)."""
    return select(eq(x, _const(x, 0)), _ones(x), x)


def _maybe_broadcast(shape, x):
    """``x`` broadcast to ``shape`` the way a broadcasting op broadcasts its operand
    (rank 0, or equal rank with size-1 axes): what a lone tangent of ``add`` needs."""
    x_shape = core.shape_of(x)
    if x_shape == tuple(shape):
        return x
    if not x_shape:
        return structural.broadcast_in_dim(x, shape, ())
    kept = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
    squeezed = structural.reshape(x, [x_shape[i] for i in kept])
    return structural.broadcast_in_dim(squeezed, shape, kept)


def _unbroadcast(aval, x):
    """Sum a cotangent back down to the shape of an operand that was broadcast."""
    x_shape = core.shape_of(x)
    if x_shape == aval.shape:
        return x
    if not aval.shape:
        return above.reduce_sum(x, tuple(range(len(x_shape))))
    dims = tuple(i for i, (a, b) in enumerate(zip(x_shape, aval.shape)) if a != b)
    return structural.reshape(above.reduce_sum(x, dims) if dims else x, aval.shape)


def _ct_aval(x):
    """The cotangent type of a transpose rule's operand (linear or not)."""
    return x.aval if ad.is_undefined_primal(x) else core.get_aval(x).at_least_vspace()


def _is_complex(x):
    return dtypes.issubdtype(dtypes.dtype(x, canonicalize=True), np.complexfloating)


# ----------------------------------------------------------------------------------------
# Sign, rounding, classification
# ----------------------------------------------------------------------------------------

neg_p = unop("neg", _num, "stablehlo.negate")
ad.deflinear2(neg_p, lambda t, operand: [neg(t)])


def neg(x):
    """Elementwise negation: ``-x``."""
    return neg_p.bind(x)


def _sign_lower(ctx, x):
    """StableHLO's sign is for signed types; for unsigned ones sign is ``x != 0``."""
    aval = ctx.avals_in[0]
    if not dtypes.issubdtype(aval.dtype, np.unsignedinteger):
        return hlo.sign(x)
    is_zero = _compare(x, lowering.full_like_aval(0, aval), "EQ", "UNSIGNED")
    return hlo.select(is_zero, lowering.full_like_aval(0, aval),
                      lowering.full_like_aval(1, aval))


sign_p = unop("sign", _num, None)
lowering.register_lowering(sign_p, _sign_lower)
_zero_jvp(sign_p)


def sign(x):
    """Elementwise sign: -1, 0 or 1 (for complex x, ``x / abs(x)``)."""
    return sign_p.bind(x)


floor_p = unop("floor", _float, "stablehlo.floor")
_zero_jvp(floor_p)


def floor(x):
    """Elementwise floor: the largest integer not above x."""
    return floor_p.bind(x)


ceil_p = unop("ceil", _float, "stablehlo.ceil")
_zero_jvp(ceil_p)


def ceil(x):
    """Elementwise ceiling: the smallest integer not below x."""
    return ceil_p.bind(x)


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties (x.5): away from zero, or to the nearest even integer."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


round_p = unop("round", _float, lambda x, *, rounding_method: (
    hlo.round_nearest_afz(x) if rounding_method is RoundingMethod.AWAY_FROM_ZERO
    else hlo.round_nearest_even(x)))
_zero_jvp(round_p)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001 - the lax name
    """Elementwise rounding to the nearest integer."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


is_finite_p = unop("is_finite", _float, "stablehlo.is_finite",
                   result_dtype=lambda d: np.dtype(np.bool_))
_zero_jvp(is_finite_p)


def is_finite(x):
    """Elementwise: True where x is neither infinite nor NaN."""
    return is_finite_p.bind(x)


def _integer_pow_dtype(x, *, y):
    dtype = unop_dtype_rule(lambda d: d, _num, "integer_pow", x)
    if y < 0 and dtypes.issubdtype(dtype, np.integer):
        raise TypeError("Integers cannot be raised to negative powers, got "
                        f"integer_pow({x}, {y})")
    return dtype


def _integer_pow_lower(ctx, x, *, y):
    """Square and multiply: x**13 = x * x**4 * x**8, squaring x once per bit of 13."""
    acc, power, n = None, x, builtins.abs(y)
    while n:
        if n & 1:
            acc = power if acc is None else hlo.multiply(acc, power)
        n >>= 1
        if n:
            power = hlo.multiply(power, power)
    if acc is None:
        return lowering.full_like_aval(1, ctx.avals_in[0])
    return hlo.divide(lowering.full_like_aval(1, ctx.avals_in[0]), acc) if y < 0 else acc


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return _zeros(g)
    if y == 1:
        return g
    if y == 2:
        return mul(g, mul(_const(x, y), x))
    return mul(g, mul(_const(x, y), integer_pow(x, y - 1)))


integer_pow_p = standard_primitive(lambda x, *, y: x.shape, _integer_pow_dtype,
                                   "integer_pow")
integer_pow_p.sharding_rule = same_sharding
batching.defvectorized(integer_pow_p)
lowering.register_lowering(integer_pow_p, _integer_pow_lower)
ad.defjvp(integer_pow_p, _integer_pow_jvp)


def integer_pow(x, y):
    """``x ** y`` for a static Python integer ``y`` (multiplications, no pow)."""
    return integer_pow_p.bind(x, y=y)


# ----------------------------------------------------------------------------------------
# Complex numbers
# ----------------------------------------------------------------------------------------


def _complex_dtype(dtype, *_):
    """The complex dtype with ``dtype``'s precision (float32 -> complex64)."""
    return (np.zeros((), dtype) + np.zeros((), np.complex64)).dtype


_complex_elem_types = (np.float32, np.float64)

real_p = unop("real", _complex, "stablehlo.real", result_dtype=_complex_basetype)
ad.deflinear2(real_p, lambda t, _: [complex(t, np.zeros((), dtypes.dtype(t)))])


def real(x):
    """Elementwise real part."""
    return real_p.bind(x)


imag_p = unop("imag", _complex, "stablehlo.imag", result_dtype=_complex_basetype)
ad.deflinear2(imag_p, lambda t, _: [complex(np.zeros((), dtypes.dtype(t)), neg(t))])


def imag(x):
    """Elementwise imaginary part."""
    return imag_p.bind(x)


def _complex_transpose(t, x, y):
    """complex(x, y) = x + iy: x gets real(t) and y gets imag(-t) (the adjoint)."""
    if type(t) is ad.Zero:
        return ad.zero_cotangents([x, y])
    return [_unbroadcast(x.aval, real(t)) if ad.is_undefined_primal(x) else None,
            _unbroadcast(y.aval, imag(neg(t))) if ad.is_undefined_primal(y) else None]


complex_p = naryop("complex", [_complex_elem_types, _complex_elem_types],
                   "stablehlo.complex", result_dtype=_complex_dtype)
ad.deflinear2(complex_p, _complex_transpose)


def complex(x, y):  # noqa: A001 - the lax name
    """Elementwise x + iy from real arrays x and y."""
    return complex_p.bind(x, y)


def _conj_expr(x, *, input_dtype):
    """conj(a+bi) = a - bi; a real input becomes a complex number with imaginary part 0."""
    if dtypes.issubdtype(dtypes.dtype(x), np.complexfloating):
        return complex(real(x), neg(imag(x)))
    return complex(x, _zeros(x))


def _conj_transpose(t, x, *, input_dtype):
    return [conj(t) if dtypes.issubdtype(input_dtype, np.complexfloating) else real(t)]


conj_p = unop("conj", (np.float32, np.complexfloating, np.float64), None,
              result_dtype=_complex_dtype)
lowering.register_lowering(conj_p, lowering.lower_fun(_conj_expr))
ad.deflinear2(conj_p, _conj_transpose)


def conj(x):
    """Elementwise complex conjugate (of a real array: that array as complex)."""
    return conj_p.bind(x, input_dtype=dtypes.dtype(x, canonicalize=True))


def _abs_jvp(g, ans, x):
    if _is_complex(x):
        return real(mul(g, div(conj(x), _replace_zero(
            convert_element_type(ans, dtypes.dtype(x, canonicalize=True))))))
    return select(ge(x, structural.full_like(x, 0, shape=())), g, neg(g))


abs_p = unop("abs", (np.floating, np.complexfloating, np.signedinteger), "stablehlo.abs",
             result_dtype=_complex_basetype)
ad.defjvp2(abs_p, _abs_jvp)


def abs(x):  # noqa: A001 - the lax name
    """Elementwise absolute value (the modulus, a real number, for complex x)."""
    return abs_p.bind(x)


# ----------------------------------------------------------------------------------------
# Binary arithmetic
# ----------------------------------------------------------------------------------------

def _additive_jvp(prim, negate_rhs):
    """add and sub are linear: the tangent is the op applied to the tangents. When one
    tangent is zero the other is passed through, broadcast as the op would have."""
    def jvp(primals, tangents):
        out = prim.bind(*primals)
        xdot, ydot = tangents
        if type(xdot) is ad.Zero and type(ydot) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        if type(xdot) is ad.Zero:
            return out, _maybe_broadcast(np.shape(out), neg(ydot) if negate_rhs else ydot)
        if type(ydot) is ad.Zero:
            return out, _maybe_broadcast(np.shape(out), xdot)
        return out, prim.bind(xdot, ydot)
    return jvp


def _additive_transpose(negate_rhs):
    """Each operand of add/sub gets the cotangent (negated for sub's right operand),
    summed down to its shape if it was broadcast."""
    def transpose(ct, x, y):
        x_aval, y_aval = _ct_aval(x), _ct_aval(y)
        if type(ct) is ad.Zero:
            return [ad.Zero(x_aval), ad.Zero(y_aval)]
        return [_unbroadcast(x_aval, ct),
                _unbroadcast(y_aval, neg(ct) if negate_rhs else ct)]
    return transpose


add_p = naryop("add", [_num, _num], "stablehlo.add")
ad.primitive_jvps[add_p] = _additive_jvp(add_p, negate_rhs=False)
ad.primitive_transposes[add_p] = _additive_transpose(negate_rhs=False)


def add(x, y):
    """Elementwise addition: ``x + y``."""
    return add_p.bind(x, y)


sub_p = naryop("sub", [_num, _num], "stablehlo.subtract")
ad.primitive_jvps[sub_p] = _additive_jvp(sub_p, negate_rhs=True)
ad.primitive_transposes[sub_p] = _additive_transpose(negate_rhs=True)


def sub(x, y):
    """Elementwise subtraction: ``x - y``."""
    return sub_p.bind(x, y)


def _mul_transpose_lhs(ct, x, y, *, out_dtype):
    return _unbroadcast(x.aval, mul(ct, y, out_dtype=None if out_dtype is None
                                    else x.aval.dtype))


def _mul_transpose_rhs(ct, x, y, *, out_dtype):
    return _unbroadcast(y.aval, mul(x, ct, out_dtype=None if out_dtype is None
                                    else y.aval.dtype))


mul_p = naryop("mul", [_num, _num], None)
ad.defbilinear(mul_p, _mul_transpose_lhs, _mul_transpose_rhs)
pretty.pp_eqn_rules[mul_p] = _hide_none("out_dtype")


def _mul_lower(ctx, x, y, *, out_dtype):
    """With ``out_dtype`` the operands are converted to it before multiplying."""
    x, y = broadcast_operands(ctx, (x, y))
    if out_dtype is not None:
        out = ctx.avals_out[0]
        x, y = lowering.convert(x, out), lowering.convert(y, out)
    return lowering.result(ctx, "stablehlo.multiply", [x, y])


lowering.register_lowering(mul_p, _mul_lower, single_op="stablehlo.multiply")


def mul(x, y, *, out_dtype=None):
    """Elementwise multiplication: ``x * y`` (computed in ``out_dtype`` if given)."""
    return mul_p.bind(x, y, out_dtype=out_dtype)


mulhi_p = naryop("mulhi", [_int, _int], "chlo.mulhi")
_zero_jvp(mulhi_p)


def mulhi(x, y, /):
    """Elementwise high half of the double-width integer product ``x * y``."""
    return mulhi_p.bind(x, y)


def _div_transpose(ct, x, y):
    """div is linear in its numerator only."""
    if ad.is_undefined_primal(y):
        raise RuntimeError("nonlinear div can't be transposed")
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval), None]
    return [_unbroadcast(x.aval, div(ct, y)), None]


div_p = naryop("div", [_num, _num], "stablehlo.divide")
ad.defjvp(div_p,
          lambda g, x, y: div(g, y),
          lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
ad.primitive_transposes[div_p] = _div_transpose


def div(x, y):
    """Elementwise division (integer division rounds towards zero)."""
    return div_p.bind(x, y)


rem_p = naryop("rem", [_int + _float, _int + _float], "stablehlo.remainder")
ad.defjvp(rem_p,
          lambda g, x, y: _maybe_broadcast(np.broadcast_shapes(np.shape(x), np.shape(y)),
                                           g),
          lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))))


def rem(x, y):
    """Elementwise remainder of truncating division: has the sign of x, like C's fmod."""
    return rem_p.bind(x, y)


def _balanced_eq(x, z, y):
    """1 where x alone equals z, 1/2 where x and y both do (a tie), else 0: how the
    tangent of max/min is shared between their operands."""
    return div(select(eq(x, z), _ones(z), _zeros(z)),
               select(eq(y, z), structural.full_like(z, 2), _ones(z)))


def _minmax_lower(hlo_op, direction):
    """Complex numbers are ordered lexicographically (real part, then imaginary)."""
    def lower(x, y):
        elt = lowering.ir.RankedTensorType(x.type).element_type
        if not isinstance(elt, lowering.ir.ComplexType):
            return hlo_op(x, y)
        rx, ry = hlo.real(x), hlo.real(y)
        real_eq = _compare(rx, ry, "EQ", "FLOAT")
        real_cmp = _compare(rx, ry, direction, "FLOAT")
        imag_cmp = _compare(hlo.imag(x), hlo.imag(y), direction, "FLOAT")
        return hlo.select(hlo.select(real_eq, imag_cmp, real_cmp), x, y)
    return lower


# max and min share their JVP: the tangent of the argument the answer equals (half each
# on a tie).
_minmax_jvps = (lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
                lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))

max_p = naryop("max", [_any, _any], _minmax_lower(hlo.maximum, "GT"))
ad.defjvp2(max_p, *_minmax_jvps)


def max(x, y):  # noqa: A001 - the lax name
    """Elementwise maximum (NaN if either is NaN)."""
    return max_p.bind(x, y)


min_p = naryop("min", [_any, _any], _minmax_lower(hlo.minimum, "LT"))
ad.defjvp2(min_p, *_minmax_jvps)


def min(x, y):  # noqa: A001 - the lax name
    """Elementwise minimum (NaN if either is NaN)."""
    return min_p.bind(x, y)


nextafter_p = naryop("nextafter", [_float, _float], "chlo.next_after")


def nextafter(x1, x2):
    """The next representable number after x1 in the direction of x2."""
    return nextafter_p.bind(x1, x2)


# ----------------------------------------------------------------------------------------
# Gradients: stopping them, and adding them up
# ----------------------------------------------------------------------------------------

stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)
stop_gradient_p.sharding_rule = same_sharding
lowering.register_lowering(stop_gradient_p, lambda ctx, x: x)
# The primal is stopped again so that every enclosing differentiation sees a constant.
ad.primitive_jvps[stop_gradient_p] = lambda primals, tangents: (
    stop_gradient(primals[0]), ad.Zero.from_primal_value(primals[0]))
batching.primitive_batchers[stop_gradient_p] = lambda args, dims: (
    stop_gradient(args[0]), dims[0])


def stop_gradient(x):
    """The identity, except that derivatives treat the result as a constant. Works on
    a pytree of arrays."""
    return tree_util.tree_map(_stop_gradient, x)


def _stop_gradient(x):
    core.typeof(x)          # as JAX, each leaf is typed first (jax.typeof's error)
    return stop_gradient_p.bind(x)


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays, which the compiler may not optimize across:
    what is computed before it is not fused with, or recomputed after, what uses it
    (rematerialization relies on this). Derivatives and batching pass through it."""
    flat, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*flat))


def _optimization_barrier_lower(ctx, *args):
    return list(hlo.OptimizationBarrierOp(list(args)).results)


optimization_barrier_p = core.Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True
optimization_barrier_p.def_impl(
    lambda *args: dispatch.apply_primitive(optimization_barrier_p, *args))
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))
lowering.register_lowering(optimization_barrier_p, _optimization_barrier_lower)
# Primals and tangents (cotangents when transposing) each go through a barrier of their own.
ad.primitive_jvps[optimization_barrier_p] = lambda primals, tangents: (
    optimization_barrier(list(primals)),
    optimization_barrier([ad.instantiate_zeros(t) for t in tangents]))
ad.primitive_transposes[optimization_barrier_p] = lambda cts, *args: optimization_barrier(
    [ad.instantiate_zeros(ct) for ct in cts])
batching.primitive_batchers[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), dims)


def _add_any_batch(args, dims):
    """Both operands have one type, so only the batch axes need to agree."""
    (x, y), (dx, dy) = args, dims
    if dx == dy:
        return add_any(x, y), dx
    if dx is None:
        return add_any(batching.broadcast(x, np.shape(y)[dy], dy), y), dy
    if dy is None:
        return add_any(x, batching.broadcast(y, np.shape(x)[dx], dx)), dx
    return add_any(batching.moveaxis(x, dx, dy), y), dy


add_any_p = core.Primitive("add_any")
add_any_p.def_impl(lambda x, y: add(x, y))
add_any_p.def_abstract_eval(lambda x, y: x)
# (a cotangent met as an unsplit zero takes the other's split)
add_any_p.sharding_rule = lambda x, y: spec_of(x) if any(spec_of(x)) else spec_of(y)
lowering.register_lowering(add_any_p, lambda ctx, x, y: hlo.add(x, y))
ad.deflinear2(add_any_p, lambda ct, x, y: [ct, ct])
batching.primitive_batchers[add_any_p] = _add_any_batch


def add_any(x, y):
    """Add two tangents or cotangents of one type (JAX's ``add_any``, printed as such)."""
    return add_any_p.bind(x, y)
