"""Step-through evaluation: a debugger for jaxprs, with step into / over / out.

This is ``core.eval_jaxpr`` with a cursor: the same walk (``core.steps``), driven one
equation at a time; each equation is bound with concrete values (so it runs on the
device, op by op) and every value is kept so the explorer can show it. The cursor
stands on the *current* equation, whose inputs are known; its outputs are computed as
soon as the cursor arrives (binding the equation whole, a loop with all its
iterations), so they can be shown next to the inputs.

A higher-order equation can be *entered*: a jit (or custom_jvp/vjp, checkpoint) body
with the equation's operands, the branch a ``cond`` takes, a ``while``'s cond and body
once per iteration, a ``scan``'s body once per iteration with the iteration's slices
of ``xs``. The values inside are computed again, step by step, from the values the
equation was called with; the equation's own outputs came from binding it whole, so a
learner can check that the body's last iteration gives what the loop gave. The stack
of entered bodies is the call stack (``Stepper.stack``).

A location in the program is ``((eqn, region), ..., eqn)``: the equation indices that
lead into bodies (with the region entered, as ``graph.declared_layout`` numbers them)
and the index of the equation in the innermost body, as the explorer's ``View``
locates equations.
"""
from __future__ import annotations

import numpy as np

from glassjax import core
from glassjax.notebook import graph as graph_lib

CALLS = ("jit", "custom", "checkpoint")      # layout kinds that call one body, once


