"""Reductions: sums, products, extrema, logical folds, arg-extrema, ``reduce`` with a
user computation, cumulative reductions, ``sort`` and ``top_k``.

A reduction folds the elements along some axes with a binary operation that, together
with its identity (0 for sums, -inf for max, ...), forms a monoid; that is what lets XLA
reduce in any order. Each reduction lowers to ``stablehlo.reduce`` with a small *region*
(a nested block computing the binary operation on two scalars). Cumulative reductions
lower to ``stablehlo.reduce_window`` over a window as long as the axis, and ``sort`` to
``stablehlo.sort`` whose region is the "less than" comparator.

The rules of the modules below (structural.py, arithmetic.py, slicing.py) sum cotangents
with ``reduce_sum``; this module fills ``utils.above`` with it when imported.
Read next: lax/windowed_reductions.py.
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import caches, core, dtypes, shape_poly, tree_util
from glassjax.config import config
from glassjax.interpreters import ad, batching, staging
from glassjax.lax import elementwise, gather_scatter
from glassjax.lax.logaddexp import logaddexp
from glassjax.lax.slicing import pad, slice_in_dim
from glassjax.lax.structural import (_zeros, broadcast_in_dim, broadcasted_iota,
                                     concatenate, expand_dims, full, full_like, reshape, rev,
                                     squeeze)
from glassjax.lax.utils import (above, same_sharding, same_sharding_of_all, sharding_text,
                                spec_of, all_weak, canonicalize_axis, unsplit_along,
                                standard_multi_result_primitive, standard_primitive)
from glassjax.vmap_api import vmap
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import func_dialect, hlo, ir
from jaxlib.mlir.dialects import chlo

_input_dtype = lambda x, *args, **params: x.dtype


# -- identities of the monoids ------------------------------------------------------------

def _sum_identity(dtype):
    return np.array(0, dtype)


def _prod_identity(dtype):
    return np.array(1, dtype)


def _bitwise_and_identity(dtype):
    return np.array(-1).astype(dtype)


def _bitwise_or_identity(dtype):
    return np.array(0, dtype)


def _supports_inf(dtype) -> bool:
    return bool(np.isinf(np.array(np.inf).astype(dtype)))


def _max_identity(dtype):
    """The smallest value of ``dtype`` (-inf where the type has one)."""
    return _extreme_value(dtype, "max", lowest=True)


def _min_identity(dtype):
    """The largest value of ``dtype`` (+inf where the type has one)."""
    return _extreme_value(dtype, "min", lowest=False)


def _extreme_value(dtype, op_name, lowest):
    if dtypes.issubdtype(dtype, np.inexact):
        if _supports_inf(dtype):
            return np.array(-np.inf if lowest else np.inf, dtype)
        info = dtypes.finfo(dtype)
    elif dtypes.issubdtype(dtype, np.integer):
        info = dtypes.iinfo(dtype)
    elif dtypes.issubdtype(dtype, np.bool_):
        return np.array(not lowest, np.bool_)
    else:
        raise ValueError(f"Unsupported dtype for {op_name}: {dtype}")
    return np.array(info.min if lowest else info.max, dtype)


def _region(op, scalar_types):
    """Fill the single region of ``op`` with a block taking ``scalar_types`` and return
    that block (the caller emits the body and ``stablehlo.return`` into it)."""
    return op.regions[0].blocks.append(*scalar_types)


def _scalar_type(dtype):
    return lowering.aval_to_ir_type(core.ShapedArray((), dtype))


# -- reduce_sum, reduce_prod, reduce_max, reduce_min, reduce_and/or/xor ------------------

def _reduce_op_shape_rule(x, *, axes, **params):
    if len(axes) != len(set(axes)):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if not all(0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {x}.")
    axes = frozenset(axes)
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def _reduce_number_dtype_rule(name, x, **params):
    if not dtypes.issubdtype(x.dtype, np.number):
        raise TypeError(f"{name} does not accept dtype {dtypes.dtype_to_string(x.dtype)}. "
                        "Accepted dtypes are subtypes of number.")
    return x.dtype


def _reduce_logical_shape_rule(x, *, axes):
    if x.dtype != np.bool_ and not np.issubdtype(x.dtype, np.integer):
        raise TypeError("logical reduction requires operand dtype bool or int, got "
                        f"{x.dtype}.")
    return tuple(np.delete(x.shape, axes))


def _reducer_batch(prim, args, dims, *, axes, **params):
    """Axes at or after the mapped one shift by one; the mapped axis survives at its
    position among the kept axes. (The shifted axes are NumPy ints, as in JAX, which
    is why vmapped jaxprs print ``axes=(np.int64(1),)``.)"""
    (x,), (d,) = args, dims
    axes = tuple(np.int64(a if a < d else a + 1) for a in axes)
    out_d = d - sum(int(a < d) for a in axes)   # (kept axes before the mapped one; an int)
    return prim.bind(x, axes=axes, **params), out_d


def _lower_unary_reduce(combine, identity, ctx, x, *, axes, **params):
    """``stablehlo.reduce`` over ``axes`` starting from ``identity`` and folding with
    ``combine`` (a function of two scalar MLIR values)."""
    aval_out = ctx.avals_out[0]
    op = hlo.ReduceOp([lowering.aval_to_ir_type(aval_out)], [x],
                      [lowering.ir_constant(identity(aval_out.dtype))],
                      lowering.i64_array(axes))
    scalar = _scalar_type(aval_out.dtype)
    block = _region(op, [scalar, scalar])
    with ir.InsertionPoint(block):
        hlo.return_([combine(*block.arguments)])
    return op.result


def _reduced_sharding(x, *, axes, out_sharding=None, **params):
    """A reduction keeps the splits of the dimensions it does not reduce (a reduced
    split dimension is summed across its devices)."""
    if out_sharding is not None:
        return out_sharding.spec._normalized_spec_for_aval(x.ndim - len(axes))
    return [e for i, e in enumerate(spec_of(x)) if i not in axes]


def _reduction(name, shape_rule, dtype_rule, weak_type_rule, combine, identity):
    prim = standard_primitive(shape_rule, dtype_rule, name, weak_type_rule)
    prim.sharding_rule = _reduced_sharding
    lowering.register_lowering(prim, functools.partial(_lower_unary_reduce, combine,
                                                       identity))
    batching.primitive_batchers[prim] = functools.partial(_reducer_batch, prim)
    return prim


def _strip_weak_type(*avals, **params):
    return False


def _minmax_hlo(op, direction):
    """max/min of two scalars; complex numbers compare as (real, imag) pairs."""
    def combine(x, y):
        if not isinstance(ir.RankedTensorType(x.type).element_type, ir.ComplexType):
            return op(x, y)
        float_cmp = lambda d, a, b: hlo.compare(
            a, b, hlo.ComparisonDirectionAttr.get(d),
            compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))
        rx, ry = hlo.real(x), hlo.real(y)
        which = hlo.select(float_cmp("EQ", rx, ry),
                           float_cmp(direction, hlo.imag(x), hlo.imag(y)),
                           float_cmp(direction, rx, ry))
        return hlo.select(which, x, y)
    return combine


_max_hlo = _minmax_hlo(hlo.maximum, "GT")
_min_hlo = _minmax_hlo(hlo.minimum, "LT")


def _reduce_sum_transpose(ct, x, *, axes, out_sharding):
    # (NumPy ints, as ``np.delete`` gives JAX, without its cost; they print as such.)
    ndim = len(x.aval.shape)
    summed = {a % ndim for a in axes}
    kept = tuple(np.int64(i) for i in range(ndim) if i not in summed)
    split = x.aval.sharding if x.aval._sharding is not None else None    # (its type's)
    return [broadcast_in_dim(ct, x.aval.shape, kept, out_sharding=split)]


def _reduce_sum_dtype_rule(x, *, axes, **params):
    """As for any number reduction; and ``jax_allow_f16_reductions=False`` forbids
    summing float16/bfloat16 values (a sum of many rounds badly in 16 bits)."""
    dtype = _reduce_number_dtype_rule("reduce_sum", x)
    if (x.dtype in (np.float16, dtypes.bfloat16) and not config.jax_allow_f16_reductions
            and not all(x.shape[d] == 1 for d in axes)):
        raise ValueError(f"reduce_sum on operand {x.str_short(True)} is not allowed when "
                         "jax_allow_f16_reductions=False.")
    return dtype


reduce_sum_p = _reduction("reduce_sum", _reduce_op_shape_rule, _reduce_sum_dtype_rule,
                          all_weak, hlo.add, _sum_identity)
ad.deflinear2(reduce_sum_p, _reduce_sum_transpose)


def reduce_sum(operand, axes, *, out_sharding=None):
    """Sum over ``axes`` (no upcasting of narrow types, unlike ``jnp.sum``)."""
    return reduce_sum_p.bind(operand, axes=tuple(axes), out_sharding=out_sharding)


def _reduce_prod_jvp(primals, tangents, *, axes):
    reducer = lambda x, y: [elementwise.mul(x, y)]
    (x,) = primals
    primals_out, tangents_out = _reduce_jvp(
        reducer, [np.array(1, core.get_aval(x).dtype)], primals, tangents, axes)
    return primals_out[0], tangents_out[0]


reduce_prod_p = _reduction("reduce_prod", _reduce_op_shape_rule,
                           functools.partial(_reduce_number_dtype_rule, "reduce_prod"),
                           all_weak, hlo.multiply, _prod_identity)
ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp


def reduce_prod(operand, axes):
    """Product over ``axes``."""
    return reduce_prod_p.bind(operand, axes=tuple(axes))


def _eq_meet(a, b):
    """``a == b``, first casting the operand of the lower dtype to the higher one."""
    a_dtype, b_dtype = dtypes.dtype(a), dtypes.dtype(b)
    if a_dtype != b_dtype:
        if dtypes.promote_types(a_dtype, b_dtype) == a_dtype:
            a = elementwise.convert_element_type(a, b_dtype)
        else:
            b = elementwise.convert_element_type(b, a_dtype)
    return elementwise.eq(a, b)


def _reduce_chooser_jvp(g, ans, x, *, axes):
    """The tangent of max/min is the mean of the tangents at the chosen locations (ties
    share the derivative)."""
    shape = [1 if i in axes else d for i, d in enumerate(np.shape(x))]
    location_indicators = elementwise.convert_element_type(
        _eq_meet(x, reshape(ans, shape)), dtypes.dtype(g))
    counts = reduce_sum(location_indicators, axes)
    return elementwise.div(reduce_sum(elementwise.mul(g, location_indicators), axes),
                           counts)


reduce_max_p = _reduction("reduce_max", _reduce_op_shape_rule, _input_dtype, all_weak,
                          _max_hlo, _max_identity)
ad.defjvp2(reduce_max_p, _reduce_chooser_jvp)
reduce_min_p = _reduction("reduce_min", _reduce_op_shape_rule, _input_dtype, all_weak,
                          _min_hlo, _min_identity)
ad.defjvp2(reduce_min_p, _reduce_chooser_jvp)


def reduce_max(operand, axes):
    """Maximum over ``axes``."""
    return reduce_max_p.bind(operand, axes=tuple(axes))


def reduce_min(operand, axes):
    """Minimum over ``axes``."""
    return reduce_min_p.bind(operand, axes=tuple(axes))


def _logical_jvp(prim):
    """Logical reductions have no derivative: the tangent is a symbolic zero."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, ad.Zero.from_primal_value(out)
    ad.primitive_jvps[prim] = jvp


