"""``lax.while_loop``: repeat a body while a condition holds, as one ``while`` primitive.

The primitive carries two jaxprs, ``cond_jaxpr`` (carry -> bool) and ``body_jaxpr``
(carry -> carry), and the values each closes over as leading operands::

    _:i32[] _:i32[] e:f32[16] = while[
      body_jaxpr={ ... } body_nconsts=2 cond_jaxpr={ ... } cond_nconsts=0
    ] c a 0:i32[] b d           # cond consts, body consts, initial carry

It lowers to ``stablehlo.while``. The number of iterations is not known before running,
so the loop can be differentiated forwards (the tangents ride along in the carry) but not
backwards: reverse mode would have to store every iteration's values.
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import config, core, dtypes, tree_util
from glassjax.errors import ConcretizationTypeError
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.lax import elementwise, reductions
from glassjax.jit import ref_hooks
from glassjax.lax.control_flow import common
from glassjax.lax.control_flow.common import merge_lists, partition_list, split_list
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo, ir


def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val)``, returning ``val``.
    The carry must keep its structure and types from one iteration to the next."""
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.jax_disable_jit:
        try:
            return _python_while_loop(cond_fun, body_fun, init_val)
        except ConcretizationTypeError:
            pass   # e.g. under vmap: fall back to the primitive
    init_flat, init_tree = tree_util.tree_flatten(init_val)
    in_tree = tree_util.tree_structure(((init_val,), {}))
    init_avals = common.abstractify(init_flat)

    def trace(avals):
        avals = tuple(avals)
        cond = common.trace_fun(cond_fun, in_tree, avals, "while_cond", (init_val,))
        body = common.trace_fun(body_fun, in_tree, avals, "while_body", (init_val,))
        _check_predicate(cond)
        return cond, body

    cond, body = trace(init_avals)
    if cond.refs or body.refs:      # refs closed over: their values join the carry
        return ref_hooks.while_refs(tuple({id(r): r for r in cond.refs + body.refs}.values()),
                                    while_loop, cond_fun, body_fun, init_val)
    if len(body.out_avals) != len(init_avals):
        common.check_carry_type("while_loop body", body_fun, init_tree, init_avals,
                                body.out_tree, body.out_avals)
    # A weakly typed initial value (a Python scalar) may take the type the body gives
    # it: trace again with the promoted value.
    init_flat, changed = promote_weak_typed_inputs(init_flat, init_avals, body.out_avals)
    if changed:
        init_avals = common.abstractify(init_flat)
        cond, body = trace(init_avals)
    common.check_carry_type("while_loop body", body_fun, init_tree, init_avals,
                            body.out_tree, body.out_avals)
    cond_jaxpr, cond_consts = cond.jaxpr, cond.consts
    body_jaxpr, body_consts = body.jaxpr, list(body.consts)

    # A carry the body passes through unchanged and the condition does not read is
    # really a constant of the body: make it one (a batched predicate then need not
    # batch it).
    body_fwd = common.jaxpr_forwarding(body_jaxpr.jaxpr)
    carry_changes = [len(body_consts) + i != f for i, f in enumerate(body_fwd)]
    cond_dce, cond_used = pe.dce_jaxpr(cond_jaxpr.jaxpr, [True],
                                       [True] * len(cond_consts) + carry_changes)
    move_to_const = [not u for u in cond_used[len(cond_consts):]]
    init_vals, new_body_consts = init_flat, []
    if any(move_to_const):
        cond_jaxpr = core.ClosedJaxpr(cond_dce, [])
        body_jaxpr = common.prune_outputs(body_jaxpr, [not m for m in move_to_const])
        body_jaxpr = common.move_binders_to_front(
            body_jaxpr, [False] * len(body_consts) + move_to_const)
        init_vals, new_body_consts = partition_list(move_to_const, init_flat)
        body_consts = [*new_body_consts, *body_consts]
    outs = while_p.bind(*cond_consts, *body_consts, *init_vals,
                        cond_nconsts=len(cond_consts), cond_jaxpr=cond_jaxpr,
                        body_nconsts=len(body_consts), body_jaxpr=body_jaxpr)
    if any(move_to_const):
        outs = merge_lists(move_to_const, outs, new_body_consts)
    return tree_util.tree_unflatten(body.out_tree, outs)


def _python_while_loop(cond_fun, body_fun, init_val):
    """``jax.disable_jit()``: an ordinary Python loop."""
    val = tree_util.tree_map(common.asarray, init_val)
    while cond_fun(val):
        val = tree_util.tree_map(common.asarray, body_fun(val))
    return val


