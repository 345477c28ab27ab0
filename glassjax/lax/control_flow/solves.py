"""``custom_root``: differentiate through a solver without differentiating the solver.

A root finder (Newton's method in a ``while_loop``, bisection, ...) computes ``x*`` with
``f(x*) = 0``. Differentiating its iterations would be slow and often wrong; the implicit
function theorem gives the derivative from ``f`` alone: if ``f(m, x*(m)) = 0`` then

    dx*/dm = -(df/dx)^-1 (df/dm)     evaluated at x*,

so a tangent ``dm`` maps to ``-solve(df/dx, df/dm . dm)``. ``custom_root`` is a
``custom_jvp`` whose rule does exactly that, with the user's ``tangent_solve`` for the
linear solve; the solver itself only ever runs forwards.
"""
from __future__ import annotations

import functools
import operator
from typing import Callable, NamedTuple

from glassjax import core, tree_util
from glassjax.custom_derivatives import custom_jvp
from glassjax.interpreters import ad
from glassjax.lax.control_flow.common import abstractify, trace_fun


class _RootTuple(NamedTuple):
    """One entry per traced function: ``f``, ``solve`` and ``linearize + tangent_solve``."""
    f: object
    solve: object
    l_and_s: object


def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
    """``solve(f, initial_guess)``, differentiated by the implicit function theorem.

    ``tangent_solve(g, y)`` must solve the linear system ``g(x) = y`` for ``x``, where ``g``
    is ``f`` linearized at the root (for a scalar root, ``y / g(1.0)``). With
    ``has_aux``, ``solve`` returns ``(root, aux)``; aux values get zero derivatives."""
    guess_flat, guess_tree = tree_util.tree_flatten(initial_guess)
    avals = abstractify(guess_flat)
    args_tree = tree_util.tree_structure(((initial_guess,), {}))
    traced_f = trace_fun(f, args_tree, avals, "custom_root", (initial_guess,))
    _check_tree("f", "initial_guess", traced_f.out_tree, guess_tree)
    traced_solve = trace_fun(functools.partial(solve, f), args_tree, avals, "custom_root",
                             (initial_guess,))
    solution_tree = traced_solve.out_tree
    if has_aux:
        solution_tree, _ = tree_util.treedef_children(solution_tree)
    _check_tree("solve", "initial_guess", solution_tree, guess_tree)

    def linearize_and_solve(x, b):
        from glassjax.ad_api import linearize
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)
    pair_tree = tree_util.tree_structure(((initial_guess, initial_guess), {}))
    traced_ls = trace_fun(linearize_and_solve, pair_tree, avals * 2, "custom_root",
                          (initial_guess, initial_guess))
    _check_tree("tangent_solve", "x", traced_ls.out_tree, guess_tree)

    traced = _RootTuple(traced_f, traced_solve, traced_ls)
    const_lengths = _RootTuple(*(len(t.consts) for t in traced))
    jaxprs = _RootTuple(*(t.jaxpr for t in traced))
    consts = [c for t in traced for c in t.consts]
    solution = _custom_root(const_lengths, jaxprs, *consts, *guess_flat)
    return tree_util.tree_unflatten(traced_solve.out_tree, solution)


def _check_tree(func_name, expected_name, actual_tree, expected_tree):
    if actual_tree != expected_tree:
        raise TypeError(f"{func_name}() output pytree structure must match "
                        f"{expected_name}, got {actual_tree} and {expected_tree}.")


def _split_root_args(args, const_lengths):
    """``(consts of each function, initial guess)`` from the flat argument list."""
    params, rest = [], list(args)
    for n in const_lengths:
        params.append(rest[:n])
        rest = rest[n:]
    return _RootTuple(*params), rest


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _custom_root(const_lengths, jaxprs, *args):
    params, initial_guess = _split_root_args(args, const_lengths)
    return core.jaxpr_as_fun(jaxprs.solve)(*params.solve, *initial_guess)


@_custom_root.defjvp
def _root_jvp(const_lengths, jaxprs, primals, tangents):
    """The implicit function theorem: ``dx* = -solve(df/dx, df/dm . dm)`` at the root."""
    params, _ = _split_root_args(primals, const_lengths)
    solution = _custom_root(const_lengths, jaxprs, *primals)
    num_roots = len(jaxprs.f.out_avals)
    roots, aux = solution[:num_roots], solution[num_roots:]
    params_dot, _ = _split_root_args(tangents, const_lengths)
    f = core.jaxpr_as_fun(jaxprs.f)
    f_at_root = lambda *f_params: f(*f_params, *roots)
    _, rhs, _ = ad.jvp(f_at_root, params.f, params_dot.f)
    roots_dot = core.jaxpr_as_fun(jaxprs.l_and_s)(*params.l_and_s, *roots, *rhs)
    aux_dot = [ad.zeros_like_aval(core.get_aval(a)) for a in aux]
    return [*roots, *aux], [*map(operator.neg, roots_dot), *aux_dot]
