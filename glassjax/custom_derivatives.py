"""Custom differentiation rules: ``custom_jvp``, ``custom_vjp`` and ``closure_convert``.

A ``custom_jvp`` function is applied with the ``custom_jvp_call`` primitive, which carries
both the function and its JVP rule. Every trace decides which one it needs: evaluation and
staging run (or record) the function; the JVP trace calls the rule; linearization
partially evaluates the rule, so reverse mode also uses it.

A ``custom_vjp`` function is applied with ``custom_vjp_call``, carrying the function, the
forward rule (primal outputs and residuals) and the backward rule. Under AD the forward
rule runs now and the tangent becomes ``custom_lin(residuals, tangents)``, a linear
primitive whose transpose calls the backward rule. Forward mode cannot evaluate it, so
``jvp`` of a ``custom_vjp`` function raises a TypeError, as in JAX.

Staged out (``make_jaxpr``, ``jit``), the equations print as JAX prints them::

    custom_jvp_call[name=f call_jaxpr={...} jvp=f_jvp symbolic_zeros=False]
"""
from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np

from glassjax import caches, core, dtypes, pretty, tree_util
from glassjax.errors import UnexpectedTracerError
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.core import Rule
from glassjax.interpreters.ad import SymbolicZero
from glassjax.jit import jit_p, ref_hooks
from glassjax.tree_util import tree_flatten, tree_map, tree_unflatten
from glassjax.xla import lowering


@dataclasses.dataclass(slots=True, eq=False)
class CustomVJPPrimal:
    """What a ``symbolic_zeros`` forward rule receives per input leaf."""
    value: object
    perturbed: bool


def custom_vjp_primal_tree_values(tree):
    """Strip the ``CustomVJPPrimal`` records from a ``symbolic_zeros`` fwd rule's input."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value
    return tree_map(value, tree)


def zero_from_primal(val, symbolic_zeros=False):
    """Zero tangents for the pytree of primals ``val``: arrays, or ``SymbolicZero``s."""
    def zero(x):
        aval = core.typeof(x).to_tangent_aval()
        return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
    return tree_map(zero, val)


def forward_def_attr(self, name):
    """``__getattr__`` of the custom-rule decorators: a ``def*`` method the wrapper lacks
    is the wrapped one's, so decorators stack (``custom_vjp`` over ``custom_vmap``, and
    ``f.def_vmap`` still works)."""
    if name.startswith("def"):
        return getattr(self.fun, name)
    raise AttributeError


def _name(fun) -> str:
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", type(fun).__name__)


def _resolve_kwargs(fun, args, kwargs, kind, name):
    """Keyword arguments become positional, following ``fun``'s signature (a
    ``functools.partial`` has none, so it takes positional arguments only)."""
    sig_fun = (lambda *a, **k: None) if isinstance(fun, functools.partial) else fun
    try:
        bound = inspect.signature(sig_fun).bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to "
                            f"positions: {', '.join(passed)}")
    except TypeError as e:
        raise TypeError(
            f"The input arguments to the {kind}-decorated function {name} could not be "
            f"resolved to positional-only arguments. Binding failed with the error:\n{e}"
        ) from e
    return bound.args


def _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames):
    nums = set(nondiff_argnums)
    if nondiff_argnames:
        params = list(inspect.signature(fun).parameters)
        nums.update(params.index(n) for n in nondiff_argnames if n in params)
    return tuple(sorted(nums))


def _split_static(args, static_argnums):
    static = [args[i] for i in static_argnums]
    dyn = [x for i, x in enumerate(args) if i not in static_argnums]
    return static, dyn


def _merge_static(static_argnums, static, dyn):
    """Inverse of ``_split_static``: the full argument list."""
    n = len(static) + len(dyn)
    static, dyn = iter(static), iter(dyn)
    return [next(static) if i in static_argnums else next(dyn) for i in range(n)]


def _tree_types(tree, avals):
    return str(tree_unflatten(tree, [a.str_short() for a in avals])).replace("'", "")


class _CustomRules:
    """What ``custom_jvp`` and ``custom_vjp`` share: they wrap ``fun`` (taking its name
    and docstring), may mark arguments as non-differentiable (``nondiff_argnums``, or by
    name), and bind as methods when used on one."""

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
        self.symbolic_zeros = False

    __getattr__ = forward_def_attr

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)


# ----------------------------------------------------------------------------------------
# custom_jvp
# ----------------------------------------------------------------------------------------

class custom_jvp(_CustomRules):
    """A function with a custom JVP rule, used by forward and reverse mode::

        @custom_jvp
        def f(x, y):
            return jnp.sin(x) * y

        @f.defjvp
        def f_jvp(primals, tangents):
            x, y = primals
            x_dot, y_dot = tangents
            return f(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
    """

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None

    def defjvp(self, jvp, symbolic_zeros=False):
        """Set the JVP rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``
        (with ``nondiff_argnums``, those arguments come first). Returns ``jvp``."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, ``jvp_i(t_i, primal_out, *primals)``; None for
        arguments with zero derivative. The tangents are summed."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            zeros = tree_map(ad.Zero.from_primal_value, primal_out)   # symbolic: free
            tangents_out = [rule(t, primal_out, *primals) if rule else zeros
                            for t, rule in zip(tangents, jvps)]
            summed = tree_map(lambda _, *ts: functools.reduce(ad.add_tangents, ts),
                              primal_out, *tangents_out)
            return primal_out, summed

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        name = _name(self.fun)
        if not self.jvp:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using "
                                 "defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_jvp", name)
        nondiff = self.nondiff_argnums
        if nondiff:
            args = [_stop_gradient(x) if i in nondiff else x for i, x in enumerate(args)]
            static, dyn_args = _split_static(args, nondiff)
            fun = lambda *dyn: self.fun(*_merge_static(nondiff, static, dyn))
            jvp = lambda primals, tangents: self.jvp(*static, primals, tangents)
        else:
            dyn_args, fun, jvp = args, self.fun, self.jvp
        args_flat, in_tree = tree_flatten(tuple(dyn_args))
        out_type: list = []
        flat_fun = Rule(_flatten_fun(fun, in_tree, out_type), name)
        flat_jvp = Rule(_flatten_jvp(jvp, in_tree, out_type, name, _name(self.jvp)),
                        _name(self.jvp))
        outs = custom_jvp_call_p.bind(flat_fun, flat_jvp, *args_flat,
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(out_type[0][0], outs)


def _stop_gradient(x):
    return tree_map(lambda v: core.hooks.stop_gradient(v) if isinstance(v, core.Tracer)
                    else v, x)


def _flatten_fun(fun, in_tree, out_type):
    """``fun`` on flat leaves; records ``(out_tree, out_avals)`` in ``out_type``."""
    def flat(*args):
        outs, tree = tree_flatten(fun(*tree_unflatten(in_tree, args)))
        out_type[:] = [(tree, [core.get_aval(x) for x in outs])]
        return outs
    return flat


def _flatten_jvp(jvp, in_tree, out_type, primal_name, jvp_name):
    """The user's JVP rule on flat ``(*primals, *tangents)``, returning flat
    ``(*primals_out, *tangents_out)``, with JAX's checks of what the rule returned."""
    def flat(*args):
        n = len(args) // 2
        primals = tree_unflatten(in_tree, args[:n])
        tangents = tree_unflatten(in_tree, args[n:])
        pair = jvp(primals, tangents)
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(f"Custom JVP rule {jvp_name} for function {primal_name} must "
                            "produce a pair (list or tuple of length two) representing "
                            f"primal and tangent outputs, but got {pair}.")
        primals_out, tree = tree_flatten(pair[0])
        tangents_out, tree2 = tree_flatten(pair[1])
        if tree != tree2:
            raise TypeError(f"Custom JVP rule {jvp_name} for function {primal_name} must "
                            "produce primal and tangent outputs with equal container "
                            f"(pytree) structures, but got {tree} and {tree2} "
                            "respectively.")
        primal_avals = [core.get_aval(x) for x in primals_out]
        if out_type:
            _check_primal_out(out_type[0], tree, primal_avals, "custom_jvp",
                              _JVP_PRIMAL_OUT, primal_name, jvp_name)
        _check_jvp_tangent_out(primal_avals, tangents_out)
        out_type[:] = [(tree, primal_avals)]
        return [*primals_out, *tangents_out]
    return flat


# How JAX's errors about a rule's primal output begin (``{requirement}``: what must match).
_JVP_PRIMAL_OUT = (
    "Custom JVP rule {rule} for function {primal} must produce a pair (list or tuple of "
    "length two) where the first element represents the primal output (equal in value to "
    "the output of the custom_jvp-decorated function {primal}, and in particular "
    "{requirement}), but instead the JVP rule output's first element had ")
_FWD_PRIMAL_OUT = (
    "Custom VJP fwd rule {rule} for function {primal} must produce a pair (list or tuple "
    "of length two) where the first element represents the primal output (equal to the "
    "output of the custom_vjp-decorated function {primal}) and the second element "
    "represents residuals (i.e. values stored from the forward pass for use on the "
    "backward pass), but instead the fwd rule output's first element had ")


def _check_primal_out(expected, tree, avals, decorator, intro, primal_name, rule_name):
    """A rule's primal output (``tree`` of ``avals``) must have the structure and the
    shapes/dtypes of the function's (``expected``); ``intro`` begins the message."""
    tree_, avals_ = expected

    def mismatch(requirement, what, end):
        start = intro.format(rule=rule_name, primal=primal_name, requirement=requirement)
        return TypeError(
            f"{start}{what}:\n    {_tree_types(tree, avals)}\nwhile the "
            f"{decorator}-decorated function {primal_name} had output {what}:\n"
            f"    {_tree_types(tree_, avals_)}{end}")
    if tree != tree_:
        raise mismatch("of the same container/pytree structure",
                       "container/pytree structure", ".")
    if any((a.shape, a.dtype) != (b.shape, b.dtype) for a, b in zip(avals, avals_)):
        raise mismatch("with leaves of the same shape/dtype", "shapes/dtypes of", "")


def _check_jvp_tangent_out(primal_avals, tangents_out):
    primal_avals = [a.strip_weak_type() for a in primal_avals]
    expected = [a.to_tangent_aval() for a in primal_avals]
    got = [(t.aval if type(t) is SymbolicZero else core.get_aval(t)).strip_weak_type()
           for t in tangents_out]
    if all((e.shape, e.dtype) == (g.shape, g.dtype) for e, g in zip(expected, got)):
        return
    if len(expected) == 1:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding "
            f"shapes and dtypes. Expected {expected[0].str_short()} (tangent type of "
            f"{primal_avals[0].str_short()}) but got {got[0].str_short()}.")
    raise TypeError(
        "Custom JVP rule must produce primal and tangent outputs with corresponding shapes "
        "and dtypes, but got:\n" + "\n".join(
            f"  primal {p.str_short()} with tangent {g.str_short()}, expecting tangent "
            f"{e.str_short()}" for p, e, g in zip(primal_avals, expected, got) if e != g))


