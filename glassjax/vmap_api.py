"""``vmap``: the vectorising map.

``vmap(f)(xs)`` computes ``stack([f(x) for x in xs])`` without the loop: ``f`` runs once,
on tracers that stand for one element each, and every primitive it applies is applied to
the whole batch by its batching rule (``interpreters/batching.py``).

This module is the user-facing part: it works out which axis of which argument is mapped
(``in_axes``, a pytree prefix of the positional arguments; keyword arguments are mapped
over axis 0), checks that all mapped axes have one size, and puts the batch axis of each
output where ``out_axes`` asks -- raising JAX's errors, with JAX's messages, on the way.
"""
from __future__ import annotations

import collections
import inspect

import numpy as np

from glassjax import api_util, core, source_info, tree_util
from glassjax.interpreters import batching
from glassjax.jit import fun_name, ref_hooks


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
         spmd_axis_name=None):
    """Vectorise ``fun`` over an extra array axis of its arguments.

    ``in_axes``: an int (the mapped axis of every argument), None (not mapped), or a
    tuple with one entry per positional argument, each an int, None, or a pytree of them
    matching that argument. ``out_axes``: the same for the outputs; None only for outputs
    that do not depend on the mapped axis (outputs that do not depend on it are broadcast
    when given an axis). ``axis_name`` names the mapped axis for collectives
    (``lax.psum(x, axis_name)``); ``axis_size`` gives its size when no argument is mapped.
    ``spmd_axis_name`` (how the batch is sharded across devices) does not change the
    values computed; glassjax accepts it for compatibility."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)   # users write lists for tuples; JAX accepts them
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries "
                        "corresponding to the positional arguments passed to the function, "
                        f"but got {in_axes}.")
    if not all(type(leaf) is int for leaf in tree_util.tree_leaves(in_axes)):
        raise TypeError("vmap in_axes must be an int, None, or (nested) container with "
                        f"those types as leaves, but got {in_axes}.")
    if not all(type(leaf) is int for leaf in tree_util.tree_leaves(out_axes)):
        raise TypeError("vmap out_axes must be an int, None, or (nested) container with "
                        f"those types as leaves, but got {out_axes}.")
    del spmd_axis_name

    def vmap_f(*args, **kwargs):
        if ref_hooks.takes_refs(args, kwargs):
            return ref_hooks.vmap(fun, in_axes, out_axes, axis_name, axis_size, args,
                                  kwargs)
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError("vmap in_axes must be an int, None, or a tuple of entries "
                             "corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(in_axes)}, "
                             f"len(args)={len(args)}")
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        in_dims = _flatten_axes("vmap in_axes", (args, kwargs), (in_axes, 0), kws=True)
        for x, d in zip(leaves, in_dims):
            if d is not None and not core.valid_jaxtype(x):
                raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")
        size = _mapped_axis_size(fun, in_tree, leaves, in_dims, axis_size)
        _check_mapped_splits(leaves, in_dims)
        out_tree: list = []

        def flat_fun(*flat_args):
            f_args, f_kwargs = tree_util.tree_unflatten(in_tree, flat_args)
            outs, tree = tree_util.tree_flatten(fun(*f_args, **f_kwargs))
            out_tree[:] = [tree]
            return outs

        def out_dims():
            dummy = tree_util.tree_unflatten(out_tree[0], [0] * out_tree[0].num_leaves)
            return _flatten_axes("vmap out_axes", dummy, out_axes)

        axis_data = batching.AxisData(axis_name, size)
        try:
            with source_info.transform_name_stack("vmap"):
                outs = batching.batch(flat_fun, axis_data, in_dims, out_dims)(*leaves)
        except batching.SpecMatchError as e:
            raise ValueError(_spec_match_message(out_tree[0], out_dims(), e)) from None
        return tree_util.tree_unflatten(out_tree[0], outs)

    name = fun_name(fun)
    vmap_f.__name__ = name
    vmap_f.__qualname__ = getattr(fun, "__qualname__", name)
    vmap_f.__module__ = getattr(fun, "__module__", "<unknown module>")
    vmap_f.__wrapped__ = fun
    vmap_f.__doc__ = ("Vectorized version of {fun}. Takes similar arguments as {fun} but "
                      "with additional array axes over which {fun} is mapped.").format(
                          fun=name)
    if fun.__doc__:
        vmap_f.__doc__ += "\n\nOriginal documentation:\n\n" + fun.__doc__
    return vmap_f


def _spec_match_message(out_tree, out_dims, e: batching.SpecMatchError) -> str:
    """Name the output whose ``out_axes`` is None although it is mapped."""
    full = tree_util.tree_unflatten(out_tree, out_dims)
    paths = tree_util.tree_flatten_with_path(full, is_leaf=lambda x: x is None)[0]
    path, _ = paths[e.leaf_idx]
    return (f"at vmap out_axes{tree_util.keystr(path)}, got axis spec {e.dst} but output "
            f"was batched on axis {e.src}")


# ----------------------------------------------------------------------------------------
# Axis specifications
# ----------------------------------------------------------------------------------------

def _flatten_axes(name, tree, axis_tree, kws=False):
    """One axis (or None) per leaf of ``tree``: ``axis_tree`` is a prefix of ``tree``
    whose leaves are ints and Nones, each standing for a whole subtree of ``tree``. The
    values themselves are matched (not a rebuilt tree of stand-ins, which a custom
    pytree's unflatten may refuse); only a mismatch is explained with stand-ins
    (``api_util.flatten_axes``)."""
    try:
        return tree_util.broadcast_prefix(axis_tree, tree, is_leaf=lambda x: x is None)
    except ValueError:
        pass
    return api_util.flatten_axes(name, tree_util.tree_structure(tree), axis_tree, kws=kws)


def _check_mapped_splits(leaves, in_dims):
    """Sharding in types: the dimension vmap maps away must be split alike (over the
    same Explicit mesh axes, or none) in every mapped argument, as JAX checks."""
    first = None
    for i, (x, d) in enumerate((x, d) for x, d in zip(leaves, in_dims) if d is not None):
        typed = getattr(core.get_aval(x), "_sharding", None)
        spec = typed[1][d] if typed else None
        if i and spec != first:
            raise ValueError("Mapped away dimension of inputs passed to vmap should be "
                             f"sharded the same. Got inconsistent axis specs: {first} vs "
                             f"{spec}")
        first = spec


def _mapped_axis_size(fun, in_tree, leaves, in_dims, axis_size):
    """The size of the mapped axis: what all mapped arguments (and ``axis_size``) agree
    on. When they disagree, the error lists the sizes, most common first."""
    if not leaves:
        if axis_size is not None:
            return axis_size
        args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
        raise ValueError("vmap wrapped function must be passed at least one argument "
                         "containing an array or axis_size must be specified, got empty "
                         f"*args={args} and **kwargs={kwargs}")
    sizes = [None if d is None else _axis_size_of(x, d) for x, d in zip(leaves, in_dims)]
    distinct = list(dict.fromkeys(s for s in sizes if s is not None))
    if axis_size is not None and axis_size not in distinct:
        distinct.append(axis_size)
    if len(distinct) == 1:
        return distinct[0]
    if not distinct:
        raise ValueError("vmap must have at least one non-None value in in_axes or "
                         "axis_size must be specified")
    names = _leaf_names(fun, in_tree, leaves)
    counts = collections.Counter(s for s in sizes if s is not None).most_common()

    def example(size):
        i = sizes.index(size)
        return f"axis {in_dims[i]} of {names[i]}"

    msg = ["vmap got inconsistent sizes for array axes to be mapped:\n"]
    if axis_size is not None:
        msg.append(f"  * the `axis_size` argument was {axis_size};\n")
    for k, (size, count) in enumerate(counts):
        if count == 1:
            msg.append(f"  * one axis had size {size}: {example(size)};\n")
        else:
            many = "most" if k == 0 else "some"
            msg.append(f"  * {many} axes ({count} of them) had size {size}, e.g. "
                       f"{example(size)};\n")
    raise ValueError("".join(msg)[:-2])


def _axis_size_of(x, axis):
    shape = np.shape(x)
    try:
        return shape[axis]
    except IndexError:
        min_rank = axis + 1 if axis >= 0 else -axis
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, "
                         f"which implies that its rank should be at least {min_rank}, but "
                         f"is only {len(shape)} (its shape is {shape})") from None


def _leaf_names(fun, in_tree, leaves) -> list[str]:
    """``argument x of type float32[3]``, ``args[1] ...``, ``kwargs['b'] ...`` per leaf."""
    args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
    try:
        params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        params = None

    def arg_name(path):
        i = path[0].idx
        if params is None or i >= len(params):
            return f"args{tree_util.keystr(path)}"
        return f"argument {params[i]}{tree_util.keystr(path[1:])}"

    def type_of(x):
        try:
            return core.shaped_abstractify(x).str_short()
        except TypeError:
            return "unknown"

    arg_leaves = tree_util.tree_flatten_with_path(args)[0]
    kwarg_leaves = tree_util.tree_flatten_with_path(kwargs)[0]
    return ([f"{arg_name(p)} of type {type_of(x)}" for p, x in arg_leaves] +
            [f"kwargs{tree_util.keystr(p)} of type {type_of(x)}" for p, x in kwarg_leaves])
