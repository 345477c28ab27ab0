"""``lax.scan`` (and ``lax.map``): a loop over the leading axis of arrays, with a carry.

``scan(f, init, xs)`` is ``carry = init; for x in xs: carry, y = f(carry, x)``, returning
the last carry and the ``y``'s stacked. It binds one ``scan`` primitive whose ``jaxpr``
takes ``(*consts, *carry, *x)`` and returns ``(*carry, *y)``::

    d:f32[] e:f32[16] = scan[jaxpr={ ... } length=16 num_carry=1 num_consts=1
                             reverse=False unroll=1] b 0.0:f32[] a c

Unlike ``while``, the trip count ``length`` is static, so reverse mode works: the forward
scan also stacks the *residuals* each iteration needs, and the transposed scan runs
backwards over them. Lowering is a ``stablehlo.while`` over an index that slices ``xs``
(``dynamic_slice``) and fills ``ys`` (``dynamic_update_slice``).
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import config, core, tree_util
from glassjax.errors import ConcretizationTypeError
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.jit import jit_p, ref_hooks
from glassjax.lax import elementwise, slicing, structural
from glassjax.lax.utils import spec_of
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.lax.control_flow import common
from glassjax.lax.control_flow.common import merge_lists, partition_list, split_list
from glassjax.lax.control_flow.while_loops import promote_weak_typed_inputs, while_loop
from glassjax.vmap_api import vmap
from glassjax.xla import dispatch, lowering


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """Scan ``f: (carry, x) -> (carry, y)`` over the leading axis of ``xs`` (a pytree;
    None with ``length`` to scan without inputs). ``reverse`` runs from the end;
    ``unroll`` iterations run per loop trip (True: all of them)."""
    del _split_transpose          # accepted for compatibility; JAX 0.10 ignores it too
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_util.tree_flatten(init)
    xs_flat, _ = tree_util.tree_flatten(xs)
    in_tree = tree_util.tree_structure(((init, xs), {}))
    length = _infer_length(xs_flat, length)
    if config.jax_disable_jit:
        return _python_scan(f, init, xs_flat, xs, length, reverse)
    init_avals = common.abstractify(init_flat)
    xs_avals = common.abstractify(xs_flat)
    if any(spec_of(a)[0] is not None for a in xs_avals):
        raise ValueError("0th dimension of all xs should be replicated. Got "
                         f"{', '.join(str(a.sharding.spec) for a in xs_avals)}")
    x_avals = [unstacked_aval(a) for a in xs_avals]

    def trace(carry_avals):
        traced = common.trace_fun(f, in_tree, (*carry_avals, *x_avals), "scan", (init, xs))
        children = tree_util.treedef_children(traced.out_tree)
        if tree_util.treedef_is_leaf(traced.out_tree) or len(children) != 2:
            out = tree_util.tree_unflatten(traced.out_tree, traced.out_avals)
            raise TypeError(f"scan body output must be a pair, got {common.aval_str(out)}.")
        return traced, children[0], children[1]

    traced, carry_tree, ys_tree = trace(init_avals)
    if traced.refs:     # the body closes over refs: their values join the carry
        return ref_hooks.carry_refs(traced.refs, functools.partial(
            scan, length=length, reverse=reverse, unroll=unroll), f, init, xs)
    num_carry = len(init_flat)
    carry_avals_out = traced.out_avals[:carry_tree.num_leaves]
    if carry_tree.num_leaves != num_carry:
        common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                                carry_avals_out)
    init_flat, changed = promote_weak_typed_inputs(init_flat, init_avals, carry_avals_out)
    if changed:
        init_avals = common.abstractify(init_flat)
        traced, carry_tree, ys_tree = trace(init_avals)
        carry_avals_out = traced.out_avals[:num_carry]
    common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                            carry_avals_out)
    unroll = _canonicalize_unroll(unroll, length)
    jaxpr, consts = traced.jaxpr, list(traced.consts)
    args = [*init_flat, *xs_flat]
    num_xs, num_ys = len(xs_flat), len(traced.out_avals) - num_carry

    # A carry the body passes through unchanged is really a constant.
    fwd = common.jaxpr_forwarding(jaxpr.jaxpr)
    carry_fwd, ys_fwd = fwd[:num_carry], fwd[num_carry:]
    move_to_const = [len(consts) + i == j for i, j in enumerate(carry_fwd)]
    new_consts = []
    if any(move_to_const):
        jaxpr = common.prune_outputs(jaxpr, [not m for m in move_to_const] + [True] * num_ys)
        jaxpr = common.move_binders_to_front(
            jaxpr, [False] * len(consts) + move_to_const + [False] * num_xs)
        args, new_consts = partition_list(move_to_const + [False] * num_xs, args)
        consts = [*new_consts, *consts]
        num_carry -= len(new_consts)
    # A ``y`` that is just an ``x`` is not copied by the loop: it is that ``xs``.
    ys_from_xs = [i - len(consts) if i is not None and i >= len(consts) + num_carry
                  else None for i in ys_fwd]
    jaxpr = common.prune_outputs(jaxpr, [True] * num_carry +
                                 [i is None for i in ys_from_xs])
    out = scan_p.bind(*consts, *args, reverse=reverse, length=length, jaxpr=jaxpr,
                      num_consts=len(consts), num_carry=num_carry, unroll=unroll)
    carry_out, ys_out = split_list(out, [num_carry])[:2]
    ys_out = iter(ys_out)
    ys_out = [next(ys_out) if i is None else common.asarray(args[i]) for i in ys_from_xs]
    out = [*carry_out, *ys_out]
    if any(move_to_const):
        out = merge_lists(move_to_const + [False] * num_ys, out, new_consts)
    return tree_util.tree_unflatten(traced.out_tree, out)


def _infer_length(xs_flat, length):
    """The number of iterations: the common leading axis of ``xs``, or ``length``."""
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError as err:
        bad = ", ".join(str(x) for x in xs_flat if not hasattr(x, "shape"))
        raise ValueError(f"scan got value with no leading axis to scan over: {bad}.") \
            from err
    if length is not None:
        try:
            length = int(length)
        except ConcretizationTypeError:
            raise ConcretizationTypeError(
                length, "The `length` argument to `scan` expects a concrete `int` value. "
                "For scan-like iteration with a dynamic length, use `while_loop` or "
                "`fori_loop`.") from None
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees "
                             f"with leading axis sizes {lengths}.")
        return length
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _canonicalize_unroll(unroll, length):
    unroll = core.concrete_or_error(
        None, unroll, "The `unroll` argument to `scan` expects a concrete `int` or "
        "`bool` value.")
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return int(unroll)


def _python_scan(f, init, xs_flat, xs, length, reverse):
    """``jax.disable_jit()``: an ordinary Python loop."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                         "the output type is unknown.")
    xs_tree = tree_util.tree_structure(xs)
    carry, ys = init, []
    order = range(length - 1, -1, -1) if reverse else range(length)
    for i in order:
        x = tree_util.tree_unflatten(xs_tree, [slicing.index_in_dim(x, i, keepdims=False)
                                               for x in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    stack = lambda *y: structural.concatenate([structural.expand_dims(a, (0,)) for a in y], 0)
    return carry, tree_util.tree_map(stack, *ys)


def map(f, xs, *, batch_size=None):  # noqa: A001 - the lax name
    """``stack([f(x) for x in xs])`` over the leading axis of the pytree ``xs``, as a
    ``scan``. With ``batch_size``, ``f`` is ``vmap``-ed over chunks of that size (the
    remainder in one more ``vmap``)."""
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    scan_xs, rest_xs = _batch_and_remainder(xs, batch_size)
    if scan_xs is None:
        return vmap(f)(rest_xs)
    _, scan_ys = scan(lambda _, x: ((), vmap(f)(x)), (), scan_xs)
    flatten = lambda y: y.reshape(-1, *y.shape[2:])
    if rest_xs is None:
        return tree_util.tree_map(flatten, scan_ys)
    rest_ys = vmap(f)(rest_xs)
    return tree_util.tree_map(lambda y, r: structural.concatenate([flatten(y), r], 0),
                              scan_ys, rest_ys)


def _batch_and_remainder(xs, batch_size: int):
    """``xs`` cut into ``(num_batches, batch_size, ...)`` chunks, and what is left over
    (None for either when there is none)."""
    leaves, treedef = tree_util.tree_flatten(xs)
    if not leaves:
        return xs, None
    n = leaves[0].shape[0]
    num_batches, remainder = (0, n) if batch_size == 0 else divmod(n, batch_size)
    used = num_batches * batch_size
    if not num_batches:
        return None, treedef.unflatten([x[used:] for x in leaves])
    chunk = lambda x: x[:used].reshape(num_batches, batch_size, *x.shape[1:])
    if not remainder:
        return treedef.unflatten([chunk(x) for x in leaves]), None
    pairs = [(chunk(x), x[used:]) for x in leaves]
    return (treedef.unflatten([c for c, _ in pairs]),
            treedef.unflatten([r for _, r in pairs]))


# ----------------------------------------------------------------------------------------
# The primitive
# ----------------------------------------------------------------------------------------

scan_p = core.Primitive("scan")
scan_p.multiple_results = True
scan_p.def_impl(functools.partial(dispatch.apply_primitive, scan_p))
scan_p.drawing = core.Drawing("scan", "scan",
                              quiet=frozenset({"linear", "unroll", "_split_transpose"}))


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, reverse, length, num_consts, num_carry, jaxpr, unroll):
    if len(avals) != len(jaxpr.in_avals):
        raise ValueError("scan number of arguments doesn't match the number of jaxpr "
                         f"arguments: {len(avals)} vs {len(jaxpr.in_avals)}")
    carry_avals, y_avals = split_list(jaxpr.out_avals, [num_carry])[:2]
    return carry_avals + [stacked_aval(length, a) for a in y_avals]


def stacked_aval(length, aval):
    """The type of ``length`` values of type ``aval`` stacked along a new first axis."""
    typed = getattr(aval, "_sharding", None)
    return aval.update(shape=(length, *aval.shape),
                       sharding=typed and (typed[0], (None, *typed[1])))


def unstacked_aval(aval):
    typed = getattr(aval, "_sharding", None)
    rest = typed and typed[1][1:]
    return aval.update(shape=aval.shape[1:],
                       sharding=(typed[0], rest) if rest and any(rest) else None)


staging.effects_rules[scan_p] = lambda jaxpr, **_: common.inner_effects(jaxpr)


def _scan_impl(*args, reverse, length, num_consts, num_carry, jaxpr, unroll):
    """A scan written with a ``while_loop`` over the trip index: each trip slices the
    ``xs`` it needs, runs ``unroll`` iterations of the body and writes their ``ys`` into
    buffers allocated up front. Iterations left over when ``unroll`` does not divide
    ``length`` run unrolled after the loop. This is how scan is lowered."""
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    y_avals = jaxpr.out_avals[num_carry:]
    num_trips, remainder = (0, length) if unroll == 0 else divmod(length, unroll)
    if unroll != 1 and num_trips == 1 and remainder == 0:
        num_trips, remainder = 0, length       # one trip of everything: no loop at all

    def body(carry, x):
        # A call, so the body is lowered once as a private function however often the
        # loop is unrolled (JAX names it ``closed_call``).
        args = [*consts, *carry, *x]
        outs = jit_p.bind(*args, jaxpr=jaxpr, name="closed_call",
                          donated_invars=(False,) * len(args), inline=False,
                          keep_unused=False)
        return outs[:num_carry], outs[num_carry:]

    def unrolled(n, carry, xs):
        """``n`` iterations on ``xs`` with a leading axis of size ``n``."""
        ys = []
        for step in range(n):
            i = n - step - 1 if reverse else step
            carry, y = body(carry, [slicing.index_in_dim(x, i, keepdims=False) for x in xs])
            ys.append(y)
        ys = ys[::-1] if reverse else ys
        return carry, [structural.concatenate([structural.expand_dims(y, (0,)) for y in ys_i], 0)
                       for ys_i in zip(*ys)]

    xs_rem = []
    if unroll != 1 and remainder:      # the left-over iterations come last (first if
        cut = remainder if reverse else num_trips * unroll            # reversed)
        parts = [(slicing.slice_in_dim(x, 0, cut), slicing.slice_in_dim(x, cut, x.shape[0]))
                 for x in xs]
        heads, tails = [h for h, _ in parts], [t for _, t in parts]
        xs, xs_rem = (tails, heads) if reverse else (heads, tails)
    if unroll == 1:
        trip_xs, trip_ys = xs, [_empty((length,), a) for a in y_avals]
    elif num_trips:
        trip_xs = [structural.reshape(x, (num_trips, unroll, *x.shape[1:])) for x in xs]
        trip_ys = [_empty((num_trips, unroll), a) for a in y_avals]
    else:
        trip_ys = [_empty((0,), a) for a in y_avals]

    def trip(state):
        i_, carry, ys = state
        i = elementwise.sub(elementwise.sub(num_trips, i_), 1) if reverse else i_
        x = [slicing.dynamic_index_in_dim(x, i, keepdims=False, allow_negative_indices=False)
             for x in trip_xs]
        if unroll == 1:
            carry, y = body(carry, x)
        else:
            carry, y = unrolled(unroll, carry, x)
        ys = [slicing.dynamic_update_index_in_dim(buf, upd, i, 0, allow_negative_indices=False)
              for buf, upd in zip(ys, y)]
        return elementwise.add(i_, 1), carry, ys

    ys = trip_ys
    if num_trips:
        _, carry, ys = while_loop(lambda state: elementwise.lt(state[0], num_trips), trip,
                                  (0, carry, trip_ys))
        if unroll != 1:
            ys = [structural.reshape(y, (num_trips * unroll, *y.shape[2:])) for y in ys]
    if remainder:
        carry, ys_rem = unrolled(remainder, carry, xs_rem)
        ys = [structural.concatenate([r, y] if reverse else [y, r], 0) for y, r in zip(ys, ys_rem)]
    return [*carry, *ys]


def _empty(prefix, aval):
    """An uninitialised buffer for ``ys``: ``aval`` with leading axes ``prefix`` (split
    as ``aval`` is, over Explicit mesh axes)."""
    typed = aval._sharding
    split = typed and NamedSharding(typed[0], PartitionSpec(*[None] * len(prefix), *typed[1]))
    return structural.broadcast(common.empty_like_aval(aval.update(shape=(), sharding=None)),
                                (*prefix, *aval.shape), out_sharding=split)


lowering.register_lowering(scan_p, lowering.lower_fun(_scan_impl, multiple_results=True))


# -- forward mode -------------------------------------------------------------------------

def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    """One scan of the body's JVP: const tangents join the consts, carry tangents the
    carry, x tangents the xs. Which carry tangents are nonzero is a fixpoint."""
    num_xs = len(jaxpr.in_avals) - num_carry - num_consts
    num_ys = len(jaxpr.out_avals) - num_carry
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    const_nz, init_nz, xs_nz = split_list(nonzeros, [num_consts, num_carry])

    def jvp_body(carry_nz):
        jaxpr_jvp, nonzeros_out = ad.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                               instantiate=carry_nz + [False] * num_ys)
        return (jaxpr_jvp, nonzeros_out), nonzeros_out[:num_carry]
    carry_nz, (jaxpr_jvp, nonzeros_out) = common.carry_fixpoint(init_nz, jvp_body)
    nonzeros = const_nz + carry_nz + xs_nz
    tangents = [ad.instantiate_zeros(t) if nz else t for t, nz in zip(tangents, nonzeros)]
    consts, init, xs = split_list(primals, [num_consts, num_carry])
    consts_dot, init_dot, xs_dot = ([t for t in ts if type(t) is not ad.Zero]
                                    for ts in split_list(tangents, [num_consts, num_carry]))
    jaxpr_jvp = common.rearrange_binders(
        jaxpr_jvp, [num_consts, num_carry, num_xs],
        [len(consts_dot), len(init_dot), len(xs_dot)],
        [num_carry, num_ys], [len(init_dot), sum(nonzeros_out) - len(init_dot)])
    out = scan_p.bind(*consts, *consts_dot, *init, *init_dot, *xs, *xs_dot,
                      reverse=reverse, length=length, jaxpr=jaxpr_jvp,
                      num_consts=num_consts + len(consts_dot),
                      num_carry=num_carry + len(init_dot), unroll=unroll)
    carry, carry_dot, ys, ys_dot = split_list(out, [num_carry, len(init_dot), num_ys])
    primals_out = carry + ys
    tangents_out = iter(carry_dot + ys_dot)
    return primals_out, [next(tangents_out) if nz else ad.Zero.from_primal_value(p)
                         for p, nz in zip(primals_out, nonzeros_out)]


