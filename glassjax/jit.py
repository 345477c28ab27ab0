"""``jit``: stage a function out to a jaxpr once, compile it with XLA, reuse it.

``jit(f)(x)`` flattens the arguments, looks up (or traces) the jaxpr of ``f`` for the
arguments' abstract values and static values, and binds the ``jit`` primitive with that
jaxpr. What happens next depends on the current trace, like for any primitive:

* the eval trace runs it: the jaxpr is compiled (once) and executed on the device;
* the staging trace records one ``jit[name=f jaxpr={...}]`` equation, so a jit inside a
  jit stays a call (``func.call @f`` in StableHLO);
* JVP, transpose and batching transform the inner jaxpr and bind ``jit`` again.

The ahead-of-time API (``jit(f).trace(x)``, ``.lower(x)``, ``.compile()``) exposes those
stages one at a time.
"""
from __future__ import annotations

import functools
import time
import warnings
import weakref
from typing import NamedTuple

from glassjax import (api_util, cache_misses, caches, config, core, monitoring, pretty,
                      source_info, tree_util)
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.layout import Format, Layout
from glassjax.slots import Slot, Slots
from glassjax.mesh import get_abstract_mesh, get_concrete_mesh
from glassjax.named_sharding import spec_to_sharding
from glassjax.xla import dispatch, fastpath, lowering, runtime


# ----------------------------------------------------------------------------------------
# The jit primitive
# ----------------------------------------------------------------------------------------

class JitPrimitive(core.Primitive):
    multiple_results = True
    call_primitive = True


jit_p = JitPrimitive("jit")
jit_p.def_abstract_eval(lambda *avals, jaxpr, **params: jaxpr.out_avals)
jit_p.drawing = core.Drawing("jit", "jit", quiet=frozenset(
    {"name", "donated_invars", "inline", "keep_unused"}))

# ClosedJaxpr -> {(placement, argument layouts, donated, keep_unused): Compiled}; entries
# die with the jaxpr.
_executables = caches.table("jit.executables", weak=True,
                            why="entries die with their jaxpr")


def _executable(args, jaxpr, name, donated_invars, keep_unused, out_shardings=None
                ) -> dispatch.Compiled:
    """The executable of ``jaxpr`` for where ``args`` live (compiled once per placement
    and argument layouts)."""
    placement = _placement(args, jaxpr, name, keep_unused, out_shardings)
    shardings = dispatch.arg_shardings(args, placement)
    per_jaxpr = _executables.setdefault(jaxpr, {})
    key = (placement, shardings, donated_invars, keep_unused, out_shardings)
    compiled = per_jaxpr.get(key)
    if compiled is None:
        compiled = per_jaxpr[key] = dispatch.compile_jaxpr(
            name, jaxpr, placement, donated_invars=donated_invars, keep_unused=keep_unused,
            in_shardings=shardings, out_shardings=out_shardings)
    return compiled


def _invalid_argument(err, leaves, jaxpr) -> TypeError:
    """JAX's error for an argument that traced (it has a type) but has no device value:
    it is named by its parameter, with its type."""
    i = next(i for i, x in enumerate(leaves) if x is err.value)
    debug = jaxpr.jaxpr.debug_info
    name = debug.arg_names[i] if debug is not None else ""
    aval = jaxpr.in_avals[len(jaxpr.in_avals) - len(leaves) + i]
    return TypeError(f"Argument '{name}' of shape {aval.str_short()} of type {type(err.value)} "
                     "is not a valid JAX type.")


def _placement(args, jaxpr, name, keep_unused, out_shardings=None) -> dispatch.Placement:
    """Only the arguments the program reads pin it to devices: unused ones are dropped
    (unless ``keep_unused``), so they may live anywhere, as in JAX. Failing those, the
    mesh of the results' ``out_shardings`` decides."""
    debug = jaxpr.jaxpr.debug_info
    names = [""] * len(args)
    if debug is not None and debug.arg_names is not None:  # (lifted constants first)
        names[len(args) - len(debug.arg_names):] = debug.arg_names
    used = [True] * len(args) if keep_unused else \
        dispatch.lowering_used_invars(jaxpr.jaxpr)
    kept = [(a, n) for a, n, u in zip(args, names, used) if u]
    placement = dispatch.placement_of([a for a, _ in kept], jaxpr.jaxpr,
                                      [n for _, n in kept], name)
    asked = [s for s in out_shardings or () if s is not None]
    if asked and not placement.spmd:
        return dispatch.Placement(asked[0]._device_assignment, getattr(asked[0], "mesh", None))
    return placement


class UnspecifiedValue:
    """An argument or result whose layout ``jit`` was not told (JAX's name for it): the
    default of ``in_shardings`` / ``out_shardings``, which libraries compare against."""
    __repr__ = lambda self: "UnspecifiedValue"


UNSPECIFIED = UnspecifiedValue()


def _jit_impl(*args, jaxpr, name, donated_invars, inline, keep_unused, ctx_mesh=None,
              in_shardings=None, out_shardings=None):
    """(``ctx_mesh``, ``in_shardings`` and ``out_shardings`` record for the printed
    equation what the traced call was told; its operands are laid out already.)"""
    if core.AbstractRef.made and any(map(core.is_ref_box, args)):   # refs it closed over
        return ref_hooks.call_with_boxes(args, jaxpr=jaxpr, name=name, inline=inline,
                                         donated_invars=donated_invars,
                                         keep_unused=keep_unused)
    del inline, ctx_mesh, in_shardings, out_shardings
    try:
        return _executable(args, jaxpr, name, donated_invars, keep_unused)(*args)
    except dispatch.InternalFloatingPointError as err:
        _rerun_deoptimized(name, err.kind, core.jaxpr_as_fun(jaxpr), args, {})


def _rerun_deoptimized(name, kind, fun, args, kwargs):
    """``jax_debug_nans``: a jitted computation produced a NaN. Run ``fun`` again
    un-jitted, op by op, so that the primitive that made it raises (with its name);
    if none does, say so as JAX does."""
    print("Invalid nan value encountered in the output of a jax.jit function. Calling "
          "the de-optimized version.")
    fun(*args, **kwargs)
    raise FloatingPointError(
        f"{(f'jit({name})', kind)}. Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function as "
        "if the `jit` decorator were removed) was called in an attempt to get a more "
        "precise error message. However, the de-optimized function did not produce "
        "invalid values during its execution. This behavior can result from `jit` "
        "optimizations causing the invalid value to be produced. It may also arise from "
        "having nan/inf literals as inputs or outputs, like `jax.jit(lambda ...: "
        "jax.numpy.nan)(...)`. \n\nIt may be possible to avoid the invalid value by "
        "removing the `jit` decorator, at the cost of losing optimizations. \n\nIf you "
        "see this error, consider opening a bug report at https://github.com/jax-ml/jax."
    ) from None