class CustomJVPCallPrimitive(core.Primitive):
    """``custom_jvp_call(fun, jvp, *args)``: each trace picks the function or the rule.
    Its output types are its ``call_jaxpr``'s: a staged call can be replayed with the
    same params (``replay``), so that a jnp function called twice shares one
    ``call_jaxpr``, as JAX's cached jit trace does."""
    multiple_results = True
    abstract_eval_is_pure = True

    def bind(self, fun, jvp, *args, symbolic_zeros):
        """Host arguments are canonicalized first, as by every JAX ``bind``: the
        function and its rule see ``TypedFloat(1.0, dtype=float32)`` for ``1.0``."""
        args = map(core.canonicalize_value, args)
        return self.bind_with_trace(core.trace_ctx.trace, (fun, jvp, *args),
                                    dict(symbolic_zeros=symbolic_zeros))

    def bind_with_trace(self, trace, args, params):
        fun, jvp, *args = args
        with core.set_current_trace(trace):
            return trace.process_custom_jvp_call(self, fun, jvp, args, **params)

    def get_bind_params(self, params):
        """From a staged equation back to ``bind``'s arguments (to re-trace it)."""
        call_jaxpr, jvp_jaxpr_fun = params["call_jaxpr"], params["jvp_jaxpr_fun"]
        fun = Rule(core.jaxpr_as_fun(call_jaxpr), _jaxpr_name(call_jaxpr))
        jvp = Rule(functools.partial(_lifted_jvp, params["num_consts"], jvp_jaxpr_fun),
                   jvp_jaxpr_fun.name)
        return [fun, jvp], dict(symbolic_zeros=params["symbolic_zeros"])


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call")
custom_jvp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)
staging.effects_rules[custom_jvp_call_p] = lambda call_jaxpr, **_: (
    call_jaxpr.effects & {core.state_effect})     # (refs inside: discharged to compile)
custom_jvp_call_p.drawing = core.Drawing("custom", "custom_jvp_call", body="call_jaxpr",
                                        note="its derivative is a custom JVP rule")


def _lifted_jvp(num_consts, jvp_jaxpr_fun, *args):
    """A staged custom_jvp_call's rule: run the rule's jaxpr for these zero patterns."""
    n = len(args) // 2
    primals, tangents = args[num_consts:n], args[n + num_consts:]
    zeros = [type(t) is SymbolicZero for t in tangents]
    jaxpr, consts, out_zeros = jvp_jaxpr_fun(*zeros)
    outs = core.eval_jaxpr(jaxpr, consts, *primals,
                           *(t for t in tangents if type(t) is not SymbolicZero))
    out_primals, nz_tangents = outs[:len(out_zeros)], iter(outs[len(out_zeros):])
    return [*out_primals, *(SymbolicZero.from_primal_value(p) if z else next(nz_tangents)
                            for p, z in zip(out_primals, out_zeros))]


