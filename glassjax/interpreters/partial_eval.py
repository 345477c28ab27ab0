"""Partial evaluation: run what is known now, stage out what is not; and dead-code
elimination.

Reverse-mode AD needs to split a computation in two. When a primitive is linearized, its
JVP rule runs with the tangents *unknown*: everything that depends only on primals can be
computed right away, while operations touching a tangent are recorded for later (they form
the linear function that gets transposed). ``PartialEvalTrace`` does this split: known
values live on one trace (usually the trace the user's computation runs on), unknown
values are variables of a staging trace. Known values that an unknown operation needs
become constants of the staged jaxpr: the *residuals*.

The same split applied to whole jaxprs (``partial_eval_jaxpr_nounits``,
``partial_eval_jaxpr_custom``) serves ``jit`` and ``checkpoint``/``remat``: the latter
decides, with a *policy*, which known intermediates are saved as residuals and which are
recomputed in the staged part.

``dce_jaxpr`` removes equations whose results are unused, asking primitives that carry a
jaxpr (``dce_rules``) to prune their insides too.
"""
from __future__ import annotations

from typing import NamedTuple

from glassjax import caches, core
from glassjax.config import config
from glassjax.core import ClosedJaxpr, Jaxpr, Var
from glassjax.interpreters import staging
# (JAX keeps the staging trace and its tracers in this module)
from glassjax.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer  # noqa: F401
from glassjax.rule_tables import Rules
from glassjax.slots import Slot, Slots

# Primitives whose partial evaluation is more than "stage the whole equation if any input
# is unknown", e.g. ``remat`` (which computes its known part now) and ``jit`` (which is
# split into a known call and an unknown call).
# rule(trace, *args, **params) -> outputs (known values or unknown tracers)
partial_eval_rules = Rules("partial_eval", "linearize / remat: known and unknown parts")

# The same idea on jaxprs, for ``partial_eval_jaxpr_custom``:
# rule(saveable, unknowns_in, instantiated_in, eqn)
#   -> (known eqn or None, staged eqn or None, unknowns_out, instantiated_out, residuals)
partial_eval_jaxpr_custom_rules = Rules(
    "partial_eval_jaxpr", "remat: known and unknown parts of the equation")

# rule(used_outputs, eqn) -> (used_inputs, new eqn or None)
dce_rules = Rules("dce", "dead-code elimination of the equation")


class Offloadable(NamedTuple):
    """What a remat policy may answer for a value: save it, but in another memory
    (``src`` and ``dst`` are memory kinds: ``Offloadable('device', 'pinned_host')``).
    The known jaxpr moves it to ``dst`` as it is computed; the staged jaxpr moves it
    back before using it."""
    src: str
    dst: str


class _Hooks(Slots):
    """What partial evaluation needs from lax."""
    move = Slot("glassjax.lax.device_put", "move(var, space) -> (eqn, moved var): an "
                "equation putting var's value in memory space space (a copying "
                "device_put), for remat policies that offload")


hooks = _Hooks()


# ----------------------------------------------------------------------------------------
# The known/unknown split on traces
# ----------------------------------------------------------------------------------------

class JaxprTracer(staging.DynamicJaxprTracer):
    """An unknown value: a variable of the jaxpr staged for later. Named and printed as
    JAX's (``Traced<~float32[]:JaxprTrace>``): a custom_jvp rule sees its tangents as
    these under ``grad``."""
    __slots__ = ()

    def __repr__(self):
        return f"Traced<{self.aval}:JaxprTrace>"


class UnknownTrace(staging.DynamicJaxprTrace):
    """The staging trace of partial evaluation's unknown side."""
    tracer_type = JaxprTracer