jit_p.def_impl(_jit_impl)


def _jit_staging(trace, *tracers, jaxpr, inline, **params):
    """``inline=True`` splices the body into the enclosing jaxpr instead of a call."""
    if inline:
        with core.set_current_trace(trace):
            return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *tracers,
                                   propagate_source_info=False)
    return trace.default_process_primitive(jit_p, tracers,
                                           dict(jaxpr=jaxpr, inline=inline, **params))


staging.staging_rules[jit_p] = _jit_staging
staging.effects_rules[jit_p] = lambda jaxpr, **_: jaxpr.effects   # the body's effects


def _jit_lowering(ctx, *args, jaxpr, name, **params):
    return lowering.call_private_function(ctx, name, jaxpr, args)


lowering.register_lowering(jit_p, _jit_lowering)


def _jit_pp_rule(eqn, context, settings):
    """``jit[name=f jaxpr={...}]``: name first, default-valued params hidden, and the
    inner jaxpr's binders named like the outer arguments and results."""
    params = dict(eqn.params)
    del params["inline"]
    if not any(params["donated_invars"]):
        del params["donated_invars"]
    if not params["keep_unused"]:
        del params["keep_unused"]
    inner = params["jaxpr"].jaxpr
    if inner not in context.shared_jaxprs:
        context.suggest_same_var_names(inner.invars, eqn.invars)
        context.suggest_same_var_names(inner.outvars, eqn.outvars)
    del params["name"]
    return pretty.pp_eqn_default(eqn.replace(params={**params, "name": eqn.params["name"]}),
                                 context, settings, params=["name"] + sorted(params))


pretty.pp_eqn_rules[jit_p] = _jit_pp_rule


def _jit_batching(axis_data, vals, dims, *, jaxpr, **params):
    """vmap of a jit call is a jit call of the batched body: batch axes stay where they
    are on the way in and come out wherever the body's rules leave them. (An axis-aware
    rule: the body may use collectives over the vmapped axis.)"""
    batched, out_dims = batching.batch_jaxpr2(jaxpr, axis_data, dims)
    return jit_p.bind(*vals, jaxpr=batched, **params), out_dims


batching.fancy_primitive_batchers[jit_p] = _jit_batching


# ----------------------------------------------------------------------------------------
# Differentiation rules: AD through jit keeps one jit call (written by the AD owner)
# ----------------------------------------------------------------------------------------

def _filter(flags, xs):
    return tuple(x for f, x in zip(flags, xs) if f)


