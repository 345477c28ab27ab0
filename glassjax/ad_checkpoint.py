"""``checkpoint`` (alias ``remat``): trade memory for compute in reverse-mode AD.

Normally reverse mode saves every intermediate the backward pass needs (the residuals).
A checkpointed function is staged as one ``remat2`` equation; when it is differentiated,
its known (primal) part runs now and only what a *policy* allows is saved; everything else
the backward pass needs is recomputed from the inputs inside the transposed ``remat2``::

    @jax.checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))
    # grad(g) computes sin(sin(x)) forward, then recomputes sin(x), cos(x), cos(sin(x))
    # in the backward pass instead of storing them.

Policies (``checkpoint_policies``) are predicates ``policy(prim, *avals, **params)``
saying whether a primitive's outputs may be saved; ``checkpoint_name`` tags values so
that policies can select them by name.
"""
from __future__ import annotations

import functools
import types

import numpy as np

from glassjax import core, dtypes, source_info, tree_util
from glassjax.ad_api import vjp
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.lax.control_flow import common
from glassjax.lax.dot import dot_general_p
from glassjax.lax.elementwise import reduce_precision_p
from glassjax.jit import make_jaxpr
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo


# ----------------------------------------------------------------------------------------
# Policies
# ----------------------------------------------------------------------------------------

def everything_saveable(*_, **__) -> bool:
    """Save everything: as if ``checkpoint`` were not used at all."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing but the inputs; recompute the rest (the default)."""
    return False


class DotsSaveable:
    """Save the results of matrix multiplications (optionally only those without batch
    dimensions); recompute everything else."""

    def __init__(self, only_if_no_batch_dims):
        self.only_if_no_batch_dims = only_if_no_batch_dims

    def __call__(self, prim, *avals, **params):
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not lhs_batch and not rhs_batch

    def __repr__(self):
        return f"DotsSaveable(only_if_no_batch_dims={self.only_if_no_batch_dims})"


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


class SaveOnlyTheseNames:
    """Save only values tagged by ``checkpoint_name`` with one of these names."""

    def __init__(self, names):
        self.saveable_names = frozenset(names)

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] in self.saveable_names

    def __repr__(self):
        return f"SaveOnlyTheseNames(saveable_names={self.saveable_names})"


class SaveAnyNamesButThese:
    """Save every value tagged by ``checkpoint_name``, except those with these names."""

    def __init__(self, names):
        self.names = frozenset(names)

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] not in self.names

    def __repr__(self):
        return f"SaveAnyNamesButThese(names={self.names})"


def save_only_these_names(*names):
    return SaveOnlyTheseNames(names)


def save_any_names_but_these(*names):
    return SaveAnyNamesButThese(names)


def save_anything_except_these_names(*names):
    """Save every value except those tagged with one of these names."""
    names = frozenset(names)

    def policy(prim, *avals, **params):
        return not (prim is name_p and params["name"] in names)
    return policy


def save_from_both_policies(policy_1, policy_2):
    """A value is saveable if either policy says so."""
    def policy(prim, *avals, **params):
        out1, out2 = policy_1(prim, *avals, **params), policy_2(prim, *avals, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got: "
                f"{out1} and {out2}. Please write a custom policy function directly, "
                "rather than using this helper function.")
        return out1 or out2
    return policy


class SaveableType:
    """What a policy may answer instead of True: save this value for the backward pass."""
    def __repr__(self):
        return "Saveable"


class RecomputeType:
    """What a policy may answer instead of False: recompute this value when needed."""
    def __repr__(self):
        return "Recompute"