class PartialEvalTrace(core.Trace):
    """Interprets primitives whose inputs are partly known.

    A value is *unknown* if it is a tracer of ``unknown_trace`` (a staging trace);
    anything else is known and belongs to ``known_trace``. An operation with only known
    inputs runs on the known trace; otherwise it is staged on the unknown trace, which
    turns the known inputs it needs into constants (residuals)."""

    def __init__(self, known_trace, unknown_trace: staging.DynamicJaxprTrace):
        self.known_trace = known_trace
        self.unknown_trace = unknown_trace

    def is_unknown(self, x) -> bool:
        return isinstance(x, core.Tracer) and x._trace is self.unknown_trace

    def process_primitive(self, primitive, args, params):
        unknown_trace = self.unknown_trace      # (``is_unknown``, inlined: every op asks)
        for x in args:
            if isinstance(x, core.Tracer) and x._trace is unknown_trace:
                break
        else:                                   # all known
            return primitive.bind_with_trace(self.known_trace, args, params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, *args, **params)
        return primitive.bind_with_trace(self.unknown_trace, args, params)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        if not any(map(self.is_unknown, tracers)):
            return primitive.bind_with_trace(self.known_trace, (fun, jvp, *tracers),
                                             dict(symbolic_zeros=symbolic_zeros))
        # Partial evaluation only builds linear functions, which are not differentiated
        # again: the custom rule is no longer needed, the function body is.
        with core.set_current_trace(self):
            return fun.call_wrapped(*tracers)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        if not any(map(self.is_unknown, tracers)):
            return primitive.bind_with_trace(
                self.known_trace, (fun, fwd, bwd, *tracers),
                dict(out_trees=out_trees, symbolic_zeros=symbolic_zeros))
        with core.set_current_trace(self):
            return fun.call_wrapped(*tracers)


