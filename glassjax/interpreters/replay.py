"""Staging a library function once per argument types, and replaying its equations after.

A ``jnp`` function does a lot of Python before it binds its one or two primitives: it
checks its arguments, promotes their dtypes and ranks, picks dimension numbers. In JAX
every ``jnp`` function is a ``jit``, so that work runs once per argument types: the
jit's trace is cached and inlined into the caller's jaxpr. ``replayed(fun)`` gives a
glassjax function the same economy without a jit: the first call under a staging trace
records the equations ``fun`` staged (a ``Recipe``), and a later call with arguments of
the same types appends the same equations again, with their output types, params and
effects already known, without running ``fun``'s Python at all. The jaxpr is the same
either way; only the time to build it differs.

A call is replayed only when nothing but its arguments' types can change what it
stages:

- every argument is a value of the jaxpr being built (a variable, or a constant array:
  not a constant scalar, whose conversions constant folding computes), a device array
  or a value of an enclosing trace (not a scalar), which enter the jaxpr as constants,
  or a Python bool/int/float, which keys the recipe by value;
- the trace is a plain ``DynamicJaxprTrace`` (no varying manual axes, no compile-time
  evaluation), no argument is placed off-device or split over mesh axes
  (``core.placed_types``), and the configuration is the one recorded (its trace
  context);
- the recording staged only primitives whose output types follow from their operand
  types and params (lax's array operations; ``custom_jvp_call``, whose params, its
  ``call_jaxpr`` included, are then shared as JAX's cached jit trace shares them), on
  the arguments, on each other's results and on literals, raised no warning, and
  returned one staged value; its arguments were distinct values (a recipe recorded
  for ``x * y`` serves ``x * x`` too, but one recorded for ``x * x`` cannot tell which
  operand was which).

Anything else runs ``fun`` as usual, which stays the reference: a recipe is only ever a
copy of what ``fun`` itself staged for those types. Reference mode
(``glassjax_reference_mode``, see ``glassjax/caches.py``) never replays: every call runs
``fun``.
"""
from __future__ import annotations

import functools
import warnings

from glassjax import caches, core
from glassjax.config import config
from glassjax.interpreters import staging

_RECIPES_SIZE = 256               # per function
_recipes = caches.family("interpreters.replay.recipes", bound=_RECIPES_SIZE, shortcut=True)
_RUN = object()     # in place of a recipe: calls with these argument types run the function
_ALIASED = object()     # (see ``_recipe``)
_ARRAY = object()       # (in a key: a concrete array of this type)
_SCALARS = (bool, int, float)