Saveable = SaveableType()
Recompute = RecomputeType()
Offloadable = pe.Offloadable    # the third answer: save it, in another memory


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst):
    """Like ``save_only_these_names``, but values with the names in
    ``names_which_can_be_offloaded`` are saved in memory ``offload_dst`` (e.g.
    ``'pinned_host'``) rather than recomputed: device memory is freed for the forward
    pass, at the cost of two copies."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} "
            f"and the intersection={saved & offloaded}")

    def policy(prim, *avals, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """Like ``dots_with_no_batch_dims_saveable``, but those products are saved in memory
    ``offload_dst`` instead of device memory."""
    def policy(prim, *avals, **params):
        if dots_with_no_batch_dims_saveable(prim, *avals, **params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names)


# ----------------------------------------------------------------------------------------
# checkpoint_name
# ----------------------------------------------------------------------------------------

name_p = core.Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
lowering.register_lowering(name_p, lambda ctx, x, *, name: x)
ad.primitive_jvps[name_p] = lambda primals, tangents, *, name: (
    name_p.bind(primals[0], name=name), tangents[0])     # the tangent is not named


def _name_batcher(args, dims, *, name):
    return name_p.bind(args[0], name=name), dims[0]


batching.primitive_batchers[name_p] = _name_batcher


def checkpoint_name(x, name):
    """Tag every leaf of ``x`` with ``name`` (an identity), for checkpoint policies."""
    return tree_util.tree_map(functools.partial(name_p.bind, name=name), x)


# ----------------------------------------------------------------------------------------
# checkpoint / remat
# ----------------------------------------------------------------------------------------

_REMOVED = object()      # the default of ``concrete``, an option JAX removed


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=(),
               static_argnames=(), concrete=_REMOVED):
    """Make ``fun`` recompute its intermediates when differentiated instead of saving
    them (except those ``policy`` allows to be saved). ``static_argnums`` arguments are
    fixed Python values (e.g. flags used in Python control flow)."""
    if concrete is not _REMOVED:
        raise NotImplementedError(
            "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and "
            "removed in JAX v0.10.0. In its place please use `static_argnums`; for details "
            "refer to https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html.")
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        fun_, args = _remat_static_argnums(fun, static_argnums, args)
        args_flat, in_tree = tree_util.tree_flatten((args, kwargs))
        in_avals = [core.shaped_abstractify(x) for x in args_flat]

        def trace():
            out_tree = []

            def flat_fun(*leaves):
                a, kw = tree_util.tree_unflatten(in_tree, leaves)
                outs, tree = tree_util.tree_flatten(fun_(*a, **kw))
                out_tree[:] = [tree]
                return outs

            debug = staging.debug_info("checkpoint / remat", fun, args, kwargs)
            jaxpr, consts, _ = staging.trace_to_jaxpr(flat_fun, in_avals, debug)
            return staging.convert_constvars_jaxpr(jaxpr), list(consts), out_tree[0]

        # Like JAX, one trace per function and argument types: calling a checkpointed
        # function twice gives two remat2 equations sharing one jaxpr (printed once, as
        # ``let jaxpr = ... in``).
        jaxpr, consts, out_tree = common.memoize(
            fun_, ("checkpoint", in_tree, tuple(in_avals)), trace)
        if isinstance(prevent_cse, tuple):
            cse_args = (tuple(args), kwargs) if kwargs else tuple(args)
            cse = (False,) * len(consts) + tuple(
                tree_util.broadcast_prefix(prevent_cse, cse_args))
        else:
            cse = prevent_cse
        outs = remat_p.bind(*consts, *args_flat, jaxpr=jaxpr, prevent_cse=cse,
                            differentiated=False, policy=policy)
        return tree_util.tree_unflatten(out_tree, outs)

    return fun_remat


def remat(fun, *, prevent_cse=True, policy=None, static_argnums=(), concrete=_REMOVED):
    """Alias of ``checkpoint``."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy,
                      static_argnums=static_argnums, concrete=concrete)


def _remat_static_argnums(fun, static_argnums, args):
    if not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
        raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` "
                        "must be an int, tuple of ints or, bool, but got value "
                        f"{static_argnums}")
    if not all(-len(args) <= d < len(args) for d in static_argnums):
        raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` "
                         "can only take integer values greater than or equal to "
                         "`-len(args)` and less than `len(args)`, but got "
                         f"{static_argnums}, while `len(args)` = {len(args)}")
    if not static_argnums:
        return fun, args
    static = {d % len(args) for d in static_argnums}
    dyn_args = [x for i, x in enumerate(args) if i not in static]

    def fun_of_dyn_args(*dyn, **kwargs):
        dyn = iter(dyn)
        return fun(*(args[i] if i in static else next(dyn) for i in range(len(args))),
                   **kwargs)
    return fun_of_dyn_args, dyn_args


# ----------------------------------------------------------------------------------------
# The remat2 primitive
# ----------------------------------------------------------------------------------------

