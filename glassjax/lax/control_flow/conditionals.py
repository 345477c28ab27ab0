"""``lax.cond`` and ``lax.switch``: run exactly one of several branches.

Both bind one primitive, ``cond``, whose first operand is an ``int32`` branch index and
whose ``branches`` param holds one closed jaxpr per branch (``cond`` puts the false
branch first, so that the boolean predicate converted to an integer picks it)::

    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[branches=({ ...false... } { ...true... })] c a

Every branch takes the same operands: the values any branch closes over (hoisted in
front) and the user's operands. XLA's ``Conditional`` (``stablehlo.case``) then runs only
the chosen branch. Under ``vmap`` with a batched predicate that is impossible -- each
batch element may choose differently -- so all branches run and ``select_n`` picks.
"""
from __future__ import annotations

import collections
import functools
import itertools
from collections.abc import Sequence

import numpy as np

from glassjax import config, core, dtypes, tree_util
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.lax import elementwise, structural
from glassjax.jit import ref_hooks
from glassjax.lax.control_flow import common
from glassjax.lax.control_flow.common import split_list
from glassjax.lax.elementwise import _const
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo, ir

_no_operand = object()   # ``operand=`` keyword (the old calling convention) not given


# ----------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------

def cond(pred, true_fun, false_fun, *operands, operand=_no_operand):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one
    ``cond`` primitive: both branches are traced, only one runs."""
    if not (callable(true_fun) and callable(false_fun)):
        # The deprecated form cond(pred, x_true, f_true, x_false, f_false).
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x),
                        x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operands(operands, operand)
    pred = _check_predicate(pred)
    if config.jax_disable_jit and common.is_concrete(pred):
        return true_fun(*operands) if pred else false_fun(*operands)
    return _bind_cond(lambda: elementwise.convert_element_type(pred, np.int32),
                      (true_fun, false_fun), operands, "cond", ("true_fun", "false_fun"),
                      reverse_branches=True)


def switch(index, branches: Sequence, *operands, operand=_no_operand):
    """``branches[index](*operands)``, with ``index`` clamped into range."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operands(operands, operand)
    if np.shape(index):
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = elementwise.clamp(np.array(0, np.int32),
                              elementwise.convert_element_type(index, np.int32),
                              np.array(len(branches) - 1, np.int32))
    if config.jax_disable_jit and common.is_concrete(index):
        return branches[int(index)](*operands)
    names = tuple(f"branch{i}" if i else "branch 0" for i in range(len(branches)))
    return _bind_cond(lambda: index, branches, operands, "switch", names)


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[p](*args)`` for the platform ``p`` the code runs on (``cpu=...``,
    ``cuda=...``; ``default`` for the others). Under a trace it is a ``cond`` whose
    index is ``platform_index`` (known once lowered for a platform), its branches
    labelled with their platforms; eagerly the branch is just called."""
    branch_list: list = []        # [platforms, branch], identical branches joined
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a "
                            "callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for entry in branch_list:
            if entry[1] == branch:
                entry[0].append(name)
                break
        else:
            branch_list.append([[name], branch])
    platforms = tuple(tuple(ps) for ps, _ in branch_list)
    branches = tuple(b for _, b in branch_list)
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a "
                            "callable.")
        platforms, branches = platforms + (None,), branches + (default,)
    index = platform_index_p.bind(platforms=platforms)
    if common.is_concrete(index):
        return branches[int(index)](*args)
    names = tuple(f"branch{i}" if i else "branch 0" for i in range(len(branches)))
    return _bind_cond(lambda: index, branches, args, "switch", names,
                      branches_platforms=platforms)


def _platform_index(platforms, platform="cpu"):
    """Which entry of ``platforms`` (tuples of names, or None for the default) covers
    ``platform``."""
    for i, ps in enumerate(platforms):
        if ps is not None and platform in ps:
            return i
    if None in platforms:
        return platforms.index(None)
    raise NotImplementedError(f"Unsupported platform '{platform}' for "
                              f"platform_index(platforms={platforms})")


platform_index_p = core.Primitive("platform_index")
platform_index_p.def_impl(functools.partial(dispatch.apply_primitive, platform_index_p))
platform_index_p.def_abstract_eval(lambda *, platforms: core.ShapedArray((), np.int32))
lowering.register_lowering(platform_index_p, lambda ctx, *, platforms: lowering.ir_constant(
    np.int32(_platform_index(platforms))))


def _operands(operands, operand):
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional operands can "
                        f"be passed, got operand={operand!r} and positional operands "
                        f"{operands}")
    return (operand,)


def _check_predicate(pred):
    """A scalar boolean, or a number compared with zero (JAX's rules and messages)."""
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        what = (f"type {type(pred)}" if isinstance(pred, Sequence)
                else f"shape {np.shape(pred)}.")
        raise TypeError(f"Pred must be a scalar, got {pred} of {what}")
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind == "b":
        return pred
    if pred_dtype.kind in "iuf":
        return pred != 0
    raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")


def _bind_cond(make_index, funs, operands, api_name, names, reverse_branches=False,
               **params):
    """Trace the branch functions (in the order given, which fixes the order of their
    consts), make them share their consts, and bind ``cond`` (with ``params`` besides
    ``branches``, if any). ``cond`` traces ``true_fun`` first but its ``branches`` start
    with the false branch. The index is made after tracing (``make_index``), where JAX
    converts the predicate."""
    leaves, in_tree = tree_util.tree_flatten((operands, {}))
    avals = tuple(common.abstractify(leaves))

    def build():
        traced = [common.trace_fun(f, in_tree, avals, api_name, operands) for f in funs]
        for i in range(1, len(traced)):
            _check_branch_outputs(api_name, names[0], names[i], funs[0], funs[i],
                                  traced[0], traced[i])
        jaxprs, consts = merge_common_consts([t.jaxpr for t in traced],
                                             [t.consts for t in traced])
        # Outputs that every branch passes through from the same input are not outputs
        # of the ``cond``: the caller uses that input.
        fwds = [common.jaxpr_forwarding(j.jaxpr) for j in jaxprs]
        in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
        keep = [f is None for f in in_fwd]
        pruned = {}       # a function used for two branches gives one jaxpr (printed once)
        branches = tuple(pruned.setdefault(id(j), common.prune_outputs(j, keep))
                         for j in jaxprs)
        if reverse_branches:
            branches = branches[::-1]
        refs = tuple({id(r): r for t in traced for r in t.refs}.values())
        return branches, consts, traced[0].out_tree, in_fwd, refs

    branches, consts, out_tree, in_fwd, refs = common.memoize(
        funs[0], ("cond", funs[1:], in_tree, avals, api_name), build)
    if refs:      # the branches close over refs: their values become operands and outputs
        return ref_hooks.branch_refs(refs, lambda fs, ops: _bind_cond(
            make_index, fs, ops, api_name, names, reverse_branches, **params), funs,
            operands)
    outs = iter(cond_p.bind(make_index(), *consts, *leaves, branches=branches, **params))
    all_inputs = [*consts, *leaves]
    outs = [next(outs) if f is None else common.asarray(all_inputs[f]) for f in in_fwd]
    return tree_util.tree_unflatten(out_tree, outs)


def merge_common_consts(jaxprs, all_consts):
    """Make every branch take the consts of all branches (ignoring the others'), each
    value once even when several branches close over it. Returns the new jaxprs and
    the list of consts."""
    consts = [c for cs in all_consts for c in cs]
    if not consts:
        return list(jaxprs), []
    first = {}
    for i, c in enumerate(consts):
        first.setdefault(id(c), i)
    unique = sorted(set(first.values()))
    starts = itertools.accumulate([0, *map(len, all_consts)])
    return ([_share_consts(j, len(cs), start, consts, first, unique)
             for j, cs, start in zip(jaxprs, all_consts, starts)],
            [consts[i] for i in unique])


def _share_consts(closed, num_own, start, consts, first, unique):
    """Rebind one branch's consts to the shared list: its own variable where the value
    first appears in its own consts, a fresh (unused) one elsewhere."""
    own = closed.jaxpr.invars[:num_own]
    binders = {start + k: v for k, v in enumerate(own)
               if first[id(consts[start + k])] == start + k}
    binders.update({i: core.Var(core.get_aval(consts[i])) for i in unique
                    if i not in binders})
    rename = {v: binders[first[id(consts[start + k])]] for k, v in enumerate(own)}
    sub = lambda a: rename.get(a, a) if isinstance(a, core.Var) else a
    jaxpr = closed.jaxpr
    return closed.replace(jaxpr=jaxpr.replace(
        invars=[binders[i] for i in unique] + jaxpr.invars[num_own:],
        eqns=[e.replace(invars=[sub(a) for a in e.invars]) for e in jaxpr.eqns],
        outvars=[sub(v) for v in jaxpr.outvars]))


def _check_branch_outputs(api_name, name1, name2, f1, f2, traced1, traced2):
    info1, info2 = staging.fun_sourceinfo(f1), staging.fun_sourceinfo(f2)
    tree1, tree2 = traced1.out_tree, traced2.out_tree
    avals1, avals2 = traced1.out_avals, traced2.out_avals
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(tree1, avals1))[0]]
    component = lambda p: f" at path {tree_util.keystr(p)}" if p else ""
    header = f"{name1} is {info1}\n{name2} is {info2}\n\n"
    if tree1 != tree2:
        diffs = [f"{name1} output{component(p)} is a {thing1} but {name2} "
                 f"output{component(p)} is a {thing2}, so {expl}"
                 for p, thing1, thing2, expl
                 in tree_util.equality_errors_pytreedef(tree1, tree2)]
        if not diffs:
            return
        differences = (f"{diffs[0]}.\n" if len(diffs) == 1
                       else common.join_differences(diffs))
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but they "
            f"differ:\n\n{header}{differences}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure.")
    diffs = [f"the output of {name1}{component(p)} has type {a1.str_short()} but the "
             f"corresponding output of {name2} has type {a2.str_short()}"
             f"{common.aval_mismatch_extra(a1, a2)}"
             for p, a1, a2 in zip(paths, avals1, avals2) if not common.typematch(a1, a2)]
    if diffs:
        raise TypeError(
            f"{api_name} branches must have equal output types but they differ.\n\n"
            f"{header}{common.join_differences(diffs, spaced=False)}\n"
            f"Revise {name1} and/or {name2} so that all output types match.")


