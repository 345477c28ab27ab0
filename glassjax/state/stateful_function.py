"""``StatefulFunction``: a function that reads and writes states, traced to a jaxpr in
which the states' values are explicit inputs and outputs.

Tracing runs the function under a recorder whose ``new_arg`` turns the value of every
state the function touches into a fresh jaxpr input, on first touch: the jaxpr takes
``(*args, *state values)`` (states in first-touch order) and returns
``(*outputs, *state values)`` (only the written states', with ``return_only_write``).
The states get their values back when tracing ends.

A call looks up (or makes) the trace for the arguments' types and the states' types,
runs it compiled with ``jit`` on the states' current values, and writes the new values
back. ``state.jit`` is a StatefulFunction; ``state.make_jaxpr`` shows its trace.
"""
from __future__ import annotations

import functools

from glassjax import api_util, caches, core, tree_util
from glassjax.config import config
from glassjax.interpreters import staging
from glassjax.jit import fun_name, jit as _jit
from glassjax.state import recorder
from glassjax.state.states import signature, write_values


class StatefulTrace:
    """One trace of a StatefulFunction for one input signature.

    ``jaxpr`` takes ``(*args leaves, *state leaves)``; its constants may include
    tracers of an enclosing trace the function closed over. ``closed_jaxpr`` takes
    those (``lifted``) as leading arguments instead; such a trace is not cached.
    ``states`` are all the touched states in first-touch order, ``written`` which of
    them were written, ``output_states`` those whose values the jaxpr returns after the
    function's own outputs."""

    def __init__(self, jaxpr, consts, num_args, out_tree, states, written, only_write,
                 name):
        self.num_args = num_args
        self.jaxpr = core.ClosedJaxpr(jaxpr, consts)
        self.closed_jaxpr, self.lifted = staging.close_over_concrete_consts(jaxpr, consts)
        self.out_tree = out_tree
        self.states = tuple(states)
        self.written = tuple(written)
        self.read_states = tuple(s for s, w in zip(states, written) if not w)
        self.write_states = tuple(s for s, w in zip(states, written) if w)
        self.output_states = self.write_states if only_write else self.states
        self.signatures = tuple(signature(s) for s in states)
        self._name = name
        self._compiled = None

    num_outs = property(lambda self: self.out_tree.num_leaves)

    @property
    def out_shapes(self):
        avals = self.closed_jaxpr.out_avals[:self.num_outs]
        return tree_util.tree_unflatten(self.out_tree, [
            core.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals])

    def matches_states(self) -> bool:
        """Whether the states still have the types they had when traced."""
        return all(signature(s) == sig for s, sig in zip(self.states, self.signatures))

    def compiled(self):
        """The jaxpr as a ``jit``-compiled function ``(*lifted, *state leaves, *arg
        leaves) -> (*output state leaves, *outputs)`` (brainstate's order), made once."""
        if self._compiled is None:
            closed, n_lifted = self.closed_jaxpr, len(self.lifted)
            n_states = len(closed.in_avals) - n_lifted - self.num_args

            def run(*flat):
                lifted, states, args = (flat[:n_lifted], flat[n_lifted:n_lifted + n_states],
                                        flat[n_lifted + n_states:])
                outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *lifted, *args, *states)
                return [*outs[self.num_outs:], *outs[:self.num_outs]]
            run.__name__ = run.__qualname__ = self._name
            self._compiled = _jit(run)
        return self._compiled


# Each StatefulFunction's traces (as jit keeps a function's traces).
_traces = caches.family("state.stateful_function.traces",
                        why="one entry per argument types; dies with its function")


