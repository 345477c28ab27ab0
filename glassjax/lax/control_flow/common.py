"""What the control-flow primitives share: tracing user functions into jaxprs, and small
surgery on those jaxprs.

``cond``, ``while_loop`` and ``scan`` all take Python functions. Each function is traced
once, at the abstract values of its arguments, into a jaxpr that becomes a *parameter* of
the primitive. Whatever the function closes over (arrays, or tracers of an enclosing
transformation) is not part of that jaxpr: it becomes extra leading operands, the
*consts* (``num_consts``, ``body_nconsts``, ...), so the jaxpr itself is closed and can be
compiled, differentiated and batched on its own.

Tracing is cached per function and argument types, so calling ``lax.cond(p, f, g, x)``
again with the same ``f`` and ``g`` reuses the same jaxprs -- and therefore the same
compiled executable when it runs eagerly.
"""
from __future__ import annotations

import inspect
from typing import Callable, Sequence

import numpy as np

from glassjax import caches, config, core, tree_util
from glassjax.core import ClosedJaxpr, Jaxpr, Var
from glassjax.interpreters import staging
from glassjax.jit import ref_hooks
from glassjax.lax import structural
from glassjax.lax.structural import _asarray
from glassjax.xla import dispatch, lowering, runtime


# ----------------------------------------------------------------------------------------
# Tracing the user's functions
# ----------------------------------------------------------------------------------------

class TracedFun:
    """A function traced for a control-flow primitive: ``jaxpr`` takes ``(*consts,
    *flat args)`` and has no constvars; ``consts`` are the values closed over; ``refs``
    the mutable array references (``jax.new_ref``) it reads or writes."""
    __slots__ = ("jaxpr", "consts", "out_tree", "refs")

    def __init__(self, jaxpr: ClosedJaxpr, consts: list, out_tree, refs=()):
        self.jaxpr = jaxpr
        self.consts = consts
        self.out_tree = out_tree
        self.refs = refs

    out_avals = property(lambda self: self.jaxpr.out_avals)


# fun -> {(key, trace context, named axes in scope): cached value}
_cache = caches.table("lax.control_flow.common.traces", weak=True,
                      why="entries die with the traced function")


def memoize(fun, key, build: Callable):
    """``build()``, remembered for ``(fun, key)`` while ``fun`` lives. Results that hold
    tracers (values closed over from an enclosing trace) belong to the trace current
    now: they are remembered for it alone, as JAX's cache (keyed on the current trace)
    remembers them, so a body scanned twice inside one trace is one jaxpr, printed once.
    Results of functions reading or writing refs (``jax.new_ref``), whose values are
    taken at trace time, are never remembered."""
    full_key = (key, config.trace_context(), tuple(core.trace_ctx.axis_env.items()))
    try:
        per_fun = _cache.setdefault(fun, {})
    except TypeError:           # not weak-referenceable (e.g. a builtin): no cache
        per_fun = {}
    in_trace_key = (full_key, core.trace_ctx.trace)
    hit = per_fun.get(full_key) or per_fun.get(in_trace_key)
    if hit is not None:
        return hit
    with ref_hooks.scope() as refs:
        result = build()
    if not refs.touched:
        per_fun[in_trace_key if _holds_tracers(result) else full_key] = result
    return result


def _holds_tracers(result) -> bool:
    items = result if isinstance(result, tuple) else (result,)
    for item in items:
        consts = item.consts if isinstance(item, TracedFun) else \
            item if isinstance(item, list) else ()
        if any(isinstance(c, core.Tracer) for c in consts):
            return True
    return False