def _jit_jvp(primals, tangents, *, jaxpr, donated_invars, **params):
    """One call computing primal and tangent outputs: ``jit`` of the JVP jaxpr."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    outs = jit_p.bind(*primals, *_filter(nonzeros, tangents), jaxpr=jvp_jaxpr,
                      donated_invars=(*donated_invars, *_filter(nonzeros, donated_invars)),
                      **params)
    n = len(jaxpr.out_avals)
    primals_out, nz_tangents_out = outs[:n], iter(outs[n:])
    return primals_out, [next(nz_tangents_out) if nz else ad.Zero(a.to_tangent_aval())
                         for a, nz in zip(jaxpr.out_avals, out_nonzeros)]


ad.primitive_jvps[jit_p] = _jit_jvp


def _jit_linearize(nonzeros, *primals, jaxpr, donated_invars, **params):
    """Two calls: a primal ``jit`` returning the outputs and the residuals, and a tangent
    ``jit`` (recorded into the linear jaxpr) taking residuals and tangents. Outputs that
    merely forward an input, and residuals that are inputs or primal outputs, are not
    returned twice."""
    primal_jaxpr, num_res, out_nonzeros, res_forwards, tangent_jaxpr = ad.linearize_jaxpr(
        jaxpr, nonzeros)
    num_outs = len(primal_jaxpr.out_avals) - num_res
    invar_index = {v: i for i, v in enumerate(primal_jaxpr.jaxpr.invars)}
    in_fwd = [invar_index.get(v) if i < num_outs and isinstance(v, core.Var) else None
              for i, v in enumerate(primal_jaxpr.jaxpr.outvars)]
    primal_jaxpr = _prune_outputs(primal_jaxpr, [f is None for f in in_fwd])
    num_kept_outs = num_outs - sum(f is not None for f in in_fwd)
    out_vars = primal_jaxpr.jaxpr.outvars[:num_kept_outs]
    out_index = {id(v): i for i, v in enumerate(out_vars)}
    out_fwd = [None] * num_kept_outs + [out_index.get(id(v)) for v in
                                        primal_jaxpr.jaxpr.outvars[num_kept_outs:]]
    primal_jaxpr = _prune_outputs(primal_jaxpr, [f is None for f in out_fwd])
    ans = jit_p.bind(*primals, jaxpr=primal_jaxpr, donated_invars=donated_invars, **params)
    ans = _substitute(out_fwd, ans, ans)
    ans = _substitute(in_fwd, primals, ans)
    primals_out, residuals = ans[:num_outs], ans[num_outs:]
    residuals = _substitute(res_forwards, [*jaxpr.consts, *primals], residuals)
    tangent_avals = [a.to_tangent_aval() for a in jaxpr.out_avals]

    def linearized(residuals, *tangents):
        nz_outs = iter(jit_p.bind(
            *residuals, *_filter(nonzeros, tangents), jaxpr=tangent_jaxpr,
            donated_invars=(False,) * len(residuals) + _filter(nonzeros, donated_invars),
            **params))
        return [next(nz_outs) if nz else ad.Zero(a)
                for a, nz in zip(tangent_avals, out_nonzeros)]

    return primals_out, out_nonzeros, residuals, linearized


ad.primitive_linearizations[jit_p] = _jit_linearize


# ClosedJaxpr -> {kept outputs: pruned ClosedJaxpr}: the same pruning gives the same
# object (as JAX caches it), so a jit linearized twice prints its primal jaxpr once.
_pruned_cache = caches.table("jit.pruned", weak=True, why="entries die with their jaxpr")


def _prune_outputs(closed, keep):
    per_jaxpr = _pruned_cache.setdefault(closed, {})
    keep = tuple(keep)
    if keep not in per_jaxpr:
        jaxpr = closed.jaxpr.replace(outvars=_filter(keep, closed.jaxpr.outvars))
        per_jaxpr[keep] = core.ClosedJaxpr(jaxpr, closed.consts)
    return per_jaxpr[keep]


def _substitute(forwards, sources, rest):
    """``sources[i]`` where ``forwards`` names an index ``i``, else the next of ``rest``."""
    rest = iter(rest)
    return [next(rest) if i is None else sources[i] for i in forwards]


def _jit_transpose(cts, *args, jaxpr, donated_invars, **params):
    """The transpose of a call is a call of the transposed jaxpr (same name)."""
    linear = [ad.is_undefined_primal(x) for x in args]
    transposed, in_zeros = ad.transpose_jaxpr(jaxpr, linear,
                                              [type(ct) is ad.Zero for ct in cts])
    operands = [*(x for x, lin in zip(args, linear) if not lin),
                *(ct for ct in cts if type(ct) is not ad.Zero)]
    outs = iter(jit_p.bind(*operands, jaxpr=transposed,
                           donated_invars=(False,) * len(operands), **params))
    zeros = iter(in_zeros)
    return [(ad.Zero(x.aval) if next(zeros) else next(outs)) if lin else None
            for x, lin in zip(args, linear)]


ad.primitive_transposes[jit_p] = _jit_transpose


def _jit_partial_eval(trace, *args, jaxpr, donated_invars, **params):
    """Partly known inputs: a known call (outputs and residuals) now, an unknown call
    taking the unknown inputs and then the residuals (JAX's order). As in JAX, known
    outputs that merely forward an input are not returned by the known call, nor are
    residuals that are known inputs, constants or known outputs already."""
    unknowns = tuple(trace.is_unknown(a) for a in args)
    known, unknown, out_unknowns, res_fwd, in_fwd, out_fwd = _split_jit(jaxpr, unknowns)
    knowns = [not u for u in unknowns]
    known_args = _filter(knowns, args)
    known_outs = jit_p.bind_with_trace(
        trace.known_trace, known_args,
        dict(params, jaxpr=known, donated_invars=_filter(knowns, donated_invars)))
    known_outs = _substitute(out_fwd, known_outs, known_outs)
    known_outs = _substitute(in_fwd, known_args, known_outs)
    num_known_outs = len(in_fwd) - sum(f is None for f in res_fwd)
    residuals = _substitute(res_fwd, [*jaxpr.consts, *known_args], known_outs[num_known_outs:])
    if isinstance(trace.known_trace, staging.DynamicJaxprTrace):
        # A forwarded host constant is a value of the known side (a residual), not a
        # literal of the unknown call: JAX instantiates it as a constant there.
        residuals = [trace.known_trace.to_tracer(r) for r in residuals]
    unknown_args = _filter(unknowns, args)
    unknown_outs = iter(jit_p.bind_with_trace(
        trace.unknown_trace, [*unknown_args, *residuals],
        dict(params, jaxpr=unknown,
             donated_invars=_filter(unknowns, donated_invars) + (False,) * len(residuals))))
    known_outs = iter(known_outs[:num_known_outs])
    return [next(unknown_outs) if uk else next(known_outs) for uk in out_unknowns]


# ClosedJaxpr -> {unknown inputs: the split _jit_partial_eval binds}, so that the same
# jit split the same way gives the same jaxprs (printed once), as in JAX.
_split_cache = caches.table("jit.split", weak=True, why="entries die with their jaxpr")


def _split_jit(jaxpr, unknowns):
    per_jaxpr = _split_cache.setdefault(jaxpr, {})
    if unknowns not in per_jaxpr:
        per_jaxpr[unknowns] = _split_jit_uncached(jaxpr, unknowns)
    return per_jaxpr[unknowns]


def _split_jit_uncached(jaxpr, unknowns):
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr_nounits(
        jaxpr, unknowns, instantiate=False)
    num_outs = len(known.out_avals) - num_res
    # Residuals that are known inputs or constants are passed as they are.
    sources = {v: i for i, v in enumerate([*known.jaxpr.constvars, *known.jaxpr.invars])}
    consts_at = {id(c): i for i, c in enumerate(jaxpr.consts)}
    res_fwd = []
    for v in known.jaxpr.outvars[num_outs:]:
        i = sources.get(v) if isinstance(v, core.Var) else None
        if i is not None and i < len(known.consts):       # a constant of ``jaxpr``?
            i = consts_at.get(id(known.consts[i]))
        elif i is not None:
            i += len(jaxpr.consts) - len(known.consts)
        res_fwd.append(i)
    known = _prune_outputs(known, [True] * num_outs + [f is None for f in res_fwd])
    # Known outputs that are known inputs are not returned either.
    invar_index = {v: i for i, v in enumerate(known.jaxpr.invars)}
    num_kept_res = sum(f is None for f in res_fwd)
    in_fwd = [invar_index.get(v) if i < num_outs and isinstance(v, core.Var) else None
              for i, v in enumerate(known.jaxpr.outvars)]
    known = _prune_outputs(known, [f is None for f in in_fwd])
    # Residuals that are known outputs already are not returned twice.
    num_kept_outs = len(known.out_avals) - num_kept_res
    out_index = {id(v): i for i, v in enumerate(known.jaxpr.outvars[:num_kept_outs])}
    out_fwd = [None] * num_kept_outs + [out_index.get(id(v)) for v in
                                        known.jaxpr.outvars[num_kept_outs:]]
    known = _prune_outputs(known, [f is None for f in out_fwd])
    unknown = unknown.replace(jaxpr=unknown.jaxpr.replace(
        invars=[*unknown.jaxpr.invars[num_res:], *unknown.jaxpr.invars[:num_res]]))
    return known, unknown, out_unknowns, res_fwd, in_fwd, out_fwd


pe.partial_eval_rules[jit_p] = _jit_partial_eval


def _jit_custom_params(unks_in, inst_in, params_known, params_staged):
    """Inside a checkpointed jaxpr a jit splits in two jits; the staged one takes the
    residuals first (never donated)."""
    donated = params_known["donated_invars"]
    num_res = len(params_staged["jaxpr"].jaxpr.invars) - sum(inst_in)
    return (dict(params_known, donated_invars=_filter([not u for u in unks_in], donated)),
            dict(params_staged, donated_invars=(False,) * num_res + _filter(inst_in, donated)))


pe.partial_eval_jaxpr_custom_rules[jit_p] = functools.partial(
    pe.closed_call_partial_eval_custom_rule, "jaxpr", _jit_custom_params)


def _jit_dce(used_outputs, eqn):
    """Unused outputs are removed from the call, and so are the inputs only they used."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    closed = eqn.params["jaxpr"]
    jaxpr, used_inputs = pe.dce_jaxpr(closed.jaxpr, used_outputs)
    if jaxpr is closed.jaxpr:           # unchanged: keep the call (and its jaxpr's identity)
        return used_inputs, eqn
    params = dict(eqn.params, jaxpr=core.ClosedJaxpr(jaxpr, closed.consts),
                  donated_invars=_filter(used_inputs, eqn.params["donated_invars"]))
    return used_inputs, eqn.replace(invars=list(_filter(used_inputs, eqn.invars)),
                                    outvars=list(_filter(used_outputs, eqn.outvars)),
                                    params=params)


pe.dce_rules[jit_p] = _jit_dce


# ----------------------------------------------------------------------------------------
# The jit API
# ----------------------------------------------------------------------------------------

def fun_name(fun) -> str:
    """``f.__name__``, looking through partials; a callable object has none, so it is
    an ``<unnamed function>`` (``jit__unnamed_function`` once lowered), as in JAX."""
    while isinstance(fun, functools.partial) and not hasattr(fun, "__name__"):
        fun = fun.func
    return getattr(fun, "__name__", "<unnamed function>")


class RefHooks(Slots):
    """Mutable array references (ref.py, a higher layer) meet ``jit``, ``vmap``, the
    control flow and ``custom_vjp`` here; each slot runs a call some of whose operands
    or closed-over values are refs."""
    scope = Slot("glassjax.ref", "scope(stages_refs=False): a context noting the refs a "
                 "trace reads or writes (.touched) and putting their values back on exit "
                 "(a jit trace stages them instead)")
    call_with_boxes = Slot("glassjax.ref", "call_with_boxes(args, **jit params): run a jit "
                           "equation some of whose operands are refs, writing their final "
                           "values back")
    takes_refs = Slot("glassjax.ref", "takes_refs(args, kwargs): whether refs are among "
                      "the arguments")
    call = Slot("glassjax.ref", "call(jitted, args, kwargs): run a jit whose function "
                "takes or closes over refs (their new values come back as outputs)")
    vmap = Slot("glassjax.ref", "vmap(fun, in_axes, out_axes, axis_name, axis_size, args, "
                "kwargs): the same for vmap")
    carry_refs = Slot("glassjax.ref", "carry_refs(refs, loop, f, init, xs): run a scan "
                      "whose body closes over refs, carrying their values")
    while_refs = Slot("glassjax.ref", "while_refs(refs, while_loop, cond_fun, body_fun, "
                      "init): the same for while_loop")
    branch_refs = Slot("glassjax.ref", "branch_refs(refs, bind, funs, operands): the same "
                       "for the branches of cond and switch")
    custom_vjp = Slot("glassjax.ref", "custom_vjp(fun, fwd, bwd, args, symbolic_zeros): "
                      "call a custom_vjp function taking refs")


ref_hooks = RefHooks()


class TraceResult(NamedTuple):
    closed_jaxpr: core.ClosedJaxpr   # tracer consts already turned into leading args
    lifted: list                     # values for those leading args
    out_tree: object
    in_tree: object
    touches_refs: bool = False      # the function reads or writes mutable array refs


# fun -> {cache key: TraceResult}; traces die with the function, and only the newest
# ``TRACE_CACHE_FUNCTIONS`` functions keep theirs (JAX's trace caches hold 2,048 entries):
# a kernel that defines and traces thousands of functions keeps its memory bounded.
TRACE_CACHE_FUNCTIONS = 2048
_trace_cache = caches.table("jit.traces", bound=TRACE_CACHE_FUNCTIONS, weak=True)


def _traces_of(fun) -> dict:
    """``fun``'s trace cache (a new one, evicting the oldest function's if full); raises
    TypeError for a function that cannot be weakly referenced."""
    per_fun = _trace_cache.get(fun)
    if per_fun is None:
        if len(_trace_cache) >= TRACE_CACHE_FUNCTIONS:
            oldest = next(iter(_trace_cache.keys()), None)
            if oldest is not None:
                _trace_cache.pop(oldest, None)
        per_fun = _trace_cache[fun] = {}
    return per_fun


def _check_committed_layout(x, sharding):
    """An array committed to its layout is not moved to another one by ``in_shardings``:
    that is JAX's error (uncommitted values are laid out as asked). Nor is any array
    moved to another memory (``device_put`` does that)."""
    if sharding is None or not isinstance(x, runtime.ArrayImpl):
        return
    asked, has = (s.memory_kind or "device" for s in (sharding, x.sharding))
    if asked != has:
        raise ValueError("Memory kinds passed to jax.jit does not match memory kind on the "
                         f"respective arg. Got jit memory kind: {asked}, arg memory kind: "
                         f"{has} for arg type: {x.aval.str_short()}")
    if not x._committed or runtime.same_layout(x.sharding, sharding, x.ndim):
        return
    raise ValueError(f"Sharding passed to jit does not match the sharding on the respective "
                     f"arg. Got jit sharding: {sharding},\narg sharding: {x.sharding} for "
                     f"arg type: {x.aval.str_short()}")


class Jitted:
    """The Python side of ``jit(f)``: tracing, the slow call path, the ahead-of-time
    stages. ``jit`` wraps it in jaxlib's C++ dispatcher (``fastpath.cpp_function``),
    which calls ``cache_miss`` only for argument types it has not seen run yet."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums,
                 donate_argnames, device, backend, inline, keep_unused, in_shardings=None,
                 out_shardings=None):
        self._fun = fun
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        self._static_argnums, self._static_argnames = api_util.infer_argnums_and_argnames(
            fun, static_argnums, static_argnames)
        self._donate_argnums, self._donate_argnames = api_util.infer_argnums_and_argnames(
            fun, donate_argnums, donate_argnames)
        api_util.validate_argnums_and_argnames(fun, self._static_argnums,
                                               self._static_argnames, "static")
        api_util.validate_argnums_and_argnames(fun, self._donate_argnums,
                                               self._donate_argnames, "donate")
        api_util.check_static_and_donated_disjoint(self._static_argnames,
                                                   self._donate_argnames)
        self._device = device
        self._backend = backend
        self._inline = inline
        self._keep_unused = keep_unused
        self._name = fun_name(fun)

    # -- tracing --------------------------------------------------------------------------

    def _options_key(self):
        return (self._static_argnums, self._static_argnames, self._donate_argnums,
                self._donate_argnames, self._inline, self._keep_unused,
                _hashable_tree(self._in_shardings), _hashable_tree(self._out_shardings))

    def _trace(self, args, kwargs) -> tuple[TraceResult, list]:
        flat = api_util.flatten_call(self._fun, args, kwargs, self._static_argnums,
                                     self._static_argnames)
        in_avals = api_util.abstractify_leaves(self._fun, args, kwargs, flat,
                                               self._static_argnums, self._static_argnames)
        # Donation, inlining and keep_unused only matter when the jaxpr is bound, so they
        # are not part of the key: ``jit(f)``, ``jit(f, donate_argnums=0)``,
        # ``make_jaxpr(f)`` and ``eval_shape(f, ...)`` all share one trace of ``f``.
        key = (flat.in_tree, tuple(in_avals), flat.static_args, config.trace_context(),
               tuple(core.trace_ctx.axis_env.items()),
               tuple(getattr(a, "_sharding", None) for a in in_avals),  # (not in aval ==)
               get_abstract_mesh(), get_concrete_mesh())   # (types and ctx_mesh name them)
        try:
            per_fun = _traces_of(self._fun)
        except TypeError:          # not weak-referenceable: no cache
            per_fun = {}
        result = per_fun.get(key)
        if result is None:
            self._refuse_tracing()
            debug = staging.debug_info("jit", self._fun, args, kwargs, self._static_argnums,
                                       self._static_argnames)
            if config.jax_explain_cache_misses:
                cache_misses.explain(self._fun, list(per_fun), key, debug)
            start = time.perf_counter()
            with ref_hooks.scope(stages_refs=True) as refs:
                jaxpr, consts = api_util.trace_flat_call(flat, in_avals, debug)
            if config.jax_debug_key_reuse and core.hooks.check_key_reuse is not None:
                core.hooks.check_key_reuse(jaxpr)
            closed, lifted = staging.close_over_concrete_consts(jaxpr, consts)
            elapsed = time.perf_counter() - start
            dispatch.log_compile("Finished tracing %s for jit in %.9f sec", self._name,
                                 elapsed)
            monitoring.record_event_duration_secs(monitoring.JAXPR_TRACE_EVENT, elapsed,
                                                  fun_name=self._name)
            if config.jax_enable_checks:
                core.check_jaxpr(closed.jaxpr)
            result = TraceResult(closed, lifted, flat.out_tree[0], flat.in_tree,
                                 bool(refs.touched))
            if not refs.touched and all(map(core.is_ref_box, lifted)):
                per_fun[key] = result      # (closed-over refs: the same boxes each call)
        return result, flat.leaves

    def _refuse_tracing(self):
        if config.jax_no_tracing:
            raise RuntimeError(f"re-tracing function {staging.fun_sourceinfo(self._fun)} "
                               "for `jit`, but 'no_tracing' is set")

    def _donated_invars(self, args, kwargs, result: TraceResult) -> tuple:
        """One flag per flat input (closed-over tracers are never donated)."""
        flags = []
        dyn = [i for i in range(len(args)) if i not in self._static_argnums]
        for i in dyn:
            n = len(tree_util.tree_leaves(args[i]))
            flags += [i in self._donate_argnums] * n
        for k in sorted(kwargs):
            if k in self._static_argnames:
                continue
            flags += [k in self._donate_argnames] * len(tree_util.tree_leaves(kwargs[k]))
        return (False,) * len(result.lifted) + tuple(flags)

    # -- calling --------------------------------------------------------------------------

    def cache_miss(self, *args, **kwargs):
        """Call the function the Python way: trace (or find the trace), bind ``jit``.

        Returns ``(outputs, fastpath data, False)`` for the C++ dispatcher. Only a call
        at top level that compiled and ran an executable can be repeated by C++; under a
        trace the ``jit`` equation must be staged or transformed every time. A tracer
        argument at top level has escaped its transformation: binding hands it to the
        eval trace, which says so (UnexpectedTracerError)."""
        self._refuse_tracing()      # (only a call C++ could not serve comes here)
        if self._in_shardings is not None and core.trace_ctx.trace is core.eval_trace:
            args = self._apply_in_shardings(args)
        if ref_hooks.takes_refs(args, kwargs):
            return ref_hooks.call(self, args, kwargs), None, False
        result, leaves = self._trace(args, kwargs)
        if result.touches_refs and not getattr(self._fun, "discharges_refs", False):
            # closed-over refs: their values become inputs and outputs
            return ref_hooks.call(self, args, kwargs), None, False
        donated = self._donated_invars(args, kwargs, result)
        leaves = [self._place(x) for x in leaves]
        params = dict(jaxpr=result.closed_jaxpr, name=self._name, donated_invars=donated,
                      keep_unused=self._keep_unused)
        if result.lifted and not isinstance(core.trace_ctx.trace, staging.DynamicJaxprTrace) \
                and any(map(core.is_ref_box, result.lifted)):
            # refs it closes over, under grad or vmap: the call runs on their values
            outs = ref_hooks.call_with_boxes([*result.lifted, *leaves], inline=self._inline,
                                             **params)
            return tree_util.tree_unflatten(result.out_tree, outs), None, False
        # (Checking key reuse needs every call to see its keys: no C++ fast path.)
        if core.trace_ctx.trace is not core.eval_trace or result.lifted or any(
                isinstance(x, core.Tracer) for x in leaves) or config.jax_debug_key_reuse:
            outs = jit_p.bind(*result.lifted, *leaves, inline=self._inline, **params,
                              **self._recorded_params(args, result))
            return tree_util.tree_unflatten(result.out_tree, outs), None, False
        compiled = _executable(leaves, **params,
                               out_shardings=self._flat_out_shardings(result))
        try:
            outs = compiled(*leaves)
        except dispatch.InternalFloatingPointError as err:
            _rerun_deoptimized(self._name, err.kind, self._fun, args, kwargs)
        except runtime.InvalidInputError as err:
            raise _invalid_argument(err, leaves, result.closed_jaxpr) from err
        data = fastpath.fastpath_data(compiled, outs, result.out_tree)
        return tree_util.tree_unflatten(result.out_tree, outs), data, False

    def _recorded_params(self, args, result: TraceResult) -> dict:
        """What a staged call records besides its jaxpr, as JAX prints it: the mesh of
        ``set_mesh`` (``ctx_mesh``) and, one per flat input / output, the layouts
        ``in_shardings`` / ``out_shardings`` asked for (``UnspecifiedValue`` where not)."""
        recorded = {}
        mesh = get_concrete_mesh()
        if mesh is not None and not mesh.empty:
            recorded["ctx_mesh"] = mesh
        if self._in_shardings is not None:
            lifted = (UNSPECIFIED,) * len(result.lifted)
            recorded["in_shardings"] = lifted + self._flat_in_shardings(args, result)
        flat_out = self._flat_out_shardings(result)
        if flat_out is not None:
            recorded["out_shardings"] = tuple(
                UNSPECIFIED if s is None else spec_to_sharding(s, "jit")
                for s in flat_out)
        return recorded

    def _flat_in_shardings(self, args, result: TraceResult) -> tuple:
        """``in_shardings`` (a prefix tree over the dynamic positional arguments) as one
        sharding per flat input; keyword arguments are unspecified."""
        dyn = [a for i, a in enumerate(args) if i not in self._static_argnums]
        shardings = self._in_shardings
        if not isinstance(shardings, (tuple, list)):
            shardings = (shardings,) * len(dyn)
        flat = []
        for arg, sharding in zip(dyn, shardings):
            flat += tree_util.broadcast_prefix(sharding, arg, is_leaf=lambda s: s is None)
        flat += [None] * (result.in_tree.num_leaves - len(flat))
        return tuple(UNSPECIFIED if s is None else spec_to_sharding(s, "jit") for s in flat)

    def _apply_in_shardings(self, args):
        """``in_shardings``: each positional argument (a prefix tree of shardings over the
        non-static ones) is laid out as asked before the call."""
        dyn = [i for i in range(len(args)) if i not in self._static_argnums]
        shardings = self._in_shardings
        if not isinstance(shardings, (tuple, list)):
            shardings = (shardings,) * len(dyn)
        if len(shardings) != len(dyn):
            raise ValueError(f"jit in_shardings has {len(shardings)} entries but "
                             f"{self._name} was called with {len(dyn)} dynamic positional "
                             "arguments")
        args = list(args)
        for i, sharding in zip(dyn, shardings):
            if sharding is None:
                continue
            leaves, tree = tree_util.tree_flatten(args[i])
            per_leaf = tree_util.broadcast_prefix(sharding, args[i],
                                                  is_leaf=lambda s: s is None)
            for x, s in zip(leaves, per_leaf):
                _check_committed_layout(x, s)
            args[i] = tree.unflatten([x if s is None else runtime.device_put(
                x, s, committed=True) for x, s in zip(leaves, per_leaf)])
        return tuple(args)

    def _flat_out_shardings(self, result: TraceResult):
        """``out_shardings`` as one sharding (or None) per output leaf."""
        if self._out_shardings is None:
            return None
        skeleton = tree_util.tree_unflatten(result.out_tree,
                                            [0] * result.out_tree.num_leaves)
        flat = tuple(tree_util.broadcast_prefix(self._out_shardings, skeleton,
                                                is_leaf=lambda s: s is None))
        for s, aval in zip(flat, result.closed_jaxpr.out_avals):
            if hasattr(s, "check_shape"):      # a result that cannot be laid out so
                s.check_shape(aval.shape)
        return flat

    def _place(self, x):
        """With ``device=``/``backend=``, arguments are committed there before the call."""
        if (self._device is None and self._backend is None) or isinstance(x, core.Tracer):
            return x
        device = self._device or runtime.devices(self._backend)[0]
        return runtime.device_put(x, device, committed=True)

    # -- ahead of time --------------------------------------------------------------------

    def trace(self, *args, **kwargs) -> "Traced":
        result, leaves = self._trace(args, kwargs)     # (refs: inputs of type Ref{...})
        return Traced(self, result, self._donated_invars(args, kwargs, result),
                      [*result.lifted, *leaves])

    def lower(self, *args, **kwargs) -> "Lowered":
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        return self.trace(*args, **kwargs).out_info

    def clear_cache(self):
        _trace_cache.pop(self._fun, None)

    def cpp_function(self):
        """The callable ``jit`` returns: jaxlib's C++ dispatcher over this object, with
        ``f``'s name and docstring and the ahead-of-time methods."""
        options = (self._options_key(), self._device, self._backend)
        f = fastpath.cpp_function(
            self._name, self._fun, self.cache_miss, static_argnums=self._static_argnums,
            static_argnames=self._static_argnames, options_key=options)
        functools.update_wrapper(f, self._fun)
        f._fun = self._fun
        for method in (self.trace, self.lower, self.eval_shape):
            setattr(f, method.__name__, method)

        def clear_cache():
            self.clear_cache()
            f._clear_cache()
        f.clear_cache = clear_cache
        return f


def jit(fun=None, *, in_shardings=UNSPECIFIED, out_shardings=UNSPECIFIED,
        static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, device=None, backend=None, inline=False, keep_unused=False,
        **unsupported):
    """Compile ``fun`` with XLA. Usable as ``@jit`` or ``@jit(static_argnames=...)``.

    ``in_shardings`` / ``out_shardings`` (NamedShardings, or pytree prefixes of them over
    the positional arguments / the results) lay the arguments out before the call and
    ask XLA for the results' layouts."""
    if unsupported:
        raise TypeError(f"jit() got an unexpected keyword argument {next(iter(unsupported))!r}")
    if in_shardings is UNSPECIFIED:
        in_shardings = None
    if out_shardings is UNSPECIFIED:
        out_shardings = None
    if fun is None:
        return lambda f: jit(f, in_shardings=in_shardings, out_shardings=out_shardings,
                             static_argnums=static_argnums,
                             static_argnames=static_argnames, donate_argnums=donate_argnums,
                             donate_argnames=donate_argnames, device=device,
                             backend=backend, inline=inline, keep_unused=keep_unused)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    weakref.ref(fun)    # TypeError for objects with no weak references (jaxlib's C++
    #                     dispatcher keys its caches on them, and crashes without)
    if device is not None or backend is not None:
        warnings.warn("backend and device argument on jit is deprecated. You can use "
                      "`jax.device_put(..., jax.local_devices(backend=\"cpu\")[0])` on the "
                      "inputs to the jitted function to get the same behavior.",
                      DeprecationWarning, stacklevel=2)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                  device, backend, inline, keep_unused, in_shardings,
                  out_shardings).cpp_function()