ad.primitive_jvps[scan_p] = _scan_jvp


# -- reverse mode: linearize, then transpose ------------------------------------------------

def _scan_linearize(nonzeros, *primals_in, reverse, length, num_consts, num_carry, jaxpr,
                    unroll):
    """Split the body into a primal body, which also returns the residuals each
    iteration's tangent needs, and a linear body reading them; run the primal scan now
    and return the linear scan.

    Residuals become ``xs`` of the linear scan (stacked per iteration), except those that
    are inputs already (a const or an ``x``: passed as is) and those that depend only on
    consts: these are computed once, outside the loop, and passed as consts."""
    const_nz, init_nz, xs_nz = split_list(nonzeros, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    allow_fwds = [True] * len(jaxpr.consts) + [
        (i < num_consts or i >= num_consts + num_carry) and not isinstance(x, np.ndarray)
        for i, x in enumerate(primals_in)]

    def linearize_body(carry_nz):
        linearized = ad.linearize_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                        instantiate=carry_nz + [False] * num_ys,
                                        allow_fwds=allow_fwds)
        return linearized, linearized[2][:num_carry]
    carry_nz, linearized = common.carry_fixpoint(init_nz, linearize_body)
    nzs = const_nz + carry_nz + xs_nz
    primal_jaxpr, num_res, nzs_out, res_fwd, tangent_jaxpr = linearized
    num_primals_out = len(primal_jaxpr.out_avals) - num_res
    consts_in, carry_xs_in = split_list(primals_in, [num_consts])[:2]
    primal_jaxpr, consts_in, hoisted, hoisted_res = _hoist_loop_invariant_residuals(
        primal_jaxpr, consts_in, num_res)
    # The linear scan takes (*intensive residuals, *tangents, *extensive residuals).
    hoisted_iter = iter(hoisted)
    res_is_ext = [not next(hoisted_iter) if f is None
                  else f >= len(jaxpr.consts) + num_consts + num_carry for f in res_fwd]
    num_tangents_in = len(tangent_jaxpr.in_avals) - len(res_fwd)
    tangent_jaxpr = common.move_binders_to_back(tangent_jaxpr,
                                                res_is_ext + [False] * num_tangents_in)
    out = scan_p.bind(*consts_in, *carry_xs_in, jaxpr=primal_jaxpr, reverse=reverse,
                      length=length, num_consts=len(consts_in), num_carry=num_carry,
                      unroll=unroll) if primal_jaxpr.out_avals else []
    primals_out, ext_res = split_list(out, [num_primals_out])[:2]
    computed = iter(merge_lists(hoisted, ext_res, hoisted_res))
    inputs = [*jaxpr.consts, *primals_in]
    res = [next(computed) if f is None else inputs[f] for f in res_fwd]
    tangent_avals = [a.to_tangent_aval() for a in _scan_abstract_eval(
        *(core.get_aval(x) for x in primals_in), reverse=reverse, length=length,
        num_consts=num_consts, num_carry=num_carry, jaxpr=jaxpr, unroll=unroll)]

    def linearized(res, *tangents):
        int_res, ext_res = partition_list(res_is_ext, res)
        nz_tangents = [ad.instantiate_zeros(t) for t, nz in zip(tangents, nzs) if nz]
        outs = iter(scan_p.bind(
            *int_res, *nz_tangents, *ext_res, jaxpr=tangent_jaxpr, reverse=reverse,
            length=length, num_consts=len(int_res) + sum(nzs[:num_consts]),
            num_carry=sum(nzs[num_consts:num_consts + num_carry]), unroll=unroll))
        return [next(outs) if nz else ad.Zero(a) for a, nz in zip(tangent_avals, nzs_out)]

    return primals_out, nzs_out, res, linearized


