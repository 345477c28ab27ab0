"""brainstate's ``State``s drawn as states, as ``glassjax.state``'s are.

A function that writes a brainstate ``State`` cannot be traced by a bare ``jit`` (brainstate
raises its ``TraceContextError``: the write would leak a tracer). brainstate traces such a
function with its own ``StatefulFunction``: the states' values become extra inputs after
the arguments, and the written ones extra outputs after the results. The notebook does the
same, then marks those inputs and outputs in the jaxpr's debug info as glassjax's own
state tracing does, so the pictures draw them as stores (cylinders) labelled with the
state's place in the model (``l1.weight['bias']``).
"""
from __future__ import annotations

import inspect
import sys

from glassjax import tree_util


def is_state_error(error: Exception) -> bool:
    """Whether ``error`` is brainstate refusing a state write under a bare transformation."""
    brainstate = sys.modules.get("brainstate")
    return brainstate is not None and isinstance(error, brainstate.TraceContextError)


def _models(fun, args) -> list:
    """The brainstate modules the function is handed or refers to by name."""
    module = sys.modules["brainstate"].nn.Module
    try:
        seen = inspect.getclosurevars(fun)
        candidates = [*args, *seen.nonlocals.values(), *seen.globals.values()]
    except TypeError:           # (not a Python function: a partial, a callable object)
        candidates = list(args)
    return [c for c in candidates if isinstance(c, module)]


def _state_labels(fun, args) -> dict:
    """id(state) -> its path in a model (``l1.weight``) where one holds it."""
    labels = {}
    for model in _models(fun, args):
        for path, state in model.states().items():
            labels.setdefault(id(state), ".".join(map(str, path)))
    return labels


def trace(fun, args, kwargs, static_argnums):
    """``(closed jaxpr, output shapes)`` of ``fun(*args, **kwargs)`` traced by brainstate,
    its states' values marked as state inputs and outputs."""
    brainstate = sys.modules["brainstate"]
    traced = brainstate.transform.StatefulFunction(fun, static_argnums=static_argnums)
    traced.make_jaxpr(*args, **kwargs)
    closed = traced.get_jaxpr(*args, **kwargs)
    states = traced.get_states(*args, **kwargs)
    written = set(map(id, traced.get_write_states(*args, **kwargs)))
    out_shapes = traced.get_out_shapes(*args, **kwargs)[0]
    names = _state_labels(fun, args)

    def leaf_labels(chosen):
        return [names.get(id(s), type(s).__name__) + tree_util.keystr(p)
                for s in chosen for p, _ in tree_util.tree_flatten_with_path(s.value)[0]]

    num_outs = len(closed.jaxpr.outvars) - len(leaf_labels(
        [s for s in states if id(s) in written]))
    num_args = len(closed.jaxpr.invars) - len(leaf_labels(states))
    out_labels = leaf_labels([s for s in states if id(s) in written])
    marks = frozenset([("in", i) for i in range(num_args, len(closed.jaxpr.invars))] +
                      [("out", num_outs + j) for j in range(len(out_labels))])
    debug = closed.jaxpr.debug_info
    if debug is not None:
        arg_names = tuple(debug.arg_names or ())[:num_args] + tuple(leaf_labels(states))
        debug = debug._replace(arg_names=arg_names, states=marks,
                               result_names=("",) * num_outs + tuple(out_labels))
        closed = closed.replace(jaxpr=closed.jaxpr.replace(debug_info=debug))
    return closed, out_shapes