reduce_or_p = _reduction("reduce_or", _reduce_logical_shape_rule, _input_dtype,
                         _strip_weak_type, hlo.or_, _bitwise_or_identity)
reduce_and_p = _reduction("reduce_and", _reduce_logical_shape_rule, _input_dtype,
                          _strip_weak_type, hlo.and_, _bitwise_and_identity)
reduce_xor_p = _reduction("reduce_xor", _reduce_logical_shape_rule, _input_dtype,
                          _strip_weak_type, hlo.xor, _bitwise_or_identity)
for _p in (reduce_or_p, reduce_and_p, reduce_xor_p):
    _logical_jvp(_p)


def reduce_or(operand, axes):
    """Bitwise (logical, for bool) OR over ``axes``."""
    return reduce_or_p.bind(operand, axes=tuple(axes))


def reduce_and(operand, axes):
    """Bitwise (logical, for bool) AND over ``axes``."""
    return reduce_and_p.bind(operand, axes=tuple(axes))


def reduce_xor(operand, axes):
    """Bitwise (logical, for bool) XOR over ``axes``."""
    return reduce_xor_p.bind(operand, axes=tuple(axes))


# -- argmin / argmax ----------------------------------------------------------------------

def _argminmax_shape_rule(x, *, axes, index_dtype):
    axis, = axes
    if not 0 <= axis < x.ndim:
        raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
    if x.shape[axis] < 1:
        raise ValueError("argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={x.shape} axis={axis}")
    return x.shape[:axis] + x.shape[axis + 1:]