class PartialVal(tuple):
    """JAX's description of a partially known input or output: ``(aval, None)`` for an
    unknown value of type ``aval``, ``(None, value)`` for a known one."""

    def __new__(cls, xs):
        pv, const = xs
        return tuple.__new__(cls, (pv, const))

    @classmethod
    def known(cls, const) -> PartialVal:
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval) -> PartialVal:
        return PartialVal((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self):
        return self[1] if self[0] is None else None

    def get_aval(self):
        return core.get_aval(self[1]) if self[0] is None else self[0]


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Run the WrappedFun ``fun`` on partially known inputs (``PartialVal`` each): what
    depends only on known inputs is computed now (on the current trace), the rest is
    staged. Returns ``(jaxpr, out_pvals, residuals)``: ``jaxpr`` takes the residuals as
    constvars and the unknown inputs as invars, and computes the unknown outputs;
    ``instantiate`` (a bool or one per output) forces outputs to be unknown."""
    known_trace = core.trace_ctx.trace
    unknown_trace = UnknownTrace(getattr(fun, "debug_info", None))
    trace = PartialEvalTrace(known_trace, unknown_trace)
    args = [pv.get_known() if pv.is_known() else unknown_trace.new_arg(pv[0])
            for pv in pvals]
    with core.set_current_trace(trace):
        outs = fun.call_wrapped(*args)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(outs)
    unknown = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
    jaxpr, residuals = unknown_trace.to_jaxpr([o for o, uk in zip(outs, unknown) if uk])
    out_pvals = [PartialVal.unknown(core.get_aval(o)) if uk else PartialVal.known(o)
                 for o, uk in zip(outs, unknown)]
    return jaxpr, out_pvals, residuals


# ----------------------------------------------------------------------------------------
# The known/unknown split on jaxprs
# ----------------------------------------------------------------------------------------

# ClosedJaxpr -> {(unknowns, instantiate, trace context): split}. As in JAX, splitting the
# same jaxpr the same way gives the same jaxprs (printed once when used twice).
_nounits_cache = caches.table("interpreters.partial_eval.nounits", weak=True,
                              why="entries die with their jaxpr")


def partial_eval_jaxpr_nounits(jaxpr: ClosedJaxpr, unknowns, instantiate):
    """Split ``jaxpr`` given which inputs are unknown.

    Returns ``(known, unknown, out_unknowns, num_res)``: ``known`` maps the known inputs
    to the known outputs followed by ``num_res`` residuals; ``unknown`` maps
    ``(*residuals, *unknown inputs)`` to the unknown outputs. ``instantiate`` (a bool or
    one per output) forces outputs to be unknown."""
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.out_avals)
    key = (tuple(unknowns), tuple(instantiate), config.trace_context())
    per_jaxpr = _nounits_cache.setdefault(jaxpr, {})
    if key not in per_jaxpr:
        per_jaxpr[key] = _partial_eval_jaxpr_nounits(jaxpr, unknowns, instantiate)
    known, unknown, out_unknowns, num_res = per_jaxpr[key]
    return known, unknown, list(out_unknowns), num_res


def _partial_eval_jaxpr_nounits(jaxpr, unknowns, instantiate):
    known_trace = staging.DynamicJaxprTrace(jaxpr.jaxpr.debug_info)
    unknown_trace = UnknownTrace()
    trace = PartialEvalTrace(known_trace, unknown_trace)
    args = [unknown_trace.new_arg(a) if uk else known_trace.new_arg(a)
            for a, uk in zip(jaxpr.in_avals, unknowns)]
    with core.set_current_trace(trace):
        outs = core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
    out_unknowns = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
    unknown_jaxpr, residuals = unknown_trace.to_jaxpr(
        [o for o, uk in zip(outs, out_unknowns) if uk])
    unknown_jaxpr, residuals = dce_jaxpr_consts(unknown_jaxpr, residuals)
    unknown_jaxpr, residuals = reorder_consts_as_jaxpr_trace(unknown_jaxpr, residuals)
    known_jaxpr, known_consts = known_trace.to_jaxpr(
        [*(o for o, uk in zip(outs, out_unknowns) if not uk), *residuals])
    return (ClosedJaxpr(known_jaxpr, known_consts),
            ClosedJaxpr(staging.convert_constvars_jaxpr(unknown_jaxpr), []),
            out_unknowns, len(residuals))


def jaxpr_trace_const_order(jaxpr: Jaxpr) -> list[int]:
    """The order (indices into ``jaxpr.constvars``) in which JAX's partial evaluation of
    whole jaxprs (its ``JaxprTrace``) would list these constants, i.e. the residuals.

    JAX does not number constants by first use: it rebuilds the jaxpr from the tracers,
    topologically sorted from the inputs and outputs, and gives each use of a known value
    its own tracer (``instantiate_const``). That order is replayed here on the jaxpr's
    graph, so residuals are passed in JAX's order."""
    const_index = {v: i for i, v in enumerate(jaxpr.constvars)}
    producer: dict = {}        # Var -> node of the equation output it is
    # A node: [parents, constant index or None, equation index or -1].
    uses = lambda atoms: [([], const_index[a], -1) if a in const_index else
                          producer.get(a) or ([], None, -1) for a in atoms
                          if isinstance(a, Var)]
    for v in jaxpr.invars:
        producer[v] = ([], None, -1)
    for i, eqn in enumerate(jaxpr.eqns):
        parents = uses(eqn.invars)
        for v in eqn.outvars:
            producer[v] = (parents, None, i)
    ends = [producer[v] for v in jaxpr.invars] + uses(jaxpr.outvars)
    order = _toposort(ends)
    order.sort(key=lambda node: node[2])         # stable: equations by creation order
    seen: dict = {}
    for node in order:
        if node[1] is not None:
            seen.setdefault(node[1], None)
    return list(seen)


def _toposort(end_nodes):
    """JAX's ``toposort`` (parents before children; ties as its algorithm leaves them)."""
    seen: set = set()
    end_nodes = [n for n in end_nodes if not (id(n) in seen or seen.add(id(n)))]
    child_counts: dict = {}
    stack = list(end_nodes)
    while stack:
        node = stack.pop()
        if id(node) in child_counts:
            child_counts[id(node)] += 1
        else:
            child_counts[id(node)] = 1
            stack.extend(node[0])
    for node in end_nodes:
        child_counts[id(node)] -= 1
    sorted_nodes = []
    childless = [n for n in end_nodes if child_counts[id(n)] == 0]
    while childless:
        node = childless.pop()
        sorted_nodes.append(node)
        for parent in node[0]:
            if child_counts[id(parent)] == 1:
                childless.append(parent)
            else:
                child_counts[id(parent)] -= 1
    return sorted_nodes[::-1]


def reorder_consts_as_jaxpr_trace(jaxpr: Jaxpr, consts):
    """``jaxpr`` and ``consts`` with the constants in JAX's ``JaxprTrace`` order."""
    order = jaxpr_trace_const_order(jaxpr)
    if order == list(range(len(order))):
        return jaxpr, list(consts)
    return (jaxpr.replace(constvars=[jaxpr.constvars[i] for i in order]),
            [consts[i] for i in order])


def partial_eval_jaxpr_custom(jaxpr: Jaxpr, in_unknowns, in_inst, ensure_out_unknowns,
                              ensure_out_inst, saveable):
    """Split ``jaxpr`` (no constvars) into a known and a staged jaxpr, equation by
    equation, letting ``saveable`` decide what the staged part may reuse.

    Each variable is *unknown* or known, and *instantiated* or not: a known variable is
    instantiated when the staged jaxpr can compute it itself. A known equation always goes
    to the known jaxpr; if ``saveable(primitive, *in_avals, **params)`` says its outputs
    may be saved, they are residuals the staged jaxpr reads; otherwise a copy of the
    equation is also staged, to recompute them. Equations with unknown inputs are staged,
    and the known non-instantiated values they read become residuals.

    Returns ``(known, staged, out_unknowns, out_inst, num_res)``: ``known`` maps the known
    inputs to the known outputs and the residuals; ``staged`` maps ``(*residuals,
    *instantiated inputs)`` to the instantiated outputs."""
    if isinstance(in_inst, bool):
        in_inst = [in_inst] * len(jaxpr.invars)
    if isinstance(ensure_out_unknowns, bool):
        ensure_out_unknowns = [ensure_out_unknowns] * len(jaxpr.outvars)
    if isinstance(ensure_out_inst, bool):
        ensure_out_inst = [ensure_out_inst] * len(jaxpr.outvars)
    known_eqns, staged_eqns = [], []
    residuals: dict = {}                 # an ordered set

    def instantiate(x, inst):
        if isinstance(x, Var) and not inst:
            residuals[x] = None
        return x

    def stage(eqn, inst_in):
        staged_eqns.append(eqn.replace(invars=list(map(instantiate, eqn.invars, inst_in))))

    # Each variable's value in the walk is its pair of flags (unknown, instantiated).
    def split(eqn, flags_in):
        unks_in, inst_in = core.unzip2(flags_in)
        rule = partial_eval_jaxpr_custom_rules.get(eqn.primitive)
        if rule is not None:
            known, staged, unks_out, inst_out, res = rule(saveable, unks_in, inst_in, eqn)
            if known is not None:
                known_eqns.append(known)
            if staged is not None:
                staged_eqns.append(staged)
            residuals.update(dict.fromkeys(res))
            return list(zip(unks_out, inst_out))
        if any(unks_in):
            stage(eqn, inst_in)
            return [(True, True)] * len(eqn.outvars)
        known_eqns.append(eqn)
        answer = eqn.effects or saveable(eqn.primitive, *(x.aval for x in eqn.invars),
                                         **eqn.params)
        if isinstance(answer, Offloadable):
            offload(eqn.outvars, answer)
            return [(False, True)] * len(eqn.outvars)
        if answer:
            return [(False, False)] * len(eqn.outvars)
        stage(eqn, inst_in)                 # recomputed in the staged jaxpr
        return [(False, True)] * len(eqn.outvars)

    def offload(outvars, answer):
        """Save ``outvars`` in memory ``answer.dst``: moved there in the known jaxpr
        (the moved copies are the residuals), moved back in the staged one."""
        dst, src = map(core.mem_kind_to_space, (answer.dst, answer.src))
        for v in outvars:
            out_eqn, saved = hooks.move(v, dst)
            known_eqns.append(out_eqn)
            residuals[saved] = None
            back_eqn, _ = hooks.move(saved, src, v)
            staged_eqns.append(back_eqn)

    known_at_hand = (False, True)       # literals, and constants (both halves keep them)
    flags_out = core.interpret(jaxpr, [known_at_hand] * len(jaxpr.constvars),
                               list(zip(in_unknowns, in_inst)), split,
                               core.Environment(literal=lambda lit: known_at_hand))
    out_unknowns, out_inst = map(list, core.unzip2(flags_out))
    for x, inst, ensure in zip(jaxpr.outvars, out_inst, ensure_out_inst):
        if ensure:
            instantiate(x, inst)
    out_unknowns = [a or b for a, b in zip(out_unknowns, ensure_out_unknowns)]
    out_inst = [a or b for a, b in zip(out_inst, ensure_out_inst)]
    residuals = list(residuals)
    known = Jaxpr(jaxpr.constvars, [v for v, uk in zip(jaxpr.invars, in_unknowns) if not uk],
                  [*(v for v, uk in zip(jaxpr.outvars, out_unknowns) if not uk),
                   *residuals], known_eqns, _effects(known_eqns))
    staged = Jaxpr(jaxpr.constvars,
                   [*residuals, *(v for v, i in zip(jaxpr.invars, in_inst) if i)],
                   [v for v, i in zip(jaxpr.outvars, out_inst) if i], staged_eqns,
                   _effects(staged_eqns))
    return known, staged, out_unknowns, out_inst, len(residuals)


def closed_call_partial_eval_custom_rule(jaxpr_param, params_updater, saveable, unks_in,
                                         inst_in, eqn):
    """``call_partial_eval_custom_rule`` for a primitive whose param holds a
    ``ClosedJaxpr`` (``jit``): both calls keep its constants."""
    closed = eqn.params[jaxpr_param]

    def updater(unks_in, inst_in, params_known, params_staged):
        def close(params):
            return {**params, jaxpr_param: core.ClosedJaxpr(params[jaxpr_param],
                                                            closed.consts)}
        return params_updater(unks_in, inst_in, close(params_known), close(params_staged))
    return call_partial_eval_custom_rule(
        jaxpr_param, updater, saveable, unks_in, inst_in,
        eqn.replace(params={**eqn.params, jaxpr_param: closed.jaxpr}))


def _effects(eqns):
    return frozenset().union(*(e.effects for e in eqns))


# ----------------------------------------------------------------------------------------
# Dead-code elimination
# ----------------------------------------------------------------------------------------

def dce_jaxpr(jaxpr: Jaxpr, used_outputs, instantiate=False):
    """Drop the outputs not in ``used_outputs``, then every equation (without effects)
    whose results nobody uses, then the inputs nobody reads (unless ``instantiate``, a
    bool or one per input, keeps them). Returns ``(new jaxpr, used_inputs)``."""
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.invars)
    used: set = {v for v, u in zip(jaxpr.outvars, used_outputs)
                 if u and isinstance(v, Var)}
    new_eqns = []
    rewritten = False               # (did a rule replace an equation?)
    for eqn in reversed(jaxpr.eqns):
        rule = dce_rules.get(eqn.primitive)
        if rule is None:            # the default rule, inlined (it is nearly every eqn)
            if eqn.effects or not used.isdisjoint(eqn.outvars):
                new_eqns.append(eqn)
                used.update(eqn.invars)     # (literals too: harmless, and no filter)
            continue
        used_ins, new_eqn = rule([v in used for v in eqn.outvars], eqn)
        if new_eqn is not None:
            new_eqns.append(new_eqn)
            rewritten = rewritten or new_eqn is not eqn
        used.update(v for v, u in zip(eqn.invars, used_ins) if u and isinstance(v, Var))
    used_inputs = [v in used or inst for v, inst in zip(jaxpr.invars, instantiate)]
    new_eqns.reverse()
    if (all(used_outputs) and all(used_inputs) and len(new_eqns) == len(jaxpr.eqns) and
            not rewritten):
        return jaxpr, used_inputs    # nothing was dead: the same jaxpr (caches key on it)
    new = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
        outvars=[v for v, u in zip(jaxpr.outvars, used_outputs) if u],
        eqns=new_eqns, effects=_effects(new_eqns))
    return new, used_inputs


