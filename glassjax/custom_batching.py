"""``jax.custom_batching``: ``custom_vmap`` (a function with its own vmap rule) and
``sequential_vmap`` (a function batched by a loop).

A ``custom_vmap`` function is applied with the ``custom_vmap_call`` primitive, which
carries the function's jaxpr (``call``) and the user's rule. Evaluated, staged or lowered
it is just the function; only vmap looks at the rule, calling it on whole batches::

    rule(axis_size, in_batched, *args) -> (outputs, out_batched)

``in_batched`` / ``out_batched`` are pytrees of bools shaped like the arguments /
outputs; batched values have their batch axis in front.

Under ``jvp`` the equation becomes one ``custom_vmap_call`` computing primals and tangents
together, whose rule is the JVP of the user's rule (where a primal is batched and its
tangent is not, or the reverse, that extra axis is vmapped over the rule's JVP). There
is no transpose: for reverse mode, put a ``custom_vjp`` around the ``custom_vmap``.
"""
from __future__ import annotations

import functools
import operator

from glassjax import core, tree_util
from glassjax.custom_derivatives import Rule, _name, _resolve_kwargs, forward_def_attr
from glassjax.interpreters import ad, batching, staging
from glassjax.tree_util import (tree_flatten, tree_map, tree_structure, tree_unflatten,
                                treedef_tuple)
from glassjax.xla import lowering


class custom_vmap:
    """Customize how ``fun`` is batched: ``@f.def_vmap`` gives the rule vmap uses."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    __getattr__ = forward_def_attr

    def def_vmap(self, vmap_rule):
        """Set the vmap rule; returns it unchanged (so it can be a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        name = _name(self.fun)
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vmap", name)
        if not self.vmap_rule:
            raise AttributeError(f"No batching rule defined for custom_vmap function {name} "
                                 "using def_vmap.")
        args_flat, in_tree = tree_flatten(args)
        out_trees = []

        def flat_fun(*leaves):
            outs, out_tree = tree_flatten(self.fun(*tree_unflatten(in_tree, leaves)))
            out_trees.append(out_tree)
            return outs

        jaxpr, consts, _ = staging.trace_to_jaxpr(
            flat_fun, [core.get_aval(x) for x in args_flat],
            staging.DebugInfo("custom_vmap fun", name, ()))
        call = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])
        out_flat = custom_vmap_p.bind(
            *consts, *args_flat, call=call, rule=ClosedRule(self.vmap_rule),
            in_tree=treedef_tuple((tree_structure(consts), in_tree)), out_tree=out_trees[0])
        return tree_unflatten(out_trees[0], out_flat)


class ClosedRule:
    """The user's rule as the primitive calls it: the function's closed-over constants
    (never batched) come first and are not passed on. Prints as the user's function."""

    def __init__(self, rule):
        functools.update_wrapper(self, rule)
        self.rule = rule

    def __call__(self, axis_size, all_in_batched, consts, args):
        consts_batched, in_batched = all_in_batched
        assert not any(tree_util.tree_leaves(consts_batched)), consts_batched
        return _call_rule(self.rule, axis_size, in_batched, args)

    def __str__(self):
        return str(self.rule)


def _call_rule(rule, axis_size, in_batched, args):
    return rule(axis_size, list(in_batched), *args)


def _rule_name(rule):
    return getattr(rule, "__name__", "<unnamed rule>")


def _check_rule_trees(rule, original_out_tree, out_tree, out_batched_tree):
    if out_tree != out_batched_tree:
        raise ValueError(
            "structure of output value and output batching specification returned by "
            f"custom vmap rule ({_rule_name(rule)}) do not match.\n"
            f"Output values: {out_tree}\nBatching spec: {out_batched_tree}")
    if out_tree != original_out_tree:
        raise ValueError(
            f"structure of output returned by custom vmap rule ({_rule_name(rule)}) does "
            "not match that of original custom-vmapped function.\n"
            f"Original output: {original_out_tree}\nRule output: {out_tree}")


def _bdim_at_front(x, bdim):
    """Like ``batching.bdim_at_front``, but an unmapped value stays unbatched."""
    return x if bdim is batching.not_mapped else batching.moveaxis(x, bdim, 0)


# ----------------------------------------------------------------------------------------
# The custom_vmap_call primitive
# ----------------------------------------------------------------------------------------

def _custom_vmap_impl(*args, call, rule, in_tree, out_tree):
    return core.jaxpr_as_fun(call)(*args)


custom_vmap_p = core.Primitive("custom_vmap_call")
custom_vmap_p.multiple_results = True
custom_vmap_p.def_impl(_custom_vmap_impl)
custom_vmap_p.def_abstract_eval(lambda *avals, call, **params: call.out_avals)
staging.effects_rules[custom_vmap_p] = lambda call, **params: call.effects
lowering.register_lowering(custom_vmap_p, lowering.lower_fun(_custom_vmap_impl,
                                                             multiple_results=True))


