"""``custom_root`` and ``custom_linear_solve``: differentiate through a solver without
differentiating the solver.

A root finder (Newton's method in a ``while_loop``, bisection, ...) computes ``x*`` with
``f(x*) = 0``. Differentiating its iterations would be slow and often wrong; the implicit
function theorem gives the derivative from ``f`` alone: if ``f(m, x*(m)) = 0`` then

    dx*/dm = -(df/dx)^-1 (df/dm)     evaluated at x*,

so a tangent ``dm`` maps to ``-solve(df/dx, df/dm . dm)``. ``custom_root`` is a
``custom_jvp`` whose rule does exactly that, with the user's ``tangent_solve`` for the
linear solve; the solver itself only ever runs forwards.

``custom_linear_solve`` is the linear case, as a primitive carrying four jaxprs: the
linear map ``matvec``, its transpose ``vecmat``, and the user's ``solve`` and
``transpose_solve``. Its JVP solves again (``dx = solve(db - dA x)``), its transpose is a
solve with the transposed system, and it batches by batching all four jaxprs.
"""
from __future__ import annotations

import functools
import operator
from typing import Callable, NamedTuple

from glassjax import core, tree_util
from glassjax.custom_derivatives import custom_jvp
from glassjax.interpreters import ad, batching, staging
from glassjax.lax.control_flow.common import abstractify, trace_fun
from glassjax.lax.elementwise import neg
from glassjax.xla import lowering


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
        _, f_jvp = core.hooks.linearize(f, x)      # ad_api's, a layer above
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


def _split_args(args, const_lengths):
    """``(consts of each traced function, the rest)`` from a primitive's flat arguments;
    the consts come in the tuple type of ``const_lengths``."""
    params, rest = [], list(args)
    for n in const_lengths:
        params.append(rest[:n])
        rest = rest[n:]
    return type(const_lengths)(*params), rest


@functools.partial(custom_jvp, nondiff_argnums=(0, 1))
def _custom_root(const_lengths, jaxprs, *args):
    params, initial_guess = _split_args(args, const_lengths)
    return core.jaxpr_as_fun(jaxprs.solve)(*params.solve, *initial_guess)


@_custom_root.defjvp
def _root_jvp(const_lengths, jaxprs, primals, tangents):
    """The implicit function theorem: ``dx* = -solve(df/dx, df/dm . dm)`` at the root."""
    params, _ = _split_args(primals, const_lengths)
    solution = _custom_root(const_lengths, jaxprs, *primals)
    num_roots = len(jaxprs.f.out_avals)
    roots, aux = solution[:num_roots], solution[num_roots:]
    params_dot, _ = _split_args(tangents, const_lengths)
    f = core.jaxpr_as_fun(jaxprs.f)
    f_at_root = lambda *f_params: f(*f_params, *roots)
    _, rhs, _ = ad.jvp(f_at_root, params.f, params_dot.f)
    roots_dot = core.jaxpr_as_fun(jaxprs.l_and_s)(*params.l_and_s, *roots, *rhs)
    aux_dot = [ad.zeros_like_aval(core.get_aval(a)) for a in aux]
    return [*roots, *aux], [*map(operator.neg, roots_dot), *aux_dot]


# ----------------------------------------------------------------------------------------
# custom_linear_solve
# ----------------------------------------------------------------------------------------