# Each rule thunk's jaxprs, one per pattern of symbolic zeros (JAX traces a custom rule
# once per pattern too).
_rule_jaxprs = caches.family("custom_derivatives.rule_jaxprs",
                             why="one entry per pattern of zeros; dies with its thunk")


class _RuleJaxprThunk:
    """A custom rule of a staged call, traced to a jaxpr on demand by ``_trace``: once
    per pattern of its inputs (which tangents are symbolic zeros, which inputs are
    perturbed). Prints as the rule's name."""

    def __init__(self, rule, in_avals, name):
        self.rule = rule
        self.in_avals = in_avals
        self.name = name
        self._cache = _rule_jaxprs.new()

    def __call__(self, *pattern):
        if pattern not in self._cache:
            self._cache[pattern] = self._trace(pattern)
        return self._cache[pattern]

    def __str__(self):
        return self.name


class JVPJaxprThunk(_RuleJaxprThunk):
    """The JVP rule of a staged ``custom_jvp_call``; the pattern says which tangents are
    symbolic zeros."""

    def _trace(self, in_zeros):
        n = len(self.in_avals)
        tangent_avals = [a.to_tangent_aval() for a in self.in_avals]
        out_zeros: list = []

        def jvp_fun(*args):
            nz = iter(args[n:])
            tangents = [SymbolicZero(a) if z else next(nz)
                        for a, z in zip(tangent_avals, in_zeros)]
            outs = self.rule.call_wrapped(*args[:n], *tangents)
            primals_out, tangents_out = outs[:len(outs) // 2], outs[len(outs) // 2:]
            out_zeros[:] = [type(t) is SymbolicZero for t in tangents_out]
            return [*primals_out, *(t for t in tangents_out if type(t) is not SymbolicZero)]

        avals = [*self.in_avals, *(a for a, z in zip(tangent_avals, in_zeros) if not z)]
        jaxpr, consts, _ = staging.trace_to_jaxpr(jvp_fun, avals)
        return jaxpr, consts, out_zeros


def _jaxpr_name(closed):
    info = closed.jaxpr.debug_info
    return info.func_src_info.split(" at ")[0] if info and info.func_src_info else "unknown"


def _trace_call(fun, in_avals, traced_for):
    """Trace a custom rule's function: ``(closed jaxpr with consts as leading inputs,
    consts)`` -- the consts are passed as the equation's first operands."""
    debug = staging.DebugInfo(traced_for, fun.name, ())
    jaxpr, consts, _ = staging.trace_to_jaxpr(fun.call_wrapped, in_avals, debug)
    return core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), []), consts


def stage_custom_jvp(trace, primitive, fun, jvp, tracers, symbolic_zeros):
    """How the staging trace records a custom_jvp function: one equation holding the
    function's jaxpr and (lazily) its JVP rule's."""
    tracers = [trace.to_tracer(t) for t in tracers]
    in_avals = [t.aval for t in tracers]
    call_jaxpr, consts = _trace_call(fun, in_avals, "custom_jvp fun")
    const_avals = [core.get_aval(c) for c in consts]
    thunk = JVPJaxprThunk(
        Rule(functools.partial(_jvp_with_consts, len(consts), jvp), jvp.name),
        [*const_avals, *in_avals], jvp.name)
    params = dict(call_jaxpr=call_jaxpr, jvp_jaxpr_fun=thunk, num_consts=len(consts),
                  symbolic_zeros=symbolic_zeros)
    return trace.add_eqn(primitive, [*map(trace.to_tracer, consts), *tracers],
                         call_jaxpr.out_avals, params)


def _jvp_with_consts(num_consts, jvp, *args):
    """The rule seen with the function's closed-over constants as leading (constant)
    inputs: they get zero tangents and are not passed to the rule."""
    n = len(args) // 2
    return jvp.call_wrapped(*args[num_consts:n], *args[n + num_consts:])


def _custom_jvp_call_pp(eqn, context, settings):
    params = dict(eqn.params)
    if not params["num_consts"]:
        del params["num_consts"]
    params["jvp"] = params.pop("jvp_jaxpr_fun").name
    names = sorted(params)
    params["name"] = _jaxpr_name(eqn.params["call_jaxpr"])
    return pretty.pp_eqn_default(eqn.replace(params=params), context, settings,
                                 params=["name", *names])


pretty.pp_eqn_rules[custom_jvp_call_p] = _custom_jvp_call_pp


def _prune_call_jaxpr(call_jaxpr, used_outs):
    """The function's jaxpr with only the used outputs; every input is kept, because the
    custom rules may read inputs the pruned function no longer does."""
    jaxpr, _ = pe.dce_jaxpr(call_jaxpr.jaxpr, used_outs, instantiate=True)
    return core.ClosedJaxpr(jaxpr, call_jaxpr.consts)


class PrunedJVPThunk:
    """A custom JVP rule's jaxpr without the primal and tangent outputs DCE removed."""

    def __init__(self, thunk, used_outs):
        self.thunk, self.used_outs, self.name = thunk, used_outs, thunk.name
        self._cache = _rule_jaxprs.new()

    def __call__(self, *in_zeros):
        if in_zeros not in self._cache:
            jaxpr, consts, out_zeros = self.thunk(*in_zeros)
            nz_used = [u for u, z in zip(self.used_outs, out_zeros) if not z]
            jaxpr, _ = pe.dce_jaxpr(jaxpr, [*self.used_outs, *nz_used], instantiate=True)
            self._cache[in_zeros] = (jaxpr, consts,
                                     [z for u, z in zip(self.used_outs, out_zeros) if u])
        return self._cache[in_zeros]

    def __str__(self):
        return self.name


def _custom_jvp_call_dce(used_outs, eqn):
    if not any(used_outs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    params = dict(eqn.params,
                  call_jaxpr=_prune_call_jaxpr(eqn.params["call_jaxpr"], used_outs),
                  jvp_jaxpr_fun=PrunedJVPThunk(eqn.params["jvp_jaxpr_fun"], used_outs))
    outvars = [v for v, u in zip(eqn.outvars, used_outs) if u]
    return [True] * len(eqn.invars), eqn.replace(outvars=outvars, params=params)


pe.dce_rules[custom_jvp_call_p] = _custom_jvp_call_dce


def _custom_call_lowering(ctx, *args, call_jaxpr, **params):
    return lowering.lower_closed_jaxpr(ctx.module_context, call_jaxpr, args)


lowering.register_lowering(custom_jvp_call_p, _custom_call_lowering)


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, **params):
    """A custom_jvp_call can end up in a linear jaxpr (e.g. a linear custom function
    applied to tangents): transpose its body."""
    return ad.backward_pass(call_jaxpr.jaxpr, call_jaxpr.consts, args, cts)


