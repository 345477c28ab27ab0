"""What every tracing API shares: static arguments, pytree flattening, abstract inputs.

``jit``, ``make_jaxpr`` and ``eval_shape`` all turn ``fun(*args, **kwargs)`` into a
function of a flat list of arrays: static arguments are pulled out (their values become
part of the trace), the rest are flattened into leaves, and each leaf becomes an abstract
input (``ShapedArray``; Python scalars are weakly typed).
"""
from __future__ import annotations

import inspect
import operator
from typing import Callable, NamedTuple, Sequence

from glassjax import core, linear_util, tree_util
from glassjax.core import shaped_abstractify  # noqa: F401  (jax.api_util's name for it)
from glassjax.interpreters import staging
from glassjax.interpreters.staging import debug_info  # noqa: F401  (likewise)


def normalize_argnums(argnums, nargs=None) -> tuple:
    if argnums is None:
        return ()
    argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in argnums:
        operator.index(a)
    if nargs is not None:
        argnums = tuple(a % nargs if -nargs <= a < 0 else a for a in argnums)
    return argnums


def normalize_argnames(argnames) -> tuple:
    if argnames is None:
        return ()
    return (argnames,) if isinstance(argnames, str) else tuple(argnames)


def infer_argnums_and_argnames(fun, argnums, argnames):
    """JAX fills in static_argnames from static_argnums and vice versa, using the
    function's signature, so either spelling marks the argument static."""
    argnums = normalize_argnums(argnums)
    argnames = normalize_argnames(argnames)
    if not argnums and not argnames:    # nothing to fill in: skip the (slow) signature
        return argnums, argnames
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return argnums, argnames
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                 p.POSITIONAL_OR_KEYWORD)]
    if argnums and not argnames:
        argnames = tuple(positional[i].name for i in argnums
                         if 0 <= i < len(positional) and
                         positional[i].kind == positional[i].POSITIONAL_OR_KEYWORD)
    elif argnames and not argnums:
        names = [p.name for p in positional]
        argnums = tuple(names.index(n) for n in argnames if n in names)
    return argnums, argnames


def validate_argnums_and_argnames(fun, argnums, argnames, what: str):
    """JAX's checks, made when ``jit`` is called: ``{what}_argnums`` must name positional
    parameters and ``{what}_argnames`` keyword parameters ``fun`` has (anything goes
    with ``*args`` / ``**kwargs``)."""
    if not argnums and not argnames:    # nothing to check: skip the (slow) signature
        return
    try:
        params = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):
        return
    kinds = {p.kind for p in params}
    n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if argnums and inspect.Parameter.VAR_POSITIONAL not in kinds and (
            -min(argnums) > n_pos or max(argnums) >= n_pos):
        raise ValueError(f"Jitted function has {what}_argnums={argnums}, but only accepts "
                         f"{n_pos} positional arguments.")
    positional_only = {p.name for p in params
                       if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)}
    if bad := positional_only & set(argnames):
        raise ValueError(f"Jitted function has invalid argnames {bad} in {what}_argnames. "
                         "These are positional-only")
    keywords = {p.name for p in params
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if inspect.Parameter.VAR_KEYWORD not in kinds and (bad := set(argnames) - keywords):
        raise ValueError(f"Jitted function has invalid argnames {bad} in {what}_argnames. "
                         "Function does not take these args.")


def check_static_and_donated_disjoint(static_argnames, donate_argnames):
    """An argument cannot be both static (part of the cache key, not an array) and
    donated (an array whose buffer the computation may reuse). Like JAX, checked by
    name (argnums were turned into names by ``infer_argnums_and_argnames``)."""
    if both := set(static_argnames) & set(donate_argnames):
        raise ValueError("static_argnames and donate_argnames cannot intersect. Argument "
                         f"names {both} appear in both static_argnames and donate_argnames")


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple:
    """Donated argument positions counted among the dynamic arguments only (the static
    ones are removed before the call is traced): each less the static positions before
    it."""
    static, donate = sorted(set(static_argnums)), sorted(set(donate_argnums))
    if set(static) & set(donate):
        raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} cannot "
                         f"intersect.")
    return tuple(d - sum(s < d for s in static) for d in donate)


class StaticArg:
    """A static argument as a cache key: hashed and compared by value, as JAX requires."""
    __slots__ = ("val", "_hash")

    def __init__(self, val, what):
        try:
            self._hash = hash(val)
        except TypeError:
            raise ValueError(
                f"Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(val)}, {val}. The error was:\n"
                f"TypeError: unhashable type: '{type(val).__name__}'\n") from None
        self.val = val

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return type(other) is StaticArg and type(self.val) is type(other.val) and \
            self.val == other.val

    def __repr__(self):
        return f"StaticArg(val={self.val!r})"


class FlatCall(NamedTuple):
    """``fun(*args, **kwargs)`` split into static values and a flat list of leaves."""
    leaves: list
    in_tree: object
    static_args: tuple        # (StaticArg positions and values, for cache keys)
    call: Callable            # call(*leaves) -> (flat outputs); sets out_tree
    out_tree: list            # filled after the first call: [PyTreeDef]