ad.primitive_linearizations[scan_p] = _scan_linearize


def _scan_partial_eval(trace, *args, reverse, length, num_consts, num_carry, jaxpr,
                       unroll):
    """Operands partly unknown (``partial_eval.PartialEvalTrace``): a known scan computes
    the known outputs and the residuals, an unknown scan the rest from them. As in
    linearization, residuals that are known ``xs`` are passed as they are, and those that
    depend on known consts only are hoisted out of the loop."""
    num_ys = len(jaxpr.out_avals) - num_carry
    const_uk, init_uk, xs_uk = split_list([trace.is_unknown(x) for x in args],
                                          [num_consts, num_carry])

    def partial_eval_body(carry_uk):
        split = pe.partial_eval_jaxpr_nounits(jaxpr, const_uk + carry_uk + xs_uk,
                                              carry_uk + [False] * num_ys)
        return split, split[2][:num_carry]
    carry_uk, (known, unknown, out_uk, num_res) = common.carry_fixpoint(init_uk,
                                                                         partial_eval_body)
    unknowns = const_uk + carry_uk + xs_uk
    known_args = [x for x, uk in zip(args, unknowns) if not uk]
    num_known_consts = num_consts - sum(const_uk)
    num_known_carry = num_carry - sum(carry_uk)
    num_known_outs = len(out_uk) - sum(out_uk)
    res_fwd = [i if i is not None and i >= num_known_consts + num_known_carry else None
               for i in common.jaxpr_forwarding(known.jaxpr)[num_known_outs:]]
    known = common.prune_outputs(known, [True] * num_known_outs +
                                 [f is None for f in res_fwd])
    known_consts, known_rest = split_list(known_args, [num_known_consts])[:2]
    known, known_consts, hoisted, hoisted_res = _hoist_loop_invariant_residuals(
        known, known_consts, sum(f is None for f in res_fwd))
    known_outs = scan_p.bind_with_trace(trace.known_trace, [*known_consts, *known_rest], dict(
        reverse=reverse, length=length, jaxpr=known, num_consts=len(known_consts),
        num_carry=num_known_carry, unroll=unroll)) \
        if known.out_avals or known.effects else []     # (as JAX: nothing to run)
    known_outs, ext_res = split_list(known_outs, [num_known_outs])[:2]
    computed = iter(merge_lists(hoisted, ext_res, hoisted_res))
    res = [next(computed) if f is None else known_args[f] for f in res_fwd]
    hoisted = iter(hoisted)
    res_is_ext = [f is not None or not next(hoisted) for f in res_fwd]
    # The unknown scan takes (*hoisted residuals, *unknown inputs, *stacked residuals).
    unknown = common.move_binders_to_back(unknown, res_is_ext)
    int_res, ext_res = partition_list(res_is_ext, res)
    unknown_outs = scan_p.bind_with_trace(
        trace.unknown_trace,
        [*int_res, *(x for x, uk in zip(args, unknowns) if uk), *ext_res],
        dict(reverse=reverse, length=length, jaxpr=unknown,
             num_consts=len(int_res) + sum(const_uk), num_carry=sum(carry_uk),
             unroll=unroll))
    return merge_lists(out_uk, known_outs, unknown_outs)


