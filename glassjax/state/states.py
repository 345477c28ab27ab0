"""``State``: a mutable box around a pytree of arrays, visible to transformations.

JAX functions are pure; models are easier to write with mutable parameters and hidden
variables. A ``State`` reconciles the two: reading or writing ``state.value`` is noted
by the active recorders (``recorder.py``), so a stateful transformation can turn the
states a function touches into explicit inputs and outputs of its jaxpr.

A state keeps its type: a write must have the same tree structure, shapes and dtypes as
the value it replaces (a Python scalar may stand for any dtype it promotes to). A write
that breaks this, or that would store a tracer outside the transformation that made it,
raises and leaves the old value in place.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from glassjax import core, dtypes, tree_util
from glassjax.errors import UnexpectedTracerError


class StateLeakError(UnexpectedTracerError):
    """A traced value written to a state by a transformation that does not carry states
    (plain ``jit``, ``make_jaxpr``, ``vmap``, ...): it would outlive its trace."""
from glassjax.state import recorder

_HERE = os.path.dirname(__file__)


class State:
    """A named, typed, mutable value: ``State(jnp.zeros(3), name="h")``.

    ``value`` reads and writes go through the recorders of the active stateful
    transformations; ``name`` only labels the state in messages and drawings."""

    def __init__(self, value, name: str | None = None):
        if isinstance(value, State):
            value = value.value
        self._value = value
        self.name = name
        self._source = _caller_location()
        self._origin = recorder.origin_of_new_state()

    @property
    def value(self):
        recorder.record_read(self)
        if core.trace_ctx.trace is core.eval_trace:
            self._check_no_dead_tracer()
        return self._value

    @value.setter
    def value(self, v):
        write_values([self], [v])

    def numel(self) -> int:
        return sum(int(np.size(x)) for x in tree_util.tree_leaves(self._value))

    # -- messages --------------------------------------------------------------------

    @property
    def short_label(self) -> str:
        """``ParamState 'w'``, or just ``ParamState`` for an unnamed state."""
        kind = type(self).__name__
        return f"{kind} {self.name!r}" if self.name else kind

    @property
    def label(self) -> str:
        """``ParamState 'w'``, or where an unnamed state was made."""
        return self.short_label if self.name else \
            f"{type(self).__name__} created at {self._source}"

    def __repr__(self):
        try:
            avals = tree_util.tree_map(core.shaped_abstractify, self._value)
        except TypeError:           # a leaf that is no array: show it as it is
            avals = self._value
        items = [f"  value={_pretty(avals, 2)}"]
        if self.name is not None:
            items.append(f"  name={self.name}")
        return f"{type(self).__name__}(\n" + ",\n".join(items) + "\n)"

    # -- checks ----------------------------------------------------------------------

    def _checked(self, new):
        """``new`` if it has this state's type (Python scalars converted to the state's
        dtype), else a ValueError (structure, shape) or TypeError (dtype, non-array)."""
        if isinstance(new, State):
            raise TypeError(f"{self.label}: cannot store a State in a State; write its "
                            ".value instead. The state keeps its value.")
        old_leaves, old_tree = tree_util.tree_flatten(self._value)
        new_leaves, new_tree = tree_util.tree_flatten(new)
        if new_tree != old_tree:
            raise ValueError(f"{self.label} holds a value of tree structure {old_tree}; "
                             f"cannot write one of tree structure {new_tree}. The state "
                             "keeps its value.")
        return tree_util.tree_unflatten(
            old_tree, [self._checked_leaf(o, n) for o, n in zip(old_leaves, new_leaves)])

    def _checked_leaf(self, old, new):
        if not core.valid_jaxtype(old):
            return new                  # not an array: only the structure is kept
        old_aval = core.shaped_abstractify(old)
        try:
            new_aval = core.shaped_abstractify(new)
        except TypeError:
            raise TypeError(f"{self.label} holds {old_aval.str_short()}; cannot write a "
                            f"value of type {type(new).__name__}. The state keeps its "
                            "value.") from None
        if new_aval.shape != old_aval.shape:
            raise ValueError(f"{self.label} holds {old_aval.str_short()}; cannot write "
                             f"{new_aval.str_short()} (another shape). The state keeps its "
                             "value.")
        if new_aval.dtype == old_aval.dtype:
            return new
        if type(new) in dtypes.python_scalar_dtypes and \
                dtypes.result_type(old_aval.dtype, new) == old_aval.dtype:
            return core.TypedNdArray(new, old_aval)     # (keeps a weak type)
        raise TypeError(f"{self.label} holds {old_aval.str_short()}; cannot write "
                        f"{new_aval.str_short()} (another dtype). The state keeps its "
                        "value.")

    def _check_no_escape(self, new):
        """A tracer may be stored only by the transformation that is current and whose
        recorder is innermost: it then puts the old value back when it ends. Any other
        tracer would outlive its trace (a plain ``jit``/``vmap``/``grad`` or ``lax.cond``
        knows nothing of states)."""
        tracers = [x for x in tree_util.tree_leaves(new) if isinstance(x, core.Tracer)]
        if not tracers:
            return
        current = core.trace_ctx.trace
        inner = recorder.innermost()
        if inner is not None and inner.trace is current and current is not core.eval_trace:
            return
        raise StateLeakError(
            f"{self.label} was assigned {tracers[0]!r} inside a transformation that does "
            f"not carry states ({type(current).__name__}): the tracer would leak out of "
            "its trace. Use the transformations of glassjax.state (state.jit, state.grad, "
            "state.vmap, state.cond, state.scan, ...), or pass the value in and return "
            "it. The state keeps its value.")


    def _check_no_dead_tracer(self):
        """Read with no trace running, a tracer in the value belongs to a trace that
        has ended: the state was made inside a plain transformation and kept."""
        for x in tree_util.tree_leaves(self._value):
            if isinstance(x, core.Tracer):
                raise UnexpectedTracerError(
                    f"{self.label} holds {x!r}, a tracer of a transformation that has "
                    "ended: the state was made inside it (with a traced value) and kept "
                    "after it. Make states outside transformed functions, or give them "
                    "concrete values.")


class ShortTermState(State):
    """Transient values, e.g. a neuron's membrane potential or an RNN's hidden state."""


class LongTermState(State):
    """Values that persist across steps, e.g. running statistics."""


class ParamState(LongTermState):
    """Trainable parameters: what ``state.grad`` usually differentiates."""


def write_values(states, values, unchecked=()):
    """Write ``values`` into ``states``: all of them, or none (every value is checked
    before the first is stored). ``unchecked`` states change type on purpose (vmap's
    ``out_states`` gain the batch axis): only their tracers are checked."""
    checked = [v if s in unchecked else s._checked(v) for s, v in zip(states, values)]
    for s, v in zip(states, checked):
        s._check_no_escape(v)
    for s, v in zip(states, checked):
        recorder.record_write(s)
        s._value = v


def state_leaves(tree, what: str) -> tuple[list, object]:
    """The States of a ``states`` argument (one State, or a pytree of them) and their
    tree; anything else is a TypeError naming the argument."""
    leaves, treedef = tree_util.tree_flatten(tree, is_leaf=lambda x: isinstance(x, State))
    for x in leaves:
        if not isinstance(x, State):
            raise TypeError(f"{what} must contain only State objects, got {type(x).__name__}"
                            f" {x!r}.")
    return leaves, treedef


def signature(state):
    """A state's type as a hashable key: tree structure and abstract leaves."""
    leaves, tree = tree_util.tree_flatten(state._value)
    return tree, tuple(core.shaped_abstractify(x) for x in leaves)


def _caller_location() -> str:
    """``file.py:12``: the first frame outside this package (where the user made it)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def _pretty(x, indent: int) -> str:
    """brainstate's layout of a state's value: containers open one item per line."""
    pad = " " * indent
    if isinstance(x, dict) and x:
        items = [f"{pad}  {k!r}: {_pretty(v, indent + 2)}" for k, v in x.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(x, (list, tuple)) and x:
        opening, closing = ("[", "]") if isinstance(x, list) else ("(", ")")
        items = [f"{pad}  {_pretty(v, indent + 2)}" for v in x]
        return opening + "\n" + ",\n".join(items) + f"\n{pad}{closing}"
    return repr(x)
