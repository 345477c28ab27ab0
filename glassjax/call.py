"""``call`` and ``closed_call``: JAX's plain call of a jaxpr.

``jit`` is how a traced program calls another one; these two primitives are the older,
simpler kind of call that JAX keeps for libraries (numpyro's provenance tracking reads
them, brainstate builds equations with them). A ``closed_call`` equation holds a
``ClosedJaxpr`` in its ``call_jaxpr`` param, a ``call`` equation an open ``Jaxpr``; either
way it computes what the jaxpr computes, and every transformation transforms the jaxpr
and binds the same primitive again. Nothing is compiled on its own: eagerly the body runs
op by op (JAX's ``call_impl``), inside ``jit`` it lowers to a private function
(``func.call @closed_call``).

Where JAX's transformations trace a call's body again, the constants they close over
become leading operands of the new call (its ``call_jaxpr`` has none), as here.
"""
from __future__ import annotations

import functools

from glassjax import caches, core
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.xla import lowering


call_p = core.CallPrimitive("call")
closed_call_p = core.ClosedCallPrimitive("closed_call")


# The call jaxprs that JAX would have traced from a function of another name than
# ``eval_jaxpr`` (the transpose rule's ``transposed``): vmap names a call after it.
_traced_names = caches.table("call.traced_names", weak=True,
                             why="entries die with their jaxprs")


def _closed(call_jaxpr) -> core.ClosedJaxpr:
    return call_jaxpr if isinstance(call_jaxpr, core.ClosedJaxpr) else \
        core.ClosedJaxpr(call_jaxpr, ())


def _bind(prim, closed: core.ClosedJaxpr, args, params, traced_name=None):
    """Call ``closed`` with ``prim``, its constants passed as the first operands."""
    jaxpr = staging.convert_constvars_jaxpr(closed.jaxpr)
    if traced_name is not None:
        _traced_names[jaxpr] = traced_name
    call_jaxpr = core.ClosedJaxpr(jaxpr, ()) if prim is closed_call_p else jaxpr
    return prim.bind(*closed.consts, *args, call_jaxpr=call_jaxpr, **params)


def _filter(flags, xs):
    return [x for f, x in zip(flags, xs) if f]


def _call_impl(*args, call_jaxpr, **params):
    del params          # (a ``name`` that vmap adds names the function, not the values)
    closed = _closed(call_jaxpr)
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _call_staging(prim):
    def rule(trace, *tracers, call_jaxpr, **params):
        closed = _closed(call_jaxpr)
        if closed.consts:
            with core.set_current_trace(trace):
                return _bind(prim, closed, tracers, params)
        return trace.default_process_primitive(prim, tracers,
                                               dict(params, call_jaxpr=call_jaxpr))
    return rule


def _call_lowering(prim):
    """Lowered to a private function named as JAX names it (``@closed_call``,
    ``@core_call``, or the call's ``name`` param)."""
    default_name = "closed_call" if prim is closed_call_p else "core_call"

    def rule(ctx, *args, call_jaxpr, name=default_name):
        return lowering.call_private_function(ctx, name, _closed(call_jaxpr), args)
    return rule


def _call_batching(prim):
    def rule(axis_data, vals, dims, *, call_jaxpr, **params):
        """The batched body, called again; JAX's vmap names the call after the function
        it traced (``eval_jaxpr``, the interpreter of the jaxpr)."""
        batched, out_dims = batching.batch_jaxpr2(_closed(call_jaxpr), axis_data, dims)
        params.setdefault("name", _traced_names.get(_closed(call_jaxpr).jaxpr,
                                                        "eval_jaxpr"))
        return _bind(prim, batched, vals, params), out_dims
    return rule


def _call_jvp(prim):
    def rule(primals, tangents, *, call_jaxpr, **params):
        """One call of the JVP body: primals and nonzero tangents in, primal and nonzero
        tangent outputs out."""
        closed = _closed(call_jaxpr)
        nonzeros = [type(t) is not ad.Zero for t in tangents]
        jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(closed, nonzeros, instantiate=False)
        outs = _bind(prim, jvp_jaxpr, [*primals, *_filter(nonzeros, tangents)], params)
        n = len(closed.out_avals)
        nz_tangents = iter(outs[n:])
        return outs[:n], [next(nz_tangents) if nz else ad.Zero(a.to_tangent_aval())
                          for a, nz in zip(closed.out_avals, out_nonzeros)]
    return rule


def _call_linearize(prim):
    def rule(nonzeros, *primals, call_jaxpr, **params):
        """Two calls, as JAX's ``LinearizeTrace.process_call`` makes them: a primal call
        returning the residuals and then the outputs, and a tangent call taking all
        residuals and the nonzero tangents. A residual that is an input or an output
        already is not returned again."""
        closed = _closed(call_jaxpr)
        primal, num_res, out_nonzeros, in_fwd, tangent = ad.linearize_jaxpr(closed, nonzeros)
        num_outs = len(primal.out_avals) - num_res
        out_vars, res_vars = primal.jaxpr.outvars[:num_outs], primal.jaxpr.outvars[num_outs:]
        out_index = {id(v): i for i, v in enumerate(out_vars)}
        out_fwd = [out_index.get(id(v)) for v in res_vars]
        computed_vars = _filter([f is None for f in out_fwd], res_vars)
        primal = primal.replace(jaxpr=primal.jaxpr.replace(outvars=[*computed_vars,
                                                                    *out_vars]))
        outs = _bind(prim, primal, primals, params)
        computed, primals_out = iter(outs[:len(computed_vars)]), outs[len(computed_vars):]
        returned = iter([next(computed) if j is None else primals_out[j] for j in out_fwd])
        sources = [*closed.consts, *primals]
        residuals = [next(returned) if i is None else sources[i] for i in in_fwd]
        tangent_avals = [a.to_tangent_aval() for a in closed.out_avals]

        def linearized(residuals, *tangents):
            nz_outs = iter(_bind(prim, tangent, [*residuals, *_filter(nonzeros, tangents)],
                                 params))
            return [next(nz_outs) if nz else ad.Zero(a)
                    for a, nz in zip(tangent_avals, out_nonzeros)]

        return primals_out, out_nonzeros, residuals, linearized
    return rule