# ----------------------------------------------------------------------------------------
# The primitive
# ----------------------------------------------------------------------------------------

cond_p = core.Primitive("cond")
cond_p.multiple_results = True
cond_p.def_impl(functools.partial(dispatch.apply_primitive, cond_p))
cond_p.drawing = core.Drawing("cond", "cond", note="the index picks one branch",
                              quiet=frozenset({"linear"}))


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *ops, branches, **params):
    if index.dtype != np.int32:
        raise core.JaxprTypeError(
            f"cond called with index of type {index.dtype} instead of int32")
    return branches[0].out_avals


staging.effects_rules[cond_p] = lambda branches, **params: common.inner_effects(*branches)


def _cond_lowering(ctx, index, *args, branches, **params):
    """``stablehlo.case``: region ``i`` computes branch ``i``, reading the operands
    directly from the enclosing scope. A ``platform_dependent`` cond keeps only the
    branch for the platform lowered for, as JAX does: a first ``case`` maps the index
    (from ``platform_index``, a constant once lowered) to it, from every index alike."""
    if (platforms := params.get("branches_platforms")) is not None:
        kept = next(i for i, ps in enumerate(platforms)
                    if ps is None or ctx.module_context.platform in ps)
        i32 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(32))
        to_kept = hlo.CaseOp([i32], index=index, num_branches=len(branches))
        for region in to_kept.regions:
            with ir.InsertionPoint(region.blocks.append()):
                hlo.return_([lowering.ir_constant(np.int32(0))])
        index, branches = to_kept.result, [branches[kept]]
    out_types = [lowering.aval_to_ir_type(a) for a in ctx.avals_out]
    case = hlo.CaseOp(out_types, index=index, num_branches=len(branches))
    for region, branch in zip(case.regions, branches):
        with ir.InsertionPoint(region.blocks.append()):
            hlo.return_(lowering.lower_closed_jaxpr(ctx.module_context, branch, args))
    return list(case.results)


