"""Windowed reductions: ``reduce_window`` (pooling) and the primitives its gradients need.

A window of ``window_dimensions`` slides over the (padded, optionally dilated) operand in
steps of ``window_strides``; each output element folds one window with a monoid. Sums,
maxima and minima have their own primitives (``reduce_window_sum``/``_max``/``_min``);
any other computation goes through the generic ``reduce_window`` whose reducer is a
jaxpr. All lower to ``stablehlo.reduce_window`` with a region computing the monoid.

Derivatives are themselves windowed operations:

* ``reduce_window_sum`` is linear; its transpose spreads each cotangent back over its
  window -- again a windowed sum, of the cotangent padded with zeros between elements.
* max/min pass on the tangent of the element each window chose:
  ``select_and_gather_add`` (a two-operand reduce_window over (value, tangent) pairs).
  Its transpose, ``select_and_scatter_add``, adds each cotangent onto the chosen element
  (``stablehlo.select_and_scatter``), which is the gradient of max-pooling.

The window geometry (string paddings, dilated sizes, the padding of a transposed
window) lives here too; convolutions use the same arithmetic.
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import core, dtypes, tree_util
from glassjax.interpreters import ad, batching
from glassjax.lax import elementwise, reductions
from glassjax.lax.reductions import (_max_hlo, _max_identity, _min_hlo, _min_identity,
                                     _sum_identity, _variadic_reduction_jaxpr)
from glassjax.lax.slicing import pad, slice as _slice
from glassjax.lax.utils import (check_shapelike, compiled_primitive, reduction_jaxpr,
                                resized_sharding, standard_primitive)
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir

_input_dtype = lambda x, *args, **params: x.dtype


# -- window geometry ----------------------------------------------------------------------

def dilate_dim(d, dilation):
    """The size of an axis of size ``d`` with ``dilation - 1`` holes between elements."""
    return d if dilation == 1 else max(0, 1 + dilation * (d - 1))


def dilate_shape(shape, dilation):
    """``dilate_dim`` on every axis (leading axes without a dilation are left alone)."""
    if not np.all(np.greater(dilation, 0)):
        raise TypeError(f"All dilations must be positive, got {dilation}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    return tuple(map(dilate_dim, shape, dilation))


def stride_dim(d, window_size, window_stride):
    """How many windows of ``window_size`` fit in ``d`` elements, ``window_stride`` apart."""
    return max(0, (d - window_size) // window_stride + 1)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """Explicit ``(low, high)`` pads for a padding name: ``'VALID'`` (none), ``'SAME'``
    (the output has ``ceil(in / stride)`` elements; an odd total pad puts the extra
    element at the end) or ``'SAME_LOWER'`` (the extra element at the start)."""
    if not isinstance(padding, str):
        raise TypeError(f"Unknown padding type: {padding}.")
    kind = padding.upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    out_shape = -np.floor_divide(np.negative(in_shape), window_strides)
    pad_sizes = [max(int(d), 0) for d in
                 (out_shape - 1) * window_strides + window_shape - in_shape]
    if kind == "SAME":
        return [(p // 2, p - p // 2) for p in pad_sizes]
    return [(p - p // 2, p // 2) for p in pad_sizes]


def conv_general_vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape,
                                 padding, lhs_dilation, rhs_dilation):
    """The padding that turns the transpose of a windowed operation (a convolution or a
    windowed sum) into another windowed operation over the stride-dilated cotangent:
    every input element must see exactly the outputs whose windows covered it."""
    lhs_dilated_shape = dilate_shape(in_shape, lhs_dilation)
    rhs_dilated_shape = dilate_shape(window_dimensions, rhs_dilation)
    out_dilated_shape = dilate_shape(out_shape, window_strides)
    pad_before = np.subtract(rhs_dilated_shape, [lo for lo, _ in padding]) - 1
    pad_after = (np.add(lhs_dilated_shape, rhs_dilated_shape) - 1
                 - out_dilated_shape - pad_before)
    return list(zip(pad_before, pad_after))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The result shape of a windowed reduction."""
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = tuple(d + lo + hi for d, (lo, hi) in zip(operand_shape, padding))
    return tuple(map(stride_dim, padded, window_dimensions, window_strides))