ad.primitive_transposes[custom_jvp_call_p] = _custom_jvp_call_transpose


# ----------------------------------------------------------------------------------------
# custom_vjp
# ----------------------------------------------------------------------------------------

class custom_vjp(_CustomRules):
    """A function with a custom VJP rule, used by reverse mode::

        @custom_vjp
        def f(x, y):
            return jnp.sin(x) * y

        def f_fwd(x, y):
            return f(x, y), (jnp.cos(x), jnp.sin(x), y)   # output, residuals

        def f_bwd(res, g):
            cos_x, sin_x, y = res
            return (cos_x * g * y, sin_x * g)             # one cotangent per input

        f.defvjp(f_fwd, f_bwd)
    """

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = None
        self.bwd = None
        self.optimize_remat = False

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Set the forward rule ``fwd(*args) -> (out, residuals)`` and the backward rule
        ``bwd(residuals, out_cotangent) -> tuple of input cotangents`` (None for zero)."""
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros
        self.optimize_remat = optimize_remat
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros")

    def __call__(self, *args, **kwargs):
        name = _name(self.fun)
        if not self.fwd or not self.bwd:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using "
                                 "defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vjp", name)
        nondiff = self.nondiff_argnums
        if nondiff:
            for i in nondiff:
                _check_for_tracers(args[i])
            static, dyn_args = _split_static(args, nondiff)
            fun = lambda *dyn: self.fun(*_merge_static(nondiff, static, dyn))
            fwd = lambda *dyn: self.fwd(*_merge_static(nondiff, static, dyn))
            bwd = lambda res, ct: self.bwd(*static, res, ct)
        else:
            dyn_args, fun, fwd, bwd = args, self.fun, self.fwd, self.bwd
        if ref_hooks.takes_refs(dyn_args, {}):      # refs are closed over (ref.py)
            return ref_hooks.custom_vjp(fun, fwd, bwd, tuple(dyn_args),
                                        self.symbolic_zeros)
        args_flat, in_tree = tree_flatten(tuple(dyn_args))
        in_avals = [core.get_aval(x) for x in args_flat]
        out_type: list = []
        trees: list = []
        flat_fun = Rule(_flatten_fun(fun, in_tree, out_type), name)
        flat_fwd = Rule(_flatten_fwd(fwd, in_tree, out_type, trees, self.symbolic_zeros,
                                     name, _name(self.fwd)), _name(self.fwd))
        if self.optimize_remat:
            flat_fwd = Rule(_remat_optimized_fwd(flat_fun, flat_fwd, trees),
                            flat_fwd.name)
        flat_bwd = Rule(_flatten_bwd(bwd, in_tree, in_avals, lambda: trees[0]),
                        _name(self.bwd))
        outs = custom_vjp_call_p.bind(flat_fun, flat_fwd, flat_bwd, *args_flat,
                                      out_trees=lambda: trees[0],
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(out_type[0][0], outs)


# ----------------------------------------------------------------------------------------
# remat_opt: a custom_vjp forward rule that checkpointing may replace by the function
# ----------------------------------------------------------------------------------------
# ``f.defvjp(fwd, bwd, optimize_remat=True)``: the forward rule is staged as one
# ``remat_opt`` equation holding the rule's jaxpr (residuals first, then outputs) and a
# thunk tracing the plain function. When dead-code elimination finds that nobody reads the
# residuals -- the forward pass recomputed under ``jax.checkpoint`` only for its outputs --
# the equation becomes a call of the plain function: a forward rule that runs an
# expensive kernel to save residuals does not run it again. Otherwise it is the forward
# rule, evaluated as usual.

class RematOptPrimitive(core.Primitive):
    multiple_results = True


remat_opt_p = RematOptPrimitive("remat_opt")


def _memoize(thunk):
    """The thunk's result computed once, on first call (JAX prints a param holding one
    as this function; linear_call's transpose is traced only if it is needed)."""
    cache = []

    def memoized():
        if not cache:
            cache.append(thunk())
        return cache[0]
    return memoized


def _remat_optimized_fwd(flat_fun, flat_fwd, trees):
    def fwd(*args, perturbed):
        del perturbed         # (JAX's forward treats every input as perturbed)
        avals = [core.get_aval(x) for x in args]
        jaxpr, consts, _ = staging.trace_to_jaxpr(
            lambda *xs: flat_fwd.call_wrapped(*xs, perturbed=[True] * len(xs)), avals)
        _, res_tree, forwards = trees[0]
        closed = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])

        @_memoize
        def fun_jaxpr_thunk():
            fun_jaxpr, fun_consts, _ = staging.trace_to_jaxpr(flat_fun.call_wrapped, avals)
            return fun_jaxpr, fun_consts

        return remat_opt_p.bind(
            *consts, *args, num_consts=len(consts),
            num_res=res_tree.num_leaves - sum(f is not None for f in forwards),
            fwd_jaxpr=closed, fun_jaxpr_thunk=fun_jaxpr_thunk)
    return fwd


def _remat_opt_impl(*args, num_consts, num_res, fwd_jaxpr, fun_jaxpr_thunk):
    return core.jaxpr_as_fun(fwd_jaxpr)(*args)


def _remat_opt_jvp(primals, tangents, *, num_consts, num_res, fwd_jaxpr, fun_jaxpr_thunk):
    """The JVP of the forward rule, as one remat_opt of (res, res_dot, out, out_dot)."""
    consts, args = primals[:num_consts], primals[num_consts:]
    consts_dot = [t for t in tangents[:num_consts] if type(t) is not ad.Zero]
    arg_dots = [ad.instantiate_zeros(t) for t in tangents[num_consts:]]
    nonzeros = [type(t) is not ad.Zero for t in tangents[:num_consts]] + [True] * len(args)
    jvp_jaxpr, _ = ad.jvp_jaxpr(fwd_jaxpr, nonzeros, True)
    num_out = len(fwd_jaxpr.out_avals) - num_res
    n_c, n_cd = len(consts), len(consts_dot)

    def rearranged(*xs):        # (consts, consts_dot, args, arg_dots) in, JAX's order out
        c, cd, a, ad_ = (xs[:n_c], xs[n_c:n_c + n_cd], xs[n_c + n_cd:n_c + n_cd + len(args)],
                         xs[n_c + n_cd + len(args):])
        outs = core.jaxpr_as_fun(jvp_jaxpr)(*c, *a, *cd, *ad_)
        primal_outs, tangent_outs = outs[:num_res + num_out], outs[num_res + num_out:]
        return [*primal_outs[:num_res], *tangent_outs[:num_res], *primal_outs[num_res:],
                *tangent_outs[num_res:]]

    in_avals = [core.get_aval(x) for x in (*consts, *consts_dot, *args, *arg_dots)]
    jaxpr, jaxpr_consts, _ = staging.trace_to_jaxpr(rearranged, in_avals)

    @_memoize
    def fun_jvp_jaxpr_thunk():
        fun_jaxpr = core.ClosedJaxpr(*fun_jaxpr_thunk())
        fun_jvp, _ = ad.jvp_jaxpr(fun_jaxpr, [True] * len(args), True)
        return fun_jvp.jaxpr, fun_jvp.consts

    outs = remat_opt_p.bind(
        *jaxpr_consts, *consts, *consts_dot, *args, *arg_dots,
        num_consts=len(jaxpr_consts) + n_c + n_cd, num_res=2 * num_res,
        fwd_jaxpr=core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), []),
        fun_jaxpr_thunk=fun_jvp_jaxpr_thunk)
    res, res_dot = outs[:num_res], outs[num_res:2 * num_res]
    out, out_dot = outs[2 * num_res:2 * num_res + num_out], outs[2 * num_res + num_out:]
    return [*res, *out], [*res_dot, *out_dot]