def _hashable_tree(tree):
    leaves, treedef = tree_util.tree_flatten(tree, is_leaf=lambda s: s is None)
    return treedef, tuple(leaves)


# ----------------------------------------------------------------------------------------
# Ahead-of-time stages
# ----------------------------------------------------------------------------------------

def _result_names(out_tree) -> list[str]:
    """``result``, ``result[0]``, ``result['a']``: how JAX labels the outputs of main."""
    n = out_tree.num_leaves
    leaves = tree_util.tree_unflatten(out_tree, list(range(n)))
    paths = tree_util.tree_flatten_with_path(leaves)[0]
    return ["result" + tree_util.keystr(p) for p, _ in paths]


class ArgInfo:
    """What a compiled stage knows of one argument: its type and whether it is donated."""
    __slots__ = ("_aval", "donated")

    def __init__(self, aval, donated):
        self._aval = aval
        self.donated = donated

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)

    def __repr__(self):
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


class _StageInfo:
    """The argument and result descriptions ``Traced``, ``Lowered`` and ``Compiled`` share."""

    @property
    def in_tree(self):
        return self._result.in_tree

    @property
    def out_tree(self):
        return self._result.out_tree

    @property
    def args_info(self):
        n = len(self._result.lifted)
        avals = self._result.closed_jaxpr.in_avals[n:]
        return tree_util.tree_unflatten(self._result.in_tree, [
            ArgInfo(a, d) for a, d in zip(avals, self._donated[n:])])

    @property
    def out_info(self):
        return tree_util.tree_unflatten(self._result.out_tree, [
            core.ShapeDtypeStruct(a.shape, a.dtype)
            for a in self._result.closed_jaxpr.out_avals])


