"""Staging: tracing a Python function into a jaxpr (used by make_jaxpr, jit, control flow).

While the staging trace is current, every primitive applied to its tracers is *recorded*
as an equation instead of being computed. Inputs become ``invars``; values that are not
tracers of this trace (arrays closed over by the function, or tracers of an enclosing
trace) become ``constvars``. At the end, scalar constants are written inline as literals
(``2.0:f32[]``) and the rest stay constvars, exactly as JAX does.
"""
from __future__ import annotations

import gc
import inspect
import types
from typing import Callable, Sequence

import numpy as np

from glassjax import caches, core, dtypes, source_info, tree_util
from glassjax.config import config
from glassjax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from glassjax.rule_tables import Rules
from glassjax.slots import Slot, Slots


DebugInfo = core.DebugInfo     # (defined in core: jaxprs carry one)


def debug_info(traced_for: str, fun: Callable, args, kwargs, static_argnums=(),
               static_argnames=()) -> DebugInfo:
    """Name the leaves of a call's arguments the way JAX's messages name them."""
    try:
        ba = fun_signature(fun).bind(*args, **kwargs)
        named = list(ba.arguments.items())
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    names = []
    static_names = set(static_argnames)
    for i, (name, val) in enumerate(named):
        if i in static_argnums or name in static_names:
            continue
        paths, _ = tree_util.tree_flatten_with_path(val)
        names += [name + tree_util.keystr(p) for p, _ in paths]
    return DebugInfo(traced_for, fun_sourceinfo(fun), tuple(names))


def check_jax_types(leaves, out_tree, debug: DebugInfo) -> None:
    """A traced function must return arrays (or scalars): name the first output that is
    not one by its path in the result, as JAX's message does."""
    for i, x in enumerate(leaves):
        if isinstance(getattr(x, "aval", None), core.AbstractRef):
            raise ValueError(f"function {debug.func_src_info} traced for "
                             f"{debug.traced_for} returned a mutable array reference of "
                             f"type {x.aval}, but mutable array references cannot be "
                             f"returned.{_made_where(x)}")
        if not core.valid_jaxtype(x) and not isinstance(x, core.ShapeDtypeStruct):
            paths, _ = tree_util.tree_flatten_with_path(
                tree_util.tree_unflatten(out_tree, range(len(leaves))))
            path = tree_util.keystr(paths[i][0])
            where = f" at output component {path}" if path else ""
            raise TypeError(f"function {debug.func_src_info} traced for {debug.traced_for} "
                            f"returned a value of type {type(x)}{where}, which is not a "
                            "valid JAX type")


def _made_where(ref) -> str:
    """Where a staged ref came from, as JAX's message about returning it says."""
    trace = getattr(ref, "_trace", None)
    for eqn in reversed(getattr(trace, "eqns", ())):
        if ref.variable in eqn.outvars:
            where = source_info.summarize(eqn.source_info)
            return f"\n\nThe returned mutable array was created on line {where}." if where \
                else ""
    return ""


def fun_signature(fun) -> inspect.Signature:
    """``inspect.signature(fun)``, which is slow, shared by plain functions with the same
    code. Binding arguments (all ``debug_info`` does with it) depends only on the
    parameters' names and kinds and on which have defaults, not on the default values:
    functions made by one ``def`` (e.g. a fresh closure for every trace) share it.
    A wrapper (``grad(f)``, ``vmap(f)``: ``__wrapped__``) has the signature of what it
    wraps, found by unwrapping first as ``inspect.signature`` does."""
    fun = inspect.unwrap(fun, stop=lambda f: hasattr(f, "__signature__") or
                         isinstance(f, types.MethodType))
    if type(fun) is not types.FunctionType or "__signature__" in fun.__dict__:
        return inspect.signature(fun)
    key = (fun.__code__, len(fun.__defaults__ or ()), tuple(fun.__kwdefaults__ or ()))
    sig = _signatures.get(key)
    if sig is None:
        if len(_signatures) >= _SIGNATURES_SIZE:
            _signatures.clear()
        sig = _signatures[key] = inspect.signature(fun)
    return sig


_SIGNATURES_SIZE = 512
_signatures = caches.table("interpreters.staging.signatures", bound=_SIGNATURES_SIZE)


def fun_sourceinfo(fun) -> str | None:
    while callable(getattr(fun, "func", None)) and hasattr(fun, "args"):
        fun = fun.func          # look through functools.partial
    fun = inspect.unwrap(fun)
    try:
        code = fun.__code__
        return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"
    except AttributeError:
        return getattr(fun, "__name__", None)