def _remat_opt_transpose(cts, *args, **params):
    raise NotImplementedError(
        "remat optimization for custom_vjp does not support higher-order AD")


def _remat_opt_batching(axis_data, args, dims, *, num_consts, num_res, fwd_jaxpr,
                        fun_jaxpr_thunk):
    args = [batching.moveaxis(x, d, 0) if d is not None and d != 0 else x
            for x, d in zip(args, dims)]
    in_batched = [d is not None for d in dims]
    batched, out_batched = batching.batch_jaxpr(fwd_jaxpr, axis_data, in_batched, False)
    extra = batched.consts
    batched = core.ClosedJaxpr(staging.convert_constvars_jaxpr(batched.jaxpr), [])

    @_memoize
    def batched_fun_jaxpr_thunk():
        fun_batched, _ = batching.batch_jaxpr(core.ClosedJaxpr(*fun_jaxpr_thunk()),
                                              axis_data, in_batched[num_consts:], False)
        return fun_batched.jaxpr, fun_batched.consts

    outs = remat_opt_p.bind(*extra, *args, num_consts=num_consts + len(extra),
                            num_res=num_res, fwd_jaxpr=batched,
                            fun_jaxpr_thunk=batched_fun_jaxpr_thunk)
    return outs, [0 if b else None for b in out_batched]


def _remat_opt_dce(used_outs, eqn):
    """Residuals used: the forward rule, pruned. None used: the plain function (a
    ``closed_call``), which may be much cheaper than a rule computing residuals."""
    if not any(used_outs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    params = eqn.params
    num_consts, num_res = params["num_consts"], params["num_res"]
    outvars = [v for used, v in zip(used_outs, eqn.outvars) if used]
    if any(used_outs[:num_res]):
        instantiate = [False] * num_consts + [True] * (len(eqn.invars) - num_consts)
        jaxpr, used_ins = pe.dce_jaxpr(params["fwd_jaxpr"].jaxpr, used_outs,
                                       instantiate=instantiate)
        new_params = dict(params, num_consts=sum(used_ins[:num_consts]),
                          num_res=sum(used_outs[:num_res]),
                          fwd_jaxpr=core.ClosedJaxpr(jaxpr, []))
        return used_ins, core.new_jaxpr_eqn(
            [v for used, v in zip(used_ins, eqn.invars) if used], outvars, remat_opt_p,
            new_params, eqn.effects, eqn.source_info)
    # (A call of the function's jaxpr: glassjax's ``closed_call`` is a jit so named.)
    fun_jaxpr, consts = params["fun_jaxpr_thunk"]()
    jaxpr, used_ins = pe.dce_jaxpr(fun_jaxpr, used_outs[num_res:])
    closed = core.ClosedJaxpr(jaxpr, consts)
    invars = [v for used, v in zip(used_ins, eqn.invars[num_consts:]) if used]
    return [False] * num_consts + used_ins, core.new_jaxpr_eqn(
        invars, outvars, jit_p, dict(jaxpr=closed, name="closed_call",
                                     donated_invars=(False,) * len(invars), inline=False,
                                     keep_unused=False),
        eqn.effects, eqn.source_info)


remat_opt_p.def_impl(_remat_opt_impl)
remat_opt_p.def_abstract_eval(lambda *avals, fwd_jaxpr, **_: fwd_jaxpr.out_avals)
lowering.register_lowering(remat_opt_p, lowering.lower_fun(_remat_opt_impl,
                                                           multiple_results=True))
ad.primitive_jvps[remat_opt_p] = _remat_opt_jvp
ad.primitive_transposes[remat_opt_p] = _remat_opt_transpose
batching.fancy_primitive_batchers[remat_opt_p] = _remat_opt_batching
pe.dce_rules[remat_opt_p] = _remat_opt_dce


def _check_for_tracers(x):
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, core.Tracer):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function "
                "in a position indicated by nondiff_argnums as non-differentiable. "
                "Tracers cannot be passed as non-differentiable arguments to custom_vjp "
                "functions; instead, nondiff_argnums should only be used for arguments "
                "that can't be or contain JAX tracers, e.g. function-valued arguments. "
                "In particular, array-valued arguments should typically not be indicated "
                "as nondiff_argnums.")


def _flatten_fwd(fwd, in_tree, out_type, trees, symbolic_zeros, primal_name, fwd_name):
    """The forward rule on flat primals (and which of them are perturbed). Returns the
    residuals that are not simply inputs, then the primal outputs; records
    ``(out_tree, res_tree, input_forwards)`` in ``trees``."""
    def flat(*args, perturbed):
        if symbolic_zeros:
            args = [CustomVJPPrimal(x, p) for x, p in zip(args, perturbed)]
        pair = fwd(*tree_unflatten(in_tree, args))
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(
                f"Custom VJP fwd rule {fwd_name} for function {primal_name} must produce a "
                "pair (list or tuple of length two) where the first element represents "
                "the primal output (equal to those of the custom_vjp-decorated function "
                f"{primal_name}) and the second element represents residuals (i.e. "
                "values stored from the forward pass for use on the backward pass), but "
                f"instead of a pair the fwd rule {fwd_name} produced {pair}.")
        primals_out, out_tree = tree_flatten(pair[0])
        res, res_tree = tree_flatten(pair[1])
        avals = [core.get_aval(x) for x in primals_out]
        if out_type:
            _check_primal_out(out_type[0], out_tree, avals, "custom_vjp", _FWD_PRIMAL_OUT,
                              primal_name, fwd_name)
        out_type[:] = [(out_tree, avals)]
        inputs = {id(x): i for i, x in enumerate(args)}
        forwards = [inputs.get(id(r)) for r in res]
        trees[:] = [(out_tree, res_tree, forwards)]
        return [*(r for r, f in zip(res, forwards) if f is None), *primals_out]
    return flat