class _LinearSolveTuple(NamedTuple):
    matvec: object
    vecmat: object
    solve: object
    transpose_solve: object

    def transpose(self):
        """The same system transposed: the roles of the map and of the solve swap."""
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def custom_linear_solve(matvec: Callable, b, solve: Callable,
                        transpose_solve: Callable | None = None, symmetric: bool = False,
                        has_aux: bool = False):
    """``solve(matvec, b)``, with derivatives from the linear system ``matvec(x) = b``
    rather than from ``solve``'s own operations (which may be an iterative loop).

    ``transpose_solve(vecmat, b)`` (needed for reverse mode) solves the transposed
    system; with ``symmetric=True`` ``solve`` serves for both. With ``has_aux``, the
    solvers return ``(x, aux)``."""
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, b_tree = tree_util.tree_flatten(b)
    b_avals = abstractify(b_flat)
    args_tree = tree_util.tree_structure(((b,), {}))

    def traced(fun, name, aux):
        t = trace_fun(fun, args_tree, b_avals, "custom_linear_solve", (b,))
        out_tree = t.out_tree
        if aux:
            out_tree, _ = tree_util.treedef_children(out_tree)
        _check_tree(name, "b", out_tree, b_tree)
        _check_shapes(name, "b", t.out_avals[:len(b_avals)], b_avals)
        return t

    traced_matvec = traced(matvec, "matvec", False)
    traced_solve = traced(functools.partial(solve, matvec), "solve", has_aux)
    if transpose_solve is None:
        traced_vecmat = traced_tr_solve = None
    else:
        vecmat = matvec if symmetric else _transpose_one_output(matvec, b)
        traced_vecmat = traced_matvec if symmetric else traced(vecmat, "vecmat", False)
        traced_tr_solve = traced(functools.partial(transpose_solve, vecmat),
                                 "transpose_solve", has_aux)
    traced_all = _LinearSolveTuple(traced_matvec, traced_vecmat, traced_solve,
                                   traced_tr_solve)
    const_lengths = _LinearSolveTuple(*(0 if t is None else len(t.consts)
                                        for t in traced_all))
    jaxprs = _LinearSolveTuple(*(None if t is None else t.jaxpr for t in traced_all))
    consts = [c for t in traced_all if t is not None for c in t.consts]
    out = linear_solve_p.bind(*consts, *b_flat, const_lengths=const_lengths,
                              jaxprs=jaxprs)
    return tree_util.tree_unflatten(traced_solve.out_tree, out)


def _check_shapes(func_name, expected_name, actual, expected):
    actual_shapes = [a.shape for a in actual]
    expected_shapes = [a.shape for a in expected]
    if actual_shapes != expected_shapes:
        raise ValueError(f"{func_name}() output shapes must match {expected_name}, got "
                         f"{actual_shapes} and {expected_shapes}")


def _transpose_one_output(linear_fun, primals):
    transposed = core.hooks.linear_transpose(linear_fun, primals)   # ad_api's
    return lambda x: transposed(x)[0]


class LinearSolvePrimitive(core.Primitive):
    multiple_results = True


linear_solve_p = LinearSolvePrimitive("custom_linear_solve")


def _linear_solve_impl(*args, const_lengths, jaxprs):
    """Just the user's solve: evaluated where it stands (eagerly, or traced inline)."""
    params, b = _split_args(args, const_lengths)
    return core.jaxpr_as_fun(jaxprs.solve)(*params.solve, *b)


def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    """The solution has the type of ``b``; any aux outputs come after it."""
    b_avals = list(avals[sum(const_lengths):])
    num_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    return b_avals + (list(jaxprs.solve.out_avals[-num_aux:]) if num_aux else [])


linear_solve_p.def_impl(_linear_solve_impl)
linear_solve_p.def_abstract_eval(_linear_solve_abstract_eval)
staging.effects_rules[linear_solve_p] = lambda jaxprs, **_: jaxprs.solve.effects
lowering.register_lowering(linear_solve_p,
                           lowering.lower_fun(_linear_solve_impl, multiple_results=True))


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    """From ``A x = b``: ``dA x + A dx = db``, so ``dx = solve(db - dA x)``; aux values
    get zero tangents."""
    params_kw = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    x = linear_solve_p.bind(*primals, **params_kw)
    params, _ = _split_args(primals, const_lengths)
    params_dot, b_dot = _split_args(tangents, const_lengths)
    x_leaves = x[:len(b_dot)]
    if all(type(t) is ad.Zero for t in params_dot.matvec):
        rhs = b_dot
    else:        # dA x: the matvec's tangent with respect to its parameters only
        zeros = [ad.Zero.from_primal_value(v) for v in x_leaves]
        _, matvec_dot, _ = ad.jvp(core.jaxpr_as_fun(jaxprs.matvec),
                                  [*params.matvec, *x_leaves],
                                  [*params_dot.matvec, *zeros])
        rhs = [ad.add_tangents(bd, _neg(md)) for bd, md in zip(b_dot, matvec_dot)]
    rhs = [ad.instantiate_zeros(t) for t in rhs]
    flat_params = [p for ps in params for p in ps]
    x_dot = linear_solve_p.bind(*flat_params, *rhs, **params_kw)
    aux_dot = [ad.Zero.from_primal_value(a) for a in x[len(b_dot):]]
    return x, [*x_dot[:len(b_dot)], *aux_dot]


