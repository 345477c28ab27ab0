"""Step-through evaluation: run a jaxpr one equation at a time and keep every value.

This is ``core.eval_jaxpr`` with a recorder: each equation is bound with concrete values
(so it runs on the device, op by op), and its inputs and outputs are kept so the
explorer can show them. Steps are computed lazily, as far as someone asks, since a long
program run op by op takes a while. A higher-order equation (a ``cond``, a ``scan``)
is one step: it runs whole.
"""
from __future__ import annotations

from typing import NamedTuple

from glassjax import core


class Step(NamedTuple):
    index: int
    eqn: core.JaxprEqn
    inputs: list            # one value per eqn.invars (literals included)
    outputs: list           # one value per eqn.outvars


class Stepper:
    """``stepper[i]`` is the i-th equation's ``Step``; ``len(stepper)`` the number of
    equations. ``outputs()`` evaluates to the end and returns the jaxpr's results."""

    def __init__(self, closed_jaxpr: core.ClosedJaxpr, args):
        jaxpr = closed_jaxpr.jaxpr
        if len(args) != len(jaxpr.invars):
            raise TypeError(f"the jaxpr takes {len(jaxpr.invars)} arguments, got {len(args)}")
        self.jaxpr = jaxpr
        self.env = dict(zip(jaxpr.constvars, closed_jaxpr.consts))
        self.env.update(zip(jaxpr.invars, args))
        self.steps: list[Step] = []

    def __len__(self):
        return len(self.jaxpr.eqns)

    def read(self, atom):
        return atom.val if isinstance(atom, core.Literal) else self.env[atom]

    def _advance(self):
        eqn = self.jaxpr.eqns[len(self.steps)]
        inputs = [self.read(a) for a in eqn.invars]
        subfuns, params = eqn.primitive.get_bind_params(eqn.params)
        with core.set_current_trace(core.eval_trace):
            outs = eqn.primitive.bind(*subfuns, *inputs, **params)
        outs = list(outs) if eqn.primitive.multiple_results else [outs]
        for v, val in zip(eqn.outvars, outs):
            if not isinstance(v, core.DropVar):
                self.env[v] = val
        self.steps.append(Step(len(self.steps), eqn, inputs, outs))

    def __getitem__(self, i: int) -> Step:
        if not 0 <= i < len(self):
            raise IndexError(f"step {i} of a jaxpr with {len(self)} equations")
        while len(self.steps) <= i:
            self._advance()
        return self.steps[i]

    def outputs(self) -> list:
        if len(self):
            self[len(self) - 1]
        return [self.read(v) for v in self.jaxpr.outvars]