class Traced(_StageInfo):
    """``jit(f).trace(*args)``: the jaxpr, before lowering."""

    def __init__(self, jitted: Jitted, result: TraceResult, donated_invars, args=None):
        self._jitted = jitted
        self._result = result
        self._donated = donated_invars
        self._args = args       # the flat arguments: where they live decides placement

    @property
    def jaxpr(self) -> core.ClosedJaxpr:
        return self._result.closed_jaxpr

    @property
    def out_info(self):     # (the jaxpr's types: weak types show, unlike after lowering)
        avals = self._result.closed_jaxpr.out_avals
        shapes = [core.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                  for a in avals]
        return tree_util.tree_unflatten(self._result.out_tree, shapes)

    def lower(self) -> "Lowered":
        return Lowered(self._jitted._name, self._result, self._donated,
                       self._jitted._keep_unused, self._args,
                       self._jitted._flat_out_shardings(self._result))


class Lowered(_StageInfo):
    """``jit(f).lower(*args)``: the StableHLO module (``as_text()``), not yet compiled."""

    def __init__(self, name, result: TraceResult, donated_invars, keep_unused, args=None,
                 out_shardings=None):
        self._result = result
        self._donated = donated_invars
        closed = result.closed_jaxpr
        if args is None:        # (no example values: only the jaxpr's meshes count)
            args = [None] * len(closed.in_avals)
        placement = _placement(args, closed, name, keep_unused, out_shardings)
        self._lower = functools.partial(
            dispatch.lower_jaxpr, name, closed, placement, donated_invars=donated_invars,
            keep_unused=keep_unused, result_names=_result_names(result.out_tree),
            in_shardings=dispatch.arg_shardings(args, placement),
            out_shardings=out_shardings)
        self._lowered = self._lower()
        self._module_context = self._lowered.module_context

    def as_text(self, dialect=None, *, debug_info=False) -> str:
        """StableHLO text, or with ``dialect="hlo"`` the XLA HLO it converts to.
        ``debug_info`` shows each operation's location: its equation's name stack
        (``named_scope``, ``jvp(...)``) and primitive, at the user's lines (the module
        is lowered again for it, with locations that compiling does not need)."""
        if dialect == "hlo":
            return self.compiler_ir("hlo").as_hlo_text()
        if debug_info:
            module = self._lower(locations=True).module_context.module
            return runtime.module_text(module, debug_info=True)
        return runtime.module_text(self._module_context.module)

    def compiler_ir(self, dialect=None):
        """The StableHLO ``ir.Module``, or with ``dialect="hlo"`` the ``XlaComputation``
        it converts to, as JAX returns them (XLA names HLO instructions after the
        module's locations, so that module is lowered again with them)."""
        if dialect in (None, "stablehlo"):
            return self._module_context.module
        if dialect == "hlo":
            module = self._lower(locations=True).module_context.module
            return runtime.hlo_computation(module, return_tuple=False, debug_info=True)
        raise ValueError(f"unknown dialect: {dialect}")

    def compile(self) -> "Compiled":
        return Compiled(self)

    def cost_analysis(self):
        return self.compile().cost_analysis()