lowering.register_lowering(cond_p, _cond_lowering)


# -- forward mode -------------------------------------------------------------------------

def _cond_jvp(primals, tangents, *, branches, **params):
    """One ``cond`` of the branches' JVPs. A tangent output is nonzero if it is in some
    branch; the other branches then return zeros for it."""
    index, *ops = primals
    _, *ops_dot = tangents
    ops_nz = [type(t) is not ad.Zero for t in ops_dot]
    out_nz = [any(nzs) for nzs in zip(*(ad.jvp_jaxpr(b, ops_nz, instantiate=False)[1]
                                        for b in branches))]
    branches_jvp = tuple(ad.jvp_jaxpr(b, ops_nz, instantiate=out_nz)[0] for b in branches)
    ops_dot = [t for t in ops_dot if type(t) is not ad.Zero]
    out = cond_p.bind(index, *ops, *ops_dot, branches=branches_jvp, **params)
    out_primals, out_tangents = split_list(out, [len(out_nz)])[:2]
    out_tangents = iter(out_tangents)
    return out_primals, [next(out_tangents) if nz else ad.Zero.from_primal_value(p)
                         for p, nz in zip(out_primals, out_nz)]


ad.primitive_jvps[cond_p] = _cond_jvp


# -- reverse mode: linearize, then transpose ------------------------------------------------