pe.partial_eval_rules[scan_p] = _scan_partial_eval


def _hoist_loop_invariant_residuals(primal_jaxpr, consts, num_res):
    """Partially evaluate the primal body with its consts known: what depends on the
    consts only is computed now, once. Residuals computed that way are *hoisted* out of
    the loop. Returns the new body (taking the values it still needs from that
    computation as consts), those consts, which residuals were hoisted and their
    values."""
    unknown = staging.DynamicJaxprTrace(primal_jaxpr.jaxpr.debug_info)
    trace = pe.PartialEvalTrace(core.trace_ctx.trace, unknown)
    num_outs = len(primal_jaxpr.out_avals) - num_res
    with core.set_current_trace(trace):
        args = [*consts, *(unknown.new_arg(a)
                           for a in primal_jaxpr.in_avals[len(consts):])]
        outs = common.closed_call(primal_jaxpr, *args)
    outs, res = split_list(outs, [num_outs])[:2]
    hoisted = [not trace.is_unknown(r) for r in res]
    jaxpr, new_consts = unknown.to_jaxpr(
        [*outs, *(r for r, h in zip(res, hoisted) if not h)])
    jaxpr, new_consts = pe.dce_jaxpr_consts(jaxpr, new_consts)
    jaxpr, new_consts = pe.reorder_consts_as_jaxpr_trace(jaxpr, new_consts)
    body = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])
    return body, list(new_consts), hoisted, [r for r, h in zip(res, hoisted) if h]


