"""Stateful programs: ``State`` objects and the transformations that carry them.

``state.value`` can be read and written inside any function; the transformations here
(``make_jaxpr``, ``jit``, ``grad``, ``vmap``, ``remat``, ``cond``, ``switch``,
``while_loop``, ``fori_loop``, ``scan``) find the states a function touches and thread
their values through the program as explicit inputs and outputs, as brainstate does::

    w = state.ParamState(jnp.ones(3))

    @state.jit
    def step(x):
        w.value -= 0.1 * x
        return w.value.sum()
"""
from glassjax.state.recorder import StateTraceStack
from glassjax.state.states import (LongTermState, ParamState, ShortTermState, State,
                                   StateLeakError)
from glassjax.state.stateful_function import (StatefulFunction, StatefulTrace, jit,
                                              make_jaxpr)
from glassjax.state.transforms import grad, remat, vmap
from glassjax.state.control_flow import cond, fori_loop, scan, switch, while_loop

checkpoint = remat