def _check_predicate(cond: common.TracedFun):
    if not tree_util.treedef_is_leaf(cond.out_tree) or len(cond.out_avals) != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree "
                        f"{cond.out_tree}.")
    pred = cond.out_avals[0]
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                        f"{cond.out_avals}.")


def promote_weak_typed_inputs(vals, in_avals, out_avals):
    """Convert weakly typed inputs whose type the loop body changes to the type it
    gives them (e.g. ``0`` carried through a float computation). Returns the values and
    whether any changed."""
    new, changed = [], False
    for x, a_in, a_out in zip(vals, in_avals, out_avals):
        if a_in.weak_type and not common.typematch(a_in, a_out):
            x = elementwise.convert_element_type(x, dtypes.result_type(x, a_out.dtype))
            changed = True
        new.append(x)
    return new, changed


# ----------------------------------------------------------------------------------------
# The primitive
# ----------------------------------------------------------------------------------------

while_p = core.Primitive("while")
while_p.multiple_results = True
while_p.def_impl(functools.partial(dispatch.apply_primitive, while_p))
while_p.drawing = core.Drawing("while", "while", note="repeat body while cond is True")


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    if len(cond_jaxpr.in_avals) != len(avals) - body_nconsts:
        raise core.JaxprTypeError("while_loop cond_jaxpr takes the wrong number of inputs")
    if len(body_jaxpr.in_avals) != len(avals) - cond_nconsts:
        raise core.JaxprTypeError("while_loop body_jaxpr takes the wrong number of inputs")
    return body_jaxpr.out_avals


staging.effects_rules[while_p] = lambda cond_jaxpr, body_jaxpr, **_: \
    common.inner_effects(cond_jaxpr, body_jaxpr)


def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """``stablehlo.while`` whose loop state is all operands: cond consts, body consts
    (passed through unchanged) and the carry.

    Under ``vmap`` the predicate may be an array (one flag per batch element): the loop
    then runs while any flag is set, and elements whose flag is off keep their carry."""
    mctx = ctx.module_context
    pred_aval = cond_jaxpr.out_avals[0]
    types = [lowering.aval_to_ir_type(a) for a in ctx.avals_in]
    loop = hlo.WhileOp(types, list(args))

    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        cconsts, _, carry = split_list(cond_block.arguments, [cond_nconsts, body_nconsts])
        pred, = lowering.lower_closed_jaxpr(mctx, cond_jaxpr, [*cconsts, *carry])
        if pred_aval.shape:
            pred = _reduce_or(mctx, pred, pred_aval)
        hlo.return_([pred])

    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        cconsts, bconsts, carry = split_list(body_block.arguments,
                                             [cond_nconsts, body_nconsts])
        new_carry = lowering.lower_closed_jaxpr(mctx, body_jaxpr, [*bconsts, *carry])
        if pred_aval.shape:
            pred, = lowering.lower_closed_jaxpr(mctx, cond_jaxpr, [*cconsts, *carry])
            new_carry = [_select_batched(pred, pred_aval, new, old, aval)
                         for new, old, aval in zip(new_carry, carry, body_jaxpr.out_avals)]
        hlo.return_([*cconsts, *bconsts, *new_carry])
    return list(loop.results)[cond_nconsts + body_nconsts:]


def _reduce_or(mctx, pred, pred_aval):
    axes = tuple(range(len(pred_aval.shape)))
    rule = lowering.lower_fun(lambda p: reductions.reduce_or(p, axes))
    rule_ctx = lowering.LoweringRuleContext(mctx, None, [pred_aval],
                                            [core.ShapedArray((), np.bool_)])
    return rule(rule_ctx, pred)


def _select_batched(pred, pred_aval, new, old, aval):
    """``new`` where the (leading-axes) predicate is set, else ``old``."""
    shape = ir.RankedTensorType(new.type).shape     # physical: typed keys have words
    pred = lowering.broadcast_in_dim(pred, shape, range(len(pred_aval.shape)))
    return hlo.select(pred, new, old)


lowering.register_lowering(while_p, _while_lowering)


# -- forward mode -------------------------------------------------------------------------