def trace_fun(fun: Callable, in_tree, in_avals: Sequence, traced_for: str,
              args_for_names) -> TracedFun:
    """Trace ``fun(*args, **kwargs)`` at ``in_avals`` (cached), where ``in_tree`` is the
    structure of ``(args, kwargs)``."""
    def build():
        debug = staging.debug_info(traced_for, fun, args_for_names, {})
        out_tree = []

        def flat_fun(*leaves):
            args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
            out = fun(*args, **kwargs)
            leaves_out, tree = tree_util.tree_flatten(out)
            staging.check_jax_types(leaves_out, tree, debug)
            out_tree.append(tree)
            return leaves_out

        with ref_hooks.scope() as refs:
            jaxpr, consts, _ = staging.trace_to_jaxpr(flat_fun, in_avals, debug)
        closed = ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])
        return TracedFun(closed, list(consts), out_tree[0],
                         tuple(r for r, _ in refs.touched.values()))
    return memoize(fun, ("trace", in_tree, tuple(in_avals), traced_for), build)


def abstractify(leaves) -> list:
    return [core.get_aval(x) for x in leaves]


def asarray(x):
    """An operand returned as an output: a NumPy array is copied to the device (a
    constant, also while tracing), a Python scalar becomes a weakly typed array."""
    return runtime.device_put(x) if isinstance(x, np.ndarray) else _asarray(x)


def is_concrete(x) -> bool:
    return not isinstance(x, core.Tracer) or x.to_concrete_value() is not None


# ----------------------------------------------------------------------------------------
# Jaxpr surgery
# ----------------------------------------------------------------------------------------

def typematch(a1, a2) -> bool:
    """Same shape, dtype, memory space and split over Explicit mesh axes (sharding in
    types); weak types may differ (as in JAX)."""
    return (a1.shape == a2.shape and a1.dtype == a2.dtype and
            getattr(a1, "memory_space", None) is getattr(a2, "memory_space", None)
            and _spec(a1) == _spec(a2))


def _spec(aval):
    typed = getattr(aval, "_sharding", None)
    return typed and typed[1]