def _common_reduce_window_shape_rule(operand, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation):
    check_shapelike("reduce_window", window_dimensions=window_dimensions,
                    window_strides=window_strides, non_zero_shape=True)
    check_shapelike("reduce_window", base_dilation=base_dilation,
                    window_dilation=window_dilation)
    if operand.ndim != len(window_dimensions):
        raise TypeError("reduce_window got the wrong number of window_dimensions for "
                        f"operand: got operand shape {operand.shape} with window_dimensions "
                        f"{window_dimensions}.")
    for name, value in [("window_strides", window_strides),
                        ("base_dilation", base_dilation),
                        ("window_dilation", window_dilation)]:
        if len(value) != len(window_dimensions):
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: "
                            f"got {name} {value} and window_dimensions "
                            f"{window_dimensions}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides,
                                     padding, base_dilation, window_dilation)


# -- lowering -----------------------------------------------------------------------------

def _padding_attr(padding):
    return ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(-1, 2))


def _scalar_type(dtype):
    return lowering.aval_to_ir_type(core.ShapedArray((), dtype))


def _reduce_window_hlo(ctx, operands, init_values, scalar_dtypes, reducer_body, *,
                       window_dimensions, window_strides, padding, base_dilation,
                       window_dilation):
    """``stablehlo.reduce_window``; ``reducer_body(block_arguments)`` emits the region
    that combines two partial results (first all accumulators, then all new values)."""
    op = hlo.ReduceWindowOp([lowering.aval_to_ir_type(a) for a in ctx.avals_out],
                            operands, init_values, lowering.i64_array(window_dimensions),
                            window_strides=lowering.i64_array(window_strides),
                            base_dilations=lowering.i64_array(base_dilation),
                            window_dilations=lowering.i64_array(window_dilation),
                            padding=_padding_attr(padding))
    scalars = [_scalar_type(d) for d in scalar_dtypes]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        hlo.return_(reducer_body(list(block.arguments)))
    return list(op.results)


def _lower_region(ctx, jaxpr, consts, args):
    """Lower a scalar computation's jaxpr inside the region being built."""
    return lowering.lower_jaxpr(ctx.module_context, jaxpr,
                                [lowering.ir_constant(np.asarray(c)) for c in consts], args)


# -- reduce_window: any computation, given as a jaxpr -------------------------------------

def _split(xs):
    n = len(xs) // 2
    return list(xs[:n]), list(xs[n:])


def _reduce_window_abstract_eval(*avals, jaxpr, consts, window_dimensions, window_strides,
                                 padding, base_dilation, window_dilation):
    operands, inits = _split(avals)
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and "
                        f"init_values: got operand dtypes {[o.dtype for o in operands]} and "
                        f"init_value dtypes {[i.dtype for i in inits]}.")
    if any(i.shape != () for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    shape = _common_reduce_window_shape_rule(operands[0], window_dimensions,
                                             window_strides, padding, base_dilation,
                                             window_dilation)
    return [core.ShapedArray(shape, o.dtype) for o in operands]


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, window_dimensions,
                       window_strides, padding, base_dilation, window_dilation):
    """Reduce (value, tangent) pairs together with the JVP of the reducer: the pair a
    window ends up with is the result and its tangent."""
    operands, inits = _split(primals)
    operand_tangents, init_tangents = _split(tangents)
    n = len(operands)
    if not all(type(t) is ad.Zero for t in init_tangents):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    jvp_reducer, _ = ad.jvp_jaxpr(core.ClosedJaxpr(jaxpr, consts), (True,) * len(tangents),
                                  [False] * n)

    def reducer(left, right):
        primals_l, tangents_l = left[:n], left[n:]
        primals_r, tangents_r = right[:n], right[n:]
        return core.jaxpr_as_fun(jvp_reducer)(*primals_l, *primals_r, *tangents_l,
                                              *tangents_r)

    outs = _reduce_window(
        [*operands, *map(ad.instantiate_zeros, operand_tangents)],
        [*inits, *map(ad.instantiate_zeros, init_tangents)], reducer,
        window_dimensions, window_strides, padding, base_dilation, window_dilation)
    return outs[:n], outs[n:]


def _reduce_window_batch(args, dims, *, jaxpr, consts, window_dimensions, window_strides,
                         padding, base_dilation, window_dilation):
    """Move the mapped axis to the front and give it a window of one element."""
    operands, inits = _split(args)
    operand_dims, init_dims = _split(dims)
    if any(d is not None for d in init_dims):
        raise NotImplementedError("reduce_window batching is not implemented for initial "
                                  "values")
    size = next(np.shape(x)[d] for x, d in zip(operands, operand_dims) if d is not None)
    operands = [batching.bdim_at_front(x, d, size) for x, d in zip(operands, operand_dims)]
    outs = reduce_window_p.bind(
        *operands, *inits, jaxpr=jaxpr, consts=consts,
        window_dimensions=(1,) + window_dimensions, window_strides=(1,) + window_strides,
        padding=((0, 0),) + padding, base_dilation=(1,) + base_dilation,
        window_dilation=(1,) + window_dilation)
    return outs, [0] * len(outs)