class Compiled(_StageInfo):
    """``jit(f).lower(*args).compile()``: an executable for exactly those input types."""

    def __init__(self, lowered: Lowered):
        self._result = lowered._result
        self._donated = lowered._donated
        self._exe = dispatch.compile_lowered(self._result.closed_jaxpr, lowered._lowered)

    def __call__(self, *args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != self._result.in_tree:
            raise TypeError(_describe_tree_mismatch(in_tree, self._result.in_tree))
        if core.trace_ctx.trace is not core.eval_trace:
            for x in leaves:
                if isinstance(x, core.Tracer):
                    raise TypeError(
                        "Cannot apply JAX transformations to a function lowered and "
                        "compiled for a particular signature. Detected argument of "
                        f"Tracer type {type(x)}.")
        expected = [a.strip_weak_type() for a in self._result.closed_jaxpr.in_avals
                    [len(self._result.lifted):]]
        got = [core.get_aval(x).strip_weak_type() for x in leaves]
        if got != expected:
            debug = self._result.closed_jaxpr.jaxpr.debug_info
            names = debug.arg_names if debug is not None else ()
            raise TypeError(
                "Argument types differ from the types for which this computation was "
                "compiled. Perhaps you are calling the compiled executable with a "
                "different enable_x64 mode than when it was AOT compiled? The mismatches "
                f"are:\n{_describe_mismatch(expected, got, names)}")
        outs = self._exe(*self._result.lifted, *leaves)
        return tree_util.tree_unflatten(self._result.out_tree, outs)

    def _formats(self, tree, avals, shardings):
        return tree_util.tree_unflatten(tree, [
            Format(Layout.default(len(a.shape)), s) for a, s in zip(avals, shardings)])

    def _input_shardings(self) -> list:
        """One per argument leaf; an input the program drops may live anywhere, so it
        is said to be where the program's first device is."""
        exe = self._exe
        taken = iter(exe.in_shardings)
        anywhere = runtime.SingleDeviceSharding(exe.device)
        every = [next(taken) if keep else anywhere for keep in exe.kept_invars]
        return every[len(self._result.lifted):]

    @property
    def out_info(self):
        """As ``Lowered.out_info``, plus where each output will live and its layout."""
        return tree_util.tree_unflatten(self._result.out_tree, [
            core.ShapeDtypeStruct(a.shape, a.dtype, sharding=f) for a, f in zip(
                self._result.closed_jaxpr.out_avals, tree_util.tree_leaves(
                    self.output_formats, is_leaf=lambda x: isinstance(x, Format)))])

    @property
    def input_formats(self):
        return self._formats(self._result.in_tree, self._result.closed_jaxpr.in_avals[
            len(self._result.lifted):], self._input_shardings())

    @property
    def output_formats(self):
        return self._formats(self._result.out_tree, self._result.closed_jaxpr.out_avals,
                             self._exe.out_shardings)

    @property
    def input_shardings(self):
        return tree_util.tree_map(lambda f: f.sharding, self.input_formats)

    @property
    def output_shardings(self):
        return tree_util.tree_map(lambda f: f.sharding, self.output_formats)

    def as_text(self) -> str:
        return runtime.optimized_hlo_text(self._exe.executable)

    def cost_analysis(self):
        return runtime.cost_analysis(self._exe.executable)

    def memory_analysis(self):
        return runtime.memory_analysis(self._exe.executable)


def _describe_tree_mismatch(given, compiled) -> str:
    """Where the ``(args, kwargs)`` of a call differ in structure from the compiled ones."""
    errors = list(tree_util.equality_errors_pytreedef(given, compiled))
    lines = ["Function compiled with input pytree does not match the input pytree it was "
             f"called with. There are {len(errors)} mismatches, including:"]
    for (first, *rest), thing1, thing2, explanation in errors:
        base = ("args", "kwargs")[first.idx]
        lines.append(f"    * at {base}{tree_util.keystr(tuple(rest))}, seen {thing2} but "
                     f"now given {thing1}, so {explanation}")
    return "\n".join(lines)


def _describe_mismatch(expected, got, names) -> str:
    lines = []
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            name = f"'{names[i]}'" if i < len(names) else str(i)
            lines.append(f"Argument {name} compiled with {e.str_short()} and called with "
                         f"{g.str_short()}")
    if len(expected) != len(got):
        lines.append(f"compiled for {len(expected)} arguments, called with {len(got)}")
    return "\n".join(lines)


def named_call(fun, *, name=None):
    """``fun`` whose staged operations carry ``name`` (default ``fun.__name__``) on their
    name stack, as ``named_scope`` would. No equation is added and the function keeps its
    ``__name__``: the name shows in ``pretty_print(name_stack=True)`` only."""
    return source_info.extend_name_stack(fun.__name__ if name is None else name)(fun)


def named_scope(name: str) -> source_info.extend_name_stack:
    """``with named_scope("layer1"):`` puts ``layer1`` on the name stack of the operations
    staged inside it (shown by ``pretty_print(name_stack=True)``); also a decorator."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    return source_info.extend_name_stack(name)


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False):
    """A function that returns the ``ClosedJaxpr`` of ``fun`` for example arguments.

    The example arguments may be arrays, scalars or anything with ``shape`` and ``dtype``
    (e.g. ``ShapeDtypeStruct``). ``axis_env`` names the mapped axes that collectives like
    ``psum`` may refer to, as pmap would. As in JAX this is ``jit(fun).trace(*args)``, so
    it shares jit's trace cache: ``f`` traced here is not traced again by ``jit(f)``."""
    jitted = Jitted(fun, static_argnums, None, None, None, None, None, False, False)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        with core.extend_axis_env(axis_env or []):
            traced = jitted.trace(*args, **kwargs)
        closed, lifted = traced.jaxpr, traced._result.lifted
        if lifted:      # tracers of an enclosing trace are constants here, not arguments
            jaxpr = closed.jaxpr
            closed = core.ClosedJaxpr(
                jaxpr.replace(constvars=[*jaxpr.invars[:len(lifted)], *jaxpr.constvars],
                              invars=jaxpr.invars[len(lifted):]),
                [*lifted, *closed.consts])
        return (closed, traced.out_info) if return_shape else closed

    make_jaxpr_f.__module__ = "glassjax"
    name = getattr(fun, "__name__", None)
    if name is not None:
        make_jaxpr_f.__name__ = make_jaxpr_f.__qualname__ = f"make_jaxpr({name})"
    return make_jaxpr_f


def eval_shape(fun, *args, **kwargs):
    """The output shapes/dtypes of ``fun`` for these arguments, found by tracing only
    (``jit(fun).trace(*args).out_info``, so a jitted ``fun`` keeps its static args)."""
    if not fastpath.is_jitted(fun):
        if not callable(fun):       # (JAX's eval_shape calls jit, which checks this)
            raise TypeError(f"Expected a callable value, got {fun}")
        fun = Jitted(fun, None, None, None, None, None, None, False, False)
    return fun.trace(*args, **kwargs).out_info


def xla_computation(fun, static_argnums=(), axis_env=None, in_parts=None, out_parts=None,
                    backend=None, tuple_args=False, instantiate_const_outputs=None,
                    return_shape=False, donate_argnums=()):
    """The unoptimized XLA HLO of ``fun`` for example arguments (``.as_hlo_text()``).

    JAX 0.4.30 removed this in favour of ``jit(f).lower(x)``; the seed documents use it,
    so glassjax keeps it, built on the same tracing and lowering as ``jit``. With
    ``axis_env`` the program is lowered for as many replicas as the named axes span, so
    collectives show their replica groups."""
    del in_parts, out_parts, instantiate_const_outputs
    jitted = Jitted(fun, static_argnums, None, donate_argnums, None, None, backend, False,
                    False)

    def computation_maker(*args, **kwargs):
        with core.extend_axis_env(axis_env or []):
            result, _ = jitted._trace(args, kwargs)
            replicas = 1
            for _, size in axis_env or []:
                replicas *= size
            mctx = lowering.lower_module(
                lowering.module_name("xla_computation", jitted._name), result.closed_jaxpr,
                donated_invars=list(jitted._donated_invars(args, kwargs, result)),
                axis_env=dict(axis_env or []), num_replicas=replicas)
        computation = runtime.hlo_computation(mctx.module, tuple_args=tuple_args)
        if return_shape:
            return computation, Traced(jitted, result, ()).out_info
        return computation

    return computation_maker