def _cond_linearize(nonzeros, index, *ops, branches, **params):
    """Split each branch into a primal part (which also returns residuals) and a linear
    part (which reads them); run the primal parts now as one ``cond`` and return the
    linear parts as another ``cond`` for the tangents, selected by the same index."""
    _, *nzs = nonzeros
    out_nz = [any(z) for z in zip(*(ad.linearize_jaxpr(b, nzs, allow_fwds=False)[2]
                                    for b in branches))]
    primal_jaxprs, tangent_jaxprs, res_avals = [], [], []
    for branch in branches:
        primal, num_res, _, _, tangent = ad.linearize_jaxpr(
            branch, nzs, instantiate=out_nz, allow_fwds=False)
        primal_jaxprs.append(primal)
        tangent_jaxprs.append(tangent)
        res_avals.append(primal.out_avals[len(primal.out_avals) - num_res:])
    all_res_avals, res_indices = merge_branch_residuals(res_avals)
    primal_jaxprs = join_cond_outputs(primal_jaxprs, all_res_avals, res_indices,
                                      len(out_nz))
    tangent_jaxprs = join_cond_residual_inputs(tangent_jaxprs, all_res_avals, res_indices)
    primals_res = cond_p.bind(index, *ops, branches=primal_jaxprs, **params)
    primals_out, res = split_list(primals_res, [len(out_nz)])[:2]
    tangent_avals = [a.to_tangent_aval() for a in branches[0].out_avals]

    def linearized(residuals, *tangents):
        nz_tangents = [t for t in tangents if type(t) is not ad.Zero]
        outs = iter(cond_p.bind(*residuals, *nz_tangents, branches=tangent_jaxprs,
                                **params))
        return [next(outs) if nz else ad.Zero(a) for a, nz in zip(tangent_avals, out_nz)]

    return primals_out, out_nz, [index, *res], linearized


ad.primitive_linearizations[cond_p] = _cond_linearize