def _call_transpose(prim):
    def rule(cts, *args, call_jaxpr, **params):
        """A call of the transposed body, on the non-linear operands and the nonzero
        cotangents."""
        linear = [ad.is_undefined_primal(x) for x in args]
        transposed, in_zeros = ad.transpose_jaxpr(_closed(call_jaxpr), linear,
                                                  [type(ct) is ad.Zero for ct in cts])
        operands = [*(x for x, lin in zip(args, linear) if not lin),
                    *(ct for ct in cts if type(ct) is not ad.Zero)]
        outs = iter(_bind(prim, transposed, operands, params, traced_name="transposed"))
        zeros = iter(in_zeros)
        return [(ad.Zero(x.aval) if next(zeros) else next(outs)) if lin else None
                for x, lin in zip(args, linear)]
    return rule


def _call_partial_eval(prim):
    def rule(trace, *args, call_jaxpr, **params):
        """Partly known operands: a call of the known part now (known outputs, then
        residuals), and a staged call of the rest taking the residuals first. A residual
        that is a known operand is passed on, not returned (JAX's forwarding)."""
        unknowns = [trace.is_unknown(a) for a in args]
        known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr_nounits(
            _closed(call_jaxpr), unknowns, instantiate=False)
        known_args = _filter([not u for u in unknowns], args)
        num_known = len(known.out_avals) - num_res
        invar_index = {v: i for i, v in enumerate(known.jaxpr.invars)}
        in_fwd = [invar_index.get(v) if isinstance(v, core.Var) else None
                  for v in known.jaxpr.outvars[num_known:]]
        known = known.replace(jaxpr=known.jaxpr.replace(outvars=[
            *known.jaxpr.outvars[:num_known],
            *_filter([i is None for i in in_fwd], known.jaxpr.outvars[num_known:])]))
        with core.set_current_trace(trace.known_trace):
            known_outs = _bind(prim, known, known_args, params)
        computed = iter(known_outs[num_known:])
        residuals = [next(computed) if i is None else known_args[i] for i in in_fwd]
        if isinstance(trace.known_trace, staging.DynamicJaxprTrace):
            residuals = [trace.known_trace.to_tracer(r) for r in residuals]
        with core.set_current_trace(trace.unknown_trace):
            unknown_outs = iter(_bind(prim, unknown, [*residuals, *_filter(unknowns, args)],
                                      params))
        known_outs = iter(known_outs[:num_known])
        return [next(unknown_outs) if uk else next(known_outs) for uk in out_unknowns]
    return rule


def _call_dce(used_outputs, eqn):
    """Unused outputs leave the call, and so do the operands only they read."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    call_jaxpr = eqn.params["call_jaxpr"]
    jaxpr, used_inputs = pe.dce_jaxpr(_closed(call_jaxpr).jaxpr, used_outputs)
    if isinstance(call_jaxpr, core.ClosedJaxpr):
        jaxpr = call_jaxpr.replace(jaxpr=jaxpr)
    return used_inputs, eqn.replace(invars=_filter(used_inputs, eqn.invars),
                                    outvars=_filter(used_outputs, eqn.outvars),
                                    params=dict(eqn.params, call_jaxpr=jaxpr))


def _unchanged_params(unks_in, inst_in, params_known, params_staged):
    return params_known, params_staged


for _prim in (call_p, closed_call_p):
    _prim.def_impl(_call_impl)
    _prim.def_abstract_eval(lambda *avals, call_jaxpr, **params: call_jaxpr.out_avals)
    _prim.drawing = core.Drawing("jit", _prim.name, body="call_jaxpr",
                                 quiet=frozenset({"name"}))
    staging.staging_rules[_prim] = _call_staging(_prim)
    staging.effects_rules[_prim] = lambda call_jaxpr, **_: call_jaxpr.effects
    lowering.register_lowering(_prim, _call_lowering(_prim))
    batching.fancy_primitive_batchers[_prim] = _call_batching(_prim)
    ad.primitive_jvps[_prim] = _call_jvp(_prim)
    ad.primitive_linearizations[_prim] = _call_linearize(_prim)
    ad.primitive_transposes[_prim] = _call_transpose(_prim)
    pe.partial_eval_rules[_prim] = _call_partial_eval(_prim)
    pe.dce_rules[_prim] = _call_dce
pe.partial_eval_jaxpr_custom_rules[call_p] = functools.partial(
    pe.call_partial_eval_custom_rule, "call_jaxpr", _unchanged_params)
pe.partial_eval_jaxpr_custom_rules[closed_call_p] = functools.partial(
    pe.closed_call_partial_eval_custom_rule, "call_jaxpr", _unchanged_params)