def _scan_transpose(cts, *args, reverse, length, num_consts, num_carry, jaxpr, unroll):
    """Run the transposed body backwards over the iterations. Its carry holds the
    cotangents of the carry and of the linear consts (accumulated over iterations); it
    reads the cotangents of ``ys`` and the residuals as ``xs`` and produces the
    cotangents of the linear ``xs`` as its ``ys``. Operands that are not linear (the
    residuals) are consts or ``xs`` as before."""
    consts, _, xs = split_list(args, [num_consts, num_carry])
    const_lin = [ad.is_undefined_primal(x) for x in consts]
    xs_lin = [ad.is_undefined_primal(x) for x in xs]
    ires = [x for x, lin in zip(consts, const_lin) if not lin]
    eres = [x for x, lin in zip(xs, xs_lin) if not lin]
    ct_carry, ct_ys = split_list(cts, [num_carry])[:2]
    ct_carry = [ad.instantiate_zeros(ct) for ct in ct_carry]
    ct_ys_zero = [type(ct) is ad.Zero for ct in ct_ys]
    ct_ys = [ct for ct in ct_ys if type(ct) is not ad.Zero]
    ct_consts = [ad.zeros_like_aval(x.aval.to_tangent_aval())
                 for x, lin in zip(consts, const_lin) if lin]
    # The transposed body is typed by the values it receives (as in JAX).
    get_avals = lambda xs: tuple(core.get_aval(x) for x in xs)
    jaxpr_trans = _transpose_scan_body(
        jaxpr, tuple(const_lin), tuple(xs_lin), tuple(ct_ys_zero),
        get_avals(ires), get_avals(ct_consts), get_avals(ct_carry),
        tuple(unstacked_aval(core.get_aval(ct)) for ct in ct_ys),
        tuple(unstacked_aval(core.get_aval(x)) for x in eres),
        tuple(unstacked_aval(x.aval) for x, lin in zip(xs, xs_lin) if lin))
    outs = scan_p.bind(*ires, *ct_consts, *ct_carry, *ct_ys, *eres, reverse=not reverse,
                       length=length, jaxpr=jaxpr_trans, num_consts=len(ires),
                       num_carry=len(ct_consts) + num_carry, unroll=unroll)
    ct_consts, ct_init, ct_xs = split_list(outs, [len(ct_consts), num_carry])
    ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
    return ([next(ct_consts) if lin else None for lin in const_lin] + ct_init +
            [next(ct_xs) if lin else None for lin in xs_lin])