def _cond_partial_eval(trace, index, *ops, branches, **params):
    """Operands partly unknown (``partial_eval.PartialEvalTrace``): each branch splits
    into a known part, returning residuals, and an unknown part reading them; as in
    linearization, both become ``cond``s on the same index."""
    if trace.is_unknown(index):
        return cond_p.bind_with_trace(trace.unknown_trace, (index, *ops),
                                      dict(params, branches=branches))
    ops_uk = [trace.is_unknown(x) for x in ops]
    out_uk = [any(u) for u in zip(*(pe.partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                    for b in branches))]
    known, unknown, res_avals = [], [], []
    for b in branches:
        k, u, _, num_res = pe.partial_eval_jaxpr_nounits(b, ops_uk, out_uk)
        known.append(k)
        unknown.append(u)
        res_avals.append(k.out_avals[len(k.out_avals) - num_res:])
    all_res_avals, res_indices = merge_branch_residuals(res_avals)
    num_known_outs = len(out_uk) - sum(out_uk)
    known = join_cond_outputs(known, all_res_avals, res_indices, num_known_outs)
    unknown = join_cond_residual_inputs(unknown, all_res_avals, res_indices)
    known_outs = cond_p.bind_with_trace(
        trace.known_trace, (index, *(x for x, uk in zip(ops, ops_uk) if not uk)),
        dict(params, branches=known))
    known_outs, res = split_list(known_outs, [num_known_outs])[:2]
    unknown_outs = cond_p.bind_with_trace(
        trace.unknown_trace, (index, *res, *(x for x, uk in zip(ops, ops_uk) if uk)),
        dict(params, branches=unknown))
    return common.merge_lists(out_uk, known_outs, unknown_outs)


pe.partial_eval_rules[cond_p] = _cond_partial_eval


def merge_branch_residuals(branch_res_avals):
    """One list of residual types all branches can fill, reusing slots across branches
    where types agree: ``[x], [y], [x, x] -> [x, y, x]`` with per-branch positions
    ``[[0], [1], [0, 2]]``."""
    def enumerate_equal(avals):
        counts = collections.defaultdict(itertools.count)
        return [(a, next(counts[a])) for a in avals]
    tagged = [enumerate_equal(avals) for avals in branch_res_avals]
    all_tagged = list(dict.fromkeys(t for ts in tagged for t in ts))
    position = {t: i for i, t in enumerate(all_tagged)}
    return [a for a, _ in all_tagged], [[position[t] for t in ts] for ts in tagged]


def join_cond_outputs(jaxprs, all_res_avals, res_indices, num_outs):
    """Each branch returns its outputs and *all* residual slots: its own residuals in
    its slots, placeholders (``empty2``) in the others."""
    def augment(jaxpr, indices):
        def f(*args):
            outs, residuals = split_list(common.closed_call(jaxpr, *args), [num_outs])[:2]
            slots = [common.empty_like_aval(a) for a in all_res_avals]
            for i, r in zip(indices, residuals):
                slots[i] = r
            return [*outs, *slots]
        return common.trace_closed(f, jaxpr.in_avals, jaxpr.jaxpr.debug_info)
    return tuple(augment(j, idx) for j, idx in zip(jaxprs, res_indices))


def join_cond_residual_inputs(jaxprs, all_res_avals, res_indices):
    """Each branch's linear part takes all residual slots, ignoring the others'."""
    slot_vars = [core.Var(a) for a in all_res_avals]

    def augment(jaxpr, indices):
        res_vars, rest = split_list(jaxpr.jaxpr.invars, [len(indices)])[:2]
        invars = list(slot_vars)
        for i, v in zip(indices, res_vars):
            invars[i] = v
        return jaxpr.replace(jaxpr=jaxpr.jaxpr.replace(invars=invars + rest))
    return tuple(augment(j, idx) for j, idx in zip(jaxprs, res_indices))