def flatten_call(fun, args, kwargs, static_argnums=(), static_argnames=()) -> FlatCall:
    nargs = len(args)
    static_argnums = tuple(i for i in normalize_argnums(static_argnums, nargs) if i < nargs)
    for i in static_argnums:
        if not 0 <= i < nargs:
            raise ValueError(f"jitted function has static_argnums={static_argnums}, but "
                             f"only accepts {nargs} positional arguments.")
    dyn_args = [a for i, a in enumerate(args) if i not in static_argnums]
    static_pos = tuple((i, StaticArg(args[i], "argnum")) for i in static_argnums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    static_kw = tuple((k, StaticArg(v, "argname")) for k, v in sorted(kwargs.items())
                      if k in static_argnames)
    leaves, in_tree = tree_util.tree_flatten((tuple(dyn_args), dyn_kwargs))
    out_tree: list = []

    def call(*flat):
        d_args, d_kwargs = tree_util.tree_unflatten(in_tree, flat)
        full_args, it = [], iter(d_args)
        static = dict(static_pos)
        for i in range(nargs):
            full_args.append(static[i].val if i in static else next(it))
        full_kwargs = dict(d_kwargs)
        full_kwargs.update((k, s.val) for k, s in static_kw)
        out = fun(*full_args, **full_kwargs)
        flat_out, tree = tree_util.tree_flatten(out)
        out_tree[:] = [tree]
        return flat_out

    return FlatCall(leaves, in_tree, static_pos + static_kw, call, out_tree)


def abstractify_leaves(fun, args, kwargs, flat: FlatCall, static_argnums=(),
                       static_argnames=()) -> list:
    """The avals of a call's leaves. A leaf that is not an array is named by its path
    in the arguments (``y['k']``), as JAX's message names it."""
    avals = []
    names = lambda: staging.debug_info("", fun, args, kwargs, static_argnums,
                                       static_argnames).arg_names
    for i, x in enumerate(flat.leaves):
        try:
            avals.append(core.shaped_abstractify(x))
        except OverflowError:
            raise OverflowError(
                "An overflow was encountered while parsing an argument to a jitted "
                f"computation, whose argument path is {names()[i]}. Got {type(x)} with "
                f"value {x}") from None
        except TypeError:
            raise TypeError(
                f"Error interpreting argument to {fun} as an abstract array. The "
                f"problematic value is of type {type(x)} and was passed to the function "
                f"at path {names()[i]}.\nThis typically means that a jit-wrapped function "
                "was called with a non-array argument, and this argument was not marked as "
                "static using the static_argnums or static_argnames parameters of jax.jit."
            ) from None
    return avals


def trace_flat_call(flat: FlatCall, in_avals: Sequence, debug):
    """Trace a flattened call; returns (jaxpr, consts) with consts possibly tracers."""
    def fun(*tracers):
        outs = flat.call(*tracers)
        staging.check_jax_types(outs, flat.out_tree[0], debug)
        return outs
    jaxpr, consts, _ = staging.trace_to_jaxpr(fun, in_avals, debug)
    return jaxpr, consts


# ----------------------------------------------------------------------------------------
# Flattening a WrappedFun (JAX's spelling, for libraries built on its internals)
# ----------------------------------------------------------------------------------------

@linear_util.transformation_with_aux2
def flatten_fun(inner, store, in_tree, *flat_args):
    """``flatten_fun(fun, in_tree) -> (flat fun, out_tree thunk)``: the WrappedFun
    ``fun(*args, **kwargs)`` taking the leaves of ``(args, kwargs)`` (``in_tree``) and
    returning the leaves of its result."""
    args, kwargs = tree_util.tree_unflatten(in_tree, flat_args)
    flat_out, out_tree = tree_util.tree_flatten(inner(*args, **kwargs))
    store.store(out_tree)
    return flat_out


@linear_util.transformation_with_aux2
def flatten_fun_nokwargs(inner, store, in_tree, *flat_args):
    """:func:`flatten_fun` for a function of positional arguments only (``in_tree`` is
    the tree of the argument tuple)."""
    flat_out, out_tree = tree_util.tree_flatten(
        inner(*tree_util.tree_unflatten(in_tree, flat_args)))
    store.store(out_tree)
    return flat_out


class PytreeLeaf:
    """Stands for a leaf of the value tree when an axis spec does not fit it. Error
    messages name its type, so it carries the module path JAX's own class has."""

    __module__ = "jax._src.api_util"

    def __repr__(self):
        return "pytree leaf"


def flatten_axes(name: str, treedef, axis_tree, *, kws=False, tupled_args=False) -> list:
    """One axis (or None) per leaf of ``treedef``: ``axis_tree`` (vmap's ``in_axes``, say)
    is a prefix of the value tree whose leaves are ints and Nones, each standing for a
    whole subtree."""
    del tupled_args
    dummy = tree_util.tree_unflatten(treedef, [PytreeLeaf()] * treedef.num_leaves)
    try:
        return tree_util.broadcast_prefix(axis_tree, dummy, is_leaf=lambda x: x is None)
    except ValueError:
        pass
    if kws:   # the keyword arguments are always mapped at 0: only positionals can be wrong
        dummy, axis_tree = dummy[0], axis_tree[0]
    errors = tree_util.prefix_errors(axis_tree, dummy)
    details = "\n  ".join(e(name).args[0] for e in errors)
    raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                     f"value; \n  Mismatch details ({len(errors)} found):\n  {details}")