class RematPrimitive(core.Primitive):
    multiple_results = True


remat_p = RematPrimitive("remat2")
remat_p.drawing = core.Drawing("checkpoint", "checkpoint",
                              note="recomputed in the backward pass")


def _remat_impl(*args, jaxpr, **params):
    """Eagerly, a remat2 just runs its jaxpr. An output that is a literal (``return 1``)
    comes back as the literal's typed host value (``TypedInt(1, dtype=int32)``), as in
    JAX."""
    return core.eval_jaxpr(jaxpr, (), *args)


remat_p.def_impl(_remat_impl)
remat_p.def_abstract_eval(lambda *avals, jaxpr, **params: [v.aval for v in jaxpr.outvars])
# (refs used inside must be discharged before compiling: the call shows they are)
staging.effects_rules[remat_p] = lambda jaxpr, **_: jaxpr.effects & {core.state_effect}


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    """The JVP stays one remat2 (so the tangent computation is checkpointed too)."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(core.ClosedJaxpr(jaxpr, []), nonzeros, False)
    nz_tangents = [t for t in tangents if type(t) is not ad.Zero]
    if isinstance(prevent_cse, tuple):
        prevent_cse += (True,) * len(nz_tangents)
    outs = remat_p.bind(*jvp_jaxpr.consts, *primals, *nz_tangents,
                        jaxpr=staging.convert_constvars_jaxpr(jvp_jaxpr.jaxpr),
                        prevent_cse=prevent_cse, differentiated=differentiated,
                        policy=policy)
    out_primals, nz_out = outs[:len(jaxpr.outvars)], iter(outs[len(jaxpr.outvars):])
    return out_primals, [next(nz_out) if nz else ad.Zero.from_primal_value(p)
                         for p, nz in zip(out_primals, out_nonzeros)]


ad.primitive_jvps[remat_p] = _remat_jvp


def _checked_policy(policy):
    """``policy`` answering a bool (``Saveable``/``Recompute`` read as True/False) or an
    ``Offloadable(...)``, raising JAX's error when it answers anything else."""
    def saveable(prim, *avals, **params):
        answer = policy(prim, *avals, **params)
        if isinstance(answer, (SaveableType, RecomputeType)):
            return isinstance(answer, SaveableType)
        if isinstance(answer, Offloadable):
            return answer
        if not isinstance(answer, bool):
            raise TypeError(
                "Value returned by a remat policy should be a bool or "
                "`ad_checkpoint.Recompute`, `ad_checkpoint.Saveable` or "
                f"`ad_checkpoint.Offloadable(...)`. Got {answer} of type {type(answer)}.")
        return answer
    return saveable


def _remat_partial_eval(trace, *args, jaxpr, prevent_cse, differentiated, policy):
    """With tangents unknown: compute the known outputs now (saving only what the policy
    allows) and stage a ``differentiated`` remat2 that recomputes the rest."""
    in_unknowns = tuple(trace.is_unknown(a) for a in args)
    known, unknown_jaxpr, out_unknowns, used_known, used_staged = common.memoize(
        jaxpr, ("remat partial eval", in_unknowns, policy),
        lambda: _remat_split(jaxpr, in_unknowns, policy))
    num_known_outs = len(out_unknowns) - sum(out_unknowns)
    known_args = [a for a, uk in zip(args, in_unknowns) if not uk]
    with core.set_current_trace(trace.known_trace):
        known_outs = core.eval_jaxpr(known, (), *(a for a, u in zip(known_args, used_known)
                                                  if u))
    known_outs, residuals = known_outs[:num_known_outs], known_outs[num_known_outs:]
    staged_args = [a for a, u in zip(args, used_staged) if u]
    if isinstance(prevent_cse, tuple):
        prevent_cse = (True,) * len(residuals) + tuple(
            p for p, u in zip(prevent_cse, used_staged) if u)
    unknown_outs = iter(remat_p.bind_with_trace(
        trace.unknown_trace, [*residuals, *staged_args],
        dict(jaxpr=unknown_jaxpr, prevent_cse=prevent_cse, differentiated=True,
             policy=policy)))
    known_outs = iter(known_outs)
    return [next(unknown_outs) if uk else next(known_outs) for uk in out_unknowns]