def _flatten_bwd(bwd, in_tree, in_avals, out_trees):
    """The backward rule on flat ``(*residuals, *output cotangents)``, returning one
    cotangent per primal input (``Zero`` where the rule returned None), checked against
    the inputs' structure and types."""
    def flat(*args):
        out_tree, res_tree, _ = out_trees()
        # JAX hands the residuals to a primitive first, which canonicalizes them: a
        # Python 3 comes back as TypedInt(3, dtype=int32).
        res = tree_unflatten(res_tree, map(core.canonicalize_value,
                                           args[:res_tree.num_leaves]))
        cts_out = tree_unflatten(out_tree, args[res_tree.num_leaves:])
        cts_in = bwd(res, cts_out)
        if isinstance(cts_in, list) and len(cts_in) == len(in_tree.children()):
            cts_in = tuple(cts_in)
        zero = object()
        dummy = tree_unflatten(in_tree, [object()] * in_tree.num_leaves)
        keypaths = [p for p, _ in tree_util.tree_flatten_with_path(dummy)[0]]
        flat_cts = []

        def append(x, d):
            n = len(tree_flatten(d)[0])
            if x is None and d is not None:
                flat_cts.extend([zero] * n)
            elif x is not None:
                flat_cts.extend([x] * n)
            return x

        try:
            if not isinstance(cts_in, tuple):
                raise ValueError
            tree_map(append, cts_in, dummy, is_leaf=lambda x: x is None)
        except ValueError:
            tree2 = tree_flatten(cts_in)[1]
            raise TypeError(
                "Custom VJP bwd rule must produce an output with the same container "
                "(pytree) structure as the args tuple of the primal function, and in "
                "particular must produce a tuple of length equal to the number of "
                "arguments to the primal function, but got bwd output structure "
                f"{tree2} for primal input structure {in_tree}.") from None
        return [_bwd_cotangent(kp, a, ct, zero)
                for kp, a, ct in zip(keypaths, in_avals, flat_cts)]
    return flat


def _bwd_cotangent(keypath, aval, ct, zero):
    ct_aval = aval.to_tangent_aval()
    if ct is zero or ct_aval.dtype == dtypes.float0:
        return ad.Zero(ct_aval)
    if type(ct) is SymbolicZero:
        if (ct.aval.shape, ct.aval.dtype) != (ct_aval.shape, ct_aval.dtype):
            raise ValueError(
                "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                "not match the corresponding input tangent shape/dtype: at output"
                f"{tree_util.keystr(keypath)} the SymbolicZero had shape/dtype "
                f"{ct.aval.str_short()} while the corresponding input had shape/dtype "
                f"{aval.str_short()}. Consider just returning a None here instead of a "
                "SymbolicZero object.")
        return ad.Zero(ct.aval)
    got = core.get_aval(ct)
    if got.shape != ct_aval.shape or (got.dtype != ct_aval.dtype and not (
            dtypes.issubdtype(ct_aval.dtype, np.inexact))):
        raise ValueError(
            "Custom VJP bwd rule must produce an output with the same type as the args "
            f"tuple of the primal function, but at output{tree_util.keystr(keypath)} the "
            f"bwd rule produced an output of type {got.str_short()} corresponding to an "
            f"input of type {aval.str_short()}{_mismatch_extra(aval, got)}")
    return ct


def _mismatch_extra(a, b) -> str:
    """``, so the shapes do not match`` and the like, as JAX explains a type mismatch."""
    mismatches = [what for what, differ in (("the dtypes do not match", a.dtype != b.dtype),
                                            ("the shapes do not match", a.shape != b.shape))
                  if differ]
    if not mismatches:
        return ""
    return ", so " + (mismatches[0] if len(mismatches) == 1 else
                      ", ".join(mismatches[:-1]) + ", and " + mismatches[-1])


class CustomVJPCallPrimitive(core.Primitive):
    """``custom_vjp_call(fun, fwd, bwd, *args)``: each trace picks what it needs."""
    multiple_results = True

    def bind(self, fun, fwd, bwd, *args, out_trees, symbolic_zeros):
        params = dict(out_trees=out_trees, symbolic_zeros=symbolic_zeros)
        args = map(core.canonicalize_value, args)      # as custom_jvp_call's bind
        return self.bind_with_trace(core.trace_ctx.trace, (fun, fwd, bwd, *args), params)

    def bind_with_trace(self, trace, args, params):
        fun, fwd, bwd, *args = args
        with core.set_current_trace(trace):
            return trace.process_custom_vjp_call(self, fun, fwd, bwd, args, **params)

    def get_bind_params(self, params):
        call_jaxpr, num_consts = params["call_jaxpr"], params["num_consts"]
        fun = Rule(core.jaxpr_as_fun(call_jaxpr), _jaxpr_name(call_jaxpr))
        fwd_thunk, bwd = params["fwd_jaxpr_thunk"], params["bwd"]
        fwd = Rule(functools.partial(_lifted_fwd, num_consts, fwd_thunk), fwd_thunk.name)
        const_avals = call_jaxpr.in_avals[:num_consts]
        bwd = Rule(functools.partial(_bwd_with_consts, const_avals, bwd), bwd.name)
        return [fun, fwd, bwd], dict(out_trees=params["out_trees"],
                                     symbolic_zeros=params["symbolic_zeros"])


custom_vjp_call_p = CustomVJPCallPrimitive("custom_vjp_call")
custom_vjp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)
staging.effects_rules[custom_vjp_call_p] = lambda call_jaxpr, **_: (
    call_jaxpr.effects & {core.state_effect})     # (refs inside: discharged to compile)
custom_vjp_call_p.drawing = core.Drawing("custom", "custom_vjp_call", body="call_jaxpr",
                                        note="its derivative is a custom fwd/bwd pair")
lowering.register_lowering(custom_vjp_call_p, _custom_call_lowering)


class CustomVJPException(Exception):
    def __init__(self):
        super().__init__(
            "Detected differentiation of a custom_vjp function with respect to a "
            "closed-over value. That isn't supported because the custom VJP rule only "
            "specifies how to differentiate the custom_vjp function with respect to "
            "explicit input parameters. Try passing the closed-over value into the "
            "custom_vjp function as an argument, and adapting the custom_vjp fwd and bwd "
            "rules.")


def _lifted_fwd(num_consts, fwd_jaxpr_thunk, *args, perturbed):
    if any(perturbed[:num_consts]):
        raise CustomVJPException()
    jaxpr, consts = fwd_jaxpr_thunk(*perturbed[num_consts:])
    return core.eval_jaxpr(jaxpr, consts, *args[num_consts:])


def _bwd_with_consts(const_avals, bwd, *args):
    return [*(ad.Zero(a.to_tangent_aval()) for a in const_avals), *bwd.call_wrapped(*args)]