def _argminmax_dtype_rule(x, *, axes, index_dtype):
    if not dtypes.issubdtype(index_dtype, np.integer):
        raise TypeError("index_dtype must be an integer type, but got "
                        f"{dtypes.dtype_to_string(index_dtype)}")
    return index_dtype


class _ArgMinMaxReducer:
    """The binary operation of an arg-reduction over (value, index) pairs: keep the pair
    whose value wins ``value_comparator`` (NaNs win), and on ties the lower index."""

    def __init__(self, value_comparator):
        self._value_comparator = value_comparator

    def __repr__(self):
        return f"_ArgMinMaxReducer({self._value_comparator.__name__})"

    def __call__(self, op_val_index, acc_val_index):
        ew = elementwise
        op_val, op_index = op_val_index
        acc_val, acc_index = acc_val_index
        pick_op_val = ew.bitwise_or(self._value_comparator(op_val, acc_val),
                                    ew.ne(op_val, op_val))
        pick_op_index = ew.bitwise_or(pick_op_val, ew.bitwise_and(
            ew.eq(op_val, acc_val), ew.lt(op_index, acc_index)))
        return (ew.select(pick_op_val, op_val, acc_val),
                ew.select(pick_op_index, op_index, acc_index))


def _compute_argminmax(value_comparator, get_identity, x, *, axes, index_dtype):
    """argmax as a two-operand ``reduce`` over (values, their indices)."""
    axis, = axes
    indices = broadcasted_iota(index_dtype, np.shape(x), axis)
    res = reduce([x, indices], [get_identity(dtypes.dtype(x)), np.array(0, index_dtype)],
                 _ArgMinMaxReducer(value_comparator), axes)
    return res[1]


def _arg_reduction(name, comparator_name, get_identity):
    prim = standard_primitive(_argminmax_shape_rule, _argminmax_dtype_rule, name,
                              weak_type_rule=_strip_weak_type)
    prim.sharding_rule = _reduced_sharding
    batching.primitive_batchers[prim] = functools.partial(_reducer_batch, prim)
    _logical_jvp(prim)
    lowering.register_lowering(prim, lowering.lower_fun(
        lambda x, **params: _compute_argminmax(getattr(elementwise, comparator_name),
                                               get_identity, x, **params)), inline=False)
    return prim


argmin_p = _arg_reduction("argmin", "lt", _min_identity)
argmax_p = _arg_reduction("argmax", "gt", _max_identity)


def argmin(operand, axis: int, index_dtype):
    """The index of the (first) minimum along ``axis``."""
    index_dtype = dtypes.check_and_canonicalize_user_dtype(index_dtype, "argmin")
    return argmin_p.bind(operand, axes=(axis,), index_dtype=index_dtype)


def argmax(operand, axis: int, index_dtype):
    """The index of the (first) maximum along ``axis``."""
    index_dtype = dtypes.check_and_canonicalize_user_dtype(index_dtype, "argmax")
    return argmax_p.bind(operand, axes=(axis,), index_dtype=index_dtype)


# -- reduce: any monoid given as a Python function ----------------------------------------

def _reduce_split(avals):
    n = len(avals) // 2
    return avals[:n], avals[n:]


def _reduce_shape_rule(*avals, computation, jaxpr, dimensions):
    operands, inits = _reduce_split(avals)
    if any(a.shape != () for a in inits):
        raise ValueError("reduce found non-scalar initial value: "
                         f"{[a.shape for a in inits]}")
    return [tuple(np.delete(op.shape, dimensions)) for op in operands]


def _reduce_dtype_rule(*avals, computation, jaxpr, dimensions):
    operands, inits = _reduce_split(avals)
    if [op.dtype for op in operands] != [i.dtype for i in inits]:
        raise TypeError("reduce operand dtypes should match corresponding initial value "
                        f"dtypes, got operands={list(operands)} and "
                        f"initial_values={list(inits)}")
    return [op.dtype for op in operands]


def _reduce_weak_type_rule(*avals, computation, jaxpr, dimensions):
    operands, inits = _reduce_split(avals)
    return [op.weak_type and i.weak_type for op, i in zip(operands, inits)]