def _transpose_scan_body(jaxpr, const_lin, xs_lin, ct_ys_zero, ires_avals, ct_const_avals,
                         ct_carry_avals, ct_y_avals, eres_avals, lin_x_avals):
    """``(ires, [ct_consts, ct_carry], [ct_ys, eres]) -> ([ct_consts, ct_carry], ct_xs)``
    from the linear body ``(consts, carry, xs) -> (carry, ys)``."""
    num_consts, num_carry = len(const_lin), len(ct_carry_avals)
    y_avals = jaxpr.out_avals[num_carry:]

    def transposed(*args):
        ires, ct_consts, ct_carry, ct_ys, eres = split_list(
            args, [len(ires_avals), len(ct_const_avals), num_carry, len(ct_y_avals)])
        ires, eres, ct_ys = iter(ires), iter(eres), iter(ct_ys)
        const_avals, x_avals = iter(ct_const_avals), iter(lin_x_avals)
        primals = ([ad.UndefinedPrimal(next(const_avals)) if lin else next(ires)
                    for lin in const_lin] +
                   [ad.UndefinedPrimal(a) for a in ct_carry_avals] +
                   [ad.UndefinedPrimal(next(x_avals)) if lin else next(eres)
                    for lin in xs_lin])
        cts_out = ct_carry + [ad.Zero(a.to_tangent_aval()) if z else next(ct_ys)
                              for a, z in zip(y_avals, ct_ys_zero)]
        # The consts' cotangents so far are seeded first, as if the body also returned
        # those consts: each iteration's contributions are then added to them.
        lin_const_vars = [v for v, lin in zip(jaxpr.jaxpr.invars, const_lin) if lin]
        seeded = jaxpr.jaxpr.replace(outvars=[*lin_const_vars, *jaxpr.jaxpr.outvars])
        cts_in = ad.backward_pass(seeded, jaxpr.consts, primals, [*ct_consts, *cts_out])
        ct_consts, ct_carry, ct_xs = split_list(cts_in, [num_consts, num_carry])
        return [ad.instantiate_zeros(ct) for ct, lin in
                [*zip(ct_consts, const_lin), *((c, True) for c in ct_carry),
                 *zip(ct_xs, xs_lin)] if lin]

    return common.trace_closed(
        transposed, [*ires_avals, *ct_const_avals, *ct_carry_avals, *ct_y_avals,
                     *eres_avals], jaxpr.jaxpr.debug_info)