def dce_jaxpr_consts(jaxpr: Jaxpr, consts):
    """Remove dead equations and the constants only they used; keep every input and
    output. Returns ``(new jaxpr, remaining consts)``."""
    n = len(jaxpr.constvars)
    as_inputs = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
    new, used = dce_jaxpr(as_inputs, [True] * len(jaxpr.outvars),
                          [False] * n + [True] * len(jaxpr.invars))
    constvars = [v for v, u in zip(jaxpr.constvars, used) if u]
    return (new.replace(constvars=constvars, invars=jaxpr.invars),
            [c for c, u in zip(consts, used) if u])


def call_partial_eval_custom_rule(jaxpr_param, params_updater, saveable, unks_in, inst_in,
                                  eqn):
    """``partial_eval_jaxpr_custom`` rule for a primitive that calls an open jaxpr held in
    param ``jaxpr_param``: split the callee, giving a known call (which also returns the
    residuals) and a staged call (which takes them first).
    ``params_updater(unks_in, inst_in, params_known, params_staged)`` adjusts the rest."""
    known, staged, unks_out, inst_out, num_res = partial_eval_jaxpr_custom(
        eqn.params[jaxpr_param], unks_in, inst_in, False, False, saveable)
    residuals = [Var(v.aval) for v in staged.invars[:num_res]]
    params_known, params_staged = params_updater(
        unks_in, inst_in, {**eqn.params, jaxpr_param: known},
        {**eqn.params, jaxpr_param: staged})
    eqn_known = eqn.replace(
        invars=[x for x, uk in zip(eqn.invars, unks_in) if not uk],
        outvars=[*(v for v, uk in zip(eqn.outvars, unks_out) if not uk), *residuals],
        params=params_known, effects=known.effects)
    eqn_staged = eqn.replace(
        invars=[*residuals, *(x for x, i in zip(eqn.invars, inst_in) if i)],
        outvars=[v for v, i in zip(eqn.outvars, inst_out) if i],
        params=params_staged, effects=staged.effects)
    new_inst = [x for x, i in zip(eqn.invars, inst_in) if isinstance(x, Var) and not i]
    return eqn_known, eqn_staged, unks_out, inst_out, new_inst + residuals
