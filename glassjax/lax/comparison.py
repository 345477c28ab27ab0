"""Comparisons, bitwise and logical operations, ``select_n`` and ``clamp``.

Comparisons and bitwise ops are piecewise constant (zero derivative); ``select_n`` and
``clamp`` pick among their operands, so their JVPs and transposes select tangents and
cotangents the same way. The arithmetic and transcendental rules above use ``select``
and ``eq`` to stay finite where a formula is not.
Read next: lax/arithmetic.py.
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import core, dtypes
from glassjax.interpreters import ad, batching
from glassjax.lax import structural
from glassjax.lax.conversion import _const
from glassjax.lax.structural import _zeros
from glassjax.lax.utils import (_any, _bool_or_int, _compare, _compare_kind, _int, _ordered,
                                broadcasting_sharding, sharding_text, spec_of,
                                _zero_jvp, check_same_dtypes, broadcast_operands, naryop,
                                naryop_dtype_rule, standard_primitive, unop)
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo


# ----------------------------------------------------------------------------------------
# Bitwise operations (logical ones for booleans)
# ----------------------------------------------------------------------------------------

not_p = unop("not", _bool_or_int, "stablehlo.not")
_zero_jvp(not_p)


def bitwise_not(x):
    """Elementwise NOT (logical for booleans)."""
    return not_p.bind(x)


def _binary_function(prim, name, doc):
    """The public function ``name(x, y)`` that binds the binary primitive ``prim``."""
    def function(x, y):
        return prim.bind(x, y)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _bitwise(name, lower, what):
    """The bitwise primitive ``name`` on bools or integers (piecewise constant: zero
    derivative) and its public function ``bitwise_name``."""
    prim = naryop(name, [_bool_or_int, _bool_or_int], lower)
    _zero_jvp(prim)
    return prim, _binary_function(prim, f"bitwise_{name}",
                                  f"Elementwise {what} (logical for booleans).")


and_p, bitwise_and = _bitwise("and", "stablehlo.and", "AND")
or_p, bitwise_or = _bitwise("or", "stablehlo.or", "OR")
xor_p, bitwise_xor = _bitwise("xor", "stablehlo.xor", "exclusive OR")


population_count_p = unop("population_count", _int, "stablehlo.popcnt")


def population_count(x):
    """Elementwise number of set bits."""
    return population_count_p.bind(x)


clz_p = unop("clz", _int, "stablehlo.count_leading_zeros")


def clz(x):
    """Elementwise number of leading zero bits."""
    return clz_p.bind(x)


shift_left_p = naryop("shift_left", [_int, _int], "stablehlo.shift_left")
_zero_jvp(shift_left_p)


def shift_left(x, y):
    """Elementwise ``x << y``."""
    return shift_left_p.bind(x, y)


shift_right_arithmetic_p = naryop("shift_right_arithmetic", [_int, _int],
                                  "stablehlo.shift_right_arithmetic")
_zero_jvp(shift_right_arithmetic_p)


def shift_right_arithmetic(x, y):
    """Elementwise ``x >> y``, filling with the sign bit."""
    return shift_right_arithmetic_p.bind(x, y)


shift_right_logical_p = naryop("shift_right_logical", [_int, _int],
                               "stablehlo.shift_right_logical")
_zero_jvp(shift_right_logical_p)


def shift_right_logical(x, y):
    """Elementwise ``x >> y``, filling with zeros."""
    return shift_right_logical_p.bind(x, y)


# ----------------------------------------------------------------------------------------
# Comparisons
# ----------------------------------------------------------------------------------------


def _comparison(name, direction, accepted, symbol, total_order=False, keys=False):
    """The primitive ``name`` (lowered to a StableHLO compare in ``direction``, of
    boolean result, zero derivative) and its public function ``x symbol y``. With
    ``total_order`` floats compare in IEEE's total order (-NaN < -inf < ... < -0 <
    +0 < ... < inf < NaN), the order sorting uses. With ``keys`` typed PRNG keys
    compare too (``eq`` and ``ne``, as in JAX)."""
    def lower(ctx, x, y):
        if isinstance(ctx.avals_in[0].dtype, dtypes.ExtendedDType):
            return _compare_words(ctx, x, y, direction)
        x, y = broadcast_operands(ctx, (x, y))
        kind = _compare_kind(ctx.avals_in[0].dtype)
        return _compare(x, y, direction,
                        "TOTALORDER" if total_order and kind == "FLOAT" else kind)
    prim = naryop(name, [accepted, accepted], None,
                  result_dtype=lambda *d: np.dtype(np.bool_), allow_extended_dtype=keys)
    lowering.register_lowering(prim, lower, handles_extended_dtypes=keys)
    _zero_jvp(prim)
    return prim, _binary_function(prim, name, f"Elementwise ``x {symbol} y``.")


def _compare_words(ctx, x, y, direction):
    """Keys (held as their words along a trailing axis) are equal where every word is:
    the words are compared, then the verdicts joined, by AND for ``EQ`` (all equal) and
    by OR for ``NE`` (any different)."""
    out = ctx.avals_out[0]
    physical = [a.dtype.physical_aval(a) for a in ctx.avals_in]
    words = physical[0].shape[-1]
    shape = (*out.shape, words)
    x, y = lowering.broadcast_to(ctx.module_context, (x, y), physical, shape)
    verdicts = _compare(x, y, direction, "UNSIGNED")
    join = hlo.and_ if direction == "EQ" else hlo.or_
    out_type, verdict = lowering.aval_to_ir_type(out), None
    for i in range(words):
        start = [0] * len(out.shape) + [i]
        column = hlo.slice(verdicts, lowering.i64_array(start),
                           lowering.i64_array((*out.shape, i + 1)),
                           lowering.i64_array([1] * len(shape)))
        column = hlo.reshape(out_type, column)
        verdict = column if verdict is None else join(verdict, column)
    return verdict


eq_p, eq = _comparison("eq", "EQ", _any, "==", keys=True)
ne_p, ne = _comparison("ne", "NE", _any, "!=", keys=True)
lt_p, lt = _comparison("lt", "LT", _ordered, "<")
le_p, le = _comparison("le", "LE", _ordered, "<=")
gt_p, gt = _comparison("gt", "GT", _ordered, ">")
ge_p, ge = _comparison("ge", "GE", _ordered, ">=")
# JAX's total-order comparisons (its sort comparators bind them; JAX has no public
# functions for them, so theirs are dropped).
eq_to_p, _ = _comparison("eq_to", "EQ", _any, "==", total_order=True)
le_to_p, _ = _comparison("le_to", "LE", _ordered, "<=", total_order=True)
lt_to_p, _ = _comparison("lt_to", "LT", _ordered, "<", total_order=True)


# ----------------------------------------------------------------------------------------
# Selection and clamping
# ----------------------------------------------------------------------------------------

def _select_shape_rule(which, *cases):
    if not cases:
        raise TypeError("select must have at least one case")
    if any(case.shape != cases[0].shape for case in cases[1:]):
        raise TypeError("select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, "
                        f"got `which` shape {which.shape} but case shape {cases[0].shape}.")
    return cases[0].shape


def _select_dtype_rule(which, *cases):
    check_same_dtypes("select", *cases)
    if not dtypes.issubdtype(which.dtype, np.bool_) and \
            not dtypes.issubdtype(which.dtype, np.integer):
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{which.dtype}.")
    if dtypes.issubdtype(which.dtype, np.bool_) and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return cases[0].dtype


def _select_n_lower(ctx, which, *cases):
    """A boolean picks with one ``stablehlo.select``; an integer with a balanced tree of
    them, comparing ``which < mid`` at each level."""
    which_aval = ctx.avals_in[0]
    if which_aval.dtype == np.bool_:
        return cases[0] if len(cases) == 1 else hlo.select(which, cases[1], cases[0])

    def pick(offset, cases):
        if len(cases) == 1:
            return cases[0]
        mid = len(cases) // 2
        pred = _compare(which, lowering.full_like_aval(offset + mid, which_aval), "LT",
                        _compare_kind(which_aval.dtype))
        return hlo.select(pred, pick(offset, cases[:mid]), pick(offset + mid, cases[mid:]))
    return pick(0, cases)


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    case_tangents = tangents[1:]
    out = select_n(which, *cases)
    if all(type(t) is ad.Zero for t in case_tangents):
        return out, ad.Zero(case_tangents[0].aval)
    zero = _zeros(next(t for t in case_tangents if type(t) is not ad.Zero))
    return out, select_n(which, *(zero if type(t) is ad.Zero else t for t in case_tangents))


def _select_n_transpose(ct, which, *cases):
    """Each linear case gets the cotangent where it was selected, zeros elsewhere."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([which, *cases])
    zeros = structural.full_like(ct, 0)
    if dtypes.dtype(which) == np.bool_:
        return [None,
                select(which, zeros, ct) if ad.is_undefined_primal(cases[0]) else None,
                select(which, ct, zeros) if ad.is_undefined_primal(cases[1]) else None]
    return [None] + [select(eq(which, _const(which, i)), ct, zeros)
                     if ad.is_undefined_primal(case) else None
                     for i, case in enumerate(cases)]