class DynamicJaxprTracer(core.Tracer):
    """A tracer that is just a variable of the jaxpr being built (JAX's name for it,
    which ``type(x).__name__`` shows under ``jit`` and ``make_jaxpr``)."""
    # ``aval`` is a plain attribute here (it overrides Tracer's property): the type of a
    # staged value is fixed, and it is read for every operation on it.
    __slots__ = ("aval", "variable")   # (not ``var``: that is the array method)

    def __init__(self, trace, aval, var):
        self._trace = trace         # (what Tracer.__init__ does, without the call)
        self.aval = aval
        self.variable = var

    def __repr__(self):
        return f"JitTracer({self.aval})"

    def _origin_msg(self):
        return self._trace.origin_msg(self.variable)


class DynamicJaxprTrace(core.Trace):
    """Records primitives applied to its tracers as equations of a jaxpr."""
    tracer_type = DynamicJaxprTracer

    def __init__(self, debug: DebugInfo | None = None):
        self.debug = debug
        # Equations record the name stack below the entries already there now, those of
        # the enclosing jaxprs (e.g. a jit body's equations leave out the caller's scope).
        self.name_stack_base = len(source_info.current_name_stack())
        self.invars: list = []
        self.eqns: list = []
        self.const_vars: dict = {}     # id(value) -> Var
        self.const_vals: list = []     # (Var, value), in order of first use
        self.var_consts: dict = {}     # Var -> value, for constant folding
        self.literal_vals: dict = {}   # Var -> value, for the constants written inline
        self.literal_vars: dict = {}   # _literal_key(value) -> Var

    # -- building -------------------------------------------------------------------------

    def new_arg(self, aval, source_info=None) -> DynamicJaxprTracer:
        """A new input of the jaxpr. A library may add inputs while the function runs
        (brainstate makes each state it reads one), after the function's own. (JAX's
        ``source_info`` is accepted; glassjax's inputs do not keep one.)"""
        del source_info
        var = Var(aval)
        self.invars.append(var)
        return self.tracer_type(self, aval, var)

    def to_tracer(self, x) -> DynamicJaxprTracer:
        if type(x) is self.tracer_type and x._trace is self:
            return x
        var = self.const_vars.get(id(x))
        if var is None:
            var = self._const_var(x)
        return self.tracer_type(self, var.aval, var)

    def _const_var(self, x) -> Var:
        """A new Var for the constant ``x``, or, for a scalar written inline, the Var of
        an equal one already used: every ``+ 1.0`` of a loop makes a new NumPy scalar,
        and one Var (one literal) serves them all."""
        aval = (core.shaped_abstractify(x) if isinstance(x, core.ShapeDtypeStruct)
                else core.get_aval(x))     # (a struct: a constant with a type, no value)
        literal = is_literalable(x)
        key = _literal_key(x, aval) if literal else None
        var = self.literal_vars.get(key)
        if var is not None:
            return var          # (not keyed by id(x): x is not kept, its id may be reused)
        var = self.const_vars[id(x)] = Var(aval)
        self.const_vals.append((var, x))
        self.var_consts[var] = x
        if literal:
            self.literal_vals[var] = x
            if key is not None:
                self.literal_vars[key] = var
        return var

    def known_value(self, x):
        """``x``'s value if tracing knows it: a host constant, or a tracer of this trace
        standing for a constant (a lifted scalar printed as a literal, or a constvar: JAX
        folds those too); else None."""
        if not isinstance(x, core.Tracer):
            return x
        if type(x) is self.tracer_type and x._trace is self:
            return self.var_consts.get(x.variable)
        return None

    def process_primitive(self, primitive, tracers, params):
        if _constant_folding.value and not any(
                isinstance(t, core.Tracer) for t in tracers):    # ensure_compile_time_eval
            return primitive.bind_with_trace(core.eval_trace, tracers, params)
        rule = staging_rules.get(primitive)
        if rule is not None:
            return rule(self, *tracers, **params)
        return self.default_process_primitive(primitive, tracers, params)

    def default_process_primitive(self, primitive, tracers, params):
        """Stage one equation. This runs once per equation of every traced program, so
        the rare cases (constant folding, varying manual axes, refs, forwarding, side
        effects) are each ruled out by one cheap test before anything is built."""
        if primitive in const_fold_rules:
            values = [self.known_value(t) for t in tracers]
            if all(v is not None for v in values):
                folded = const_fold_rules[primitive](*values, **params)
                if folded is not None:      # a literal, but traced: later ops are staged
                    return self.to_tracer(folded)
        tracer_type = self.tracer_type
        tracers = [t if type(t) is tracer_type and t._trace is self else self.to_tracer(t)
                   for t in tracers]
        if core.trace_ctx.vma_axes is None:
            in_avals = tuple([t.aval for t in tracers])
            if primitive.abstract_eval_is_pure and not core.placed_types.among(in_avals):
                typing = _typing(primitive, in_avals, params)
                if typing is not None:
                    out_aval, params, forwarded, effects = typing
                    if forwarded is not None:
                        return tracers[forwarded]
                    return self.append_eqn(primitive, tracers, out_aval, params, effects)
            vma = None
        else:
            tracers, vma = _vary_alike(self, primitive, tracers, params)
        in_avals = [t.aval for t in tracers]
        if core.AbstractRef.made and not primitive.takes_refs:
            _refuse_refs(primitive, in_avals)
        out_avals = primitive.abstract_eval(*in_avals, **params)
        if vma is not None:
            out_avals = ([a.update(vma=vma) for a in out_avals]
                         if primitive.multiple_results else out_avals.update(vma=vma))
        forwarded = _forwarded(primitive, in_avals, params)
        if forwarded is not None:
            return tracers[forwarded]
        return self.add_eqn(primitive, tracers, out_avals, params,
                            primitive_effects(primitive, params))

    def add_eqn(self, primitive, tracers, out_avals, params, effects=frozenset()):
        """Append ``outs = primitive[params] tracers``; returns the output tracers."""
        params = core.shared_params(params) if params else core.NO_PARAMS
        return self.append_eqn(primitive, tracers, out_avals, params, effects)

    def append_eqn(self, primitive, tracers, out_avals, params, effects):
        """``add_eqn`` for params already shared (``core.shared_params``)."""
        invars = [t.variable for t in tracers]
        src = source_info.current(self.name_stack_base)
        if not primitive.multiple_results:
            var = Var(out_avals)
            self.eqns.append(JaxprEqn(invars, [var], primitive, params, effects, src))
            return self.tracer_type(self, out_avals, var)
        outvars = [Var(a) for a in out_avals]
        self.eqns.append(JaxprEqn(invars, outvars, primitive, params, effects, src))
        return [self.tracer_type(self, v.aval, v) for v in outvars]

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        return core.hooks.stage_custom_jvp(self, primitive, fun, jvp, tracers,
                                           symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        return core.hooks.stage_custom_vjp(self, primitive, fun, fwd, bwd, tracers,
                                           out_trees, symbolic_zeros)

    # -- finishing ------------------------------------------------------------------------

    def to_jaxpr(self, out_tracers) -> tuple[Jaxpr, list]:
        """The recorded jaxpr and the values of its constvars (some may be tracers of an
        enclosing trace: callers that need a closed jaxpr turn those into arguments)."""
        outvars = [self.to_tracer(t).variable for t in out_tracers]
        literals = {v: Literal(core.canonicalize_value(c), v.aval)    # (as JAX holds them)
                    for v, c in self.literal_vals.items()}
        eqns = self.eqns
        if literals:
            # (In place: the equations and their lists are this trace's own, and a big
            # program's would otherwise exist twice at the end of its trace.)
            for e in eqns:
                invars = e.invars
                for i, a in enumerate(invars):
                    if a in literals:
                        invars[i] = literals[a]
            outvars = [literals.get(v, v) for v in outvars]
        consts = [(v, c) for v, c in self.const_vals if v not in literals]
        if consts:                  # only the constants the program reads
            used = _used_vars(eqns, outvars)
            consts = [(v, c) for v, c in consts if v in used]
        effects = frozenset().union(*[e.effects for e in eqns if e.effects])
        jaxpr = Jaxpr([v for v, _ in consts], self.invars, outvars, eqns, effects,
                      self.debug)
        return jaxpr, [c for _, c in consts]

    # -- error messages -------------------------------------------------------------------

    def origin_msg(self, var) -> str:
        """Why a tracer is not concrete: which arguments it depends on (as JAX says)."""
        if self.debug is None or self.debug.func_src_info is None:
            return ""
        deps = self._arg_dependencies(var)
        msg = (f"\nThe error occurred while tracing the function "
               f"{self.debug.func_src_info} for {self.debug.traced_for}. ")
        if not deps:
            return msg + "This value became a tracer due to JAX operations."
        names = [self.debug.arg_names[i] if i < len(self.debug.arg_names) else f"args[{i}]"
                 for i in deps]
        if len(names) == 1:
            which = f"the value of the argument {names[0]}"
        else:
            which = ("the values of the arguments " + ", ".join(names[:-1]) +
                     f" and {names[-1]}")
        return msg + ("This concrete value was not available in Python because it "
                      f"depends on {which}.")

    def _arg_dependencies(self, var):
        needed = {var}
        for eqn in reversed(self.eqns):
            if any(v in needed for v in eqn.outvars):
                needed.update(a for a in eqn.invars if isinstance(a, Var))
        return [i for i, v in enumerate(self.invars) if v in needed]


def lift(x):
    """A host scalar as a tracer of the current trace if that is a staging trace (JAX's
    ``stage``): it prints as a literal, and operations on it are staged like any other,
    so ``jnp.float32(3) - 1`` records ``sub 3.0:f32[] 1.0:f32[]`` as in JAX.

    Under a transformation (JVP, linearize, vmap, partial evaluation's known side) the
    constant belongs where an operation on constants alone would run: the staging trace
    below it, if any. So a zero instantiated while linearizing inside a jit is a value of
    the primal jaxpr (a residual of the linear one), as in JAX."""
    trace = core.trace_ctx.trace
    while not isinstance(trace, DynamicJaxprTrace):
        trace = getattr(trace, "parent_trace", None) or getattr(trace, "known_trace", None)
        if trace is None:
            return x
    return trace.to_tracer(x)


def take_in(x):
    """``x`` as a tracer of the current trace if that is a staging trace and ``x`` a
    tracer of an outer one. JAX binds even a no-op ``convert_element_type`` (type
    promotion of an operand that has the type already), which takes in a value closed
    over from an outer trace right there; doing the same keeps the constants (the
    closed-over values of loop bodies and branches) in JAX's order."""
    trace = core.trace_ctx.trace
    if isinstance(x, core.Tracer) and isinstance(trace, DynamicJaxprTrace):
        return trace.to_tracer(x)
    return x


def _used_vars(eqns, outvars):
    """The atoms the program reads (literals too: harmless, and cheaper than sorting)."""
    used = set(outvars)
    for e in eqns:
        used.update(e.invars)
    return used


def _literal_key(c, aval):
    """What makes two scalar constants interchangeable: the value's type, its exact
    value (bytes or ``repr``, so ``0.0`` and ``-0.0`` differ) and the aval (with its
    varying axes); None for a value that is not shared (a NumPy subclass)."""
    if type(c) in dtypes.python_scalar_dtypes:
        return type(c), repr(c), aval, aval.vma
    if type(c) is np.ndarray or isinstance(c, np.generic):
        return type(c), c.dtype, c.tobytes(), aval, aval.vma
    return None


def is_literalable(x) -> bool:
    """Scalars known on the host (Python and NumPy scalars, 0-d NumPy arrays) are
    inlined as literals. Device arrays stay constvars even when scalar, as in JAX: their
    value lives on a device, and the program should not copy it into its text."""
    if type(x) in dtypes.python_scalar_dtypes:
        return True
    return isinstance(x, (np.ndarray, np.generic)) and not x.shape


_no_effects = frozenset()

# Primitives whose staging does more than record one equation (e.g. ``jit(inline=True)``
# inlines its body, ``pjit`` forwards constant outputs).
staging_rules = Rules("staging", "make_jaxpr: a custom way to record the equation")
# Primitives that are sometimes the identity (a convert to the same type, a broadcast to
# the same shape) say so: ``rule(*in_avals, **params) -> index of the input to forward``
# or None. Staging then records nothing, as JAX does.
forwarding_rules = Rules("forwarding", "make_jaxpr: when the equation is the identity")
# Primitives that can be computed on the host when all inputs are host scalars (e.g. a
# convert of a NumPy scalar) give ``rule(*values, **params) -> value`` or None; the
# result stays a constant (a literal), as JAX's constant folding does.
const_fold_rules = Rules("const_fold", "make_jaxpr: fold known inputs")
# Primitives with side effects (debug callbacks) tell staging which effects they have.
effects_rules = Rules("effects", "make_jaxpr: side effects of the equation")


_constant_folding = config.option("eager_constant_folding").cell   # (read per equation)
_x64 = config.option("jax_enable_x64").cell


def _forwarded(primitive, in_avals, params) -> int | None:
    """Which operand the equation would just return (see ``forwarding_rules``)."""
    rule = forwarding_rules.get(primitive)
    return None if rule is None else rule(*in_avals, **params)


_TYPINGS_SIZE = 4096
_typings = caches.table("interpreters.staging.typings", bound=_TYPINGS_SIZE, shortcut=True)


def _typing(primitive, in_avals: tuple, params: dict):
    """What staging a pure primitive on operands of types ``in_avals`` records: its
    output type, its params as equations share them (``core.shared_params``), the
    operand it forwards instead (or None) and its effects. All four depend only on the
    primitive, the operand types, the params and the x64 flag, and a traced loop asks
    for the same ones over and over: they are worked out once and remembered under one
    key. None when the params cannot be part of a key (floats, objects), or in reference
    mode (``glassjax_reference_mode``): then staging works them out each time. Errors
    (bad operands) are raised, never remembered."""
    signature = core.params_signature(params) if params else ()
    if signature is None or caches.reference.on:
        return None
    key = (primitive, in_avals, tuple(params.items()), signature, _x64.value)
    typing = _typings.get(key)
    if typing is None:
        if core.AbstractRef.made and not primitive.takes_refs:
            _refuse_refs(primitive, in_avals)
        out_aval = primitive.abstract_eval(*in_avals, **params)
        forwarded = _forwarded(primitive, in_avals, params)
        shared = core.shared_params(params) if params else core.NO_PARAMS
        if len(_typings) >= _TYPINGS_SIZE:
            _typings.clear()
        effects = primitive_effects(primitive, params)
        typing = _typings[key] = (out_aval, shared, forwarded, effects)
    return typing


def primitive_effects(primitive, params) -> frozenset:
    """The side effects of one application of ``primitive`` (e.g. the debug prints in
    a cond's branches): none unless its ``effects_rules`` entry says otherwise."""
    rule = effects_rules.get(primitive)
    return _no_effects if rule is None else rule(**params)


# Varying manual axes (``check_vma=True`` shard_map bodies, see core.ShapedArray). An
# operation's result varies over every axis one of its operands varies over; operands
# that vary over fewer axes are first cast with ``pvary`` (the primitive lax.parallel
# registers here), as JAX does. Collectives have rules of their own (``vma_rules``:
# primitive -> rule(vma of the operands, **params) -> vma of the results); calls (jit,
# cond, ...) take their results' types from their bodies.
vma_rules = Rules("vma", "shard_map: the axes the results vary over")


class _Hooks(Slots):
    """What staging needs from lax."""
    pvary = Slot("glassjax.lax.parallel", "pvary_p: the cast that makes a value vary "
                 "over more manual axes")


hooks = _Hooks()


def vary_as(x, like):
    """``x`` made to vary over the axes ``like`` (a value or its aval) varies over: how
    JAX's ``full_like`` and the seeds of derivatives take their operand's type."""
    if core.trace_ctx.vma_axes is None:
        return x
    aval = like if isinstance(like, core.ShapedArray) else core.shaped_abstractify(like)
    vma = getattr(aval, "vma", ())
    if not vma:
        return x
    return hooks.pvary.bind(x, axes=tuple(vma))


def _vary_alike(trace, primitive, tracers, params):
    in_vmas = [getattr(t.aval, "vma", ()) for t in tracers]
    rule = vma_rules.get(primitive)
    if rule is not None:
        return tracers, rule(in_vmas, **params)
    if any(core.jaxprs_in_params(params)) or not any(in_vmas):
        return tracers, None
    order = core.trace_ctx.vma_axes
    union = tuple(a for a in order if any(a in v for v in in_vmas))
    if not config.jax_auto_pcast and any(
            v != union for t, v in zip(tracers, in_vmas) if hasattr(t.aval, "vma")):
        raise ValueError(
            f"Primitive {primitive.name} requires varying manual axes to match, but got "
            f"{[frozenset(v) for v in in_vmas]}. Please open an issue at "
            "https://github.com/jax-ml/jax/issues and as a temporary workaround pass the "
            "check_vma=False argument to `jax.shard_map`")
    pvary = hooks.pvary
    tracers = [t if v == union or not hasattr(t.aval, "vma") else
               trace.default_process_primitive(
                   pvary, [t], dict(axes=tuple(a for a in union if a not in v)))
               for t, v in zip(tracers, in_vmas)]
    return tracers, union


def _refuse_refs(primitive, in_avals):
    for a in in_avals:
        if type(a) is core.AbstractRef:
            raise ValueError(f"Attempting to pass a Ref {a} to a primitive: {primitive} -- "
                             "did you forget to unpack ([...]) the ref?")


def trace_to_jaxpr(fun: Callable, in_avals: Sequence, debug: DebugInfo | None = None
                   ) -> tuple[Jaxpr, list, list]:
    """Trace ``fun(*flat_tracers) -> flat outputs`` into ``(jaxpr, consts, out_avals)``."""
    trace = DynamicJaxprTrace(debug)
    args = [trace.new_arg(a) for a in in_avals]
    # Tracebacks taken inside stop at this frame (as in JAX): an equation that glassjax
    # stages on its own, with no user code between here and there, has no source line.
    with core.set_current_trace(trace), source_info.TracebackScope(), _SparingOldObjects():
        outs = fun(*args)
    jaxpr, consts = trace.to_jaxpr(outs)
    if config.jax_check_tracer_leaks:
        del args, outs
        _check_no_leaked_tracers(trace)
    return jaxpr, consts, jaxpr.out_avals


class _SparingOldObjects:
    """While a trace runs, Python's cycle collector looks only at objects made since it
    started (``gc.freeze`` sets the older ones aside, ``gc.unfreeze`` gives them back;
    both O(1)). Tracing makes several long-lived objects per equation, and each of the
    collector's full passes, triggered as they pile up, would otherwise walk every object
    of the program as well: a third of the time of a 10,000-equation trace. Garbage
    cycles made while tracing are still collected. Only the outermost trace does it, and
    only when nothing else froze objects (a program's own ``gc.freeze`` is respected):
    the count is 0, or what the interpreter itself froze at start-up (CPython 3.12 starts
    with a few hundred objects frozen; the first trace gives them back with the rest)."""
    __slots__ = ("frozen",)
    depth = 0
    at_start = gc.get_freeze_count()      # the interpreter's own, measured at import

    def __enter__(self):
        cls = _SparingOldObjects
        self.frozen = (cls.depth == 0 and gc.isenabled()
                       and gc.get_freeze_count() in (0, cls.at_start))
        cls.depth += 1
        if self.frozen:
            gc.freeze()

    def __exit__(self, *exc):
        _SparingOldObjects.depth -= 1
        if self.frozen:
            gc.unfreeze()


def _check_no_leaked_tracers(trace: DynamicJaxprTrace):
    """``jax_check_tracer_leaks``: once tracing is done, nothing may still reference a
    tracer of the trace (a side effect such as appending it to a global list leaked
    it). The garbage collector knows who refers to the trace: its tracers do."""
    gc.collect()
    leaked = [r for r in gc.get_referrers(trace) if isinstance(r, DynamicJaxprTracer)]
    if leaked:
        raise Exception(f"Leaked trace {trace}. Leaked tracer(s):\n\n" +
                        "\n\n".join(repr(t) for t in leaked))


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Turn constvars into leading invars (how closed-over tracers become arguments).
    Without constvars, the same jaxpr (caches keyed on jaxprs then still hit)."""
    if not jaxpr.constvars:
        return jaxpr
    return jaxpr.replace(constvars=[], invars=jaxpr.constvars + jaxpr.invars)


def close_over_concrete_consts(jaxpr: Jaxpr, consts) -> tuple[ClosedJaxpr, list]:
    """Split consts into concrete ones (kept inside the ClosedJaxpr, as JAX keeps them)
    and tracers of enclosing traces or refs (returned; they become leading arguments)."""
    outer = lambda c: isinstance(c, core.Tracer) or core.is_ref_box(c)   # (refs too)
    kept = [(v, c) for v, c in zip(jaxpr.constvars, consts) if not outer(c)]
    lifted = [(v, c) for v, c in zip(jaxpr.constvars, consts) if outer(c)]
    new = jaxpr.replace(constvars=[v for v, _ in kept],
                        invars=[v for v, _ in lifted] + jaxpr.invars)
    return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in lifted]


def trace_to_closed_jaxpr(fun, in_avals, debug=None) -> tuple[ClosedJaxpr, list]:
    """Trace for a higher-order primitive: ``(closed_jaxpr, lifted_tracer_args)``; the
    lifted args are passed first when the primitive is bound."""
    jaxpr, consts, _ = trace_to_jaxpr(fun, in_avals, debug)
    return close_over_concrete_consts(jaxpr, consts)
