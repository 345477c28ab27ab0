"""``jax.example_libraries.optimizers``: optimizers as three pure functions.

An optimizer is ``(init_fun, update_fun, get_params)``: ``init_fun(params)`` makes a
state, ``update_fun(step, grads, state)`` the next one, ``get_params(state)`` reads the
parameters back. Each optimizer below is written for one array; the ``optimizer``
decorator lifts it to a pytree of parameters, keeping one state per leaf, flattened into
an ``OptimizerState`` (a pytree itself, so that states pass through ``jit``).
"""
from __future__ import annotations

import functools
import operator
from collections import namedtuple
from typing import Any, Callable

import numpy as np

from glassjax import numpy as jnp
from glassjax.tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
register_pytree_node(
    OptimizerState,
    lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
    lambda defs, children: OptimizerState(children[0], *defs))

Optimizer = namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])
Schedule = Callable[[int], Any]


def _flatten_each(trees):
    leaves, defs = zip(*map(tree_flatten, trees)) if trees else ((), ())
    return list(leaves), list(defs)


def optimizer(opt_maker):
    """Lift an optimizer of one array to one of a pytree of arrays."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_each([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_def = tree_flatten(grad_tree)
            if grad_def != tree:
                raise TypeError("optimizer update function was passed a gradient tree that "
                                "did not match the parameter tree structure with which it "
                                f"was initialized: parameter tree {tree} and grad tree "
                                f"{grad_def}.")
            states = map(tree_unflatten, subtrees, states_flat)
            new_flat, new_subtrees = _flatten_each(
                [update(i, g, s) for g, s in zip(grad_flat, states)])
            for old, new in zip(subtrees, new_subtrees):
                if old != new:
                    raise TypeError("optimizer update function produced an output structure "
                                    "that did not match its input structure: input "
                                    f"{old} and output {new}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = map(tree_unflatten, subtrees, states_flat)
            return tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# ----------------------------------------------------------------------------------------
# Optimizers of one array
# ----------------------------------------------------------------------------------------

def _identity(x):
    return x


def _init_with_zeros(count):
    """An ``init_fun`` pairing the parameters with ``count`` zero arrays like them."""
    return lambda x0: (x0, *(jnp.zeros_like(x0) for _ in range(count)))


_params = operator.itemgetter(0)        # (of a state whose first entry is the parameters)


@optimizer
def sgd(step_size):
    """Gradient descent: ``x - step_size(i) * g``."""
    step_size = make_schedule(step_size)
    return _identity, lambda i, g, x: x - step_size(i) * g, _identity


def _with_velocity(step_size, mass, look_ahead):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        step = mass * velocity + g if look_ahead else velocity
        return x - step_size(i) * step, velocity
    return _init_with_zeros(1), update, _params


@optimizer
def momentum(step_size: Schedule, mass: float):
    """Gradient descent with momentum: the step follows a velocity decaying by ``mass``."""
    return _with_velocity(step_size, mass, look_ahead=False)


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """Nesterov's accelerated gradient: the step looks ahead along the velocity."""
    return _with_velocity(step_size, mass, look_ahead=True)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad: each coordinate's step shrinks with its accumulated squared gradients."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, squares, m = state
        squares = squares + jnp.square(g)
        inv_sqrt = jnp.where(squares > 0, 1. / jnp.sqrt(squares), 0.0)
        m = (1. - momentum) * (g * inv_sqrt) + momentum * m
        return x - step_size(i) * m, squares, m
    return _init_with_zeros(2), update, _params


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: steps scaled by a running average of squared gradients."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq = state
        avg_sq = avg_sq * gamma + jnp.square(g) * (1. - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq + eps), avg_sq
    return _init_with_zeros(1), update, _params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose scaled steps drive a momentum."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq, mom = state
        avg_sq = avg_sq * gamma + jnp.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq + eps)
        return x - mom, avg_sq, mom
    return _init_with_zeros(2), update, _params


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam: bias-corrected running averages of the gradient (``m``) and of its square
    (``v``) make the step ``m / (sqrt(v) + eps)``."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        m_hat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        v_hat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * m_hat / (jnp.sqrt(v_hat) + eps), m, v
    return _init_with_zeros(2), update, _params


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adamax: Adam with the infinity norm of past gradients in place of ``sqrt(v)``."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u
    return _init_with_zeros(2), update, _params


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3: Adagrad with one accumulator per slice along each axis (memory linear in the
    sum of the dimensions, not their product); a coordinate uses the smallest of its
    slices' accumulators."""
    step_size = make_schedule(step_size)

    def along(ndim, v, axis):
        """``v`` (one value per index of ``axis``) shaped to broadcast against an array
        of ``ndim`` dimensions."""
        return v.reshape([-1 if d == axis else 1 for d in range(ndim)])

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, x0.dtype) for n in x0.shape], shape

    def update(i, g, state):
        x, m, accumulators, shape = state
        accum = functools.reduce(
            jnp.minimum, [along(g.ndim, v, axis) for axis, v in enumerate(accumulators)])
        accum = accum + jnp.square(g)
        inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
        m = (1. - momentum) * (g * inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        accumulators = [accum.max(tuple(d for d in range(x.ndim) if d != axis))
                        for axis in range(x.ndim)]
        return x, m, accumulators, shape
    return init, update, lambda state: state[0].reshape(state[3])


# ----------------------------------------------------------------------------------------
# Step-size schedules: functions of the step number
# ----------------------------------------------------------------------------------------

def constant(step_size) -> Schedule:
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Schedule:
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """``values[k]`` from step ``boundaries[k-1]`` on (``values`` has one more entry)."""
    boundaries, values = jnp.array(boundaries), jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Schedule:
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ----------------------------------------------------------------------------------------
# Utilities
# ----------------------------------------------------------------------------------------

def l2_norm(tree):
    """The L2 norm of all the leaves of ``tree`` together."""
    leaves, _ = tree_flatten(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Scale ``grad_tree`` down to L2 norm ``max_norm`` if it is longer."""
    norm = l2_norm(grad_tree)
    return tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                    grad_tree)


JoinPoint = namedtuple("JoinPoint", ["subtree"])


def unpack_optimizer_state(opt_state):
    """An ``OptimizerState`` as a pytree of ``JoinPoint``s (each holding one leaf's
    state), e.g. to pickle it."""
    states_flat, tree, subtrees = opt_state
    sentinels = [JoinPoint(tree_unflatten(s, leaves)) for s, leaves in
                 zip(subtrees, states_flat)]
    return tree_unflatten(tree, sentinels)


def pack_optimizer_state(marked_pytree):
    """The inverse of ``unpack_optimizer_state``."""
    sentinels, tree = tree_flatten(marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
    states_flat, subtrees = _flatten_each([s.subtree for s in sentinels])
    return OptimizerState(states_flat, tree, subtrees)