def _cond_transpose(cts, index, *args, branches, **params):
    """A ``cond`` of the transposed branches: each takes the residuals (the operands
    that are not linear) and the output cotangents, and returns cotangents for the
    linear operands; one that is zero in every branch stays symbolic."""
    assert not ad.is_undefined_primal(index)
    res = [x for x in args if not ad.is_undefined_primal(x)]
    nz_cts = [ct for ct in cts if type(ct) is not ad.Zero]
    # The transposed branches are typed by the values they receive (as in JAX).
    in_avals = tuple(x.aval if ad.is_undefined_primal(x) else core.get_aval(x)
                     for x in args)
    ct_avals = tuple(ct.aval if type(ct) is ad.Zero else None for ct in cts)
    nz_ct_avals = [core.get_aval(ct) for ct in nz_cts]
    linear = tuple(ad.is_undefined_primal(x) for x in args)
    in_nz = [any(nzs) for nzs in zip(*(
        _transpose_branch(b, linear, in_avals, ct_avals, nz_ct_avals, None)[1]
        for b in branches))]
    trans = tuple(_transpose_branch(b, linear, in_avals, ct_avals, nz_ct_avals, in_nz)[0]
                  for b in branches)
    outs = iter(cond_p.bind(index, *res, *nz_cts, branches=trans, **params))
    lin_cts = iter([next(outs) if nz else ad.Zero(x.aval.to_tangent_aval())
                    for x, nz in zip((x for x in args if ad.is_undefined_primal(x)), in_nz)])
    return [None] + [next(lin_cts) if lin else None for lin in linear]


def _transpose_branch(branch, linear, in_avals, ct_zero_avals, nz_ct_avals, instantiate):
    """``(*residuals, *nonzero cts) -> cts of the linear inputs``; those flagged in
    ``instantiate`` are returned even when zero, the other zeros are left out. Also
    returns which linear inputs got a nonzero cotangent. ``ct_zero_avals`` has the type
    of each output's cotangent that is a symbolic zero, None for the others."""
    res_avals = [a for a, lin in zip(in_avals, linear) if not lin]
    nonzero: list = []

    def transposed(*args):
        res, cts = iter(args[:len(res_avals)]), iter(args[len(res_avals):])
        primals = [ad.UndefinedPrimal(a) if lin else next(res)
                   for a, lin in zip(in_avals, linear)]
        cts_out = [next(cts) if z is None else ad.Zero(z) for z in ct_zero_avals]
        cts_in = ad.backward_pass(branch.jaxpr, branch.consts, primals, cts_out)
        cts_in = [ct for ct, lin in zip(cts_in, linear) if lin]
        nonzero[:] = [type(ct) is not ad.Zero for ct in cts_in]
        inst = instantiate or [False] * len(cts_in)
        cts_in = [ad.instantiate_zeros(ct) if i else ct for ct, i in zip(cts_in, inst)]
        return [ct for ct in cts_in if type(ct) is not ad.Zero]

    closed = common.trace_closed(transposed, [*res_avals, *nz_ct_avals],
                                 branch.jaxpr.debug_info)
    return closed, nonzero


ad.primitive_transposes[cond_p] = _cond_transpose


# -- vmap ----------------------------------------------------------------------------------

def _cond_batching_rule(axis_data, args, dims, *, branches, **params):
    """A batched index cannot pick one branch: run them all on the whole batch and
    ``select_n`` per element. Otherwise batch each branch and keep the ``cond``."""
    index, *ops = args
    index_dim, *op_dims = dims
    if "branches_platforms" in params and index_dim is not batching.not_mapped:
        # The platform does not vary along the batch: ask for it again, unbatched.
        index = platform_index_p.bind(platforms=params["branches_platforms"])
        index_dim = batching.not_mapped
    if index_dim is not batching.not_mapped:
        if core.state_effect in common.inner_effects(*branches):   # (both branches run)
            raise NotImplementedError("State effect not supported in vmap-of-cond.")
        index, *ops = (batching.bdim_at_front(x, d, axis_data.size)
                       for x, d in zip(args, dims))
        branches_batched = [
            batching.batch_jaxpr(b, axis_data, [True] * len(b.in_avals), True)[0]
            for b in branches]
        branch_outs = []
        for i, jaxpr in enumerate(branches_batched):
            # Inputs the branch does not take go through ``stop_gradient`` so that their
            # gradients do not flow through branches that were not selected.
            pred = elementwise.eq(index, _const(index, i))
            ops_i = [_bcast_select(pred, x, elementwise.stop_gradient(x)) for x in ops]
            branch_outs.append(common.closed_call(jaxpr, *ops_i))
        out = [_bcast_select_n(index, *outs) for outs in zip(*branch_outs)]
        return out, [0] * len(out)
    ops_bat = [d is not batching.not_mapped for d in op_dims]
    ops = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(ops, op_dims, ops_bat)]
    out_bat = [any(bs) for bs in zip(*(batching.batch_jaxpr(b, axis_data, ops_bat, False)[1]
                                       for b in branches))]
    branches_batched = tuple(batching.batch_jaxpr(b, axis_data, ops_bat, out_bat)[0]
                             for b in branches)
    out = cond_p.bind(index, *ops, branches=branches_batched, **params)
    return out, [0 if b else batching.not_mapped for b in out_bat]