pe.partial_eval_rules[remat_p] = _remat_partial_eval


def _remat_split(jaxpr, in_unknowns, policy):
    """The known jaxpr (outputs and residuals) and the staged one, both pruned. Made
    once per jaxpr, unknowns and policy (as JAX caches it), so that a checkpointed
    function called twice stages one jaxpr, printed once."""
    known, staged, out_unknowns, out_inst, num_res = pe.partial_eval_jaxpr_custom(
        jaxpr, in_unknowns, [True] * len(in_unknowns), False, False,
        _checked_policy(policy or nothing_saveable))
    unknown_jaxpr, used_staged = pe.dce_jaxpr(
        staged, [uk for uk, inst in zip(out_unknowns, out_inst) if inst])
    used_res, used_staged = used_staged[:num_res], used_staged[num_res:]
    num_known_outs = len(out_unknowns) - sum(out_unknowns)
    known, used_known = pe.dce_jaxpr(known, [True] * num_known_outs + used_res)
    known = _insert_reduce_precision(known, sum(used_res))
    return known, unknown_jaxpr, out_unknowns, used_known, used_staged


def _remat_custom_params(unks_in, inst_in, params_known, params_staged):
    """A remat inside a checkpointed jaxpr splits in two remats; the staged one is the
    differentiated one."""
    prevent_cse = params_known["prevent_cse"]
    if isinstance(prevent_cse, tuple):
        params_known = dict(params_known, prevent_cse=tuple(
            p for p, uk in zip(prevent_cse, unks_in) if not uk))
        params_staged = dict(params_staged, prevent_cse=tuple(
            p for p, inst in zip(prevent_cse, inst_in) if inst))
    return params_known, dict(params_staged, differentiated=True)


pe.partial_eval_jaxpr_custom_rules[remat_p] = functools.partial(
    pe.call_partial_eval_custom_rule, "jaxpr", _remat_custom_params)


def _insert_reduce_precision(jaxpr, num_res):
    """Saved residuals are rounded to their dtype explicitly, so that XLA's excess
    precision cannot make the forward and backward passes disagree (as JAX does)."""
    res_vars = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    used = {x for e in jaxpr.eqns for x in e.invars if isinstance(x, core.Var)}
    invars, eqns = list(jaxpr.invars), list(jaxpr.eqns)
    for v in res_vars:
        if (not isinstance(v, core.Var) or v not in used or
                not dtypes.issubdtype(v.aval.dtype, np.inexact)):
            continue
        info = dtypes.finfo(v.aval.dtype)
        params = dict(exponent_bits=info.nexp, mantissa_bits=info.nmant)
        new = core.Var(v.aval)
        if v in invars:
            invars[invars.index(v)] = new
            eqns.insert(0, core.new_jaxpr_eqn([new], [v], reduce_precision_p, params))
            continue
        i, eqn = next((i, e) for i, e in enumerate(eqns) if v in e.outvars)
        if eqn.primitive is reduce_precision_p and eqn.params == params:
            continue
        eqns[i] = eqn.replace(outvars=[new if o is v else o for o in eqn.outvars])
        eqns.insert(i + 1, core.new_jaxpr_eqn([new], [v], reduce_precision_p, params))
    return jaxpr.replace(invars=invars, eqns=eqns)


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    """Transposed, a remat2 stays a remat2: it recomputes its non-linear part from its
    (saved) inputs and then runs the backward pass of its linear part."""
    linear = [ad.is_undefined_primal(x) for x in args]
    ct_zeros = [type(ct) is ad.Zero for ct in cts]
    transposed, in_zeros = ad.transpose_jaxpr(core.ClosedJaxpr(jaxpr, []), linear, ct_zeros,
                                              partial_eval=True)
    nonlinear = [x for x, lin in zip(args, linear) if not lin]
    nz_cts = [ct for ct in cts if type(ct) is not ad.Zero]
    if isinstance(prevent_cse, tuple):
        prevent_cse = tuple(p for p, lin in zip(prevent_cse, linear) if not lin) + (
            True,) * len(nz_cts)
    outs = iter(remat_p.bind(*transposed.consts, *nonlinear, *nz_cts,
                             jaxpr=staging.convert_constvars_jaxpr(transposed.jaxpr),
                             prevent_cse=prevent_cse, differentiated=differentiated,
                             policy=policy))
    zeros = iter(in_zeros)
    return [(ad.Zero(x.aval) if next(zeros) else next(outs)) if lin else None
            for x, lin in zip(args, linear)]


