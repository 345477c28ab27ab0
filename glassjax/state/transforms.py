"""``grad``, ``vmap`` and ``remat`` of stateful functions.

Each one runs the user's function inside the plain transformation, under a recorder
that binds the states the transformation is about (the states to differentiate, the
batched states) to that transformation's tracers. The states the function writes come
out as ordinary outputs (``grad``'s aux, ``vmap``'s and ``remat``'s results), and are
written back once the transformation has returned: then their values belong to the
caller's trace, and no tracer outlives its own.
"""
from __future__ import annotations

import functools

from glassjax import core, tree_util
from glassjax.ad_api import value_and_grad
from glassjax.ad_checkpoint import checkpoint
from glassjax.state import recorder
from glassjax.state.states import state_leaves, write_values
from glassjax.vmap_api import vmap as _vmap


def grad(fun=None, grad_states=None, argnums=None, has_aux=False, return_value=False):
    """The gradient of scalar ``fun`` with respect to ``grad_states`` (a State, or a
    pytree of them: the gradients come back in the same structure, e.g. keyed like a
    dict of states) and/or positional arguments ``argnums`` (0 when neither is given).

    Returns ``grads``, with ``(state grads, arg grads)`` when both are asked for, then
    ``loss`` if ``return_value`` and ``aux`` if ``has_aux``: ``(grads, loss, aux)``.
    States that ``fun`` writes (e.g. a step counter) are written back."""
    if fun is None:
        return functools.partial(grad, grad_states=grad_states, argnums=argnums,
                                 has_aux=has_aux, return_value=return_value)
    states, states_tree = state_leaves(grad_states, "grad_states")
    if argnums is None and grad_states is None:
        argnums = 0
    wanted = () if argnums is None else (argnums,) if isinstance(argnums, int) else argnums

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        written = []

        def loss_fn(values, *args):
            with recorder.tracing_states() as rec:
                rec.bind(states, values)
                out = fun(*args, **kwargs)
                written[:] = rec.get_write_states()
                new_values = [s._value for s in written]
            loss, aux = out if has_aux else (out, None)
            return loss, (aux, new_values)

        shifted = tuple(a % len(args) + 1 if -len(args) <= a < 0 else a + 1 for a in wanted)
        (loss, (aux, new_values)), grads = value_and_grad(
            loss_fn, argnums=(0, *shifted), has_aux=True)([s.value for s in states], *args)
        write_values(written, new_values)
        state_grads = tree_util.tree_unflatten(states_tree, grads[0])
        arg_grads = grads[1] if isinstance(argnums, int) else tuple(grads[1:])
        if argnums is None:
            result = state_grads
        elif grad_states is None:
            result = arg_grads
        else:
            result = (state_grads, arg_grads)
        extras = (loss,) * return_value + (aux,) * has_aux
        return (result, *extras) if extras else result

    return grad_f


def vmap(fn=None, *, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         in_states=None, out_states=None):
    """``vmap`` for stateful functions. States named in ``in_states`` hold a batch
    (mapped along axis 0, or ``{axis: states}``): the function sees one element, and
    their new values come back batched. ``out_states`` are states that come out batched
    although their value goes in whole. Every other state is broadcast: read as is, and
    if written, the value written must not vary along the mapped axis."""
    if fn is None:
        return functools.partial(vmap, in_axes=in_axes, out_axes=out_axes,
                                 axis_name=axis_name, axis_size=axis_size,
                                 in_states=in_states, out_states=out_states)
    in_st, in_ax = _states_with_axes(in_states, "in_states")
    more_st, more_ax = _states_with_axes(out_states, "out_states")
    extra = [(s, a) for s, a in zip(more_st, more_ax) if s not in in_st]
    carried = in_st + [s for s, _ in extra]
    carried_ax = in_ax + [a for _, a in extra]

    @functools.wraps(fn)
    def vmapped(*args, **kwargs):
        unbatched = []      # (state, value) written with a value shared by the batch

        def per_example(values, *args, **kwargs):
            with recorder.tracing_states() as rec:
                rec.bind(in_st, values)
                out = fn(*args, **kwargs)
                unbatched[:] = [(s, s._value) for s in rec.get_write_states()
                                if s not in carried]
                for s, v in unbatched:
                    if _varies_in(v, rec.trace):
                        raise ValueError(
                            f"{s.label} was written with a value that varies along the "
                            "vmapped axis, but it is not batched: name it in in_states or "
                            "out_states. The state keeps its value.")
                return out, [s._value for s in carried]

        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        out, new_values = _vmap(per_example, in_axes=(in_ax, *axes),
                                out_axes=(out_axes, carried_ax), axis_name=axis_name,
                                axis_size=axis_size)([s.value for s in in_st], *args,
                                                     **kwargs)
        write_values(carried + [s for s, _ in unbatched],
                     new_values + [v for _, v in unbatched], unchecked=[s for s, _ in extra])
        return out

    return vmapped


def _states_with_axes(spec, what: str):
    """``states`` (axis 0) or ``{axis: states}`` -> (list of states, list of axes)."""
    if spec is None:
        return [], []
    if isinstance(spec, dict) and spec and all(type(k) is int for k in spec):
        pairs = [(s, axis) for axis, tree in spec.items()
                 for s in state_leaves(tree, what)[0]]
        return [s for s, _ in pairs], [a for _, a in pairs]
    states = state_leaves(spec, what)[0]
    return states, [0] * len(states)


def _varies_in(value, trace) -> bool:
    """Whether ``value`` depends on the transformation ``trace`` (has its tracers)."""
    return any(isinstance(x, core.Tracer) and x._trace is trace
               for x in tree_util.tree_leaves(value))


def remat(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """``checkpoint`` for stateful functions: the states ``fun`` writes come out of the
    checkpointed call and are written back after it."""
    if fun is None:
        return functools.partial(remat, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums)

    @functools.wraps(fun)
    def remat_f(*args, **kwargs):
        written = []

        def run(*args, **kwargs):
            with recorder.tracing_states() as rec:
                out = fun(*args, **kwargs)
                written[:] = rec.get_write_states()
                return [s._value for s in written], out     # (brainstate's order)

        new_values, out = checkpoint(run, prevent_cse=prevent_cse, policy=policy,
                                     static_argnums=static_argnums)(*args, **kwargs)
        write_values(written, new_values)
        return out

    return remat_f
