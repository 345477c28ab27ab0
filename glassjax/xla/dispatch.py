"""Dispatch: running jaxprs and single primitives on a device.

Eager execution (``jnp.sin(x)`` outside any transformation) is ``apply_primitive``: the
primitive is staged into a one-equation jaxpr, lowered, compiled once per (primitive,
params, input types) and executed. So an eager result is computed by exactly the same
XLA code as the jitted one.

Programs with host callbacks (``debug.print``, ``pure_callback``) may still be calling
back into Python after the call that dispatched them has returned: the last such
execution per device is remembered, and ``effects_barrier`` waits for them. A program
with *ordered* effects also takes each effect's token from the previous such program
and returns the next one (``lowering.ordered_effects``): XLA starts its callbacks only
once the previous program's are done, without Python waiting for them.
"""
from __future__ import annotations

import atexit
from typing import NamedTuple, Sequence

import numpy as np

from glassjax import config, core, tree_util
from glassjax.xla import fastpath, lowering, runtime


class Compiled:
    """An XLA executable together with what is needed to call it."""
    __slots__ = ("executable", "in_avals", "out_avals", "kept_invars", "device",
                 "donated_invars", "module_context", "ordered_effects")

    def __init__(self, executable, in_avals, out_avals, kept_invars, device,
                 donated_invars, module_context, ordered_effects=()):
        self.executable = executable
        self.in_avals = in_avals
        self.out_avals = out_avals
        self.kept_invars = kept_invars
        self.device = device
        self.donated_invars = donated_invars
        self.module_context = module_context
        self.ordered_effects = ordered_effects

    def __call__(self, *args):
        args = [getattr(a, "_base_array", a)      # typed keys are passed as their words
                for a, keep in zip(args, self.kept_invars) if keep]
        for a in args:
            if isinstance(a, runtime.ArrayImpl):
                runtime.check_not_deleted(a)
        committed = runtime.committed_device(args) is not None
        arrays = [runtime.device_put(a, self.device) for a in args]
        if not self.module_context.host_callbacks and not self.ordered_effects:
            outs = runtime.execute(self.executable, arrays, self.out_avals,
                                   committed=committed)
        else:
            n = len(self.ordered_effects)
            tokens_in = [runtime.device_put(_effect_tokens.get(e, _NO_TOKEN), self.device)
                         for e in self.ordered_effects]
            outs, token = runtime.execute(self.executable, [*tokens_in, *arrays],
                                          [_TOKEN_AVAL] * n + list(self.out_avals),
                                          committed=committed, with_token=True)
            _effect_tokens.update(zip(self.ordered_effects, outs[:n]))
            _running_callbacks[self.device] = token
            outs = outs[n:]
        if needs_check_special():
            check_special(outs)
        return outs


# -- jax_debug_nans / jax_debug_infs ------------------------------------------------------