def _custom_vmap_batch(args, dims, *, call, rule, in_tree, out_tree):
    """The rule, called on whole batches (batch axes moved to the front)."""
    axis_size, = {x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped}
    args = [_bdim_at_front(x, d) for x, d in zip(args, dims)]
    in_batched = tree_unflatten(in_tree, [d is not batching.not_mapped for d in dims])
    out, out_batched = _call_rule(rule, axis_size, in_batched, tree_unflatten(in_tree, args))
    flat_outs, tree1 = tree_flatten(out)
    flat_out_batched, tree2 = tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, tree1, tree2)
    return flat_outs, [0 if b else batching.not_mapped for b in flat_out_batched]


batching.primitive_batchers[custom_vmap_p] = _custom_vmap_batch


def _vmap_unrestricted(fun, args, in_axes, axis_size):
    """``fun`` batched along ``in_axes`` (an anonymous axis): ``(outputs, out_axes)``,
    each output's batch axis wherever the batching rules left it."""
    batched, out_axes = batching.batch_subtrace(
        Rule(fun, _name(fun)), object(), batching.AxisData(None, axis_size), in_axes)
    outs = batched.call_wrapped(*args)
    return outs, list(out_axes)


def custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    """One ``custom_vmap_call`` of ``(primals, tangents)``, whose rule is the JVP of
    ``rule``: values batched in both primal and tangent are batched for ``rule``; a
    batch axis only one of them has is vmapped over the JVP instead."""
    from glassjax.ad_api import jvp

    def jvp_of_rule_rule(axis_size, in_batched, primals, tangents):
        in_batched_ps, in_batched_ts = in_batched
        mutually_batched = tree_map(operator.and_, in_batched_ps, in_batched_ts)
        extra_batched_ps = tree_map(lambda pb, tb: 0 if pb and not tb else None,
                                    in_batched_ps, in_batched_ts)
        extra_batched_ts = tree_map(lambda pb, tb: 0 if tb and not pb else None,
                                    in_batched_ps, in_batched_ts)
        out_mutually_batched = []

        def to_jvp(*primals):
            out, out_batched = _call_rule(rule, axis_size, mutually_batched, primals)
            _check_rule_trees(rule, out_tree, tree_structure(out),
                              tree_structure(out_batched))
            out_mutually_batched.append(out_batched)
            return out

        flat_ps_ts, tree_ps_ts = tree_flatten((primals, tangents))
        flat_extra, _ = tree_flatten((extra_batched_ps, extra_batched_ts),
                                     is_leaf=lambda x: x is None)
        out_trees = []

        def to_vmap_over_extra_batched_dims(*leaves):
            ps, ts = tree_unflatten(tree_ps_ts, leaves)
            outs, out_tree2 = tree_flatten(jvp(to_jvp, ps, ts))
            out_trees.append(out_tree2)
            return outs

        to_vmap_over_extra_batched_dims.__name__ = _name(rule)
        flat_out_ps_ts, flat_out_axes = _vmap_unrestricted(
            to_vmap_over_extra_batched_dims, flat_ps_ts, flat_extra, axis_size)
        flat_out_ps_ts = [_bdim_at_front(x, d) for x, d in zip(flat_out_ps_ts, flat_out_axes)]
        n = len(flat_out_ps_ts) // 2
        extra_out_batched = [d is not batching.not_mapped for d in flat_out_axes]
        out_ps, out_ts = tree_unflatten(out_trees[0], flat_out_ps_ts)
        extra_ps, extra_ts = tree_unflatten(out_trees[0], extra_out_batched)
        out_batched_ps = tree_map(operator.or_, out_mutually_batched[0], extra_ps)
        out_batched_ts = tree_map(operator.or_, out_mutually_batched[0], extra_ts)
        assert len(extra_out_batched) == 2 * n
        return (out_ps, out_ts), (out_batched_ps, out_batched_ts)

    tangents = [ad.instantiate_zeros(t) for t in tangents]
    jvp_call, _ = ad.jvp_jaxpr(call, [True] * len(primals), True)
    outs = custom_vmap_p.bind(
        *primals, *tangents, call=jvp_call, rule=jvp_of_rule_rule,
        in_tree=treedef_tuple((in_tree, in_tree)), out_tree=treedef_tuple((out_tree, out_tree)))
    n = len(outs) // 2
    return outs[:n], outs[n:]


ad.primitive_jvps[custom_vmap_p] = custom_vmap_jvp


# ----------------------------------------------------------------------------------------
# sequential_vmap
# ----------------------------------------------------------------------------------------

def sequential_vmap(f):
    """``f`` as a ``custom_vmap`` whose rule calls it once per batch element (with
    ``lax.map``): for functions that cannot be batched otherwise."""
    from glassjax.lax.control_flow.scans import map as lax_map
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        mapped_args = tree_map(lambda b, x: x if b else None, in_batched, list(args))
        bcast_args = tree_map(lambda b, x: None if b else x, in_batched, list(args))

        def to_map(mapped_args):
            return f(*tree_map(lambda b, m, c: m if b else c,
                               in_batched, mapped_args, bcast_args))

        out = lax_map(to_map, mapped_args)
        return out, tree_map(lambda _: True, out)

    return f