def jaxpr_forwarding(jaxpr: Jaxpr) -> list:
    """For each output, the index of the input it simply passes through, or None."""
    index = {v: i for i, v in enumerate(jaxpr.invars)}
    return [index.get(v) if isinstance(v, Var) else None for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    if all(keep):
        return closed
    outvars = [v for v, k in zip(closed.jaxpr.outvars, keep) if k]
    return closed.replace(jaxpr=closed.jaxpr.replace(outvars=outvars))


def move_binders_to_front(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    """Reorder the inputs: those flagged ``to_move`` first, the rest after, in order."""
    to_move = list(to_move) + [False] * (len(closed.jaxpr.invars) - len(to_move))
    invars = closed.jaxpr.invars
    moved = [v for v, m in zip(invars, to_move) if m] + \
            [v for v, m in zip(invars, to_move) if not m]
    return closed.replace(jaxpr=closed.jaxpr.replace(invars=moved))


def move_binders_to_back(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    to_move = list(to_move) + [False] * (len(closed.jaxpr.invars) - len(to_move))
    return move_binders_to_front(closed, [not m for m in to_move])


def split_list(xs, sizes):
    """``[1,2,3,4,5], [2, 1] -> [[1, 2], [3], [4, 5]]``."""
    xs, out, start = list(xs), [], 0
    for n in sizes:
        out.append(xs[start:start + n])
        start += n
    out.append(xs[start:])
    return out


def partition_list(flags, xs):
    """``(xs where not flag, xs where flag)``."""
    return ([x for f, x in zip(flags, xs) if not f], [x for f, x in zip(flags, xs) if f])


def merge_lists(flags, falses, trues):
    """Inverse of ``partition_list``."""
    falses, trues = iter(falses), iter(trues)
    return [next(trues) if f else next(falses) for f in flags]


def carry_fixpoint(flags, transform):
    """The per-carry flags that a transformation of a loop body settles on, and the
    transformation's result for them.

    A flag per carry says, say, that its tangent is nonzero, that it is batched, or that
    it is unknown. Transformed under some flags, a body can raise the flag on more carry
    outputs than inputs (a zero tangent becomes nonzero after one iteration), and a loop
    feeds its outputs back in; so the input flags take in the output flags and the body
    is transformed again, until they agree -- at most once per carry, since flags only
    ever turn on. ``transform(flags)`` returns ``(result, flags_out)``."""
    for _ in range(1 + len(flags)):
        result, flags_out = transform(flags)
        if flags_out == flags:
            break
        flags = [a or b for a, b in zip(flags, flags_out)]
    return flags, result


def rearrange_binders(closed: ClosedJaxpr, primals_in, tangents_in, primals_out,
                      tangents_out) -> ClosedJaxpr:
    """A JVP jaxpr takes ``(*primals, *tangents)``; loops want each group of primals
    (consts, carry, xs) next to its tangents. The sizes of the groups are given for the
    inputs and the outputs; e.g. inputs ``[c, x], [dc]`` with sizes ``[1, 1], [1, 0]``
    become ``[c, dc, x]``."""
    jaxpr = closed.jaxpr
    def interleave(xs, primal_sizes, tangent_sizes):
        primals, tangents = split_list(xs, [sum(primal_sizes)])[:2]
        groups_p = split_list(primals, primal_sizes)[:-1]
        groups_t = split_list(tangents, tangent_sizes)[:-1]
        return [x for p, t in zip(groups_p, groups_t) for x in (*p, *t)]
    return closed.replace(jaxpr=jaxpr.replace(
        invars=interleave(jaxpr.invars, primals_in, tangents_in),
        outvars=interleave(jaxpr.outvars, primals_out, tangents_out)))


def closed_call(closed: ClosedJaxpr, *args):
    """Evaluate a closed jaxpr with the current trace (inlining its equations)."""
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def trace_closed(fun: Callable, in_avals: Sequence, debug=None) -> ClosedJaxpr:
    """Trace a flat function of arrays into a closed jaxpr whose consts stay inside it:
    how rules build new jaxprs (padded branches, transposed bodies, ...)."""
    jaxpr, consts, _ = staging.trace_to_jaxpr(fun, in_avals, debug)
    closed, lifted = staging.close_over_concrete_consts(jaxpr, consts)
    assert not lifted, "rules only close over concrete values"
    return closed


def inner_effects(*jaxprs) -> frozenset:
    return frozenset().union(*(j.effects for j in jaxprs))


# ----------------------------------------------------------------------------------------
# Placeholders for values a branch does not compute (``empty2``)
# ----------------------------------------------------------------------------------------

empty2_p = core.Primitive("empty2")
empty2_p.def_impl(lambda *, dtype, memory_space: dispatch.apply_primitive(
    empty2_p, dtype=dtype, memory_space=memory_space))
empty2_p.def_abstract_eval(lambda *, dtype, memory_space: core.ShapedArray(
    (), dtype, memory_space=memory_space))
lowering.register_lowering(
    empty2_p, lambda ctx, *, dtype, memory_space: lowering.ir_constant(np.zeros((), dtype)))


def empty_like_aval(aval):
    """A value of type ``aval`` whose contents do not matter: when branches of a ``cond``
    compute different residuals, each returns these in the slots of the others'. XLA
    materialises zeros; ``empty2`` says no one should read them."""
    empty = empty2_p.bind(dtype=aval.dtype, memory_space=aval.memory_space)
    return structural.broadcast(empty, aval.shape) if aval.shape else empty


# ----------------------------------------------------------------------------------------
# Error messages (JAX's wording)
# ----------------------------------------------------------------------------------------

def capitalize(s: str) -> str:
    return s[0].upper() + s[1:]


def aval_mismatch_extra(a1, a2) -> str:
    mismatches = []
    if a1.dtype != a2.dtype:
        mismatches.append("the dtypes do not match")
    if a1.shape != a2.shape:
        mismatches.append("the shapes do not match")
    if _vma(a1) != _vma(a2):
        mismatches.append("the manual axis types do not match")
    if not mismatches:
        return ""
    if len(mismatches) == 1:
        return ", so " + mismatches[0]
    return ", so " + ", ".join(mismatches[:-1]) + ", and " + mismatches[-1]


def join_differences(diffs, spaced=True) -> str:
    """One difference as a sentence, several as a bulleted list (``spaced``: with a blank
    line between items, as most of JAX's messages have)."""
    if len(diffs) == 1:
        return f"{capitalize(diffs[0])}.\n"
    if spaced:
        return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
    return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"


def aval_str(tree_of_avals) -> str:
    """How JAX shows avals in messages: a lone aval as ``~float32[]`` (``~`` for weak
    types), avals inside containers by their repr."""
    if isinstance(tree_of_avals, core.ShapedArray):
        return ("~" if tree_of_avals.weak_type else "") + tree_of_avals.str_short()
    return str(tree_of_avals)


def check_carry_type(name: str, body_fun, in_tree, in_avals, out_tree, out_avals):
    """The carry a loop body returns must have the structure and types it received."""
    try:
        sig = inspect.signature(body_fun)
        carry_name = next(iter(sig.parameters), None)
    except (ValueError, TypeError):
        carry_name = None
    if carry_name:
        component = lambda p: (f"the input carry component {carry_name}"
                               f"{tree_util.keystr(p)}" if p
                               else f"the input carry {carry_name}")
    else:
        component = lambda p: (f"the input carry at path {tree_util.keystr(p)}" if p
                               else "the input carry")
    if in_tree != out_tree:
        in_carry = tree_util.tree_unflatten(in_tree, in_avals)
        out_carry = tree_util.tree_unflatten(out_tree, out_avals)
        diffs = [f"{component(path)} is a {thing1} but the corresponding component of the "
                 f"carry output is a {thing2}, so {explanation}"
                 for path, thing1, thing2, explanation
                 in tree_util.equality_errors(in_carry, out_carry)]
        if not diffs:
            return
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree "
            "structure, but they differ:\n\n"
            f"{join_differences(diffs)}\n"
            "Revise the function so that the carry output has the same pytree structure "
            "as the carry input.")
    if all(map(_carry_match, in_avals, out_avals)):
        return
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(in_tree, in_avals))[0]]
    bad = [(path, a1, a2) for path, a1, a2 in zip(paths, in_avals, out_avals)
           if not _carry_match(a1, a2)]
    diffs = [f"{component(path)} has type {a1.str_short()} but the corresponding output "
             f"carry component has type {a2.str_short()}{aval_mismatch_extra(a1, a2)}"
             for path, a1, a2 in bad]
    # Inside a check_vma shard_map, a carry that starts out the same on every device but
    # comes back varying needs its initial value cast (JAX words the fix so).
    casts = [f"applying `jax.lax.pcast(..., {tuple(frozenset(_vma(a2)) - set(_vma(a1)))}, "
             f"to='varying')`, to the initial carry value corresponding to "
             f"{component(path)}" for path, a1, a2 in bad if set(_vma(a2)) - set(_vma(a1))]
    hint = ""
    if casts:
        hint = (f"This might be fixed by {casts[0]}.\n" if len(casts) == 1 else
                "This might be fixed by:\n" + join_differences(casts))
        hint += ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma "
                 "for more information.\n\n")
    raise TypeError(
        f"{name} function carry input and carry output must have equal types, but they "
        "differ:\n\n"
        f"{join_differences(diffs)}\n"
        f"{hint}"
        "Revise the function so that all output types match the corresponding input "
        "types.")


def _vma(aval) -> tuple:
    return getattr(aval, "vma", ())


def _carry_match(a1, a2) -> bool:
    """A loop carry keeps its shape, dtype and (where varying manual axes are tracked: a
    check_vma shard_map body being traced) the manual axes it varies over."""
    return typematch(a1, a2) and (core.trace_ctx.vma_axes is None
                                  or set(_vma(a1)) == set(_vma(a2)))