class StatefulFunction:
    """``fun`` made explicit about its states: traced once per input signature (and
    state types), called compiled, states read before and written back after.

    ``return_only_write`` (default True): the jaxpr returns only the written states'
    values; False returns every touched state's value."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), axis_env=None,
                 name=None, return_only_write=True):
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun}")
        self.fun = fun
        self.static_argnums, self.static_argnames = api_util.infer_argnums_and_argnames(
            fun, static_argnums, static_argnames)
        self.axis_env = tuple(axis_env or ())
        self.name = name or fun_name(fun)
        self.return_only_write = return_only_write
        self._cache = _traces.new()     # signature -> [StatefulTrace] (one per state types)
        functools.update_wrapper(self, fun, updated=())

    def __repr__(self):
        return f"StatefulFunction({self.name})"

    # -- tracing ---------------------------------------------------------------------

    def trace(self, *args, **kwargs) -> StatefulTrace:
        """The trace for these arguments (made now if there is none yet)."""
        return self._lookup(args, kwargs)[0]

    def _lookup(self, args, kwargs):
        flat = api_util.flatten_call(self.fun, args, kwargs, self.static_argnums,
                                     self.static_argnames)
        in_avals = api_util.abstractify_leaves(self.fun, args, kwargs, flat,
                                               self.static_argnums, self.static_argnames)
        key = (flat.in_tree, tuple(in_avals), flat.static_args, config.trace_context(),
               self.axis_env, tuple(core.trace_ctx.axis_env.items()))
        for traced in self._cache.get(key, ()):
            if traced.matches_states():
                return traced, flat.leaves
        traced = self._trace(flat, in_avals, args, kwargs)
        if not traced.lifted:
            self._cache.setdefault(key, []).append(traced)
        return traced, flat.leaves

    def _trace(self, flat, in_avals, args, kwargs) -> StatefulTrace:
        debug = staging.debug_info("jit", self.fun, args, kwargs, self.static_argnums,
                                   self.static_argnames)
        touched = []

        def traced(*tracers):
            trace = core.trace_ctx.trace

            def new_arg(state):
                """The state's leaves as new inputs, named after the state (in messages
                such as "depends on the value of the argument ParamState 'w'", and as
                the inputs' labels in the notebook's graphs)."""
                paths, tree = tree_util.tree_flatten_with_path(state._value)
                names = tuple(state.short_label + tree_util.keystr(p) for p, _ in paths)
                trace.debug = trace.debug._replace(arg_names=trace.debug.arg_names + names)
                return tree_util.tree_unflatten(tree, [
                    trace.new_arg(core.shaped_abstractify(x)) for _, x in paths])

            with recorder.tracing_states(new_arg, self.name) as rec:
                outs = flat.call(*tracers)
                staging.check_jax_types(outs, flat.out_tree[0], debug)
                touched[:] = [rec.states, rec.been_written]
                state_outs = [x for s, w in zip(rec.states, rec.been_written)
                              if w or not self.return_only_write
                              for x in tree_util.tree_leaves(s._value)]
            return [*outs, *state_outs]

        with core.extend_axis_env(self.axis_env):
            jaxpr, consts, _ = staging.trace_to_jaxpr(traced, in_avals, debug)
        jaxpr = _mark_states(jaxpr, len(in_avals), len(jaxpr.outvars) - len(
            [x for s, w in zip(*touched) if w or not self.return_only_write
             for x in tree_util.tree_leaves(s._value)]), touched, self.return_only_write)
        return StatefulTrace(jaxpr, consts, len(in_avals), flat.out_tree[0], *touched,
                             self.return_only_write, self.name)

    # -- calling ---------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """Run compiled on the states' current values; write the new ones back (all of
        them, after the run: a failing call changes no state)."""
        traced, leaves = self._lookup(args, kwargs)
        state_in = [x for s in traced.states for x in tree_util.tree_leaves(s.value)]
        outs = traced.compiled()(*traced.lifted, *state_in, *leaves)
        n = len(outs) - traced.num_outs
        new_values = _unflatten_values(traced.output_states, outs[:n])
        if traced.output_states != traced.write_states:     # (the read ones come back too)
            new_values = [v for s, v in zip(traced.output_states, new_values)
                          if s in traced.write_states]
        write_values(traced.write_states, new_values)
        return tree_util.tree_unflatten(traced.out_tree, outs[n:])

    def get_jaxpr(self, *args, **kwargs) -> core.ClosedJaxpr:
        return self.trace(*args, **kwargs).jaxpr

    def get_states(self, *args, **kwargs) -> tuple:
        return self.trace(*args, **kwargs).states

    def get_read_states(self, *args, **kwargs) -> tuple:
        return self.trace(*args, **kwargs).read_states

    def get_write_states(self, *args, **kwargs) -> tuple:
        return self.trace(*args, **kwargs).write_states

    def get_out_shapes(self, *args, **kwargs):
        return self.trace(*args, **kwargs).out_shapes

    def clear_cache(self):
        self._cache.clear()


def _mark_states(jaxpr, num_args, num_outs, touched, only_write):
    """Record in the jaxpr's debug info which inputs and outputs are states' values and
    their labels (the inputs after the ``num_args`` argument leaves, the outputs after
    the function's ``num_outs``), for the notebook's pictures."""
    debug = jaxpr.debug_info
    if debug is None:
        return jaxpr
    states, written = touched
    labels = [s.short_label + tree_util.keystr(p) for s, w in zip(states, written)
              if w or not only_write
              for p, _ in tree_util.tree_flatten_with_path(s._value)[0]]
    marks = frozenset([("in", i) for i in range(num_args, len(jaxpr.invars))] +
                      [("out", num_outs + j) for j in range(len(labels))])
    return jaxpr.replace(debug_info=debug._replace(
        result_names=("",) * num_outs + tuple(labels), states=marks))


def _unflatten_values(states, leaves) -> list:
    """Cut a flat list of leaves into one value per state (shaped like its value)."""
    values, leaves = [], list(leaves)
    for s in states:
        tree = tree_util.tree_structure(s._value)
        values.append(tree_util.tree_unflatten(tree, leaves[:tree.num_leaves]))
        leaves = leaves[tree.num_leaves:]
    return values


def make_jaxpr(fun, static_argnums=(), static_argnames=(), axis_env=None,
               return_shape=False, return_only_write=False):
    """brainstate's ``make_jaxpr``: a function returning ``(jaxpr, states)`` (and the
    output shapes with ``return_shape``) for example arguments. The jaxpr's inputs are
    the arguments' leaves, then the touched states' values; its outputs the function's,
    then the states' values (only the written ones with ``return_only_write``)."""
    stateful = StatefulFunction(fun, static_argnums, static_argnames, axis_env,
                                name="make_jaxpr", return_only_write=return_only_write)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        traced = stateful.trace(*args, **kwargs)
        if return_shape:
            return traced.jaxpr, traced.states, traced.out_shapes
        return traced.jaxpr, traced.states

    make_jaxpr_f.__module__ = "glassjax.state"
    name = getattr(fun, "__name__", None)
    if name is not None:
        make_jaxpr_f.__name__ = make_jaxpr_f.__qualname__ = f"make_jaxpr({name})"
    return make_jaxpr_f


def jit(fun=None, *, static_argnums=(), static_argnames=(), name=None):
    """``jit`` for stateful functions: a ``StatefulFunction`` (usable as ``@state.jit``
    or ``@state.jit(static_argnames=...)``)."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, name=name)
    return StatefulFunction(fun, static_argnums, static_argnames, name=name)