class Literal:
    """A recipe's operand that is a literal (a scalar written inline), by value."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Recipe:
    """The equations one call staged. Values are numbered as replaying makes them: the
    call's arguments first, then each equation's outputs. Each step is the primitive,
    its operands (value numbers, or ``Literal``s), its output type(s), params and
    effects; ``result`` numbers the value the call returned; ``arrays`` numbers the
    arguments that enter the jaxpr as constants (device arrays, values of enclosing
    traces), in the order the equations first use them (the order of the jaxpr's
    constants)."""
    __slots__ = ("steps", "result", "arrays")

    def __init__(self, steps, result, arrays):
        self.steps = steps
        self.result = result
        self.arrays = arrays

    def replay(self, trace, args):
        values = list(args)
        for i in self.arrays:
            values[i] = trace.to_tracer(values[i])
        for primitive, operands, out_avals, params, effects in self.steps:
            tracers = [values[o] if type(o) is int else trace.to_tracer(o.value)
                       for o in operands]
            out = trace.append_eqn(primitive, tracers, out_avals, params, effects)
            if primitive.multiple_results:
                values.extend(out)
            else:
                values.append(out)
        return values[self.result]


def replayed(fun):
    """``fun``, replayed from a recipe when called again under a staging trace with
    arguments of the same types (see the module docstring)."""
    recipes = _recipes.new()

    @functools.wraps(fun)
    def call(*args, **kwargs):
        trace = core.trace_ctx.trace
        if (type(trace) is not staging.DynamicJaxprTrace or caches.reference.on or
                core.trace_ctx.vma_axes is not None or config.eager_constant_folding or
                core.placed_types.seen and
                core.placed_types.among([getattr(a, "aval", None) for a in args])):
            return fun(*args, **kwargs)
        key = _key(trace, args, kwargs)
        if key is None:
            return fun(*args, **kwargs)
        try:
            recipe = recipes.get(key)
        except TypeError:                   # an unhashable keyword argument
            return fun(*args, **kwargs)
        if recipe is _RUN:
            return fun(*args, **kwargs)
        if recipe is not None:
            return recipe.replay(trace, args)
        if _aliased(trace, args):
            return fun(*args, **kwargs)     # (not recorded; see the module docstring)
        start = len(trace.eqns)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fun(*args, **kwargs)
        for w in caught:                     # shown as if never caught; not recorded
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                   source=w.source)
        recipe = _RUN if caught else _recipe(trace, args, trace.eqns[start:], out)
        if recipe is not _ALIASED:
            if len(recipes) >= _RECIPES_SIZE:
                recipes.clear()
            recipes[key] = recipe
        return out
    return call


def _key(trace, args, kwargs):
    """What the staged equations may depend on: the arguments' types (values, for
    Python scalars), the keyword arguments and the configuration; None when an
    argument could change them otherwise (a constant scalar, a tracer of another
    trace)."""
    parts = []
    for a in args:
        t = type(a)
        if t is trace.tracer_type and a._trace is trace:
            if a.variable in trace.var_consts and not getattr(a.aval, "shape", ()):
                return None         # a constant scalar: conversions of it are folded
            parts.append(a.aval)
        elif t is float:
            parts.append((t, a.hex()))      # (exact: 0.0 and -0.0 differ, nan is nan)
        elif t is int or t is bool:
            parts.append((t, a))
        elif type(getattr(a, "aval", None)) is core.ShapedArray and a.aval.shape:
            # A device array, or a tracer of an enclosing trace (a scan body's closure):
            # a constant of this jaxpr, of that type. (Not a scalar: see above.)
            parts.append((_ARRAY, a.aval))
        else:
            return None
    return (tuple(parts), tuple(kwargs.items()) if kwargs else (), config.trace_context())


def _aliased(trace, args) -> bool:
    """Is one value passed twice (``x * x``)? Then a recipe could not tell which
    operand is which."""
    ids = [id(a.variable) if type(a) is trace.tracer_type and a._trace is trace else id(a)
           for a in args if type(a) not in _SCALARS]
    return len(set(ids)) < len(ids)


def _recipe(trace, args, eqns, out):
    """The recipe of a call that staged ``eqns`` and returned ``out``; ``_RUN`` when it
    cannot be replayed (see the module docstring), ``_ALIASED`` when only these
    arguments prevent it."""
    if type(out) is not trace.tracer_type or out._trace is not trace:
        return _RUN
    number, constants, arrays = {}, set(), []
    for i, a in enumerate(args):
        if type(a) is trace.tracer_type and a._trace is trace:
            var = a.variable
        elif type(a) in _SCALARS:
            continue
        else:           # a device array or an enclosing trace's value: its constant
            var = trace.const_vars.get(id(a))
            constants.add(i)
        if var in number:
            return _ALIASED                  # (a constant also passed as its tracer)
        number[var] = i
    count = len(args)
    steps = []
    for eqn in eqns:
        if not eqn.primitive.abstract_eval_is_pure or eqn.effects:
            return _RUN
        operands = []
        for v in eqn.invars:
            if v in number:
                operands.append(number[v])
                if number[v] in constants and number[v] not in arrays:
                    arrays.append(number[v])     # (constants are numbered as first used)
            elif v in trace.literal_vals:
                operands.append(Literal(trace.literal_vals[v]))
            else:
                return _RUN                  # a constant made inside, a closed-over value
        for v in eqn.outvars:
            number[v] = count
            count += 1
        out_avals = ([v.aval for v in eqn.outvars] if eqn.primitive.multiple_results
                     else eqn.outvars[0].aval)
        steps.append((eqn.primitive, operands, out_avals, eqn.params, eqn.effects))
    result = number.get(out.variable)
    return _RUN if result is None else Recipe(tuple(steps), result, tuple(arrays))