def _reduce_batch(args, dims, *, computation, jaxpr, dimensions):
    operands, inits = _reduce_split(list(args))
    operand_dims, init_dims = _reduce_split(list(dims))
    if any(d is not None for d in init_dims):
        raise NotImplementedError   # as in JAX: batched initial values are unsupported
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    operands = [batching.bdim_at_front(x, d, size) for x, d in zip(operands, operand_dims)]
    outs = reduce_p.bind(*operands, *inits, computation=computation, jaxpr=jaxpr,
                         dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * len(outs)


def _reduce_jvp(reducer, init_values, primals, tangents, axes):
    """JVP of a reduction by any monoid: reduce by a balanced tree of pairwise
    ``reducer`` applications (halving the axis each step), differentiated with ``jvp``.
    The reduced axes are first moved to the front and flattened into one."""
    input_shape = np.array(np.shape(primals[0]), dtype=int)
    n = np.prod(input_shape[list(axes)])
    non_axes = np.delete(np.arange(len(input_shape)), axes)
    permutation = tuple(axes) + tuple(non_axes)
    new_shape = (n,) + tuple(input_shape[non_axes])
    primals = tuple(reshape(x, new_shape, permutation) for x in primals)
    tangents = tuple(reshape(t, new_shape, permutation) for t in tangents)
    for _ in range(len(non_axes) + 1):
        reducer = vmap(reducer)

    def reduce_tree(*xs, axis=0):
        while np.shape(xs[0])[axis] > 1:
            n = np.shape(xs[0])[axis]
            n1 = (n + 1) // 2
            xs1 = [slice_in_dim(x, 0, n1) for x in xs]
            xs2 = [slice_in_dim(x, n1, None) for x in xs]
            if n - n1 != n1:
                paddings = [(0, 0, 0)] * len(np.shape(xs[0]))
                paddings[axis] = (0, 1, 0)
                xs2 = [pad(x2, i, paddings) for x2, i in zip(xs2, init_values)]
            xs = reducer(*(xs1 + xs2))
        if np.shape(xs[0])[axis] == 0:
            return [full(tuple(input_shape[non_axes]), i) for i in init_values]
        return tuple(squeeze(x, (axis,)) for x in xs)

    outs, out_tangents, _ = ad.jvp(lambda *xs: list(reduce_tree(*xs)), list(primals),
                                   list(tangents))
    return outs, out_tangents


def _reduce_jvp_rule(primals, tangents, *, computation, jaxpr, dimensions):
    xs, init_values = _reduce_split(list(primals))
    tangent_xs, tangent_inits = _reduce_split(list(tangents))
    if any(type(t) is not ad.Zero for t in tangent_inits):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial values to "
            "reduction not implemented")
    reducer = core.jaxpr_as_fun(jaxpr)
    return _reduce_jvp(reducer, init_values, xs, tangent_xs, dimensions)


def _reduce_lower(ctx, *values, computation, jaxpr, dimensions):
    """``stablehlo.reduce`` whose region is the lowered ``jaxpr`` of ``computation``."""
    operands, inits = _reduce_split(list(values))
    _, init_avals = _reduce_split(list(ctx.avals_in))
    op = hlo.ReduceOp([lowering.aval_to_ir_type(a) for a in ctx.avals_out], operands,
                      inits, lowering.i64_array(dimensions))
    scalars = [lowering.aval_to_ir_type(a) for a in init_avals]
    block = _region(op, scalars + scalars)
    with ir.InsertionPoint(block):
        outs = lowering.lower_closed_jaxpr(ctx.module_context, jaxpr, list(block.arguments))
        hlo.return_(outs)
    return list(op.results)


reduce_p = standard_multi_result_primitive(_reduce_shape_rule, _reduce_dtype_rule,
                                           _reduce_weak_type_rule, "reduce")
lowering.register_lowering(reduce_p, _reduce_lower)
ad.primitive_jvps[reduce_p] = _reduce_jvp_rule
batching.primitive_batchers[reduce_p] = _reduce_batch


def _variadic_reduction_jaxpr(computation, flat_avals, aval_tree):
    """The jaxpr of ``computation(xs, ys)`` on scalars, traced once per computation,
    types and trace context (so two reductions with one computation share one jaxpr, as
    in JAX)."""
    return _variadic_reduction_jaxpr_cached(computation, flat_avals, aval_tree,
                                            config.trace_context())


@caches.lru("lax.reductions._variadic_reduction_jaxpr_cached", 4096)
def _variadic_reduction_jaxpr_cached(computation, flat_avals, aval_tree, trace_context):
    avals = tree_util.tree_unflatten(aval_tree, flat_avals)
    flat_in, in_tree = tree_util.tree_flatten((avals, avals))

    def flat_computation(*flat_args):
        xs, ys = tree_util.tree_unflatten(in_tree, flat_args)
        out, out_tree = tree_util.tree_flatten(computation(xs, ys))
        out_trees.append(out_tree)
        return out

    out_trees = []
    jaxpr, consts, _ = staging.trace_to_jaxpr(flat_computation, flat_in)
    if any(isinstance(c, core.Tracer) for c in consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue at "
            "https://github.com/jax-ml/jax.")
    return core.ClosedJaxpr(jaxpr, consts), out_trees[0]


def concrete_scalar_init(init_values):
    """``(value, dtype)`` of a single initial value known while tracing (a scalar), else
    None: only such a value can be recognised as a monoid's identity."""
    if len(init_values) != 1:
        return None
    x, = init_values
    if np.shape(x) != () or (isinstance(x, core.Tracer) and x.to_concrete_value() is None):
        return None
    val = x.to_concrete_value() if isinstance(x, core.Tracer) else x
    return val, dtypes.dtype(x, canonicalize=True)


