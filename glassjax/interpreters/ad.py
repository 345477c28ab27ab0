"""Automatic differentiation: rule tables and the helpers primitives use to fill them.

Forward mode needs one *JVP rule* per primitive: given primal inputs and tangents, return
the primal output and its tangent. Reverse mode additionally needs a *transpose rule* for
every primitive that is linear in some input: given the cotangent of the output, return
cotangents for the linear inputs (marked ``UndefinedPrimal``).

Tangents that are known to be zero are kept symbolic (``Zero(aval)``) so that no zeros are
materialised and no work is done for them.

The second half of this module holds the interpreters that use these rules: forward mode
(``JVPTrace``), linearization (``LinearizeTrace``) and transposition (``backward_pass``).
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools

from glassjax import caches, core, dtypes, source_info, tree_util
from glassjax.config import config, transposing
from glassjax.interpreters import partial_eval as pe, staging
from glassjax.rule_tables import Rules

primitive_jvps = Rules("jvp", "jvp / grad: forward-mode derivative")
# prim -> rule(primals, tangents, **params) -> (out, t_out)
primitive_transposes = Rules("transpose", "grad: transpose of a linear primitive")
# prim -> rule(ct, *args, **params) -> cts (None if not linear)
# Primitives whose JVP rule runs even on constants (zero tangents): ``new_ref``, whose
# ref of tangents must exist for the differentiated values written into it later.
jvp_of_constants: set = set()


class AvalMemo:
    """``fun(aval, *args)`` remembered per aval *object* (and args), in a table cleared
    when full. Tracing asks the same questions of the same avals again and again
    (staged values of one type share one aval). Keyed by identity, not equality: avals
    that compare equal may differ in what ``==`` ignores (varying axes, sharding). Each
    entry holds its aval, so that the ``id`` is not reused while the entry lives."""
    __slots__ = ("fun", "table")

    def __init__(self, fun):
        self.fun = fun
        self.table: dict = {}

    def __call__(self, aval, *args):
        key = (id(aval), *args)
        entry = self.table.get(key)
        if entry is not None and entry[0] is aval:
            return entry[1]
        if len(self.table) >= 1024:
            self.table.clear()
        result = self.fun(aval, *args)
        self.table[key] = (aval, result)
        return result


class Zero:
    """A symbolic zero tangent/cotangent of type ``aval``."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_primal_value(x):
        """The zero tangent of ``x``: one per aval, shared (a ``Zero`` never changes),
        for every constant an operation under JVP or linearize reads."""
        return _zero_tangent_of(core.get_aval(x))

    def __repr__(self):
        return f"Zero({self.aval})"


_zero_tangent_of = AvalMemo(lambda aval: Zero(aval.at_least_vspace()))


class SymbolicZero:
    """A zero tangent as custom rules that asked for ``symbolic_zeros`` see it: it has the
    tangent's ``aval`` (and so ``shape``/``dtype``) but no data. (``Zero`` is internal.)"""

    def __init__(self, aval):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __repr__(self):
        return "SymbolicZero"

    @staticmethod
    def from_primal_value(val):
        return SymbolicZero(core.get_aval(val).to_tangent_aval())


@dataclasses.dataclass(slots=True, eq=False)
class UndefinedPrimal:
    """In a transpose rule: an input the primitive is linear in (its value is unknown)."""
    aval: core.ShapedArray | core.AbstractToken

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


def zero_cotangents(args):
    """A transpose rule's answer to a zero cotangent: ``Zero`` for each input it is
    linear in, None for the others."""
    return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]


def zeros_like_aval(aval):
    """An array of zeros of type ``aval`` (keeping its weak type, as JAX's instantiated
    zeros do): a scalar constant broadcast to the shape."""
    return full_like_aval(0, aval)


def full_like_aval(value, aval):
    """An array of type ``aval`` filled with ``value``. Like every lax result it is an
    array (or a tracer of the current trace), never a bare Python scalar; while staging,
    the scalar constant shows as a literal."""
    ops = core.hooks                     # lax's operations (lax registers them)
    if aval.dtype == dtypes.float0:      # no arithmetic on float0: a host constant
        zero = core.float0_zeros(())
        return ops.broadcast_in_dim(zero, aval.shape, ()) if aval.shape else zero
    scalar = ops.convert_element_type(value, aval.dtype, aval.weak_type)
    if getattr(aval, "vma", ()):
        scalar = staging.vary_as(scalar, aval)
    if getattr(aval, "_sharding", None):        # split as the type says
        return ops.broadcast_in_dim(scalar, aval.shape, (), out_sharding=aval.sharding)
    return ops.broadcast_in_dim(scalar, aval.shape, ())