ad.primitive_transposes[scan_p] = _scan_transpose


# -- vmap ----------------------------------------------------------------------------------

def _scan_batching_rule(axis_data, args, dims, *, reverse, length, jaxpr, num_consts,
                        num_carry, unroll):
    """Consts and carry get their batch axis first; ``xs`` and ``ys`` second (the first
    is the one scanned over). Which carries are batched is a fixpoint."""
    num_ys = len(jaxpr.out_avals) - num_carry
    batched = [d is not batching.not_mapped for d in dims]
    const_bat, init_bat, xs_bat = split_list(batched, [num_consts, num_carry])

    def batch_body(carry_bat):
        jaxpr_batched, out_bat = batching.batch_jaxpr(
            jaxpr, axis_data, const_bat + carry_bat + xs_bat, carry_bat + [False] * num_ys)
        return (jaxpr_batched, out_bat), out_bat[:num_carry]
    carry_bat, (jaxpr_batched, out_bat) = common.carry_fixpoint(init_bat, batch_body)
    consts, init, xs = split_list(args, [num_consts, num_carry])
    const_dims, init_dims, xs_dims = split_list(dims, [num_consts, num_carry])
    consts = [batching.moveaxis(x, d, 0) if d is not batching.not_mapped else x
              for x, d in zip(consts, const_dims)]
    init = [batching.broadcast(x, axis_data.size, 0) if now and not was
            else batching.moveaxis(x, d, 0) if now else x
            for x, d, was, now in zip(init, init_dims, init_bat, carry_bat)]
    xs = [batching.moveaxis(x, d, 1) if d is not batching.not_mapped else x
          for x, d in zip(xs, xs_dims)]
    outs = scan_p.bind(*consts, *init, *xs, reverse=reverse, length=length,
                       jaxpr=jaxpr_batched, num_consts=num_consts, num_carry=num_carry,
                       unroll=unroll)
    return outs, ([0 if b else batching.not_mapped for b in carry_bat] +
                  [1 if b else batching.not_mapped for b in out_bat[num_carry:]])