def _monoid_reducer(computation, init_values):
    """The specialised reduction when ``computation`` is add/mul/max/min/bitwise with
    its identity as the (concrete, scalar) initial value, else None."""
    init = concrete_scalar_init(init_values)
    if init is None:
        return None
    val, dtype = init
    intlike = dtype == np.bool_ or dtypes.issubdtype(dtype, np.integer)
    ew = elementwise
    candidates = [(ew.add, reduce_sum, _sum_identity),
                  (ew.mul, reduce_prod, _prod_identity),
                  (ew.max, reduce_max, _max_identity),
                  (ew.min, reduce_min, _min_identity)]
    if intlike:
        candidates += [(ew.bitwise_or, reduce_or, _bitwise_or_identity),
                       (ew.bitwise_and, reduce_and, _bitwise_and_identity),
                       (ew.bitwise_xor, reduce_xor, _bitwise_or_identity)]
    for op, reducer, identity in candidates:
        if computation is op:
            return reducer if np.equal(val, identity(dtype)) else None
    return None


def flatten_operands_and_inits(operands, init_values):
    """The leaves of ``operands`` and ``init_values`` (pytrees of one structure, as
    ``reduce`` and ``reduce_window`` require) and that structure."""
    flat_operands, operand_tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if operand_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{operand_tree} vs. {init_tree}")
    if len(flat_operands) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values:  "
                         f"{len(flat_operands)} vs. {len(flat_inits)}")
    return flat_operands, flat_inits, operand_tree


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """Reduce ``operands`` (a pytree of arrays) over ``dimensions`` with
    ``computation``, a monoid whose identity is ``init_values`` (scalars, same tree).
    Known monoids (``lax.add`` with 0, ...) become their specialised primitive."""
    flat_operands, flat_inits, operand_tree = flatten_operands_and_inits(operands,
                                                                         init_values)
    monoid_reducer = _monoid_reducer(computation, flat_inits)
    if monoid_reducer is not None:
        weak_type = (all(dtypes.is_weakly_typed(x) for x in flat_operands) and
                     all(dtypes.is_weakly_typed(x) for x in flat_inits))
        out = monoid_reducer(*flat_operands, dimensions)
        return elementwise._convert_element_type(out, weak_type=weak_type)
    flat_init_avals = tuple(core.get_aval(x) for x in flat_inits)
    closed_jaxpr, out_tree = _variadic_reduction_jaxpr(computation, flat_init_avals,
                                                       operand_tree)
    out = reduce_p.bind(*flat_operands, *flat_inits, computation=computation,
                        jaxpr=closed_jaxpr, dimensions=tuple(dimensions))
    return tree_util.tree_unflatten(out_tree, out)


# -- cumulative reductions ----------------------------------------------------------------

def _cumred_shape_rule(x, *, axis, reverse):
    if axis < 0:
        raise ValueError("XLA operations do not allow negative axes")
    if axis >= x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
    return x.shape


def _cumred_dtype_rule(name, x, **params):
    if not dtypes.issubdtype(x.dtype, np.number):
        raise TypeError(f"{name} does not accept dtype {np.dtype(x.dtype).name}. Accepted "
                        "dtypes are subtypes of number.")
    return x.dtype


def _cumred_batch(prim, args, dims, *, axis, reverse):
    (x,), (d,) = args, dims
    return prim.bind(x, axis=axis if axis < d else axis + 1, reverse=reverse), d


def _logaddexp_hlo(x, y):
    """``log(exp(x) + exp(y))`` computed stably: ``max + log1p(exp(-|x - y|))``
    (``x + y`` when the difference is NaN, i.e. for equal infinities)."""
    amax = hlo.maximum(x, y)
    delta = hlo.subtract(x, y)
    isnan = hlo.compare(delta, delta, hlo.ComparisonDirectionAttr.get("NE"),
                        compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))
    total = hlo.add(x, y)
    log1p = hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(delta))))
    return hlo.select(isnan, total, hlo.add(amax, log1p))


def _cumred_lower(combine, identity, ctx, x, *, axis, reverse):
    """A window as long as the axis, padded so that output i sees inputs 0..i (or i..n-1
    when ``reverse``): XLA rewrites this into an efficient scan."""
    aval = ctx.avals_in[0]
    n = aval.shape[axis]
    if n == 0:
        return x
    window = [1] * aval.ndim
    window[axis] = n
    if shape_poly.is_symbolic_dim(n):
        return _cumred_dynamic(combine, identity, ctx, x, window, axis, reverse)
    padding = np.zeros((aval.ndim, 2), np.int64)
    padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
    padding_attr = ir.DenseIntElementsAttr.get(
        padding,
        type=ir.RankedTensorType.get(padding.shape, ir.IntegerType.get_signless(64)))
    op = hlo.ReduceWindowOp([lowering.aval_to_ir_type(aval)], [x],
                            [lowering.ir_constant(identity(aval.dtype))],
                            lowering.i64_array(window),
                            window_strides=lowering.i64_array([1] * aval.ndim),
                            base_dilations=lowering.i64_array([1] * aval.ndim),
                            window_dilations=lowering.i64_array([1] * aval.ndim),
                            padding=padding_attr)
    scalar = _scalar_type(aval.dtype)
    block = _region(op, [scalar, scalar])
    with ir.InsertionPoint(block):
        hlo.return_([combine(*block.arguments)])
    return op.result