class InternalFloatingPointError(Exception):
    """An execution produced a NaN or an infinity while ``jax_debug_nans`` /
    ``jax_debug_infs`` is set. Callers turn it into JAX's ``FloatingPointError``: an
    eager primitive names itself; a jit call re-runs its function un-jitted, so that the
    primitive that made the value raises."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


def needs_check_special() -> bool:
    return config.jax_debug_nans or config.jax_debug_infs


def check_special(outs):
    for out in outs:
        if not np.issubdtype(out.dtype, np.inexact):
            continue
        value = np.asarray(out)
        if config.jax_debug_nans and np.isnan(value).any():
            raise InternalFloatingPointError("nan")
        if config.jax_debug_infs and np.isinf(value).any():
            raise InternalFloatingPointError("inf")


# An ordered effect's token crosses between executions as an empty array.
_TOKEN_AVAL = core.ShapedArray((0,), np.bool_)
_NO_TOKEN = np.zeros(0, np.bool_)
# ordered effect -> the token returned by the last execution having it
_effect_tokens: dict = {}


# device -> token of the last execution with host callbacks dispatched there (executions
# on one device run in order, so waiting for the last one waits for all).
_running_callbacks: dict = {}


@atexit.register
def effects_barrier():
    """Wait until every computation dispatched so far has run its host callbacks (also at
    exit, so that no callback is cut off)."""
    while _running_callbacks:
        _, token = _running_callbacks.popitem()
        token.block_until_ready()
    _effect_tokens.clear()


def compile_jaxpr(name: str, closed: core.ClosedJaxpr, device=None, *,
                  donated_invars=None, keep_unused=False, result_names=None) -> Compiled:
    """Lower and compile a closed jaxpr as the ``main`` of a module named ``jit_<name>``."""
    lowered = lower_jaxpr(name, closed, donated_invars=donated_invars,
                          keep_unused=keep_unused, result_names=result_names)
    return compile_lowered(closed, lowered, device)


class LoweredJaxpr(NamedTuple):
    module_context: lowering.ModuleContext
    kept_invars: list       # which of the jaxpr's inputs ``main`` takes
    donated: list           # donation flags of the kept inputs


def lower_jaxpr(name: str, closed: core.ClosedJaxpr, *, donated_invars=None,
                keep_unused=False, result_names=None) -> LoweredJaxpr:
    """The StableHLO module of a closed jaxpr, ``main`` in a module named ``jit_<name>``.

    Unused inputs are dropped from ``main``'s signature unless ``keep_unused`` (JAX's
    default too), so XLA does not hold buffers it never reads."""
    pruned, kept = prune_for_lowering(closed, keep_unused)
    donated = [d for d, k in zip(donated_invars or [False] * len(kept), kept) if k]
    mctx = lowering.lower_module(lowering.module_name("jit", name), pruned,
                                 donated_invars=donated, result_names=result_names)
    return LoweredJaxpr(mctx, kept, donated)


def compile_lowered(closed: core.ClosedJaxpr, lowered: LoweredJaxpr, device=None
                    ) -> Compiled:
    """Compile the module ``lower_jaxpr`` made of ``closed`` for one device."""
    device = device or runtime.default_device()
    mctx = lowered.module_context
    exe = runtime.compile(mctx.module, devices=[device],
                          host_callbacks=mctx.host_callbacks)
    ordered = lowering.ordered_effects(closed.jaxpr.effects)
    return Compiled(exe, closed.in_avals, closed.out_avals, lowered.kept_invars, device,
                    lowered.donated, mctx, ordered)


def prune_for_lowering(closed: core.ClosedJaxpr, keep_unused=False):
    """What a jit lowers, as in JAX: the jaxpr without its dead equations (and the
    constants only they read), and without the inputs nothing reads unless
    ``keep_unused``. Returns the pruned jaxpr and which inputs it kept."""
    from glassjax.interpreters import partial_eval as pe   # late: it sits above dispatch
    jaxpr, consts = pe.dce_jaxpr_consts(closed.jaxpr, closed.consts)
    kept = [keep_unused or u for u in lowering_used_invars(jaxpr)]
    jaxpr = jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, kept) if k])
    return core.ClosedJaxpr(jaxpr, consts), kept


def lowering_used_invars(jaxpr: core.Jaxpr) -> list[bool]:
    used = {v for v in jaxpr.outvars if isinstance(v, core.Var)}
    for eqn in jaxpr.eqns:
        used.update(a for a in eqn.invars if isinstance(a, core.Var))
    return [v in used for v in jaxpr.invars]


def _hashable_params(params):
    return tuple(sorted((k, _hashable(v)) for k, v in params.items()))


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, (core.Jaxpr, core.ClosedJaxpr)):
        return ("jaxpr", v)     # hashed by identity; the key keeps it alive
    if isinstance(v, np.ndarray):
        return ("ndarray", v.tobytes(), v.shape, v.dtype)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


def _compile_primitive(primitive, params, in_avals, device) -> Compiled:
    from glassjax.interpreters import staging     # late: it sits above dispatch
    invars = [core.Var(a) for a in in_avals]
    out_avals = primitive.abstract_eval(*in_avals, **params)
    outs = list(out_avals) if primitive.multiple_results else [out_avals]
    outvars = [core.Var(a) for a in outs]
    effects = staging.primitive_effects(primitive, params)   # (dead code keeps them)
    eqn = core.JaxprEqn(invars, outvars, primitive, params, effects)
    closed = core.ClosedJaxpr(core.Jaxpr([], invars, outvars, [eqn], effects), [])
    return compile_jaxpr(primitive.name, closed, device, keep_unused=True)


# (primitive, params, input avals, device, x64) -> Compiled
_primitive_cache: dict = {}


def _run_primitive(primitive, params, args):
    """The Python path of an eager primitive: compile (once per input types), run."""
    in_avals = tuple(core.get_aval(a) for a in args)
    names = [f"args[{i}]" for i in range(len(args))]       # (how JAX names them)
    device = runtime.committed_device(args, names, primitive.name) or \
        runtime.default_device()
    key = (primitive, _hashable_params(params), in_avals, device, config.jax_enable_x64)
    compiled = _primitive_cache.get(key)
    if compiled is None:
        compiled = _primitive_cache[key] = _compile_primitive(primitive, params,
                                                              in_avals, device)
    outs = compiled(*args)
    return compiled, (outs if primitive.multiple_results else outs[0])


def _run_primitive_checked(primitive, params, args):
    try:
        return _run_primitive(primitive, params, args)
    except InternalFloatingPointError as err:
        raise FloatingPointError(f"invalid value ({err.kind}) encountered in "
                                 f"{primitive.name}") from None


def _primitive_callable(primitive, params):
    """A C++ dispatcher (``fastpath``) running ``primitive`` with ``params``: after the
    first call with some input types, later calls never enter Python."""
    def run(*args):
        return _run_primitive_checked(primitive, params, args)[1]

    def cache_miss(*args):
        compiled, out = _run_primitive_checked(primitive, params, args)
        outs = out if primitive.multiple_results else [out]
        tree = tree_util.tree_structure(out)
        return out, fastpath.fastpath_data(compiled, outs, tree), False

    run.__name__ = run.__qualname__ = primitive.name
    return fastpath.cpp_function(primitive.name, run, cache_miss)


# (primitive, params) -> C++ callable; emptied when it grows large (params may hold jaxprs)
_primitive_callables: dict = {}


def apply_primitive(primitive, *args, **params):
    """Run one primitive eagerly on concrete arguments (its ``impl``), like JAX: through
    a cached C++ dispatcher, so that an eager op costs about what a jit call costs."""
    try:
        key = (primitive, *params.items())     # cheap, and enough for most parameters
        fun = _primitive_callables.get(key)
    except TypeError:                          # lists, arrays, dicts among the values
        try:
            key = (primitive, _hashable_params(params))
            fun = _primitive_callables.get(key)
        except TypeError:                      # unhashable after all: the Python path
            return _run_primitive_checked(primitive, params, args)[1]
    if fun is None:
        if len(_primitive_callables) > 4096:
            _primitive_callables.clear()
        fun = _primitive_callables[key] = _primitive_callable(primitive, params)
    return fun(*args)


def execute_closed_jaxpr(name: str, closed: core.ClosedJaxpr, args: Sequence, **kw):
    """Compile (uncached) and run: used by ``jit`` primitives met in eager interpretation
    of a jaxpr; the ``jit`` API keeps its own cache."""
    return compile_jaxpr(name, closed, runtime.committed_device(args), **kw)(*args)