def _neg(t):
    return t if type(t) is ad.Zero else neg(t)


def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    """Cotangents of ``b``: a solve of the transposed system."""
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    params, b = _split_args(args, const_lengths)
    if any(ad.is_undefined_primal(p) for ps in params for p in ps):
        raise NotImplementedError("custom_linear_solve is linear in b only")
    x_cts = [ad.instantiate_zeros(ct) for ct in cts[:len(b)]]
    transposed = params.transpose()
    b_cts = linear_solve_p.bind(*[p for ps in transposed for p in ps], *x_cts,
                                const_lengths=const_lengths.transpose(),
                                jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(b_cts[:len(b)])


def _linear_solve_batch(axis_data, args, dims, *, const_lengths, jaxprs):
    """Batch the four jaxprs consistently: which parts of ``x`` and ``b`` are batched is
    found by iterating to a fixed point (a batched ``b`` batches ``x`` through the solve,
    a batched ``x`` batches ``b`` through the map, and so on)."""
    params, b = _split_args(args, const_lengths)
    params_dims, b_dims = _split_args(dims, const_lengths)
    params_bat = _LinearSolveTuple(*([d is not batching.not_mapped for d in ds]
                                     for ds in params_dims))
    orig_b_bat = [d is not batching.not_mapped for d in b_dims]
    num_x = len(jaxprs.matvec.out_avals)
    num_aux = len(jaxprs.solve.out_avals) - num_x
    b_bat, x_bat = orig_b_bat, [False] * len(jaxprs.solve.out_avals)
    while True:
        solve_b, solve_x_bat = batching.batch_jaxpr(
            jaxprs.solve, axis_data, params_bat.solve + b_bat, x_bat)
        x_bat_out = list(solve_x_bat)
        vecmat_b = None
        if jaxprs.vecmat is not None:
            vecmat_b, vecmat_x_bat = batching.batch_jaxpr(
                jaxprs.vecmat, axis_data, params_bat.vecmat + b_bat, b_bat)
            x_bat_out = [a or b for a, b in zip(vecmat_x_bat + [True] * num_aux,
                                                 solve_x_bat)]
        matvec_b, matvec_b_bat = batching.batch_jaxpr(
            jaxprs.matvec, axis_data, params_bat.matvec + x_bat_out[:num_x], b_bat)
        b_bat_out = [a or b for a, b in zip(matvec_b_bat, orig_b_bat)]
        tr_solve_b = None
        if jaxprs.transpose_solve is not None:
            tr_solve_b, tr_bat = batching.batch_jaxpr(
                jaxprs.transpose_solve, axis_data,
                params_bat.transpose_solve + x_bat_out[:num_x], x_bat_out)
            b_bat_out = [a or b for a, b in zip(b_bat_out, tr_bat[:len(orig_b_bat)])]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    new_params = [batching.moveaxis(x, d, 0) if d not in (batching.not_mapped, 0) else x
                  for ps, ds in zip(params, params_dims) for x, d in zip(ps, ds)]
    new_b = [batching.broadcast(x, axis_data.size, 0) if now and not was else
             batching.moveaxis(x, d, 0) if now and d != 0 else x
             for x, d, was, now in zip(b, b_dims, orig_b_bat, b_bat)]
    outs = linear_solve_p.bind(*new_params, *new_b, const_lengths=const_lengths,
                               jaxprs=_LinearSolveTuple(matvec_b, vecmat_b, solve_b,
                                                        tr_solve_b))
    return outs, [0 if bat else batching.not_mapped for bat in solve_x_bat]


ad.primitive_jvps[linear_solve_p] = _linear_solve_jvp
ad.primitive_transposes[linear_solve_p] = _linear_solve_transpose
batching.fancy_primitive_batchers[linear_solve_p] = _linear_solve_batch