def _cumred_dynamic(combine, identity, ctx, x, window, axis, reverse):
    """The same window with a symbolic length: XLA's ``stablehlo.dynamic_reduce_window``
    custom call (window and padding computed in the program; its reducer a private
    function), as JAX lowers it; shape refinement makes it a ``reduce_window``."""
    aval = ctx.avals_in[0]
    mctx = ctx.module_context
    scalar = _scalar_type(aval.dtype)
    name = mctx.unique_name("dynamic_reduce_window_reducer")
    with ir.InsertionPoint.at_block_begin(mctx.module.body):
        reducer = func_dialect.FuncOp(name, ir.FunctionType.get([scalar] * 2, [scalar]))
    reducer.attributes["sym_visibility"] = ir.StringAttr.get("private")
    block = reducer.add_entry_block()
    with ir.InsertionPoint(block):
        func_dialect.ReturnOp([combine(*block.arguments)])
    ones = [1] * aval.ndim
    pad = [(0, 0)] * aval.ndim
    pad[axis] = (0, window[axis] - 1) if reverse else (window[axis] - 1, 0)
    pairs = lowering.aval_to_ir_type(core.ShapedArray((1, 2), np.int32))
    padding = hlo.concatenate([hlo.reshape(pairs, lowering.shape_tensor(p)) for p in pad], 0)
    op = hlo.CustomCallOp(
        [lowering.aval_to_ir_type(aval)],
        [x, lowering.ir_constant(identity(aval.dtype)),
         *(lowering.shape_tensor(v) for v in (window, ones, ones, ones)), padding],
        call_target_name="stablehlo.dynamic_reduce_window",
        called_computations=ir.ArrayAttr.get([ir.FlatSymbolRefAttr.get(name)]))
    return op.result


def _cumulative_jvp(combine_fn, primals, tangents, *, axis, reverse):
    """Differentiate through the parallel prefix scan (reduce_window is not
    differentiable to arbitrary order)."""
    scan = functools.partial(associative_scan, combine_fn, axis=axis, reverse=reverse)
    (out,), (out_tangent,), _ = ad.jvp(lambda x: [scan(x)], list(primals), list(tangents))
    return out, out_tangent


def _cumulative_reduction(name, combine, identity, combine_fn):
    prim = standard_primitive(_cumred_shape_rule,
                              functools.partial(_cumred_dtype_rule, name), name)
    prim.sharding_rule = lambda x, *, axis, reverse: unsplit_along(
        axis, "Input should be unsharded over the axis being reduced. Got input "
        "type={x} and axis={axis}", x)
    lowering.register_lowering(prim, functools.partial(_cumred_lower, combine, identity))
    batching.primitive_batchers[prim] = functools.partial(_cumred_batch, prim)
    if combine_fn is not None:
        ad.primitive_jvps[prim] = functools.partial(_cumulative_jvp, combine_fn)
    return prim


cumsum_p = _cumulative_reduction("cumsum", hlo.add, _sum_identity, None)
ad.deflinear2(cumsum_p, lambda ct, x, *, axis, reverse: [
    cumsum(ct, axis=axis, reverse=not reverse)])
cumprod_p = _cumulative_reduction("cumprod", hlo.multiply, _prod_identity,
                                  elementwise.mul)
cummax_p = _cumulative_reduction("cummax", _max_hlo, _max_identity, elementwise.max)
cummin_p = _cumulative_reduction("cummin", _min_hlo, _min_identity, elementwise.min)
cumlogsumexp_p = _cumulative_reduction("cumlogsumexp", _logaddexp_hlo,
                                       lambda dtype: np.array(-np.inf, dtype), logaddexp)


def cumsum(operand, axis: int = 0, reverse: bool = False):
    """Cumulative sum along ``axis``."""
    return cumsum_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumprod(operand, axis: int = 0, reverse: bool = False):
    """Cumulative product along ``axis``."""
    return cumprod_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummax(operand, axis: int = 0, reverse: bool = False):
    """Cumulative maximum along ``axis``."""
    return cummax_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummin(operand, axis: int = 0, reverse: bool = False):
    """Cumulative minimum along ``axis``."""
    return cummin_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """Cumulative ``log(sum(exp(x)))`` along ``axis``."""
    return cumlogsumexp_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """All prefix combinations ``[a, fn(a, b), fn(fn(a, b), c), ...]`` of ``elems``
    along ``axis`` in O(log n) parallel steps, for an associative ``fn`` (Blelloch):
    combine neighbouring pairs, scan that half-length sequence recursively (giving the
    odd outputs), then combine those with the even inputs (giving the even outputs)."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    elems_flat, tree = tree_util.tree_flatten(elems)
    if reverse:
        elems_flat = [rev(e, [axis]) for e in elems_flat]

    def combine(a_flat, b_flat):
        c = fn(tree_util.tree_unflatten(tree, a_flat),
               tree_util.tree_unflatten(tree, b_flat))
        return tree_util.tree_leaves(c)

    axis = canonicalize_axis(axis, np.ndim(elems_flat[0]))
    num_elems = int(np.shape(elems_flat[0])[axis])
    if not all(int(np.shape(e)[axis]) == num_elems for e in elems_flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[np.shape(e) for e in elems_flat]})")

    def scan(elems):
        num_elems = np.shape(elems[0])[axis]
        if num_elems < 2:
            return elems
        reduced = combine([slice_in_dim(e, 0, -1, stride=2, axis=axis) for e in elems],
                          [slice_in_dim(e, 1, None, stride=2, axis=axis) for e in elems])
        odd = scan(reduced)
        if num_elems % 2 == 0:
            even = combine([slice_in_dim(e, 0, -1, axis=axis) for e in odd],
                           [slice_in_dim(e, 2, None, stride=2, axis=axis) for e in elems])
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, stride=2, axis=axis)
                                 for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, axis=axis), r], dimension=axis)
                for e, r in zip(elems, even)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd)]

    scans = scan(elems_flat)
    if reverse:
        scans = [rev(s, [axis]) for s in scans]
    return tree_util.tree_unflatten(tree, scans)


def _interleave(a, b, axis):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis``: pad each with interior zeros at
    the other's positions and add (or OR, for booleans)."""
    a_pad = [(0, 0, 0)] * np.ndim(a)
    b_pad = [(0, 0, 0)] * np.ndim(b)
    same = np.shape(a)[axis] == np.shape(b)[axis]
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    op = elementwise.bitwise_or if dtypes.dtype(a) == np.bool_ else elementwise.add
    return op(pad(a, np.zeros((), dtypes.dtype(a)), a_pad),
              pad(b, np.zeros((), dtypes.dtype(b)), b_pad))