def _reduce_window_lower(ctx, *args, jaxpr, consts, **window):
    operands, inits = _split(args)
    _, init_avals = _split(ctx.avals_in)
    return _reduce_window_hlo(ctx, operands, inits, [a.dtype for a in init_avals],
                              lambda xs: _lower_region(ctx, jaxpr, consts, xs), **window)


reduce_window_p = compiled_primitive("reduce_window", multiple_results=True)
reduce_window_p.def_abstract_eval(_reduce_window_abstract_eval)
lowering.register_lowering(reduce_window_p, _reduce_window_lower)
ad.primitive_jvps[reduce_window_p] = _reduce_window_jvp
batching.primitive_batchers[reduce_window_p] = _reduce_window_batch


# -- reduce_window_sum, reduce_window_max, reduce_window_min ------------------------------

def _reduce_window_sum_shape_rule(operand, **window):
    if not dtypes.issubdtype(operand.dtype, np.number):
        raise TypeError("operand to reduce_window_sum must have a number dtype, got "
                        f"{np.dtype(operand.dtype).name}")
    return _common_reduce_window_shape_rule(operand, **window)


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides,
                                 padding, base_dilation, window_dilation):
    """Each input element receives the cotangents of every window that covered it: a
    windowed sum over the cotangent with strides turned into interior zeros."""
    input_shape = operand.aval.shape
    pads = conv_general_vjp_lhs_padding(input_shape, window_dimensions, window_strides,
                                        np.shape(ct), padding, base_dilation,
                                        window_dilation)
    padding_config = [(lo, hi, stride - 1) for (lo, hi), stride in zip(pads, window_strides)]
    padded_ct = pad(ct, np.zeros((), dtypes.dtype(ct)), padding_config)
    ones = [1] * len(input_shape)
    result = _reduce_window_sum(padded_ct, window_dimensions, base_dilation,
                                [(0, 0)] * len(input_shape), base_dilation=ones,
                                window_dilation=window_dilation)
    assert np.shape(result) == input_shape, (np.shape(result), input_shape)
    return [result]


def _monoid_window_batch(reducer, args, dims, *, window_dimensions, window_strides,
                         padding, base_dilation, window_dilation):
    """The mapped axis stays where it is and gets a window of one element."""
    (operand,), (d,) = args, dims
    insert = lambda params, value: params[:d] + (value,) + params[d:]
    out = reducer(operand, insert(window_dimensions, 1), insert(window_strides, 1),
                  insert(padding, (0, 0)), insert(base_dilation, 1),
                  insert(window_dilation, 1))
    return out, d


def _reduce_window_chooser_jvp(select_prim, g, operand, **window):
    """The tangent of a window's max (min) is the tangent of the element it chose."""
    return _select_and_gather_add(g, operand, select_prim, **window)


def _monoid_window_lower(combine, identity, ctx, operand, **window):
    dtype = ctx.avals_in[0].dtype
    scalar = core.ShapedArray((), dtype)
    init = lowering.full_like_aval(identity(dtype), scalar)
    return _reduce_window_hlo(ctx, [operand], [init], [dtype],
                              lambda xs: [combine(*xs)], **window)[0]


def _monoid_window_primitive(name, shape_rule, combine, identity):
    prim = standard_primitive(shape_rule, _input_dtype, name)
    prim.sharding_rule = lambda x, **window: resized_sharding("reduce_window", x,
                                                              shape_rule(x, **window))
    lowering.register_lowering(prim, functools.partial(_monoid_window_lower, combine,
                                                       identity))
    return prim


def _bind_window(prim):
    def reducer(operand, window_dimensions, window_strides, padding, base_dilation=None,
                window_dilation=None):
        ones = (1,) * len(window_dimensions)
        return prim.bind(operand, window_dimensions=tuple(window_dimensions),
                         window_strides=tuple(window_strides), padding=tuple(padding),
                         base_dilation=ones if base_dilation is None else tuple(base_dilation),
                         window_dilation=(ones if window_dilation is None
                                          else tuple(window_dilation)))
    return reducer