def _bcast_select(pred, on_true, on_false):
    if np.ndim(pred) != np.ndim(on_true):
        pred = structural.broadcast_in_dim(pred, np.shape(on_true), list(range(np.ndim(pred))))
    return elementwise.select(pred, on_true, on_false)


def _bcast_select_n(which, *cases):
    if np.ndim(which) != np.ndim(cases[0]):
        which = structural.broadcast_in_dim(which, np.shape(cases[0]), list(range(np.ndim(which))))
    return elementwise.select_n(which, *cases)


batching.fancy_primitive_batchers[cond_p] = _cond_batching_rule


# -- dead code and rematerialization --------------------------------------------------------

def _cond_dce_rule(used_outputs, eqn):
    """Drop unused outputs from every branch, then the operands no branch reads."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    branches = eqn.params["branches"]
    used_inputs = [any(u) for u in zip(*(pe.dce_jaxpr(b.jaxpr, used_outputs)[1]
                                         for b in branches))]
    new_branches = tuple(b.replace(jaxpr=pe.dce_jaxpr(b.jaxpr, used_outputs, used_inputs)[0])
                         for b in branches)
    used = [True, *used_inputs]
    new_eqn = eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params=dict(eqn.params, branches=new_branches))
    return used, new_eqn


pe.dce_rules[cond_p] = _cond_dce_rule


def _cond_partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """``checkpoint`` of a ``cond``: split every branch into a known part (returning
    the residuals ``saveable`` allows) and a staged part, and join them as in
    linearization."""
    index_uk, *ops_uk = unks_in
    branches = eqn.params["branches"]
    new_inst = [x for x, inst in zip(eqn.invars, inst_in)
                if isinstance(x, core.Var) and not inst]
    if index_uk:
        all_true = [True] * len(branches[0].out_avals)
        return None, eqn, all_true, all_true, new_inst
    unks_out = [any(u) for u in zip(*(pe.partial_eval_jaxpr_custom(
        b.jaxpr, ops_uk, True, False, True, saveable)[2] for b in branches))]
    known, staged, res_avals = [], [], []
    for b in branches:
        k, s, _, _, num_res = pe.partial_eval_jaxpr_custom(
            b.jaxpr, ops_uk, True, unks_out, True, saveable)
        known.append(core.ClosedJaxpr(k, b.consts))
        staged.append(core.ClosedJaxpr(s, b.consts))
        res_avals.append(staged[-1].in_avals[:num_res])
    all_res_avals, res_indices = merge_branch_residuals(res_avals)
    num_known_outs = len(unks_out) - sum(unks_out)
    known = join_cond_outputs(known, all_res_avals, res_indices, num_known_outs)
    staged = join_cond_residual_inputs(staged, all_res_avals, res_indices)
    res_vars = [core.Var(a) for a in all_res_avals]
    ins_known = [v for v, uk in zip(eqn.invars, unks_in) if not uk]
    outs_known = [v for v, uk in zip(eqn.outvars, unks_out) if not uk]
    eqn_known = eqn.replace(invars=ins_known, outvars=[*outs_known, *res_vars],
                            params=dict(eqn.params, branches=known),
                            effects=common.inner_effects(*known))
    eqn_staged = eqn.replace(invars=[eqn.invars[0], *res_vars, *eqn.invars[1:]],
                             params=dict(eqn.params, branches=staged),
                             effects=common.inner_effects(*staged))
    return eqn_known, eqn_staged, unks_out, [True] * len(unks_out), new_inst + res_vars


pe.partial_eval_jaxpr_custom_rules[cond_p] = _cond_partial_eval_custom
