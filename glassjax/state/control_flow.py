"""``cond``, ``switch``, ``while_loop``, ``fori_loop`` and ``scan`` over stateful
functions: the states the branches or the loop body write are carried automatically.

A loop body runs once per iteration inside the loop's trace, so a state it writes must
travel in the carry. Which states those are is found first, by tracing the body on the
operands' types (``StatefulFunction.trace``); then the body runs as a pure function of
``(state values, carry)`` (brainstate's order) with the states bound to the carried values, and the final
values are written back after the loop. States that are only read are captured as
constants of the body, like any value it closes over.
"""
from __future__ import annotations

from glassjax import core, lax, tree_util
from glassjax.state import recorder
from glassjax.state.stateful_function import StatefulFunction
from glassjax.state.states import write_values


def _written_states(funs, *example_args) -> list:
    """The states any of ``funs`` writes when called on arguments of these types, in
    first-write order."""
    written: dict = {}
    for fun in funs:
        traced = StatefulFunction(fun).trace(*example_args)
        for s in traced.write_states:
            written.setdefault(id(s), s)
    return list(written.values())


def _with_states(fun, states):
    """``fun(*args) -> out`` as ``pure(values, *args) -> (out, new values)``: the states
    hold ``values`` while ``fun`` runs, and keep their own values."""
    def pure(values, *args):
        with recorder.tracing_states() as rec:
            rec.bind(states, values)
            out = fun(*args)
            return out, [s._value for s in states]
    return pure


def _values(states) -> list:
    return [s.value for s in states]


def cond(pred, true_fun, false_fun, *operands):
    """``lax.cond`` whose branches may read and write states."""
    written = _written_states([true_fun, false_fun], *operands)
    out, new_values = lax.cond(pred, _with_states(true_fun, written),
                               _with_states(false_fun, written), _values(written),
                               *operands)
    write_values(written, new_values)
    return out


def switch(index, branches, *operands):
    """``lax.switch`` whose branches may read and write states."""
    written = _written_states(branches, *operands)
    out, new_values = lax.switch(index, [_with_states(b, written) for b in branches],
                                 _values(written), *operands)
    write_values(written, new_values)
    return out


def while_loop(cond_fun, body_fun, init_val):
    """``lax.while_loop`` whose body may write states (``cond_fun`` may only read)."""
    in_cond = StatefulFunction(cond_fun).trace(init_val).write_states
    if in_cond:
        raise ValueError("while_loop: cond_fun must not write states, but it writes "
                         + ", ".join(s.label for s in in_cond) + ".")
    written = _written_states([body_fun], init_val)
    cond_pure, body_pure = _with_states(cond_fun, written), _with_states(body_fun, written)
    new_values, val = lax.while_loop(lambda c: cond_pure(*c)[0],
                                     lambda c: body_pure(*c)[::-1],
                                     (_values(written), init_val))
    write_values(written, new_values)
    return val


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``lax.fori_loop`` whose body may read and write states."""
    written = _written_states([body_fun], lower, init_val)
    body_pure = _with_states(body_fun, written)
    new_values, val = lax.fori_loop(lower, upper,
                                    lambda i, c: body_pure(c[0], i, c[1])[::-1],
                                    (_values(written), init_val), unroll=unroll)
    write_values(written, new_values)
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``lax.scan`` whose body may read and write states."""
    x_example = tree_util.tree_map(_slice_type, xs)
    written = _written_states([f], init, x_example)
    body_pure = _with_states(f, written)

    def body(carry, x):
        (new_carry, y), new_values = body_pure(*carry, x)
        return (new_values, new_carry), y

    (new_values, carry), ys = lax.scan(body, (_values(written), init), xs, length=length,
                                       reverse=reverse, unroll=unroll)
    write_values(written, new_values)
    return carry, ys


def _slice_type(x) -> core.ShapeDtypeStruct:
    """The type of one slice of a scanned-over array."""
    aval = core.shaped_abstractify(x)
    return core.ShapeDtypeStruct(aval.shape[1:], aval.dtype, weak_type=aval.weak_type)