def _while_jvp(primals, tangents, *, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    """The tangents join the carry (and the body consts' tangents the body consts); the
    condition ignores them. Which carry tangents are nonzero is a fixpoint: a zero
    tangent may become nonzero after one iteration."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    cconst_nz, bconst_nz, init_nz = split_list(nonzeros, [cond_nconsts, body_nconsts])
    carry_nz, body_jvp = common.carry_fixpoint(init_nz, lambda carry_nz: ad.jvp_jaxpr(
        body_jaxpr, bconst_nz + carry_nz, instantiate=carry_nz))
    body_nz = bconst_nz + carry_nz
    tangents = [ad.instantiate_zeros(t) if nz else t
                for t, nz in zip(tangents, cconst_nz + body_nz)]
    cconsts, bconsts, init = split_list(primals, [cond_nconsts, body_nconsts])
    _, bconsts_dot, init_dot = split_list(tangents, [cond_nconsts, body_nconsts])
    bconsts_dot = [t for t in bconsts_dot if type(t) is not ad.Zero]
    init_dot = [t for t in init_dot if type(t) is not ad.Zero]
    num_carry = len(init)
    body_jvp = common.rearrange_binders(body_jvp, [body_nconsts, num_carry],
                                        [len(bconsts_dot), len(init_dot)],
                                        [num_carry], [len(init_dot)])
    ignored = [core.Var(core.get_aval(t)) for t in init_dot]
    cond_jvp = cond_jaxpr.replace(jaxpr=cond_jaxpr.jaxpr.replace(
        invars=cond_jaxpr.jaxpr.invars + ignored))
    out = while_p.bind(*cconsts, *bconsts, *bconsts_dot, *init, *init_dot,
                       cond_nconsts=cond_nconsts, cond_jaxpr=cond_jvp,
                       body_nconsts=len(bconsts) + len(bconsts_dot), body_jaxpr=body_jvp)
    out_carry, out_dot = split_list(out, [num_carry])[:2]
    out_dot = iter(out_dot)
    return out_carry, [next(out_dot) if nz else ad.Zero.from_primal_value(p)
                       for p, nz in zip(out_carry, carry_nz)]


ad.primitive_jvps[while_p] = _while_jvp


def _while_partial_eval(trace, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    """Known and unknown parts of a loop (for ``jax.linearize``): the carries that stay
    known are computed by a loop of their own; the unknown ones need the whole loop
    again, staged. The staged loop cannot be transposed: see ``_while_transpose``."""
    params = dict(cond_nconsts=cond_nconsts, cond_jaxpr=cond_jaxpr,
                  body_nconsts=body_nconsts, body_jaxpr=body_jaxpr)
    unknowns = [trace.is_unknown(x) for x in args]
    cconst_uk, bconst_uk, init_uk = split_list(unknowns, [cond_nconsts, body_nconsts])

    def partial_eval_body(carry_uk):
        body_known, _, carry_uk_out, _ = pe.partial_eval_jaxpr_nounits(
            body_jaxpr, bconst_uk + carry_uk, instantiate=carry_uk)
        return body_known, carry_uk_out
    carry_uk, body_known = common.carry_fixpoint(init_uk, partial_eval_body)
    cond_known, _, (cond_uk,), _ = pe.partial_eval_jaxpr_nounits(
        cond_jaxpr, cconst_uk + carry_uk, instantiate=False)
    if cond_uk or all(unknowns) or not any(unknowns):
        return while_p.bind_with_trace(trace.unknown_trace, args, params)
    num_known_outs = len(carry_uk) - sum(carry_uk)
    body_known = body_known.replace(jaxpr=body_known.jaxpr.replace(
        outvars=body_known.jaxpr.outvars[:num_known_outs]))
    known_args = [x for x, uk in zip(args, cconst_uk + bconst_uk + carry_uk) if not uk]
    out_known = while_p.bind_with_trace(trace.known_trace, known_args, dict(
        cond_nconsts=cond_nconsts - sum(cconst_uk), cond_jaxpr=cond_known,
        body_nconsts=body_nconsts - sum(bconst_uk), body_jaxpr=body_known))
    out_staged = while_p.bind_with_trace(trace.unknown_trace, args, params)
    return merge_lists(carry_uk, out_known,
                       [t for t, uk in zip(out_staged, carry_uk) if uk])


pe.partial_eval_rules[while_p] = _while_partial_eval


def _while_transpose(*args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


ad.primitive_transposes[while_p] = _while_transpose


# -- vmap ----------------------------------------------------------------------------------

def _while_batching_rule(axis_data, args, dims, *, cond_nconsts, cond_jaxpr, body_nconsts,
                         body_jaxpr):
    """Batch the carry that needs it (a fixpoint, as for the JVP). If the predicate is
    batched, every element loops until all are done: the whole carry is batched and the
    lowering keeps finished elements unchanged."""
    batched = [d is not batching.not_mapped for d in dims]
    cconst_bat, bconst_bat, init_bat = split_list(batched, [cond_nconsts, body_nconsts])
    cconsts, bconsts, init = split_list(args, [cond_nconsts, body_nconsts])
    cconst_dims, bconst_dims, init_dims = split_list(dims, [cond_nconsts, body_nconsts])
    carry_bat, _ = common.carry_fixpoint(init_bat, lambda carry_bat: batching.batch_jaxpr(
        body_jaxpr, axis_data, bconst_bat + carry_bat, carry_bat))
    _, (pred_bat,) = batching.batch_jaxpr(cond_jaxpr, axis_data, cconst_bat + carry_bat,
                                          False)
    if pred_bat:
        carry_dims = [0] * len(carry_bat)
        cond_out_dims = [0]
    else:
        # The carry's batch axis goes after the predicate's axes, so that a predicate
        # batched by an enclosing vmap stays a prefix of the carry's shape.
        rank = len(cond_jaxpr.out_avals[0].shape)
        carry_dims = [rank if b else batching.not_mapped for b in carry_bat]
        cond_out_dims = [batching.not_mapped]
    body_batched, _ = batching.batch_jaxpr_axes(body_jaxpr, axis_data,
                                                bconst_dims + carry_dims, carry_dims)
    cond_batched, _ = batching.batch_jaxpr_axes(cond_jaxpr, axis_data,
                                                cconst_dims + carry_dims, cond_out_dims)
    new_init = []
    for x, old, new in zip(init, init_dims, carry_dims):
        if old is batching.not_mapped and new is not batching.not_mapped:
            x = batching.broadcast(x, axis_data.size, new)
        elif old is not batching.not_mapped:
            x = batching.moveaxis(x, old, new)
        new_init.append(x)
    outs = while_p.bind(*cconsts, *bconsts, *new_init, cond_nconsts=cond_nconsts,
                        cond_jaxpr=cond_batched, body_nconsts=body_nconsts,
                        body_jaxpr=body_batched)
    return outs, carry_dims


batching.fancy_primitive_batchers[while_p] = _while_batching_rule


# -- rematerialization ---------------------------------------------------------------------

def _nothing_saveable(*_, **__):
    return False


def _while_partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """``checkpoint`` of a loop: as with linearization, the known carries get a loop of
    their own and the staged equation is the whole loop (no residuals can be saved)."""
    del saveable
    params = eqn.params
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
    cconst_uk, bconst_uk, carry_uk = split_list(unks_in, [cond_nconsts, body_nconsts])

    def partial_eval_body(carry_uk):
        body_known, _, carry_uk_out, _, num_res = pe.partial_eval_jaxpr_custom(
            body_jaxpr.jaxpr, bconst_uk + carry_uk, True, carry_uk, True,
            _nothing_saveable)
        return (body_known, num_res), carry_uk_out
    carry_uk, (body_known, num_res) = common.carry_fixpoint(carry_uk, partial_eval_body)
    assert not num_res
    new_inst = [x for x, inst in zip(eqn.invars, inst_in)
                if isinstance(x, core.Var) and not inst]
    cond_known, _, (cond_uk,), _, _ = pe.partial_eval_jaxpr_custom(
        cond_jaxpr.jaxpr, cconst_uk + carry_uk, True, False, True, _nothing_saveable)
    if cond_uk:
        return None, eqn, [True] * len(carry_uk), [True] * len(carry_uk), new_inst
    unks_in = [*cconst_uk, *bconst_uk, *carry_uk]
    eqn_known = eqn.replace(
        invars=[v for v, uk in zip(eqn.invars, unks_in) if not uk],
        outvars=[v for v, uk in zip(eqn.outvars, carry_uk) if not uk],
        params=dict(cond_jaxpr=core.ClosedJaxpr(cond_known, cond_jaxpr.consts),
                    body_jaxpr=core.ClosedJaxpr(body_known, body_jaxpr.consts),
                    cond_nconsts=cond_nconsts - sum(cconst_uk),
                    body_nconsts=body_nconsts - sum(bconst_uk)))
    return eqn_known, eqn, carry_uk, [True] * len(carry_uk), new_inst


pe.partial_eval_jaxpr_custom_rules[while_p] = _while_partial_eval_custom