# -- sort ---------------------------------------------------------------------------------

def _multi_result_primitive(name, abstract_eval):
    prim = core.Primitive(name)
    prim.multiple_results = True
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    return prim


def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    if any(a.shape != avals[0].shape for a in avals[1:]):
        shapes = " ".join(str(a.shape) for a in avals)
        raise TypeError(f"Arguments to sort must have equal shapes, got: {shapes}")
    return list(avals)


def _compare_hlo(direction, x, y, dtype):
    """A scalar comparison; floats compare in the total order (-0 < 0, NaN last)."""
    if dtypes.issubdtype(dtype, np.inexact):
        kind = "TOTALORDER"
    elif dtypes.issubdtype(dtype, np.signedinteger):
        kind = "SIGNED"
    else:
        kind = "UNSIGNED"
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


def _canonicalize_float_hlo(x, dtype):
    """-0.0 -> 0.0 and every NaN -> one NaN, so the total order treats them as equal."""
    float_compare = lambda direction, a, b: hlo.compare(
        a, b, hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get("FLOAT"))
    constant = lambda v: lowering.ir_constant(np.array(v, dtype))
    is_zero = float_compare("EQ", x, constant(0))
    result = hlo.select(is_zero, constant(0), x)
    return hlo.select(float_compare("NE", x, x), constant(np.nan), result)


def _sort_keys_hlo(x, dtype):
    """The keys of one sort operand: complex numbers sort by (real, imag)."""
    if dtypes.issubdtype(dtype, np.complexfloating):
        real_dtype = dtypes.complex_real_dtype(dtype)
        return [(_canonicalize_float_hlo(part(x), real_dtype), real_dtype)
                for part in (hlo.real, hlo.imag)]
    if dtypes.issubdtype(dtype, np.floating):
        return [(_canonicalize_float_hlo(x, dtype), dtype)]
    return [(x, dtype)]


def _sort_lower(ctx, *operands, dimension, is_stable, num_keys):
    """``stablehlo.sort`` with a comparator region: lexicographic "less than" on the
    first ``num_keys`` operands."""
    op = hlo.SortOp([lowering.aval_to_ir_type(a) for a in ctx.avals_out], list(operands),
                    dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                 dimension),
                    is_stable=ir.BoolAttr.get(is_stable))
    scalars = [_scalar_type(a.dtype) for a in ctx.avals_in]
    block = op.comparator.blocks.append(*[t for s in scalars for t in (s, s)])
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        x_keys, y_keys = [], []
        for i, aval in enumerate(ctx.avals_in[:num_keys]):
            x_keys += _sort_keys_hlo(args[2 * i], aval.dtype)
            y_keys += _sort_keys_hlo(args[2 * i + 1], aval.dtype)
        less = None
        for (xk, dtype), (yk, _) in zip(x_keys[::-1], y_keys[::-1]):
            lt = _compare_hlo("LT", xk, yk, dtype)
            less = lt if less is None else hlo.or_(lt, hlo.and_(
                _compare_hlo("EQ", xk, yk, dtype), less))
        hlo.return_([less])
    return list(op.results)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """Sort the operands together with an iota; the iota's sorted values say where each
    tangent element moves (a gather)."""
    shape = np.shape(primals[0])
    index_dtype = np.dtype(np.uint32) if all(d <= np.iinfo(np.uint32).max for d in shape) \
        else np.dtype(np.uint64)
    sorted_primals_and_idx = sort_p.bind(*primals, broadcasted_iota(index_dtype, shape,
                                                                    dimension),
                                         dimension=dimension, is_stable=is_stable,
                                         num_keys=num_keys)
    batch_dims = tuple(np.delete(np.arange(len(shape), dtype=np.int64), dimension))
    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(dimension,), start_index_map=(dimension,),
        operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    idx = expand_dims(sorted_primals_and_idx[-1], (len(shape),))
    gather_idx = functools.partial(gather_scatter.gather, start_indices=idx,
                                   dimension_numbers=dnums, slice_sizes=(1,) * len(shape),
                                   mode=gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS)
    tangents_out = [t if type(t) is ad.Zero else gather_idx(t) for t in tangents]
    return tuple(sorted_primals_and_idx[:-1]), tangents_out