class FwdJaxprThunk(_RuleJaxprThunk):
    """The forward rule of a staged ``custom_vjp_call``; the pattern says which inputs
    are perturbed."""

    def _trace(self, perturbed):
        fwd = lambda *args: self.rule.call_wrapped(*args, perturbed=list(perturbed))
        jaxpr, consts, _ = staging.trace_to_jaxpr(fwd, self.in_avals)
        return jaxpr, consts


def stage_custom_vjp(trace, primitive, fun, fwd, bwd, tracers, out_trees, symbolic_zeros):
    """How the staging trace records a custom_vjp function: one equation holding the
    function's jaxpr, the forward rule (traced lazily) and the backward rule."""
    tracers = [trace.to_tracer(t) for t in tracers]
    in_avals = [t.aval for t in tracers]
    call_jaxpr, consts = _trace_call(fun, in_avals, "custom_vjp fun")
    num_consts = len(consts)

    def out_trees_with_consts():
        out_tree, res_tree, forwards = out_trees()
        return out_tree, res_tree, [f if f is None else f + num_consts for f in forwards]

    params = dict(call_jaxpr=call_jaxpr,
                  fwd_jaxpr_thunk=FwdJaxprThunk(fwd, in_avals, fwd.name),
                  num_consts=num_consts, bwd=bwd, out_trees=out_trees_with_consts,
                  symbolic_zeros=symbolic_zeros)
    return trace.add_eqn(primitive, [*map(trace.to_tracer, consts), *tracers],
                         call_jaxpr.out_avals, params)


def _custom_vjp_call_pp(eqn, context, settings):
    params = dict(eqn.params)
    if not params["num_consts"]:
        del params["num_consts"]
    del params["out_trees"]
    params["fwd"] = params.pop("fwd_jaxpr_thunk").name
    params["bwd"] = params["bwd"].name
    names = sorted(params)
    params["name"] = _jaxpr_name(eqn.params["call_jaxpr"])
    return pretty.pp_eqn_default(eqn.replace(params=params), context, settings,
                                 params=["name", *names])


pretty.pp_eqn_rules[custom_vjp_call_p] = _custom_vjp_call_pp


class PrunedFwdThunk:
    """A custom VJP forward rule's jaxpr returning the residuals and the used outputs."""

    def __init__(self, thunk, out_trees, used_outs):
        self.thunk, self.out_trees, self.used_outs = thunk, out_trees, used_outs
        self.name = thunk.name
        self._cache = _rule_jaxprs.new()

    def __call__(self, *perturbed):
        if perturbed not in self._cache:
            jaxpr, consts = self.thunk(*perturbed)
            _, res_tree, forwards = self.out_trees()
            num_res = res_tree.num_leaves - sum(f is not None for f in forwards)
            as_inputs = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
            pruned, _ = pe.dce_jaxpr(as_inputs, [True] * num_res + list(self.used_outs),
                                     instantiate=True)
            n = len(jaxpr.constvars)
            self._cache[perturbed] = (pruned.replace(constvars=pruned.invars[:n],
                                                     invars=pruned.invars[n:]), consts)
        return self._cache[perturbed]

    def __str__(self):
        return self.name


def _pruned_bwd(bwd, out_trees, used_outs, out_avals, symbolic_zeros):
    """The backward rule called with cotangents of the used outputs only: the others
    are zeros again (symbolic if the rule asked for them) before the user's rule runs."""
    def call(*args):
        _, res_tree, _ = out_trees()
        res, cts = args[:res_tree.num_leaves], iter(args[res_tree.num_leaves:])
        all_cts = [next(cts) if used else
                   SymbolicZero(aval.to_tangent_aval()) if symbolic_zeros else
                   ad.zeros_like_aval(aval.to_tangent_aval())
                   for used, aval in zip(used_outs, out_avals)]
        return bwd.call_wrapped(*res, *all_cts)
    return Rule(call, bwd.name)


def _custom_vjp_call_dce(used_outs, eqn):
    if not any(used_outs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    p = eqn.params
    params = dict(p, call_jaxpr=_prune_call_jaxpr(p["call_jaxpr"], used_outs),
                  fwd_jaxpr_thunk=PrunedFwdThunk(p["fwd_jaxpr_thunk"], p["out_trees"],
                                                 used_outs),
                  bwd=_pruned_bwd(p["bwd"], p["out_trees"], used_outs,
                                  p["call_jaxpr"].out_avals, p["symbolic_zeros"]))
    outvars = [v for v, u in zip(eqn.outvars, used_outs) if u]
    return [True] * len(eqn.invars), eqn.replace(outvars=outvars, params=params)


pe.dce_rules[custom_vjp_call_p] = _custom_vjp_call_dce


def _custom_lin_pp(eqn, context, settings):
    params = dict(eqn.params)
    del params["out_avals"]
    params["bwd"] = params["bwd"].name
    return pretty.pp_eqn_default(eqn.replace(params=params), context, settings)


pretty.pp_eqn_rules[ad.custom_lin_p] = _custom_lin_pp


def _custom_lin_error(*args, **params):
    """Batching or compiling ``custom_lin`` means it is being evaluated: forward mode."""
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


batching.primitive_batchers[ad.custom_lin_p] = _custom_lin_error
lowering.register_lowering(ad.custom_lin_p, _custom_lin_error)


# ----------------------------------------------------------------------------------------
# closure_convert
# ----------------------------------------------------------------------------------------

def closure_convert(fun, *example_args):
    """``fun`` with the values it closes over that might be differentiated (tracers with
    possibly nonzero tangents) turned into extra trailing arguments.

    Returns ``(converted_fun, hoisted_consts)``: ``converted_fun(*args, *hoisted_consts)``
    equals ``fun(*args)``. Custom derivative rules need this to differentiate with
    respect to closed-over values (they only see explicit arguments)."""
    flat_args, in_tree = tree_flatten(example_args)
    in_avals = [core.get_aval(x) for x in flat_args]
    out_tree: list = []

    def flat_fun(*args):
        outs, tree = tree_flatten(fun(*tree_unflatten(in_tree, args)))
        out_tree[:] = [tree]
        return outs

    jaxpr, consts, _ = staging.trace_to_jaxpr(flat_fun, in_avals)
    perturbed = [_maybe_perturbed(c) for c in consts]
    closure_consts = [c for c, p in zip(consts, perturbed) if not p]
    hoisted = [c for c, p in zip(consts, perturbed) if p]

    def converted_fun(*args_and_consts):
        n = len(args_and_consts) - len(hoisted)
        args, hoisted_ = args_and_consts[:n], iter(args_and_consts[n:])
        closure = iter(closure_consts)
        all_consts = [next(hoisted_) if p else next(closure) for p in perturbed]
        flat, tree = tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same "
                "Pytree structure as the example arguments passed when closure_convert was "
                f"called. Expected {in_tree}, but got {tree}")
        return tree_unflatten(out_tree[0], core.eval_jaxpr(jaxpr, all_consts, *flat))

    return converted_fun, hoisted