def _monoid_window(name, shape_rule, lower_op, identity):
    """The primitive, its binder, and its batching rule (the same for the three)."""
    prim = _monoid_window_primitive(name, shape_rule, lower_op, identity)
    bind = _bind_window(prim)
    batching.primitive_batchers[prim] = functools.partial(_monoid_window_batch, bind)
    return prim, bind


reduce_window_sum_p, _reduce_window_sum = _monoid_window(
    "reduce_window_sum", _reduce_window_sum_shape_rule, hlo.add, _sum_identity)
ad.deflinear2(reduce_window_sum_p, _reduce_window_sum_transpose)

reduce_window_max_p, _reduce_window_max = _monoid_window(
    "reduce_window_max", _common_reduce_window_shape_rule, _max_hlo, _max_identity)
ad.defjvp(reduce_window_max_p,
          functools.partial(_reduce_window_chooser_jvp, elementwise.ge_p))

reduce_window_min_p, _reduce_window_min = _monoid_window(
    "reduce_window_min", _common_reduce_window_shape_rule, _min_hlo, _min_identity)
ad.defjvp(reduce_window_min_p,
          functools.partial(_reduce_window_chooser_jvp, elementwise.le_p))


# -- the public function ------------------------------------------------------------------

def _monoid_window_reducer(computation, init_values):
    """``reduce_window_sum``/``_max``/``_min`` when ``computation`` is add/max/min and the
    (concrete, scalar) initial value is its identity, else None."""
    init = reductions.concrete_scalar_init(init_values)
    if init is None:
        return None
    val, dtype = init
    for op, reducer, identity in [(elementwise.add, _reduce_window_sum, _sum_identity),
                                  (elementwise.max, _reduce_window_max, _max_identity),
                                  (elementwise.min, _reduce_window_min, _min_identity)]:
        if computation is op:
            return reducer if np.equal(val, identity(dtype)) else None
    return None


def _reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                   padding, base_dilation=None, window_dilation=None):
    flat_operands, flat_inits, operand_tree = reductions.flatten_operands_and_inits(
        operand, init_value)
    if not flat_operands:
        raise ValueError("reduce_window must have at least one operand.")
    ones = (1,) * len(window_dimensions)
    window_strides = ones if window_strides is None else tuple(window_strides)
    if isinstance(padding, str):
        dilated_window = (window_dimensions if window_dilation is None
                          else dilate_shape(window_dimensions, window_dilation))
        padding = padtype_to_pads(np.shape(flat_operands[0]), dilated_window,
                                  window_strides, padding)
    padding = tuple((lo, hi) for lo, hi in padding)
    base_dilation = ones if base_dilation is None else tuple(base_dilation)
    window_dilation = ones if window_dilation is None else tuple(window_dilation)
    monoid_reducer = _monoid_window_reducer(computation, flat_inits)
    if monoid_reducer:
        return monoid_reducer(operand, window_dimensions, window_strides, padding,
                              base_dilation, window_dilation)
    flat_init_avals = tuple(core.get_aval(v) for v in flat_inits)
    jaxpr, out_tree = _variadic_reduction_jaxpr(computation, flat_init_avals, operand_tree)
    if operand_tree != out_tree:
        raise ValueError("reduce_window output must have the same tree structure as the "
                         f"operands {operand_tree} vs. {out_tree}")
    outs = reduce_window_p.bind(
        *flat_operands, *flat_inits, jaxpr=jaxpr.jaxpr, consts=tuple(jaxpr.consts),
        window_dimensions=tuple(window_dimensions), window_strides=window_strides,
        padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)
    return tree_util.tree_unflatten(out_tree, outs)


def reduce_window(operand, init_value, computation, window_dimensions,
                  window_strides=None, padding="VALID", base_dilation=None,
                  window_dilation=None):
    """Fold every window of ``operand`` (an array or a pytree of arrays) with
    ``computation``, starting from ``init_value`` (scalars, same tree). ``padding`` is
    ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or ``(low, high)`` pairs; the dilations
    insert holes between operand elements (``base_dilation``) or window taps
    (``window_dilation``)."""
    return _reduce_window(operand, init_value, computation, window_dimensions,
                          window_strides, padding, base_dilation, window_dilation)


# -- select_and_scatter: add each source value onto the element its window selects -------

def _select_and_scatter_shape_rule(operand, source, init_value, *, select_jaxpr,
                                   select_consts, scatter_jaxpr, scatter_consts,
                                   window_dimensions, window_strides, padding):
    check_shapelike("select_and_scatter", window_dimensions=window_dimensions,
                    window_strides=window_strides)
    if len(window_dimensions) != len(window_strides):
        raise TypeError("select_and_scatter got inconsistent window_strides and "
                        f"window_dimensions: got window_strides {window_strides} and "
                        f"window_dimensions {window_dimensions}.")
    return operand.shape