class Frame:
    """One jaxpr being stepped through: its walk (``core.steps``), its values so far
    (``env``) and where the cursor is.

    ``then(outputs)`` makes the frame that follows this one when it ends (a loop's next
    cond or body), or returns None when the entered equation is done."""

    def __init__(self, jaxpr, consts, args, *, title, path, iteration=None, of=None,
                 then=None):
        if len(args) != len(jaxpr.invars):
            raise TypeError(f"the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
        self.jaxpr = jaxpr
        self.env = core.Environment()
        self._walk = core.steps(jaxpr, consts, args, self.env)
        self.pc = 0                  # index of the current equation; len(eqns) at the end
        self.title = title           # "program", "jit: f", "branch 1", "body", ...
        self.path = path             # ((eqn, region), ...) from the program to here
        self.iteration = iteration   # a loop body's (or cond's) iteration number
        self.of = of                 # and how many there are, when known (a scan)
        self.then = then
        self.outputs = None          # the current equation's outputs, once computed
        self.error = None            # or why computing them failed
        self.results = None          # the jaxpr's outputs, at its end
        self._advance(None)

    def _advance(self, outputs):
        """Hand the walk the current equation's outputs (None at the start): it writes
        them and stops at the next equation with its inputs, or ends with the results."""
        try:
            self._inputs = self._walk.send(outputs)[1]
        except StopIteration as end:
            self.results = end.value

    def arrive(self):
        """Compute the current equation's outputs (or keep why that failed)."""
        self.outputs, self.error = None, None
        if self.at_end:
            return
        try:
            self.outputs = bind_eqn(self.jaxpr.eqns[self.pc], self._inputs)
        except Exception as e:              # shown where the cursor stands
            self.error = e
            return
        self._advance(self.outputs)

    def inputs(self) -> list:
        """The current equation's operands (at the end: the jaxpr's results)."""
        if self.at_end:
            return self.results
        return [self.env.read(a) for a in self.jaxpr.eqns[self.pc].invars]

    @property
    def at_end(self) -> bool:
        return self.pc >= len(self.jaxpr.eqns)

    def describe(self) -> str:
        of = "" if self.of is None else f" of {self.of}"
        loop = "" if self.iteration is None else f" (iteration {self.iteration}{of})"
        return f"{self.title}{loop}"


def bind_eqn(eqn, inputs) -> list:
    """Run one equation on concrete values (``eval_jaxpr``'s step, with the eval trace
    whatever trace is current); its outputs as a list."""
    with core.set_current_trace(core.eval_trace):
        return list(core.eval_equation(eqn, inputs))


class Stepper:
    """A cursor on ``closed_jaxpr`` called with ``args``: ``into()``, ``over()`` and
    ``out()`` move it; ``eqn``, ``inputs()``, ``outputs()`` and ``location()`` describe
    where it stands; ``stack`` is the call stack of entered bodies, outermost first."""

    def __init__(self, closed_jaxpr: core.ClosedJaxpr, args):
        jaxpr = closed_jaxpr.jaxpr
        self.stack = [Frame(jaxpr, closed_jaxpr.consts, list(args), title="program",
                            path=())]
        self.frame.arrive()

    @property
    def frame(self) -> Frame:
        return self.stack[-1]

    @property
    def eqn(self):
        """The current equation, or None at the end of a body (or of the program)."""
        f = self.frame
        return None if f.at_end else f.jaxpr.eqns[f.pc]

    @property
    def done(self) -> bool:
        return len(self.stack) == 1 and self.frame.at_end

    def location(self) -> tuple:
        return (*self.frame.path, self.frame.pc)

    def inputs(self) -> list:
        """The current equation's operands (at a body's end: the body's results)."""
        return self.frame.inputs()

    def outputs(self) -> list:
        """The current equation's results; raises what computing them raised."""
        f = self.frame
        if f.error is not None:
            raise f.error
        return [] if f.at_end else f.outputs

    def value(self, var):
        """The value ``var`` has where the cursor is (innermost frame first), or raises
        KeyError when no frame on the stack has computed it."""
        for f in reversed(self.stack):
            if var in f.env.values:
                return f.env.values[var]
        raise KeyError(var)

    # -- moving -------------------------------------------------------------------------

    def over(self):
        """To the next equation of this body (at a body's end: back out of it)."""
        f = self.frame
        if f.at_end:
            if len(self.stack) > 1:
                self._leave()
            return
        if f.error is not None:
            raise f.error
        f.pc += 1
        self.frame.arrive()

    def into(self):
        """Into the current equation's body, if it has one the stepper can enter (its
        first iteration, for a loop); else the same as ``over``."""
        f = self.frame
        body = None if f.at_end else self._body(f)
        if body is None:
            self.over()
            return
        self.stack.append(body)
        self.frame.arrive()

    def out(self):
        """Out of this body (a loop's remaining iterations too) to the equation after
        the one that entered it; in the program itself, to its end."""
        if len(self.stack) == 1:
            while not self.frame.at_end:
                self.over()
            return
        self.stack.pop()
        self._resume()

    def run(self) -> list:
        """Step over everything left of the program; its outputs."""
        while len(self.stack) > 1:
            self.out()
        self.out()
        return self.inputs()

    # -- inside -------------------------------------------------------------------------

    def _leave(self):
        """At a body's end: the loop's next frame, or back to the equation after."""
        f = self.stack.pop()
        nxt = f.then(f.results) if f.then else None
        if nxt is not None:
            self.stack.append(nxt)
            self.frame.arrive()
        else:
            self._resume()

    def _resume(self):
        """Back in the frame whose equation was entered: past that equation, unless
        running it failed (the cursor then stays on it, showing why)."""
        if self.frame.error is None:
            self.frame.pc += 1
            self.frame.arrive()

    def _body(self, f: Frame) -> Frame | None:
        """The first frame inside the current equation, or None if it cannot be entered."""
        i, eqn = f.pc, f.jaxpr.eqns[f.pc]
        layout = graph_lib.declared_layout(eqn)
        if layout is None:
            return None
        inputs = f.inputs()

        def frame(r, args, title=None, **kw):
            region = layout.regions[r]
            return Frame(region.jaxpr, region.consts, args, title=title or region.title,
                         path=(*f.path, (i, r)), **kw)

        if layout.kind == "cond":
            r = int(np.clip(np.asarray(inputs[0]), 0, len(layout.regions) - 1))
            return frame(r, inputs[1:], title=f"branch {r} (taken)")
        if layout.kind == "while":
            return self._while(eqn, inputs, frame)
        if layout.kind == "scan":
            return self._scan(eqn, inputs, frame)
        if layout.kind in CALLS:
            return frame(0, [inputs[o] for o in layout.regions[0].operands],
                         title=layout.title[0])
        return None

    @staticmethod
    def _while(eqn, inputs, frame):
        nc, nb = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
        cconsts, bconsts, init = inputs[:nc], inputs[nc:nc + nb], inputs[nc + nb:]

        def test(it, carry):
            return frame(0, [*cconsts, *carry], iteration=it, then=lambda outs: (
                step(it, carry) if bool(np.asarray(outs[0])) else None))

        def step(it, carry):
            return frame(1, [*bconsts, *carry], iteration=it,
                         then=lambda outs: test(it + 1, outs))
        return test(0, init)

    @staticmethod
    def _scan(eqn, inputs, frame):
        p = eqn.params
        n_consts, n_carry, length = p["num_consts"], p["num_carry"], p["length"]
        consts = inputs[:n_consts]
        xs = inputs[n_consts + n_carry:]

        def step(it, carry):
            if it == length:
                return None
            t = length - 1 - it if p["reverse"] else it
            return frame(0, [*consts, *carry, *(x[t] for x in xs)], iteration=it,
                         of=length, then=lambda outs: step(it + 1, outs[:n_carry]))
        return step(0, inputs[n_consts:n_consts + n_carry])