def _maybe_perturbed(x) -> bool:
    """Could ``x`` carry a nonzero tangent? Not if it is a constant, or a staged value of
    a type without tangents (float0); AD tracers might."""
    if not isinstance(x, core.Tracer):
        return False
    if isinstance(x, staging.DynamicJaxprTracer):
        return x.aval.to_tangent_aval().dtype != dtypes.float0
    return True


# ----------------------------------------------------------------------------------------
# custom_gradient: a custom_vjp written as one function
# ----------------------------------------------------------------------------------------

def custom_gradient(fun):
    """``fun(*args) -> (output, vjp_rule)``, where ``vjp_rule(output_cotangent)`` returns
    one cotangent per argument, as a function with that gradient (TensorFlow's style).

    It is a ``custom_vjp`` whose forward pass traces ``vjp_rule`` into a jaxpr; the
    values the rule closes over become that jaxpr's constants, and so the residuals."""
    @custom_vjp
    def wrapped(*args, **kwargs):
        out, _ = fun(*args, **kwargs)
        return out

    def fwd(*args, **kwargs):
        out, rule = fun(*args, **kwargs)
        out_flat, out_tree = tree_flatten((out,))
        ct_avals = [core.get_aval(x).to_tangent_aval() for x in out_flat]
        in_tree = []

        def flat_rule(*cts_flat):
            cts_in = rule(*tree_unflatten(out_tree, cts_flat))
            leaves, tree = tree_flatten(cts_in)
            in_tree.append(tree)
            return leaves
        jaxpr, consts, _ = staging.trace_to_jaxpr(flat_rule, ct_avals)
        return out, _GradientRule(jaxpr, in_tree[0], out_tree, consts)

    def bwd(rule, cts):
        cts_flat, tree = tree_flatten((cts,))
        if tree != rule.out_tree:
            raise TypeError(f"{rule.out_tree}\n!=\n{tree}")
        cts_in = tree_unflatten(rule.in_tree,
                                core.eval_jaxpr(rule.jaxpr, rule.consts, *cts_flat))
        return (cts_in,) if tree_util.treedef_is_leaf(rule.in_tree) else cts_in

    wrapped.defvjp(fwd, bwd)
    return wrapped


class _GradientRule:
    """A traced ``vjp_rule``: a pytree whose leaves are the values it closes over."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


tree_util.register_pytree_node(
    _GradientRule, lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
    lambda aux, consts: _GradientRule(*aux, list(consts)))


core.hooks.register(stage_custom_jvp=stage_custom_jvp, stage_custom_vjp=stage_custom_vjp)


# ----------------------------------------------------------------------------------------
# linear_call: a linear function with a transpose of one's own
# ----------------------------------------------------------------------------------------

def _trace_flat(fun, in_tree, avals):
    """``fun(*tree)`` traced at ``avals``: its jaxpr with the constants as leading
    inputs, the constants, and the output tree."""
    out_tree = []

    def flat_fun(*args):
        outs, tree = tree_flatten(fun(*tree_unflatten(in_tree, args)))
        out_tree[:] = [tree]
        return outs
    jaxpr, consts, _ = staging.trace_to_jaxpr(flat_fun, avals)
    return core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), []), consts, out_tree[0]


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, linear in ``linear_args``, whose transpose is
    ``fun_transpose(residual_args, cotangent)`` rather than what transposing ``fun``'s
    operations would give (the transpose of a ``linear_call`` is a ``linear_call`` of
    ``fun_transpose``, with ``fun`` as *its* transpose)."""
    operands_res, res_tree = tree_flatten(residual_args)
    operands_lin, lin_tree = tree_flatten(linear_args)
    res_avals = [core.get_aval(x) for x in operands_res]
    lin_avals = [core.get_aval(x) for x in operands_lin]
    callee, f_consts, out_tree = _trace_flat(
        fun, tree_util.treedef_tuple((res_tree, lin_tree)), res_avals + lin_avals)

    @_memoize
    def transpose_thunk():
        transpose, t_consts, t_out_tree = _trace_flat(
            fun_transpose, tree_util.treedef_tuple((res_tree, out_tree)),
            res_avals + list(callee.out_avals))
        if t_out_tree != lin_tree:
            raise TypeError("transpose output pytree structure must match that of linear "
                            f"inputs, got output structure {t_out_tree} and input "
                            f"structure {lin_tree}.")
        return transpose, t_consts

    out = linear_call_p.bind(*f_consts, *operands_res, *operands_lin, callee=callee,
                             transpose_thunk=transpose_thunk,
                             num_callee_consts=len(f_consts), num_res=len(operands_res))
    return tree_unflatten(out_tree, out)


linear_call_p = core.Primitive("linear_call")
linear_call_p.multiple_results = True
linear_call_p.def_impl(lambda *args, callee, **_: core.eval_jaxpr(callee.jaxpr, (), *args))
linear_call_p.def_abstract_eval(lambda *avals, callee, **_: list(callee.out_avals))
lowering.register_lowering(linear_call_p, lambda ctx, *args, callee, **_:
                           lowering.lower_closed_jaxpr(ctx.module_context, callee, args))


def _linear_call_jvp(primals, tangents, *, num_callee_consts, num_res, **params):
    """Linear in its linear inputs: the tangent is the same call on their tangents."""
    k = num_callee_consts + num_res
    outs = linear_call_p.bind(*primals, num_callee_consts=num_callee_consts,
                              num_res=num_res, **params)
    tangents_out = linear_call_p.bind(*primals[:k],
                                      *map(ad.instantiate_zeros, tangents[k:]),
                                      num_callee_consts=num_callee_consts,
                                      num_res=num_res, **params)
    return outs, tangents_out


def _linear_call_transpose_rule(cts, *args, callee, transpose_thunk, num_callee_consts,
                           num_res):
    """The call of ``fun_transpose`` on the cotangents, whose own transpose is ``fun``."""
    transpose, t_consts = transpose_thunk()
    f_consts = args[:num_callee_consts]
    operands_res = args[num_callee_consts:num_callee_consts + num_res]
    cts_avals = transpose.in_avals[len(t_consts) + num_res:]
    cts = [ad.zeros_like_aval(a) if isinstance(ct, ad.Zero) else ct
           for ct, a in zip(cts, cts_avals)]

    def new_transpose_thunk():
        return callee, f_consts
    cts_out = linear_call_p.bind(*t_consts, *operands_res, *cts, callee=transpose,
                                 transpose_thunk=new_transpose_thunk,
                                 num_callee_consts=len(t_consts), num_res=num_res)
    return [None] * (num_callee_consts + num_res) + list(cts_out)


ad.primitive_jvps[linear_call_p] = _linear_call_jvp
ad.primitive_transposes[linear_call_p] = _linear_call_transpose_rule
