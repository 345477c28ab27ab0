"""The recorder: which states a function reads and writes while it runs.

Every stateful transformation runs the user's function inside a ``StateTraceStack``
(brainstate's name). While one is active, each ``State.value`` read or write is noted by
*all* active recorders, outermost first, so a nested transformation (a ``scan`` inside a
``jit``) tells its enclosing ones about the states it touches too.

A recorder may also *substitute* values: when tracing to a jaxpr, the first touch of a
state replaces its value by a fresh input of the jaxpr (``new_arg``); when running a loop
body, the carried states get the loop's tracers (``bind``). Either way the recorder keeps
the value each state had before, and ``restore_original_values`` puts those back, so
that no tracer outlives the trace that made it.
"""
from __future__ import annotations

import contextlib
import weakref
from typing import Callable

from glassjax import core

# The active recorders, outermost first.
_active: list = []


class StateTraceStack:
    """Notes every state read and write, in order, while it is active (``with``).

    ``states`` lists the touched states in first-touch order; ``been_written[i]`` says
    whether ``states[i]`` was written; ``events`` is the full ``("read"|"write", state)``
    log. ``new_arg(state) -> value``, if given, replaces a state's value on first touch.
    ``trace`` is the trace that was current when the recorder became active: the only
    trace whose tracers may be written into states while it is the innermost recorder."""

    def __init__(self, new_arg: Callable | None = None, name: str | None = None):
        self.name = name
        self.states: list = []
        self.been_written: list = []
        self.events: list = []
        self._index: dict = {}            # id(state) -> position in ``states``
        self._originals: list = []        # each state's value before its first touch
        self._new_arg = new_arg
        self.trace = None

    def __enter__(self):
        self.trace = core.trace_ctx.trace
        _active.append(self)
        return self

    def __exit__(self, *exc):
        if not _active or _active[-1] is not self:
            raise RuntimeError("StateTraceStack exited out of order: recorders must be "
                               "exited last-in, first-out.")
        _active.pop()

    def __repr__(self):
        return f"StateTraceStack({self.name or ''})"

    # -- recording -------------------------------------------------------------------

    def _touch(self, state) -> bool:
        """Register ``state`` on first touch (keeping its value); True if it is new."""
        if id(state) in self._index:
            return False
        self._index[id(state)] = len(self.states)
        self.states.append(state)
        self.been_written.append(False)
        self._originals.append(state._value)
        return True

    def read_its_value(self, state):
        if self._touch(state) and self._new_arg is not None:
            state._value = self._new_arg(state)
        self.events.append(("read", state))

    def write_its_value(self, state):
        if self._touch(state) and self._new_arg is not None:
            state._value = self._new_arg(state)
        self.been_written[self._index[id(state)]] = True
        self.events.append(("write", state))

    def bind(self, states, values):
        """Give ``states`` these values for as long as the recorder is active (a loop's
        carry, a vmapped state's per-example value, ...)."""
        for state, value in zip(states, values):
            self._touch(state)
            state._value = value

    # -- results ---------------------------------------------------------------------

    def get_read_states(self) -> tuple:
        """The states read but never written."""
        return tuple(s for s, w in zip(self.states, self.been_written) if not w)

    def get_write_states(self) -> tuple:
        return tuple(s for s, w in zip(self.states, self.been_written) if w)

    @property
    def original_state_values(self) -> tuple:
        return tuple(self._originals)

    def restore_original_values(self):
        """Every touched state gets back the value it had before its first touch."""
        for state, value in zip(self.states, self._originals):
            state._value = value


def innermost():
    """The innermost active recorder, or None."""
    return _active[-1] if _active else None


def noting(state) -> list:
    """The recorders that note ``state``: all active ones, except that a state made
    while a recorder was active is local to that recorder's run, so only the recorders
    entered after it note it (it is not an input of the enclosing jaxprs)."""
    origin = state._origin() if state._origin is not None else None
    for i, r in enumerate(_active):
        if r is origin:
            return _active[i + 1:]
    return list(_active)


def origin_of_new_state():
    """What a new state remembers as its origin (see ``noting``)."""
    return weakref.ref(_active[-1]) if _active else None


def record_read(state):
    for r in noting(state):
        r.read_its_value(state)


def record_write(state):
    for r in noting(state):
        r.write_its_value(state)


@contextlib.contextmanager
def tracing_states(new_arg: Callable | None = None, name: str | None = None):
    """A recorder for one traced run of a function: active for the block, and every
    state it touched gets its value back at the end, whether the block failed or not
    (tracers never stay in states; the caller writes the results back)."""
    recorder = StateTraceStack(new_arg, name)
    try:
        with recorder:
            yield recorder
    finally:
        recorder.restore_original_values()
