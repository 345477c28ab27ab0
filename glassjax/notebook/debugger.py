"""The graph explorer's debugger: the stepper and the program's values, as messages.

When the explorer widget is given the arguments a program was called with, its browser
side can step through the program (``{"type": "step", "how": "into" | "over" | "out" |
"restart" | "here"}``) and ask for the value of a variable (``{"type": "value", "name"}``).
``Debugger.handle`` answers each message with one JSON message: where the cursor stands
(the call stack, the current body's equations with the current one marked, the current
equation's input and output values, the clusters to open to show it in the graph and
its lines in the whole text),
or the value of the variable. Values are sent as text, with one row per device for a
value split over several devices.
"""
from __future__ import annotations

import numpy as np

from glassjax import core
from glassjax.notebook.sharding_grid import shards
from glassjax.notebook.stepper import Stepper, bind_eqn

WINDOW = 30           # equations listed before and after the current one
THRESHOLD = 200       # array elements printed in full; longer ones are summarised


def value_text(x) -> str:
    return np.array2string(np.asarray(x), separator=", ", threshold=THRESHOLD)


def value_row(name: str, x) -> dict:
    """One value as the browser shows it: name, type, text, and its per-device shards
    (device, index, text) when it is split over several devices."""
    try:
        type_ = core.get_aval(x).str_short(True)
    except TypeError:
        type_ = type(x).__name__
    return {"name": name, "type": type_, "value": value_text(x),
            "shards": [{"device": repr(s.device), "index": str(s.index),
                        "value": value_text(s.data)} for s in shards(x)]}


class Debugger:
    """The stepper and the values of one call of a jaxpr, for ``view``'s widget."""

    def __init__(self, closed_jaxpr, args, view, lines_of=None):
        self.closed_jaxpr = closed_jaxpr
        self.lines_of = lines_of           # location -> its lines in the text, or None
        self.args = list(args)
        self.view = view
        self.names = view.names
        self.stepper = Stepper(closed_jaxpr, self.args)
        self._evaluated = None             # the whole program's values, once asked for
        self._by_name: dict | None = None

    def handle(self, content: dict) -> dict:
        if content.get("type") == "step":
            return self.step(str(content.get("how")))
        if content.get("type") == "value":
            return self.value(str(content.get("name", "")))
        raise ValueError(f"not a debugger message: {content.get('type')!r}")

    # -- stepping -----------------------------------------------------------------------

    def step(self, how: str) -> dict:
        if how == "restart":
            self.stepper = Stepper(self.closed_jaxpr, self.args)
        elif how in ("into", "over", "out"):
            try:
                getattr(self.stepper, how)()
            except Exception as e:                   # the equation failed: say so, stay
                return {**self.state(), "error": f"{type(e).__name__}: {e}"}
        elif how != "here":                          # "here": where it stands
            raise ValueError(f"step how={how!r}: one of into, over, out, restart, here")
        return self.state()

    def state(self) -> dict:
        """Where the cursor stands, for the browser."""
        s, names = self.stepper, self.names
        frame = s.frame
        eqns = frame.jaxpr.eqns
        first = max(0, frame.pc - WINDOW)
        lines = [{"k": k, "text": names.eqn_text(e)}
                 for k, e in enumerate(eqns[first:frame.pc + WINDOW + 1], first)]
        if frame.at_end:
            lines.append({"k": len(eqns), "text": "in (" + " ".join(
                names.name(v) for v in frame.jaxpr.outvars) + ")"})
        error = None
        try:
            outputs = s.outputs()
        except Exception as e:
            outputs, error = [], f"{type(e).__name__}: {e}"
        atoms = frame.jaxpr.outvars if frame.at_end else eqns[frame.pc].invars
        outvars = [] if frame.at_end else eqns[frame.pc].outvars
        return {"type": "stepped",
                "stack": [f.describe() for f in s.stack],
                "lines": lines, "current": frame.pc, "end": frame.at_end, "done": s.done,
                "inputs": [value_row(names.name(a), x) for a, x in zip(atoms, s.inputs())],
                "outputs": [value_row(names.name(v), x) for v, x in zip(outvars, outputs)],
                "error": error, **self._place(frame),
                "text_lines": self.lines_of(s.location()) if self.lines_of else None}

    def _place(self, frame) -> dict:
        """The clusters to open and the node to mark: the current equation, or at a
        body's end its first output."""
        if not frame.at_end:
            return self.view.locate((*frame.path, frame.pc))
        if not frame.jaxpr.outvars:
            return {"open": [], "id": None}
        if not frame.path:
            return {"open": [], "id": "out0"}
        i, r = frame.path[-1]
        cluster = self.view.locate((*frame.path[:-1], i))
        return {"open": [*cluster["open"], cluster["id"]], "id": f"{cluster['id']}.r{r}.out0"}

    # -- values -------------------------------------------------------------------------

    def value(self, name: str) -> dict:
        """The value of the variable printed as ``name``: where the stepper stands if it
        has computed it there (a loop body's value of the current iteration), else its
        value in the whole program."""
        reply = {"type": "value", "name": name}
        vars_ = self._vars().get(name, [])
        if not vars_:
            return {**reply, "message": f"no variable named {name!r} in this program"}
        for v in vars_:
            try:
                return {**reply, "rows": [value_row(name, self.stepper.value(v))]}
            except KeyError:
                pass
        env = self._program_values()
        for v in vars_:
            if v in env:
                return {**reply, "rows": [value_row(name, env[v])]}
        return {**reply, "message": f"{name} is computed inside a body: step into it "
                                    "to see its value there"}

    def _vars(self) -> dict:
        if self._by_name is None:
            self._by_name = {}
            for v, n in self.names.context.var_names.items():
                self._by_name.setdefault(n, []).append(v)
        return self._by_name

    def _program_values(self) -> dict:
        if self._evaluated is None:
            env = core.Environment()
            core.interpret(self.closed_jaxpr.jaxpr, self.closed_jaxpr.consts, self.args,
                           bind_eqn, env)
            self._evaluated = env.values
        return self._evaluated
