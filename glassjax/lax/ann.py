"""``approx_max_k`` / ``approx_min_k``: top-k for nearest-neighbour search.

On TPUs XLA computes these approximately (recall ``recall_target``), much faster than an
exact sort. Elsewhere XLA expands the same ``ApproxTopK`` custom call, marked as a
fallback, into an exact sort, so on CPU the results are the exact top k. Without
``aggregate_to_topk`` the result keeps more than ``k`` candidates per row; how many is
XLA's own formula (``approx_top_k_reduction_output_size``), so the output type agrees
with what XLA computes.
"""
from __future__ import annotations

import functools

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func as func_dialect
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes
from glassjax.interpreters import ad, batching
from glassjax.lax.slicing import take_along_last_axis
from glassjax.lax.structural import transpose
from glassjax.xla import dispatch, lowering, runtime


class ApproxTopKPrimitive(core.Primitive):
    multiple_results = True


approx_top_k_p = ApproxTopKPrimitive("approx_top_k")


def _abstract_eval(operand, *, k, reduction_dimension, recall_target, is_max_k,
                   reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if operand.ndim == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got "
                        f"{operand.shape}")
    dims = list(operand.shape)
    if dims[reduction_dimension] < k:
        raise ValueError(f"k must be smaller than the size of reduction_dim "
                         f"{dims[reduction_dimension]}, got {k}")
    if not dtypes.issubdtype(operand.dtype, np.floating):
        raise ValueError("operand must be a floating type")
    if aggregate_to_topk:
        dims[reduction_dimension] = k
    else:
        dims[reduction_dimension] = runtime.approx_top_k_output_size(
            dims[reduction_dimension], len(dims), k, recall_target, aggregate_to_topk,
            reduction_input_size_override)
    return [operand.update(shape=tuple(dims)),
            core.ShapedArray(tuple(dims), np.int32)]


def _comparator(mctx, elem_type, is_max_k):
    """The (value, value, index, index) -> bool function the custom call orders by."""
    name = f"top_k_{'gt' if is_max_k else 'lt'}_{elem_type}_comparator"
    scalar = ir.RankedTensorType.get([], elem_type)
    index = ir.RankedTensorType.get([], ir.IntegerType.get_signless(32))
    fn_type = ir.FunctionType.get([scalar, scalar, index, index],
                                  [ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))])
    with ir.InsertionPoint.at_block_begin(mctx.module.body):
        fn = func_dialect.FuncOp(name, fn_type)
    mctx.symbol_table.insert(fn)
    block = fn.add_entry_block()
    with ir.InsertionPoint(block):
        a, b, _, _ = block.arguments
        direction = hlo.ComparisonDirectionAttr.get("GT" if is_max_k else "LT")
        hlo.return_([hlo.compare(a, b, comparison_direction=direction)])
    return fn


def _lowering(ctx, operand, *, k, reduction_dimension, recall_target, is_max_k,
              reduction_input_size_override, aggregate_to_topk):
    aval = ctx.avals_in[0]
    dim = reduction_dimension % aval.ndim
    elem_type = lowering.dtype_to_ir_type(aval.dtype)
    comparator = _comparator(ctx.module_context, elem_type, is_max_k)
    iota = hlo.iota(lowering.aval_to_ir_type(core.ShapedArray(aval.shape, np.int32)),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim))
    init_value = lowering.ir_constant(np.array(-np.inf if is_max_k else np.inf,
                                               aval.dtype))
    init_index = lowering.ir_constant(np.array(-1, np.int32))
    i64 = ir.IntegerType.get_signless(64)
    config = ir.DictAttr.get({
        "reduction_dim": ir.IntegerAttr.get(i64, dim),
        "recall_target": ir.FloatAttr.get(ir.F32Type.get(), recall_target),
        "aggregate_to_topk": ir.BoolAttr.get(aggregate_to_topk),
        "reduction_input_size_override": ir.IntegerAttr.get(
            i64, reduction_input_size_override),
        "is_fallback": ir.BoolAttr.get(True),
        "top_k": ir.IntegerAttr.get(i64, k)})
    call = hlo.CustomCallOp(
        [lowering.aval_to_ir_type(a) for a in ctx.avals_out],
        [operand, iota, init_value, init_index],
        call_target_name=ir.StringAttr.get("ApproxTopK"),
        called_computations=ir.ArrayAttr.get(
            [ir.FlatSymbolRefAttr.get(comparator.name.value)]),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        backend_config=config)
    return list(call.results)


def _jvp(primals, tangents, **params):
    """The values' tangents are the input tangents at the chosen indices."""
    (operand,), (tangent,) = primals, tangents
    values, indices = approx_top_k_p.bind(operand, **params)
    if type(tangent) is ad.Zero:
        tangent_out = ad.Zero.from_primal_value(values)
    else:
        axis = params["reduction_dimension"] % operand.ndim
        perm = tuple(range(operand.ndim))         # the reduced axis moved last
        perm = perm[:axis] + perm[axis + 1:] + (axis,)
        inverse = tuple(int(i) for i in np.argsort(perm))
        tangent_out = transpose(take_along_last_axis(
            transpose(tangent, perm), transpose(indices, perm)), inverse)
    return [values, indices], [tangent_out, ad.Zero.from_primal_value(indices)]


def _batch(args, dims, *, reduction_dimension, **params):
    (operand,), (bdim,) = args, dims
    kept = [d for d in range(operand.ndim) if d != bdim]
    outs = approx_top_k_p.bind(operand, reduction_dimension=kept[reduction_dimension],
                               **params)
    return outs, [bdim, bdim]


approx_top_k_p.def_impl(functools.partial(dispatch.apply_primitive, approx_top_k_p))
approx_top_k_p.def_abstract_eval(_abstract_eval)
lowering.register_lowering(approx_top_k_p, _lowering)
ad.primitive_jvps[approx_top_k_p] = _jvp
batching.primitive_batchers[approx_top_k_p] = _batch


def approx_max_k(operand, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True):
    """The ``k`` largest values along ``reduction_dimension`` and their indices
    (approximately on TPU, exactly elsewhere)."""
    return approx_top_k_p.bind(operand, k=k, reduction_dimension=reduction_dimension,
                               recall_target=recall_target, is_max_k=True,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)


def approx_min_k(operand, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True):
    """The ``k`` smallest values along ``reduction_dimension`` and their indices."""
    return approx_top_k_p.bind(operand, k=k, reduction_dimension=reduction_dimension,
                               recall_target=recall_target, is_max_k=False,
                               reduction_input_size_override=reduction_input_size_override,
                               aggregate_to_topk=aggregate_to_topk)