batching.fancy_primitive_batchers[scan_p] = _scan_batching_rule


# -- dead code -----------------------------------------------------------------------------

def _scan_dce_rule(used_outputs, eqn):
    """Drop unused ``ys`` and the carries nothing needs (a carry is needed if it is used
    after the loop or by a needed part of the body: a fixpoint), then unused inputs."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    params = eqn.params
    jaxpr, num_consts, num_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    used_carry, used_ys = split_list(used_outputs, [num_carry])[:2]

    def dce_body(used_carry):
        jaxpr_dce, used_inputs = pe.dce_jaxpr(
            jaxpr.jaxpr, used_carry + used_ys,
            [False] * num_consts + used_carry + [False] * num_xs)
        return (jaxpr_dce, used_inputs), used_inputs[num_consts:num_consts + num_carry]
    used_carry, (jaxpr_dce, used_inputs) = common.carry_fixpoint(used_carry, dce_body)
    used_outputs = used_carry + used_ys
    new_params = dict(params, num_consts=sum(used_inputs[:num_consts]),
                      num_carry=sum(used_carry), jaxpr=jaxpr.replace(jaxpr=jaxpr_dce))
    return used_inputs, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u], params=new_params)


pe.dce_rules[scan_p] = _scan_dce_rule


# -- rematerialization ---------------------------------------------------------------------

def _scan_partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """``checkpoint`` of a scan: a known scan computes the known outputs and stacks the
    residuals ``saveable`` allows, per iteration; the staged scan reads them as ``xs``.
    (Unlike JAX, residuals that depend on consts only are not hoisted out of the loop.)"""
    params = eqn.params
    jaxpr, num_consts, num_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
    num_ys = len(jaxpr.out_avals) - num_carry
    const_uk, carry_uk, xs_uk = split_list(unks_in, [num_consts, num_carry])

    def partial_eval_body(carry_uk):
        split = pe.partial_eval_jaxpr_custom(
            jaxpr.jaxpr, const_uk + carry_uk + xs_uk, True, carry_uk + [False] * num_ys,
            True, saveable)
        return split, split[2][:num_carry]
    carry_uk, (known, staged, unks_out, inst_out, num_res) = common.carry_fixpoint(
        carry_uk, partial_eval_body)
    unks_in = const_uk + carry_uk + xs_uk
    staged = common.move_binders_to_back(core.ClosedJaxpr(staged, jaxpr.consts),
                                         [True] * num_res)
    res_vars = [core.Var(stacked_aval(params["length"], v.aval))
                for v in staged.jaxpr.invars[len(staged.jaxpr.invars) - num_res:]]
    eqn_known = eqn.replace(
        invars=[v for v, uk in zip(eqn.invars, unks_in) if not uk],
        outvars=[*(v for v, uk in zip(eqn.outvars, unks_out) if not uk), *res_vars],
        params=dict(params, jaxpr=core.ClosedJaxpr(known, jaxpr.consts),
                    num_consts=num_consts - sum(const_uk),
                    num_carry=num_carry - sum(carry_uk)),
        effects=known.effects)
    eqn_staged = eqn.replace(invars=[*eqn.invars, *res_vars],
                             params=dict(params, jaxpr=staged), effects=staged.effects)
    new_inst = [x for x, inst in zip(eqn.invars, inst_in)
                if isinstance(x, core.Var) and not inst]
    return eqn_known, eqn_staged, unks_out, inst_out, new_inst + res_vars


pe.partial_eval_jaxpr_custom_rules[scan_p] = _scan_partial_eval_custom