def instantiate_zeros(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(x, y):
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_jaxvals(x, y)


def add_jaxvals(x, y):
    return core.hooks.add_any(x, y)


# -- Helpers for writing rules ------------------------------------------------------------

def defjvp(primitive, *jvp_rules):
    """One rule per input: ``rule(tangent, *primals, **params) -> output tangent``;
    ``None`` for inputs the output does not depend on differentiably."""
    primitive_jvps[primitive] = functools.partial(_standard_jvp, jvp_rules, primitive)


def _standard_jvp(jvp_rules, primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    t_outs = [rule(t, *primals, **params) for rule, t in zip(jvp_rules, tangents)
              if rule is not None and type(t) is not Zero]
    return out, _sum_tangents(t_outs, out)


def _sum_tangents(t_outs, out):
    """The sum of the tangents contributed by each input; ``Zero`` (typed like ``out``)
    when none contributes, built only then: most equations have a tangent."""
    if not t_outs:
        return Zero.from_primal_value(out)
    return functools.reduce(add_tangents, t_outs)


def defjvp2(primitive, *jvp_rules):
    """Like defjvp, but rules also see the primal output: ``rule(t, out, *primals)``
    (e.g. exp's tangent is ``t * out``)."""
    primitive_jvps[primitive] = functools.partial(_standard_jvp2, jvp_rules, primitive)


def _standard_jvp2(jvp_rules, primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    t_outs = [rule(t, out, *primals, **params) for rule, t in zip(jvp_rules, tangents)
              if rule is not None and type(t) is not Zero]
    return out, _sum_tangents(t_outs, out)


def deflinear(primitive, transpose_rule):
    """A primitive linear in all its inputs: its JVP applies it to the tangents, and
    ``transpose_rule(ct, **params)`` returns the input cotangents."""
    primitive_jvps[primitive] = functools.partial(_linear_jvp, primitive)
    primitive_transposes[primitive] = functools.partial(_linear_transpose, transpose_rule)


def deflinear2(primitive, transpose_rule):
    """Like deflinear, but ``transpose_rule(ct, *args, **params)`` also sees the inputs
    (as UndefinedPrimal), e.g. to know their shapes."""
    primitive_jvps[primitive] = functools.partial(_linear_jvp, primitive)
    primitive_transposes[primitive] = functools.partial(_linear_transpose2, transpose_rule)


def _linear_jvp(primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
        zero = Zero.from_primal_value
        return out, ([zero(o) for o in out] if primitive.multiple_results else zero(out))
    return out, primitive.bind(*map(instantiate_zeros, tangents), **params)


def _linear_transpose(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return zero_cotangents(args)
    return transpose_rule(ct, **params)


def _linear_transpose2(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return zero_cotangents(args)
    return transpose_rule(ct, *args, **params)


def defbilinear(primitive, lhs_rule, rhs_rule):
    """A primitive linear in each input separately (mul, dot_general): the tangent is
    ``p(tx, y) + p(x, ty)``; ``lhs_rule(ct, x, y)`` / ``rhs_rule(ct, x, y)`` transpose it
    with respect to the undefined input."""
    defjvp(primitive, lambda g, x, y, **kw: primitive.bind(g, y, **kw),
           lambda g, x, y, **kw: primitive.bind(x, g, **kw))
    primitive_transposes[primitive] = functools.partial(_bilinear_transpose, lhs_rule,
                                                        rhs_rule)


def _bilinear_transpose(lhs_rule, rhs_rule, ct, x, y, **params):
    x_linear = type(x) is UndefinedPrimal
    # Both operands linear: the function was not linear (``linear_transpose(x * x)``).
    assert x_linear is not (type(y) is UndefinedPrimal), (x, y)
    if x_linear:
        return (Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params)), None
    return None, (Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params))


# ========================================================================================
# The AD interpreters
# ========================================================================================
#
# Everything below is written against the rule tables above. Two traces and a walk:
#
# * ``JVPTrace`` (forward mode): every value carries a tangent; each primitive's JVP rule
#   computes the output and its tangent together, on the parent trace.
# * ``LinearizeTrace`` (reverse mode, step one) is the same trace with one change: the
#   tangents are *unknowns* of a separate staging trace, and the JVP rules run under
#   partial evaluation (see partial_eval.py). What depends on primals only runs now on the
#   parent trace; the tangent computation -- which is linear -- is *recorded*, reading the
#   primal values it needs as constants (the residuals). Linearize = JVP + partial eval.
# * ``backward_pass`` (reverse mode, step two): walks that linear jaxpr backwards, calling
#   each primitive's transpose rule and summing cotangents.
#
# So a primitive needs no separate linearization rule. It can still override the default
# in ``primitive_linearizations`` (``jit`` does, to stay one call; ``cond``, ``scan`` too).

primitive_linearizations = Rules("linearize", "grad: a custom linearization")
# prim -> rule(nonzeros, *primals, **params)
#   -> (primal_out, out_nonzeros, residuals, linearized(residuals, *tangents) -> tangents)


def _short(x) -> str:
    """How AD tracers show their primal/tangent: tracers by repr, arrays by str."""
    return repr(x) if isinstance(x, core.Tracer) else str(x)


def _tangent_aval(x):
    return core.get_aval(x).to_tangent_aval()


def _is_float0(aval) -> bool:
    return aval.dtype == dtypes.float0


class PrimalTangentTracer(core.Tracer):
    """A primal value paired with its (non-zero) tangent: what ``JVPTracer`` and
    ``LinearizeTracer`` share. They are siblings, as in JAX, not one a subclass of the
    other: Python gives a right operand whose class subclasses the left one's the first
    try at a comparison, so ``jvp_value >= grad_value`` would stage ``le`` swapped."""
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace         # (what Tracer.__init__ does, without the call)
        self.primal = primal
        self.tangent = tangent

    aval = property(lambda self: core.get_aval(self.primal))

    def to_concrete_value(self):
        return _concrete_value(self.primal)


class JVPTracer(PrimalTangentTracer):
    """Forward mode's tracer."""
    __slots__ = ()

    def __repr__(self):
        return f"JVPTracer(primal={_short(self.primal)}, tangent={_short(self.tangent)})"


class LinearizeTracer(PrimalTangentTracer):
    """Linearization's tracer: its tangent is a variable of the linear jaxpr being
    recorded (only its name and how it prints differ, as in JAX)."""
    __slots__ = ()

    def __repr__(self):
        tangent = core.get_aval(self.tangent).str_short(True)
        return f"GradTracer(primal={_short(self.primal)}, typeof(tangent)={tangent})"


def _concrete_value(x):
    """Python control flow on a differentiated value looks at its primal."""
    return x.to_concrete_value() if isinstance(x, core.Tracer) else x


class JVPTrace(core.Trace):
    """Forward-mode AD: computes primals and tangents together on ``parent_trace``.

    Three traces play a part: primals live on ``parent_trace``, tangents on
    ``tangent_trace``, and the JVP rules run on ``rule_trace``. In forward mode all three
    are the parent trace; ``LinearizeTrace`` sets them apart."""
    tracer_type = JVPTracer

    def __init__(self, parent_trace):
        self.parent_trace = self.tangent_trace = self.rule_trace = parent_trace

    def to_primal_tangent_pair(self, x):
        """Values that are not this trace's tracers are constants: zero tangent."""
        if isinstance(x, PrimalTangentTracer) and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_primal_value(x)

    def pair(self, primal, tangent):
        """``primal`` carrying ``tangent``: zero (and float0) tangents are not carried,
        the value is then just its primal."""
        if type(tangent) is Zero or _is_float0(core.get_aval(tangent)):
            return primal
        return self.tracer_type(self, primal, tangent)

    def process_primitive(self, primitive, tracers, params):
        # Operations on constants alone (none of our tracers: a tracer never carries a
        # zero tangent) run on the parent trace, before any zero tangent is made up.
        # (``to_primal_tangent_pair``, inlined: every operation comes through here.)
        ours = [isinstance(x, PrimalTangentTracer) and x._trace is self for x in tracers]
        if True not in ours and primitive not in jvp_of_constants:
            return primitive.bind_with_trace(self.parent_trace, tracers, params)
        # (tuples: rules written for JAX get tuples)
        primals = tuple([x.primal if o else x for x, o in zip(tracers, ours)])
        tangents = tuple([x.tangent if o else Zero.from_primal_value(x)
                          for x, o in zip(tracers, ours)])
        primal_out, tangent_out = self.apply_rule(primitive, primals, tangents, params)
        if primitive.multiple_results:
            return [self.pair(p, t) for p, t in zip(primal_out, tangent_out)]
        return self.pair(primal_out, tangent_out)

    def apply_rule(self, primitive, primals, tangents, params):
        rule = get_jvp_rule(primitive)
        with core.set_current_trace(self.rule_trace):
            return rule(primals, tangents, **params)

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        primals, tangents = core.unzip2(map(self.to_primal_tangent_pair, tracers))
        if all(type(t) is Zero for t in tangents):
            return primitive.bind_with_trace(self.parent_trace, (fun, jvp, *primals),
                                             dict(symbolic_zeros=symbolic_zeros))
        with core.set_current_trace(self.rule_trace):
            tangents = _tangents_for_custom_rule(tangents, symbolic_zeros)
            outs = jvp.call_wrapped(*primals, *tangents)
        primals_out, tangents_out = outs[:len(outs) // 2], outs[len(outs) // 2:]
        return [self.pair(p, _from_symbolic_zero(t))
                for p, t in zip(primals_out, tangents_out)]

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        primals, tangents = core.unzip2(map(self.to_primal_tangent_pair, tracers))
        if all(type(t) is Zero for t in tangents):
            return primitive.bind_with_trace(
                self.parent_trace, (fun, fwd, bwd, *primals),
                dict(out_trees=out_trees, symbolic_zeros=symbolic_zeros))
        with core.set_current_trace(self.parent_trace):
            primals_out, lin_args, lin_params = _custom_vjp_fwd(
                fwd, bwd, primals, tangents, out_trees, symbolic_zeros)
        with core.set_current_trace(self.tangent_trace):
            tangents_out = custom_lin_p.bind(*lin_args, **lin_params)
        return [self.pair(p, t) for p, t in zip(primals_out, tangents_out)]


class LinearizeTrace(JVPTrace):
    """Reverse mode, step one: forward mode with the tangents unknown.

    Tangents are variables of ``tangent_trace`` (a staging trace), and JVP rules run under
    partial evaluation: ``PartialEvalTrace(parent_trace, tangent_trace)`` runs what reads
    only primals on the parent trace and records the rest on the tangent trace, whose
    constants -- the primal values it read -- become the residuals."""
    tracer_type = LinearizeTracer

    def __init__(self, parent_trace, tangent_trace: pe.UnknownTrace):
        self.parent_trace = parent_trace
        self.tangent_trace = tangent_trace
        self.rule_trace = pe.PartialEvalTrace(parent_trace, tangent_trace)

    def pair(self, primal, tangent):
        unknown = self.tangent_trace            # (``rule_trace.is_unknown``, inlined)
        if isinstance(primal, core.Tracer) and primal._trace is unknown:
            raise ValueError(
                "Linearization failed to produce known values for all output primals. "
                "This is typically caused by attempting to differentiate a function uses "
                "an operation that does not support reverse-mode autodiff.")
        # A tangent that came out known (a zeros array, say) does not depend on the
        # inputs' tangents: it is a zero. (An unknown one is never a ``Zero``.)
        if not (isinstance(tangent, core.Tracer) and tangent._trace is unknown) or \
                _is_float0(tangent.aval):
            return primal
        return LinearizeTracer(self, primal, tangent)

    def apply_rule(self, primitive, primals, tangents, params):
        rule = primitive_linearizations.get(primitive)
        if rule is None:
            return super().apply_rule(primitive, primals, tangents, params)
        nonzeros = [type(t) is not Zero for t in tangents]
        with core.set_current_trace(self.parent_trace):
            primal_out, _, residuals, linearized = rule(nonzeros, *primals, **params)
        with core.set_current_trace(self.tangent_trace):
            return primal_out, linearized(residuals, *tangents)


def get_jvp_rule(primitive):
    rule = primitive_jvps.get(primitive)
    if rule is None:
        raise NotImplementedError(f"Differentiation rule for '{primitive}' not implemented")
    return rule


def jvp(fun, primals, tangents, *, has_aux=False, instantiate=True):
    """Forward mode on flat lists: ``fun(*primals) -> outs`` (or ``(outs, aux)``).

    Returns ``(out_primals, out_tangents, aux)``; out tangents are symbolic ``Zero``s
    unless ``instantiate`` (one bool, or one per output) asks for arrays."""
    trace = JVPTrace(core.trace_ctx.trace)
    out_primals, out_tangents, aux = _run(
        trace, fun, [trace.pair(p, t) for p, t in zip(primals, tangents)], has_aux)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(out_tangents)
    out_tangents = [instantiate_zeros(t) if inst else t
                    for t, inst in zip(out_tangents, instantiate)]
    return out_primals, out_tangents, aux


def _run(trace, fun, tracers, has_aux):
    """``fun(*tracers)`` under ``trace``: its outputs' primals and tangents, and its
    auxiliary output (not differentiated: our tracers in it are replaced by primals)."""
    with core.set_current_trace(trace):
        outs = fun(*tracers)
    aux = None
    if has_aux:
        outs, aux = outs
        aux = tree_util.tree_map(
            lambda x: x.primal if isinstance(x, PrimalTangentTracer) and x._trace is trace else x, aux)
    out_primals, out_tangents = core.unzip2(map(trace.to_primal_tangent_pair, outs))
    return out_primals, out_tangents, aux


# (Closed)Jaxpr -> {(nonzeros, instantiate, trace context): (jvp jaxpr, out nonzeros)}.
# As in JAX, differentiating the same jaxpr the same way gives the same jaxpr object, so
# a function called twice prints its derivative once (``let name = {...} in``).
_jvp_jaxpr_cache = caches.table("interpreters.ad.jvp_jaxpr", weak=True,
                                 why="entries die with their jaxpr")


def jvp_jaxpr(jaxpr: core.ClosedJaxpr, nonzeros, instantiate):
    """The JVP of a closed jaxpr, as a closed jaxpr from ``(primals, nonzero tangents)``
    to ``(primal outs, nonzero tangent outs)``; also says which tangent outs are nonzero.
    Used by primitives that carry a jaxpr (``jit``, ``remat``, control flow)."""
    nonzeros = tuple(nonzeros)
    if isinstance(instantiate, bool):
        instantiate = (instantiate,) * len(jaxpr.out_avals)
    key = (nonzeros, tuple(instantiate), config.trace_context())
    # (A jaxpr without constants is often re-wrapped in a new ClosedJaxpr: key on it.)
    per_jaxpr = _jvp_jaxpr_cache.setdefault(jaxpr if jaxpr.consts else jaxpr.jaxpr, {})
    if key not in per_jaxpr:
        per_jaxpr[key] = _jvp_jaxpr(jaxpr, nonzeros, tuple(instantiate))
    closed, out_nonzeros = per_jaxpr[key]
    return closed, list(out_nonzeros)


def _jvp_jaxpr(jaxpr, nonzeros, instantiate):
    n_in = len(nonzeros)
    tangent_avals = [a.to_tangent_aval() for a, nz in zip(jaxpr.in_avals, nonzeros) if nz]
    out_nonzeros = []

    def jvp_fun(*args):
        primals, nz_tangents = args[:n_in], iter(args[n_in:])
        tangents = [next(nz_tangents) if nz else Zero(a.to_tangent_aval())
                    for a, nz in zip(jaxpr.in_avals, nonzeros)]
        outs, out_tangents, _ = jvp(core.jaxpr_as_fun(jaxpr), primals, tangents,
                                    instantiate=instantiate)
        out_nonzeros[:] = [type(t) is not Zero for t in out_tangents]
        return [*outs, *(t for t in out_tangents if type(t) is not Zero)]

    closed, lifted = staging.trace_to_closed_jaxpr(
        jvp_fun, [*jaxpr.in_avals, *tangent_avals], jaxpr.jaxpr.debug_info)
    assert not lifted, "a closed jaxpr's constants are concrete"
    return closed, out_nonzeros


# -- custom derivative rules inside AD -------------------------------------------------

def _tangents_for_custom_rule(tangents, symbolic_zeros):
    """A custom JVP rule sees zeros as arrays, or as SymbolicZero if it asked for them."""
    if symbolic_zeros:
        return [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
    return [instantiate_zeros(t) for t in tangents]


def _from_symbolic_zero(t):
    return Zero(t.aval) if type(t) is SymbolicZero else t


def _custom_vjp_fwd(fwd, bwd, primals, tangents, out_trees, symbolic_zeros):
    """Run a custom_vjp's forward rule now. Returns the primal outputs and the arguments
    and params of its linear part, ``custom_lin``, applied to the nonzero input tangents.
    Forward mode cannot evaluate ``custom_lin``; reverse mode transposes it into a call
    of the bwd rule."""
    perturbed = [type(t) is not Zero for t in tangents]
    res_and_primals_out = fwd.call_wrapped(*primals, perturbed=perturbed)
    _, res_tree, input_fwds = out_trees()
    num_res_out = res_tree.num_leaves - sum(f is not None for f in input_fwds)
    res_out, primals_out = (res_and_primals_out[:num_res_out],
                            res_and_primals_out[num_res_out:])
    res_out = iter(res_out)
    res = [next(res_out) if f is None else primals[f] for f in input_fwds]
    out_avals = [_tangent_aval(p) for p in primals_out]
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    return primals_out, [*res, *nz_tangents], dict(
        num_res=res_tree.num_leaves, bwd=bwd, out_avals=out_avals,
        symbolic_zeros=symbolic_zeros, in_zeros=[not p for p in perturbed])


class CustomLinPrimitive(core.Primitive):
    multiple_results = True


custom_lin_p = CustomLinPrimitive("custom_lin")
custom_lin_p.def_abstract_eval(lambda *args, out_avals, **params: out_avals)


def _custom_lin_impl(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_impl(_custom_lin_impl)


def _custom_lin_transpose(cts_out, *args, num_res, bwd, out_avals, symbolic_zeros,
                          in_zeros):
    """The linear part of a custom_vjp transposes to its bwd rule."""
    res = args[:num_res]
    if symbolic_zeros:
        cts_out = [SymbolicZero(ct.aval) if type(ct) is Zero else ct for ct in cts_out]
    else:
        cts_out = [instantiate_zeros(ct) for ct in cts_out]
    cts_in = [_from_symbolic_zero(ct) for ct in bwd.call_wrapped(*res, *cts_out)]
    return [None] * num_res + [ct for ct, z in zip(cts_in, in_zeros) if not z]


primitive_transposes[custom_lin_p] = _custom_lin_transpose


def linearize(fun, primals, *, has_aux=False):
    """Reverse mode, step one, on flat lists: run ``fun(*primals)`` computing primals
    now and recording the tangent computation.

    Returns ``(out_primals, out_nonzeros, jaxpr, consts, aux)``: ``jaxpr`` maps the input
    tangents to the nonzero output tangents; its constants ``consts`` are the residuals."""
    tangent_trace = pe.UnknownTrace()
    trace = LinearizeTrace(core.trace_ctx.trace, tangent_trace)
    tracers = [trace.pair(p, tangent_trace.new_arg(_tangent_aval(p))) for p in primals]
    # The tangent trace was made before "jvp" went on the name stack: its equations'
    # stacks start with it, and a transpose later wraps it, ``transpose(jvp(...))``.
    with source_info.transform_name_stack("jvp"):
        out_primals, out_tangents, aux = _run(trace, fun, tracers, has_aux)
    out_nonzeros = [type(t) is not Zero for t in out_tangents]
    jaxpr, consts = tangent_trace.to_jaxpr([t for t in out_tangents if type(t) is not Zero])
    jaxpr, consts = pe.dce_jaxpr_consts(jaxpr, consts)
    return out_primals, out_nonzeros, jaxpr, consts, aux


# ClosedJaxpr -> {(nonzeros, instantiate, allow_fwds, trace context): split}. Cached like
# ``jvp_jaxpr``: a function linearized twice (in both branches of a ``cond``, say) gives
# the same jaxprs, which then print once.
_linearize_jaxpr_cache = caches.table("interpreters.ad.linearize_jaxpr", weak=True,
                                       why="entries die with their jaxpr")


def linearize_jaxpr(jaxpr: core.ClosedJaxpr, nonzeros, instantiate=False,
                    allow_fwds=True):
    """Split a closed jaxpr into a primal jaxpr and a linear (tangent) jaxpr.

    Returns ``(primal_jaxpr, num_residuals, out_nonzeros, residual_forwards,
    tangent_jaxpr)``. ``primal_jaxpr`` computes the primal outputs followed by the
    residuals; ``tangent_jaxpr`` takes ``(*residuals, *nonzero tangents)``. Residuals that
    are just inputs (or consts) of ``jaxpr`` are not recomputed: ``residual_forwards[i]``
    is then their index in ``(*consts, *inputs)``, else None. ``allow_fwds`` (a bool, or
    one per const and input) says which may be forwarded that way (control flow asks for
    some residuals to be outputs even when they are inputs)."""
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.out_avals)
    if isinstance(allow_fwds, bool):
        allow_fwds = [allow_fwds] * (len(jaxpr.consts) + len(jaxpr.in_avals))
    key = (tuple(nonzeros), tuple(instantiate), tuple(allow_fwds), config.trace_context())
    per_jaxpr = _linearize_jaxpr_cache.setdefault(jaxpr if jaxpr.consts else jaxpr.jaxpr,
                                                  {})
    if key not in per_jaxpr:
        per_jaxpr[key] = _linearize_jaxpr(jaxpr, nonzeros, instantiate, allow_fwds)
    primal, num_res, out_nonzeros, forwards, tangent = per_jaxpr[key]
    return primal, num_res, list(out_nonzeros), list(forwards), tangent


def _linearize_jaxpr(jaxpr, nonzeros, instantiate, allow_fwds):
    primal_trace = staging.DynamicJaxprTrace(jaxpr.jaxpr.debug_info)
    tangent_trace = pe.UnknownTrace()
    trace = LinearizeTrace(primal_trace, tangent_trace)
    in_primals = [primal_trace.new_arg(aval) for aval in jaxpr.in_avals]
    tracers = [trace.pair(p, tangent_trace.new_arg(_tangent_aval(p))) if nz else p
               for p, nz in zip(in_primals, nonzeros)]
    with core.set_current_trace(trace):
        outs = core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *tracers)
        out_primals, out_tangents = core.unzip2(map(trace.to_primal_tangent_pair, outs))
        out_tangents = [instantiate_zeros(t) if inst else t
                        for t, inst in zip(out_tangents, instantiate)]
    out_nonzeros = [type(t) is not Zero for t in out_tangents]
    tangent_jaxpr, residuals = tangent_trace.to_jaxpr(
        [t for t in out_tangents if type(t) is not Zero])
    tangent_jaxpr, residuals = pe.dce_jaxpr_consts(tangent_jaxpr, residuals)
    tangent_jaxpr = core.ClosedJaxpr(staging.convert_constvars_jaxpr(tangent_jaxpr), [])
    inputs = {id(x): i for i, (x, ok) in enumerate(zip([*jaxpr.consts, *in_primals],
                                                       allow_fwds)) if ok}
    forwards = [inputs.get(id(r)) for r in residuals]
    residuals = [r for r, f in zip(residuals, forwards) if f is None]
    primal_jaxpr, primal_consts = primal_trace.to_jaxpr([*out_primals, *residuals])
    primal_jaxpr, primal_consts = pe.dce_jaxpr_consts(primal_jaxpr, primal_consts)
    return (core.ClosedJaxpr(primal_jaxpr, primal_consts), len(residuals), out_nonzeros,
            forwards, tangent_jaxpr)


# -- reverse mode, step two: transpose -----------------------------------------------------

def get_transpose_rule(primitive):
    rule = primitive_transposes.get(primitive)
    if rule is None:
        raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                  f"'{primitive}' not implemented")
    return rule


def backward_pass(jaxpr: core.Jaxpr, consts, args, cts_out, *, transform_stack=False):
    """Transpose a linear jaxpr: the cotangents of its inputs from those of its outputs.

    ``args`` gives each input's value, or ``UndefinedPrimal`` for the inputs the jaxpr is
    linear in. Equations that depend only on defined values are evaluated first (they
    compute residual-like values); the others are *linear* and are transposed in reverse
    order, each transpose rule turning its output cotangents into input cotangents, which
    accumulate (``add_any``) where a value was used more than once. Returns one cotangent
    per input: a value or ``Zero`` for undefined inputs, None for the others.

    Each equation is re-staged with its own source info; ``transform_stack`` (the
    ``vjp``/``linear_transpose`` APIs, not the transposes of sub-jaxprs) also puts
    ``transpose`` on the name stack of the transposed equations."""
    if all(type(ct) is Zero for ct in cts_out) and not jaxpr.effects:
        return zero_cotangents(args)
    with transposing():         # see config.py
        return _backward_pass(jaxpr, consts, args, cts_out, transform_stack)


def _backward_pass(jaxpr, consts, args, cts_out, transform_stack):
    # Forward sweep: evaluate the equations that read only defined values (they compute
    # residual-like values); an equation reading an undefined (linear) value is linear,
    # its outputs undefined too. Undefined inputs keep the type the caller gives (as in
    # JAX), which may be less weak than the jaxpr's variable (a scan carry typed by its
    # cotangent, say).
    env = _ForwardEnv()
    linear_eqns = []

    def forward(eqn, invals):
        for x in invals:
            if type(x) is UndefinedPrimal:
                linear_eqns.append(eqn)
                return ()       # (nothing stored: its outputs then read as undefined)
        return core.eval_equation(eqn, invals)

    core.interpret(jaxpr, consts, args, forward, env)

    # Backward sweep: transpose the linear equations in reverse order. A cotangent is
    # kept only for a linear variable (one whose value is undefined); which they are is
    # read off the values the forward sweep left, looked up once per equation.
    cts: dict = {}
    read = env.read

    def accumulate(v, ct):
        _check_cotangent(v.aval, ct)
        cts[v] = add_tangents(cts[v], ct) if v in cts else ct

    def pop_ct(v):
        ct = cts.pop(v, None)
        return _zero_tangent_of(v.aval) if ct is None else ct

    for v, ct in zip(jaxpr.outvars, cts_out):
        if ct is not None and type(v) is not core.Literal and \
                type(read(v)) is UndefinedPrimal:
            accumulate(v, ct)
    with (source_info.transform_name_stack("transpose") if transform_stack else
          contextlib.nullcontext()):
        for eqn in reversed(linear_eqns):
            primitive = eqn.primitive
            eqn_cts = ([pop_ct(v) for v in eqn.outvars] if primitive.multiple_results
                       else pop_ct(eqn.outvars[0]))
            rule = get_transpose_rule(primitive)
            invals = [read(x) for x in eqn.invars]
            with source_info.restage(eqn.source_info):   # (accumulating included)
                ct_in = rule(eqn_cts, *invals, **eqn.params)
                for x, val, ct in zip(eqn.invars, invals, ct_in):
                    if ct is not None and type(val) is UndefinedPrimal:
                        accumulate(x, ct)    # (a literal is never undefined)
    return [pop_ct(v) if is_undefined_primal(a) else None
            for v, a in zip(jaxpr.invars, args)]


class _ForwardEnv(core.Environment):
    """The values of a backward pass's forward sweep. Most variables of a linear jaxpr
    are undefined: those of their variable's own type are not stored (the outputs of
    linear equations are not even written), a variable without a value reads as one (a
    marker per type, shared), so the environment holds only the defined values (the
    residuals)."""

    def __init__(self):
        super().__init__()
        self.markers: dict = {}     # id(aval) -> UndefinedPrimal(aval)

    def undefined(self, aval) -> UndefinedPrimal:
        marker = self.markers.get(id(aval))
        if marker is None:
            marker = self.markers[id(aval)] = UndefinedPrimal(aval)
        return marker

    def write(self, var, value):
        if type(value) is not UndefinedPrimal or value.aval is not var.aval:
            super().write(var, value)

    def read(self, atom):
        value = self.values.get(atom, _UNSTORED)   # (a Literal is a key never stored)
        if value is not _UNSTORED:
            return value
        if type(atom) is core.Literal:
            return atom.val
        return self.undefined(atom.aval)


_UNSTORED = object()


def _check_cotangent(aval, ct):
    ct_aval = ct.aval if type(ct) is Zero else core.get_aval(ct)
    if ct_aval.shape != aval.shape:
        expected = aval.to_tangent_aval()
        raise ValueError(f"Expected cotangent type {expected.str_short()} but got "
                         f"{ct_aval.str_short()}")


def transpose_jaxpr(jaxpr: core.ClosedJaxpr, linear, ct_zeros, *, partial_eval=False):
    """Transpose a closed jaxpr linear in the inputs flagged ``linear``.

    The result is a closed jaxpr from ``(*nonlinear inputs, *nonzero output cotangents)``
    to the nonzero cotangents of the linear inputs; also returns which of those are zero.
    Used by ``jit`` and ``remat``, whose transposes stay a single call. With
    ``partial_eval``, the non-linear part is first split off by partial evaluation (needed
    when linear equations also compute non-linear values, as a remat inside a remat
    does) and recomputed before the backward pass. Cached like ``jvp_jaxpr``."""
    key = (tuple(linear), tuple(ct_zeros), partial_eval, config.trace_context())
    per_jaxpr = _transpose_jaxpr_cache.setdefault(jaxpr if jaxpr.consts else jaxpr.jaxpr,
                                                  {})
    if key not in per_jaxpr:
        per_jaxpr[key] = _transpose_jaxpr(jaxpr, list(linear), list(ct_zeros),
                                          partial_eval)
    closed, in_zeros = per_jaxpr[key]
    return closed, list(in_zeros)


_transpose_jaxpr_cache = caches.table("interpreters.ad.transpose_jaxpr", weak=True,
                                       why="entries die with their jaxpr")


def _transpose_jaxpr(jaxpr, linear, ct_zeros, partial_eval):
    in_avals = [a for a, lin in zip(jaxpr.in_avals, linear) if not lin]
    ct_avals = [a.to_tangent_aval() for a, z in zip(jaxpr.out_avals, ct_zeros) if not z]
    lin_avals = [a.to_tangent_aval() for a, lin in zip(jaxpr.in_avals, linear) if lin]
    if partial_eval:
        known, lin_jaxpr, _, num_res = pe.partial_eval_jaxpr_nounits(jaxpr, linear, True)
    in_zeros: list = []

    def transposed(*args):
        nonlinear, cts = args[:len(in_avals)], iter(args[len(in_avals):])
        cts_out = [Zero(a.to_tangent_aval()) if z else next(cts)
                   for a, z in zip(jaxpr.out_avals, ct_zeros)]
        if partial_eval:
            with source_info.extend_name_stack("rematted_computation"):  # JAX's name
                residuals = core.jaxpr_as_fun(known)(*nonlinear)
            undefined = [UndefinedPrimal(a) for a in lin_avals]
            cts_in = backward_pass(lin_jaxpr.jaxpr, lin_jaxpr.consts,
                                   [*residuals, *undefined], cts_out)[num_res:]
        else:
            nonlinear = iter(nonlinear)
            primals = [UndefinedPrimal(a) if lin else next(nonlinear)
                       for a, lin in zip(jaxpr.in_avals, linear)]
            cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, primals, cts_out)
            cts_in = [ct for ct, lin in zip(cts_in, linear) if lin]
        in_zeros[:] = [type(ct) is Zero for ct in cts_in]
        return [ct for ct in cts_in if type(ct) is not Zero]

    closed, lifted = staging.trace_to_closed_jaxpr(transposed, [*in_avals, *ct_avals],
                                                   jaxpr.jaxpr.debug_info)
    assert not lifted, "a closed jaxpr's constants are concrete"
    return closed, in_zeros