def _select_n_batch(args, dims):
    """Avoid moving axes when ``which`` and the cases are batched alike; otherwise move
    batch axes to the front and broadcast a rank-1 ``which`` along the cases."""
    which, *cases = args
    which_dim, *case_dims = dims
    if all(d is None for d in dims):
        return select_n(which, *cases), None
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    if all(d == which_dim for d in case_dims):
        if np.shape(which) != np.shape(cases[0]):   # the unbatched `which` was a scalar
            which = structural.broadcast_in_dim(which, np.shape(cases[0]), [which_dim])
        return select_n(which, *cases), which_dim
    if np.ndim(which) == 0 and all(d is not None for d in case_dims):
        if all(d == case_dims[0] for d in case_dims[1:]):
            return select_n(which, *cases), case_dims[0]
        if all(np.shape(cases[0]) == np.shape(c) for c in cases):
            moved = [batching.moveaxis(c, d, case_dims[0])
                     for c, d in zip(cases[1:], case_dims[1:])]
            return select_n(which, cases[0], *moved), case_dims[0]
    if np.shape(which):
        which = batching.bdim_at_front(which, which_dim, size)
    if not all(np.shape(c) == () for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
    if 0 < np.ndim(which) < np.ndim(cases[0]):
        which = structural.broadcast_in_dim(which, np.shape(cases[0]), [0])
    if np.ndim(which) > np.ndim(cases[0]):
        cases = [structural.broadcast_in_dim(c, np.shape(which), ()) for c in cases]
    return select_n(which, *cases), 0


select_n_p = standard_primitive(_select_shape_rule, _select_dtype_rule, "select_n",
                                weak_type_rule=lambda which, *cases: all(
                                    c.weak_type for c in cases))


def _select_n_sharding(which, *cases):
    """The cases must be split alike, and an array ``which`` as they are (JAX moves no
    data to line them up)."""
    specs = [spec_of(c) for c in cases]
    mesh = next(a._sharding[0] for a in (which, *cases) if a._sharding is not None)
    if any(s != specs[0] for s in specs):
        raise core.ShardingTypeError(
            "select cases must have the same shardings, got "
            f"[{', '.join(sharding_text(c, mesh) for c in cases)}].")
    if which.shape and spec_of(which) != specs[0]:
        raise core.ShardingTypeError(
            "select `which` must be scalar or have the same sharding as cases, got `which` "
            f"sharding {sharding_text(which, mesh)} but case sharding "
            f"{sharding_text(cases[0], mesh)}.")
    return specs[0]


select_n_p.sharding_rule = _select_n_sharding
lowering.register_lowering(select_n_p, _select_n_lower)
ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose
batching.primitive_batchers[select_n_p] = _select_n_batch


def select_n(which, *cases):
    """Elementwise ``cases[which]``: ``which`` is boolean (two cases) or an integer in
    ``[0, len(cases))``, a scalar or of the cases' shape."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """Elementwise ``on_true if pred else on_false`` (``select_n`` with the cases in
    the opposite order: case 0 is for False)."""
    return select_n_p.bind(pred, on_false, on_true)


def _clamp_shape_rule(min, operand, max):
    if min.shape and min.shape != operand.shape:
        raise TypeError("clamp requires min.shape == operand.shape or min.shape == (), "
                        f"got min.shape={min.shape}, operand.shape={operand.shape}.")
    if max.shape and max.shape != operand.shape:
        raise TypeError("clamp requires max.shape == operand.shape or max.shape == (), "
                        f"got max.shape={max.shape}, operand.shape={operand.shape}.")
    return operand.shape


def _clamp_lower(ctx, min, x, max):
    return hlo.clamp(*broadcast_operands(ctx, (min, x, max)))


def _clamp_batch(args, dims):
    """Bounds may be scalars while the operand is batched; bring everything to a common
    layout with the batch axis in front, broadcasting what has to be."""
    min, x, max = args
    min_dim, x_dim, max_dim = dims
    size = next(np.shape(v)[d] for v, d in zip(args, dims) if d is not None)
    if min_dim == x_dim == max_dim:
        if np.shape(min) == np.shape(x) == np.shape(max) or \
                np.ndim(min) == np.ndim(max) == 0:
            return clamp(min, x, max), x_dim
        if np.ndim(min) == np.ndim(max) == 1:
            min = structural.broadcast_in_dim(min, np.shape(x), [min_dim])
            max = structural.broadcast_in_dim(max, np.shape(x), [max_dim])
            return clamp(min, x, max), x_dim
    elif np.ndim(min) == 0 and np.ndim(max) == 0 and x_dim is not None:
        return clamp(min, x, max), x_dim
    min = batching.bdim_at_front(min, min_dim, size) if np.shape(min) else min
    max = batching.bdim_at_front(max, max_dim, size) if np.shape(max) else max
    x = batching.bdim_at_front(x, x_dim, size) if np.shape(x) else x
    if np.ndim(min) == 0 and np.ndim(x) > 0:
        min = structural.broadcast(min, np.shape(x))
    if np.ndim(max) == 0 and np.ndim(x) > 0:
        max = structural.broadcast(max, np.shape(x))
    if 0 < np.ndim(min) < np.ndim(x):
        min = structural.broadcast_in_dim(min, np.shape(x), [0])
    if 0 < np.ndim(max) < np.ndim(x):
        max = structural.broadcast_in_dim(max, np.shape(x), [0])
    if np.ndim(min) > np.ndim(x):
        x = structural.broadcast(x, np.shape(min))
    return clamp(min, x, max), 0


clamp_p = standard_primitive(
    _clamp_shape_rule,
    lambda *avals: naryop_dtype_rule(lambda *d: d[0], [_any] * 3, "clamp", *avals),
    "clamp")
clamp_p.sharding_rule = functools.partial(broadcasting_sharding, "clamp")
lowering.register_lowering(clamp_p, _clamp_lower)
ad.defjvp(clamp_p,
          lambda g, min, operand, max: select(bitwise_and(gt(min, operand), lt(min, max)),
                                              g, _zeros(operand)),
          lambda g, min, operand, max: select(bitwise_and(gt(operand, min),
                                                          lt(operand, max)),
                                              g, _zeros(operand)),
          lambda g, min, operand, max: select(lt(max, operand), g, _zeros(operand)))
batching.primitive_batchers[clamp_p] = _clamp_batch


def clamp(min, x, max):  # noqa: A002 - the lax names
    """Elementwise ``min(max(x, min), max)``; the bounds may be scalars."""
    return clamp_p.bind(min, x, max)