ad.primitive_transposes[remat_p] = _remat_transpose


def _remat_dce(used_outputs, eqn):
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    jaxpr, used_inputs = pe.dce_jaxpr(eqn.params["jaxpr"], used_outputs)
    prevent_cse = eqn.params["prevent_cse"]
    if isinstance(prevent_cse, tuple):
        prevent_cse = tuple(p for p, u in zip(prevent_cse, used_inputs) if u)
    new_eqn = eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params=dict(eqn.params, jaxpr=jaxpr, prevent_cse=prevent_cse))
    return used_inputs, new_eqn


pe.dce_rules[remat_p] = _remat_dce


def _remat_batcher(axis_data, args, dims, *, jaxpr, **params):
    """Batched, a remat2 stays a remat2 of the batched body."""
    batched, out_batched = batching.batch_jaxpr_axes(
        core.ClosedJaxpr(jaxpr, []), axis_data, dims,
        [batching.zero_if_mapped] * len(jaxpr.outvars))
    outs = remat_p.bind(*batched.consts, *args,
                        jaxpr=staging.convert_constvars_jaxpr(batched.jaxpr), **params)
    return outs, [0 if b else batching.not_mapped for b in out_batched]


batching.fancy_primitive_batchers[remat_p] = _remat_batcher


def _remat_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    """Inline the body. In a differentiated remat, an optimization barrier on the inputs
    stops XLA from merging the recomputation with the forward pass (which would undo the
    memory saving)."""
    if isinstance(prevent_cse, bool):
        prevent_cse = (prevent_cse,) * len(args)
    if differentiated and any(prevent_cse):
        barrier_args = [a for a, p in zip(args, prevent_cse) if p]
        barrier = iter(hlo.OptimizationBarrierOp(barrier_args).results)
        args = [next(barrier) if p else a for a, p in zip(args, prevent_cse)]
    return lowering.lower_jaxpr(ctx.module_context, jaxpr, [], args)


lowering.register_lowering(remat_p, _remat_lowering)


# ----------------------------------------------------------------------------------------
# Which residuals reverse mode keeps
# ----------------------------------------------------------------------------------------

def saved_residuals(f, *args, **kwargs) -> list:
    """``[(aval, description)]`` of the values ``vjp(f, *args)`` keeps for the backward
    pass: arguments, or outputs of equations (described with the user's line that made
    them; named ones by their ``checkpoint_name``)."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))

    def flat_f(*leaves):
        args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
        return f(*args, **kwargs)

    arg_names = staging.debug_info("saved_residuals", f, args, kwargs).arg_names
    closed, shapes = make_jaxpr(lambda *xs: vjp(flat_f, *xs), return_shape=True)(*leaves)
    jaxpr = closed.jaxpr
    num_res = tree_util.tree_structure(shapes[1]).num_leaves
    residuals = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    # (a reduce_precision that checkpoint puts on a residual is not its producer)
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
               if e.primitive is reduce_precision_p}
    res_vars = {through.get(v, v) for v in residuals if not isinstance(v, core.Literal)}
    results = [(v.aval, "from a literal") for v in residuals if isinstance(v, core.Literal)]
    results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            name = arg_names[i] if i < len(arg_names) else ""
            results.append((v.aval, f"from the argument {name}" if name else
                            f"from the argument at flattened index {i}"))
    for eqn in jaxpr.eqns:
        src = source_info.summarize(eqn.source_info)
        for v in eqn.outvars:
            if v not in res_vars:
                continue
            if eqn.primitive is name_p:
                results.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
            elif eqn.primitive.name == "jit":
                results.append((v.aval, f"output of jitted function "
                                        f"'{eqn.params['name']}' from {src}"))
            else:
                results.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return results


def print_saved_residuals(f, *args, **kwargs):
    """Print what ``saved_residuals`` finds, one residual per line, e.g.
    ``f32[5] output of sin from model.py:5:9 (g)``."""
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {src}")