def _select_and_scatter_lower(ctx, operand, source, init_value, *, select_jaxpr,
                              select_consts, scatter_jaxpr, scatter_consts,
                              window_dimensions, window_strides, padding):
    """``stablehlo.select_and_scatter``: the ``select`` region picks one element per
    window (``x`` wins over ``y`` when it returns true), the ``scatter`` region adds
    the window's source value onto it."""
    scalar = _scalar_type(ctx.avals_in[0].dtype)
    op = hlo.SelectAndScatterOp(lowering.aval_to_ir_type(ctx.avals_out[0]), operand,
                                source, init_value,
                                window_dimensions=lowering.i64_array(window_dimensions),
                                window_strides=lowering.i64_array(window_strides),
                                padding=_padding_attr(padding))
    for region, jaxpr, consts in [(op.select, select_jaxpr, select_consts),
                                  (op.scatter, scatter_jaxpr, scatter_consts)]:
        block = region.blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            hlo.return_(_lower_region(ctx, jaxpr, consts, list(block.arguments)))
    return op.result


select_and_scatter_p = standard_primitive(_select_and_scatter_shape_rule, _input_dtype,
                                          "select_and_scatter")
lowering.register_lowering(select_and_scatter_p, _select_and_scatter_lower)


def _select_and_scatter(operand, select, window_dimensions, window_strides, padding,
                        source, init_value, scatter):
    aval = core.get_aval(init_value)
    select_jaxpr, select_consts = reduction_jaxpr(select, aval)
    scatter_jaxpr, scatter_consts = reduction_jaxpr(scatter, aval)
    return select_and_scatter_p.bind(
        operand, source, init_value, select_jaxpr=select_jaxpr,
        select_consts=select_consts, scatter_jaxpr=scatter_jaxpr,
        scatter_consts=scatter_consts, window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(padding))


# -- select_and_scatter_add: the transpose of select_and_gather_add ----------------------

def _select_identity(select_prim):
    return _max_identity if select_prim is elementwise.ge_p else _min_identity


def _select_and_scatter_add(source, operand, select_prim, window_dimensions,
                            window_strides, padding):
    return select_and_scatter_add_p.bind(
        source, operand, select_prim=select_prim,
        window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
        padding=tuple(padding))


def _select_and_scatter_add_jvp(primals, tangents, *, select_prim, window_dimensions,
                                window_strides, padding):
    """Linear in ``source``; the operand only decides where values go."""
    (source, operand), (g_source, _) = primals, tangents
    window = (window_dimensions, window_strides, padding)
    out = _select_and_scatter_add(source, operand, select_prim, *window)
    if type(g_source) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, _select_and_scatter_add(g_source, operand, select_prim, *window)


def _select_and_scatter_add_transpose(t, source, operand, *, select_prim,
                                      window_dimensions, window_strides, padding):
    assert ad.is_undefined_primal(source) and not ad.is_undefined_primal(operand)
    if type(t) is ad.Zero:
        return [ad.Zero(source.aval), None]
    ones = (1,) * len(window_dimensions)
    return [_select_and_gather_add(t, operand, select_prim, window_dimensions,
                                   window_strides, padding, ones, ones), None]


def _select_and_scatter_add_batch(args, dims, *, select_prim, window_dimensions,
                                  window_strides, padding):
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    source, operand = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    out = _select_and_scatter_add(source, operand, select_prim, (1,) + window_dimensions,
                                  (1,) + window_strides, ((0, 0),) + padding)
    return out, 0


def _select_and_scatter_add_impl(source, operand, *, select_prim, window_dimensions,
                                 window_strides, padding):
    """As JAX does on CPU (where XLA mishandles padded select_and_scatter): pad the
    operand explicitly with the selection's identity, select and scatter without
    padding, then cut the padding off again."""
    dtype = dtypes.dtype(source)
    scatter = elementwise.bitwise_or if dtype == np.bool_ else elementwise.add
    operand_shape = np.shape(operand)
    operand = pad(operand, _select_identity(select_prim)(dtype),
                  [(lo, hi, 0) for lo, hi in padding])
    out = _select_and_scatter(operand, select_prim.bind, window_dimensions,
                              window_strides, [(0, 0)] * len(padding), source,
                              np.zeros((), dtype), scatter)
    return _slice(out, [lo for lo, _ in padding],
                  [lo + d for (lo, _), d in zip(padding, operand_shape)])