def _sort_batch(args, dims, *, dimension, is_stable, num_keys):
    prototype, new_d = next((a, d) for a, d in zip(args, dims) if d is not None)
    new_args = []
    for x, d in zip(args, dims):
        if d is None:
            kept = [int(i) for i in np.delete(np.arange(np.ndim(prototype)), new_d)]
            new_args.append(broadcast_in_dim(x, np.shape(prototype), kept))
        else:
            new_args.append(batching.moveaxis(x, d, new_d))
    new_dimension = dimension + (new_d <= dimension)
    outs = sort_p.bind(*new_args, dimension=new_dimension, is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [new_d] * len(new_args)


def _sort_sharding(*avals, dimension, is_stable, num_keys):
    """Sorting needs the sorted dimension whole, and all operands split alike."""
    mesh = next(a._sharding[0] for a in avals if a._sharding is not None)
    for a in avals:
        if spec_of(a)[dimension] is not None:
            raise core.ShardingTypeError(
                "Arguments to sort must be unsharded over the sorting dimension. Got arg "
                f"sharding={sharding_text(a, mesh)} and sorting dimension={dimension}")
    same_sharding_of_all("Arguments to sort must have equal shardings, got: {}", *avals,
                         sep=" ")
    return [spec_of(a) for a in avals]


sort_p = _multi_result_primitive("sort", _sort_abstract_eval)
sort_p.sharding_rule = _sort_sharding
lowering.register_lowering(sort_p, _sort_lower)
ad.primitive_jvps[sort_p] = _sort_jvp
batching.primitive_batchers[sort_p] = _sort_batch


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort along ``dimension``. With a sequence of operands, the first ``num_keys``
    are keys (compared lexicographically) and all are permuted alike. NaNs sort last."""
    if isinstance(operand, (list, tuple)):
        if len(operand) == 0:
            raise TypeError("Sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"num_keys={num_keys} must be between 1 and "
                             f"len(operand)={len(operand)}")
        dimension = canonicalize_axis(dimension, len(operand[0].shape))
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=is_stable,
                                 num_keys=num_keys))
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
    dimension = canonicalize_axis(dimension, len(operand.shape))
    return sort_p.bind(operand, dimension=dimension, is_stable=is_stable, num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way."""
    dimension = canonicalize_axis(dimension, len(keys.shape))
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v



# The same order as a traced comparison, for code that compares like sort does without
# sorting (``jnp.searchsorted``): floats compare in the total order once -0.0 became 0.0
# and every NaN one NaN, complex numbers as (real, imaginary) pairs.

def _canonicalize_float_for_sort(x):
    result = elementwise.select(elementwise.eq(x, np.zeros((), x.dtype)), _zeros(x), x)
    return elementwise.select(elementwise.ne(x, x), full_like(result, np.nan), result)


def _sort_keys(x):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return [_canonicalize_float_for_sort(elementwise.real(x)),
                _canonicalize_float_for_sort(elementwise.imag(x))]
    if dtypes.issubdtype(x.dtype, np.floating):
        return [_canonicalize_float_for_sort(x)]
    return [x]


def _sort_comparator(last_key_p, x, y):
    """Lexicographic ``x < y`` (``last_key_p`` is lt_to) or ``x <= y`` (le_to) in sort
    order."""
    p = None
    for xk, yk in zip(_sort_keys(x)[::-1], _sort_keys(y)[::-1]):
        p = last_key_p.bind(xk, yk) if p is None else elementwise.bitwise_or(
            elementwise.lt_to_p.bind(xk, yk),
            elementwise.bitwise_and(elementwise.eq_to_p.bind(xk, yk), p))
    return p


sort_lt_comparator = functools.partial(_sort_comparator, elementwise.lt_to_p)
sort_le_comparator = functools.partial(_sort_comparator, elementwise.le_to_p)

# -- top_k --------------------------------------------------------------------------------

def _top_k_abstract_eval(x, *, k, axis):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for "
                         f"operand.shape={x.shape}")
    shape = list(x.shape)
    if shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={shape} and axis={axis}")
    shape[axis] = k
    return [x.update(shape=tuple(shape)),
            x.update(shape=tuple(shape), dtype=np.dtype(np.int32))]


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    primals_out = top_k(x, k, axis=axis)
    if type(t) is ad.Zero:
        return primals_out, [ad.Zero.from_primal_value(p) for p in primals_out]
    _, k_idxs = primals_out
    rank = len(np.shape(k_idxs))
    gather_indices = reshape(k_idxs, np.shape(k_idxs) + (1,))
    others = tuple(i for i in range(rank) if i != axis)
    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), operand_batching_dims=others,
        start_indices_batching_dims=others, start_index_map=(axis,))
    t_out = gather_scatter.gather(t, gather_indices, dnums, (1,) * rank)
    return primals_out, [t_out, ad.Zero.from_primal_value(primals_out[1])]


def _top_k_batch(args, dims, *, k, axis):
    (x,), (d,) = args, dims
    return top_k(x, k=k, axis=axis + 1 if d <= axis else axis), [d, d]


def _top_k_lower(ctx, x, *, k, axis):
    """``chlo.top_k`` works on the last axis: swap ``axis`` there and back."""
    ndim = ctx.avals_in[0].ndim
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    if axis != ndim - 1:
        x = hlo.transpose(x, lowering.i64_array(perm))
    if shape_poly.is_symbolic_dim(k):
        # A symbolic k (shape polymorphism): XLA's dynamic top-k, made static when the
        # module's shapes are refined.
        out_types = [lowering.aval_to_ir_type(a.update(shape=tuple(a.shape[p] for p in perm)))
                     for a in ctx.avals_out]
        results = list(hlo.CustomCallOp(out_types, [x, lowering.eval_dim(k)],
                                        call_target_name="stablehlo.dynamic_top_k").results)
    else:
        results = list(chlo.top_k(x, k))
    if axis != ndim - 1:
        results = [hlo.transpose(r, lowering.i64_array(perm)) for r in results]
    return results


top_k_p = _multi_result_primitive("top_k", _top_k_abstract_eval)
top_k_p.sharding_rule = lambda x, *, k, axis: [unsplit_along(
    axis, "The input should be unsharded over the axis along which to compute the top_k "
    "values. Got input type={x} and axis={axis}", x)] * 2
lowering.register_lowering(top_k_p, _top_k_lower)
ad.primitive_jvps[top_k_p] = _top_k_jvp
batching.primitive_batchers[top_k_p] = _top_k_batch


def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest values along ``axis`` and their (int32) indices, largest first
    (on ties the lower index comes first)."""
    k = shape_poly.canonicalize_dim(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = canonicalize_axis(axis, np.ndim(operand))
    return top_k_p.bind(operand, k=k, axis=axis)


above.register(reduce_sum=reduce_sum, reduce_and=reduce_and)