select_and_scatter_add_p = standard_primitive(
    lambda source, operand, **params: operand.shape, _input_dtype,
    "select_and_scatter_add")
lowering.register_lowering(select_and_scatter_add_p,
                           lowering.lower_fun(_select_and_scatter_add_impl))
ad.primitive_jvps[select_and_scatter_add_p] = _select_and_scatter_add_jvp
ad.primitive_transposes[select_and_scatter_add_p] = _select_and_scatter_add_transpose
batching.primitive_batchers[select_and_scatter_add_p] = _select_and_scatter_add_batch


# -- select_and_gather_add: the tangent of the element each window selects ---------------

def _select_and_gather_add(tangents, operand, select_prim, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation):
    return select_and_gather_add_p.bind(
        tangents, operand, select_prim=select_prim,
        window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
        padding=tuple(padding), base_dilation=tuple(base_dilation),
        window_dilation=tuple(window_dilation))


def _select_and_gather_add_shape_rule(tangents, operand, *, select_prim, **window):
    if tangents.shape != operand.shape:
        raise TypeError("select_and_gather_add tangents and operand shapes must match, "
                        f"got {tangents.shape} and {operand.shape}.")
    return _common_reduce_window_shape_rule(operand, **window)


def _select_and_gather_add_jvp(primals, tangents, *, select_prim, **window):
    (source, operand), (g_source, _) = primals, tangents
    out = _select_and_gather_add(source, operand, select_prim, **window)
    if type(g_source) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, _select_and_gather_add(g_source, operand, select_prim, **window)


def _select_and_gather_add_transpose(t, tangents, operand, *, select_prim,
                                     window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation):
    """Send each cotangent back to the element its window selected. A base dilation is
    undone by selecting on the operand dilated with identities and keeping every
    ``base_dilation``-th element of the result."""
    assert ad.is_undefined_primal(tangents) and not ad.is_undefined_primal(operand)
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, "
            f"got window_dilation={window_dilation}.")
    if type(t) is ad.Zero:
        return [ad.Zero(tangents.aval), None]
    has_base_dilation = any(d != 1 for d in base_dilation)
    if has_base_dilation:
        identity = _select_identity(select_prim)(dtypes.dtype(operand))
        operand = pad(operand, identity, tuple((0, 0, d - 1) for d in base_dilation))
    result = _select_and_scatter_add(t, operand, select_prim, window_dimensions,
                                     window_strides, padding)
    if has_base_dilation:
        result = _slice(result, (0,) * np.ndim(result), np.shape(result), base_dilation)
    return [result, None]


def _select_and_gather_add_batch(args, dims, *, select_prim, window_dimensions,
                                 window_strides, padding, base_dilation, window_dilation):
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    t, x = (batching.bdim_at_front(a, d, size) for a, d in zip(args, dims))
    out = _select_and_gather_add(t, x, select_prim, (1,) + window_dimensions,
                                 (1,) + window_strides, ((0, 0),) + padding,
                                 (1,) + base_dilation, (1,) + window_dilation)
    return out, 0


def _select_and_gather_add_impl(tangents, operand, *, select_prim, window_dimensions,
                                window_strides, padding, base_dilation, window_dilation):
    """A two-operand reduce_window over (value, tangent) pairs that keeps the pair with
    the selected value."""
    def reducer(x, y):
        (kx, vx), (ky, vy) = x, y
        which = select_prim.bind(kx, ky)
        return elementwise.select(which, kx, ky), elementwise.select(which, vx, vy)

    dtype = dtypes.dtype(operand)
    init = -np.inf if select_prim is elementwise.ge_p else np.inf
    _, out = reduce_window((operand, tangents),
                           (np.array(init, dtype), np.array(0, dtype)), reducer,
                           window_dimensions, window_strides, padding, base_dilation,
                           window_dilation)
    return out


select_and_gather_add_p = standard_primitive(_select_and_gather_add_shape_rule,
                                             _input_dtype, "select_and_gather_add")
lowering.register_lowering(select_and_gather_add_p,
                           lowering.lower_fun(_select_and_gather_add_impl))
ad.primitive_jvps[select_and_gather_add_p] = _select_and_gather_add_jvp
ad.primitive_transposes[select_and_gather_add_p] = _select_and_gather_add_transpose
batching.primitive_batchers[select_and_gather_add_p] = _select_and_gather_add_batch
