"""``auto_axes`` and ``explicit_axes``: run a function with some mesh axes switched
between ``Explicit`` and ``Auto`` (JAX's sharding modes, see ``mesh.py``).

Over ``Explicit`` axes the program says where every value lives; over ``Auto`` axes XLA's
partitioner chooses. ``auto_axes(f, out_sharding=...)`` hands the chosen axes to the
partitioner inside ``f`` and pins the result's layout on the way out;
``explicit_axes(f, in_sharding=...)`` does the opposite: the arguments are laid out as
``in_sharding`` says and the body runs with the axes ``Explicit``. Both trace the body
under ``use_abstract_mesh`` of the mesh with the new types (what
``get_abstract_mesh()`` returns inside) and move values with ``reshard``.

Each value's current layout is read from its type (sharding in types; a concrete
array's own sharding says the same and more).
"""
from __future__ import annotations

import functools

from glassjax import core, tree_util
from glassjax.lax.sharding_constraint import reshard
from glassjax.mesh import AxisType, PartitionSpec, get_abstract_mesh, use_abstract_mesh
from glassjax.named_sharding import NamedSharding


def _switched_mesh(axes, axis_type, name, shardings=None):
    """``(mesh before, mesh with ``axes`` of ``axis_type``, axes)``, or None when there is
    no mesh at all (neither a context mesh nor one named by ``shardings``)."""
    current = get_abstract_mesh()
    named = None
    for s in tree_util.tree_leaves(shardings,
                                   is_leaf=lambda s: isinstance(s, NamedSharding)):
        if isinstance(s, NamedSharding):
            if named is not None and named != s.mesh.abstract_mesh:
                raise ValueError(f"Shardings passed to {name} should have the same mesh. "
                                 f"Got one mesh {named} and another {s.mesh}")
            named = s.mesh.abstract_mesh
    if named is None and current.empty:
        return None
    if named is not None and not current.empty and named != current:
        raise ValueError(f"Context mesh {current} must match the mesh passed to shardings "
                         f"{named}. Recommended approach is to use `jax.set_mesh` context "
                         "manager.")
    mesh = current if not current.empty else named
    axes = mesh.axis_names if axes is None else axes if isinstance(axes, tuple) else (axes,)
    for a in axes:
        if mesh._name_to_type[a] == AxisType.Manual:
            raise NotImplementedError(
                "Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not "
                "allowed. Please file a bug at https://github.com/jax-ml/jax/issues with "
                "your use case")
    return mesh, mesh.update_axis_types({a: axis_type for a in axes}), axes


def _explicit_part(spec, mesh) -> PartitionSpec:
    """``spec`` naming only the ``Explicit`` axes of ``mesh`` (the others become None):
    the part of a layout a type over ``mesh`` can state."""
    def keep(entry):
        if isinstance(entry, tuple):
            return tuple(a for a in entry if mesh._name_to_type[a] == AxisType.Explicit)
        return entry if mesh._name_to_type[entry] == AxisType.Explicit else None
    return PartitionSpec(*[None if e is None else keep(e) for e in spec])


def _restated(xs, mesh):
    """Reshard every leaf of ``xs`` to the part of its layout that ``mesh``'s Explicit
    axes can state (a traced leaf's layout is its type's split)."""
    def one(x):
        aval = core.get_aval(x)
        sharding = None if isinstance(x, core.Tracer) else getattr(x, "sharding", None)
        if isinstance(sharding, NamedSharding):
            spec = sharding.spec._normalized_spec_for_aval(aval.ndim)
        else:
            typed = getattr(aval, "_sharding", None)
            spec = PartitionSpec(*(typed[1] if typed else [None] * aval.ndim))
        return reshard(x, _explicit_part(spec, mesh))
    return tree_util.tree_map(one, xs)


def _given_or_keyword(given, name, kwargs):
    """The sharding given to the decorator, else the one each call must pass as the
    keyword ``name`` (taken out of ``kwargs``: the function does not see it)."""
    if given is not None:
        return given
    if name not in kwargs:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return kwargs.pop(name)


def _decorator(f, unapplied, keyword, given, call):
    """What ``auto_axes`` / ``explicit_axes`` return: ``unapplied`` (the decorator with
    its keywords) when no function is given yet, else ``f`` wrapped so that a call runs
    ``call(f, sharding, args, kwargs)``, the sharding given here or by each call."""
    if f is None:
        return unapplied
    return functools.wraps(f)(lambda *args, **kwargs: call(
        f, _given_or_keyword(given, keyword, kwargs), args, kwargs))


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` with the mesh axes ``axes`` (all by default) of type ``Auto`` inside, where
    the partitioner lays its values out: the arguments keep only the splits the axes
    still Explicit can state, and ``out_sharding`` (here or as a keyword of each call)
    lays out the result. Over axes that are Auto already it is ``f`` itself."""
    return _decorator(f, functools.partial(auto_axes, axes=axes, out_sharding=out_sharding),
                      "out_sharding", out_sharding,
                      functools.partial(_call_in_auto_mode, axes=axes))


def _call_in_auto_mode(f, sharding, args, kwargs, *, axes):
    switched = _switched_mesh(axes, AxisType.Auto, "auto_axes", shardings=sharding)
    if switched is None or set(switched[0].auto_axes) == set(switched[2]):
        return f(*args, **kwargs)        # no mesh, or the axes are Auto already
    with use_abstract_mesh(switched[1]):
        out = f(*_restated(args, switched[1]), **kwargs)
    return reshard(out, sharding)


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """``f`` with the mesh axes ``axes`` (all by default) of type ``Explicit`` inside,
    where splits are part of the values' types: ``in_sharding`` (here or as a keyword of
    each call) lays out the arguments, and the result comes back stated over the outer
    mesh's types. It needs the mesh of ``jax.set_mesh``."""
    return _decorator(f, functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding),
                      "in_sharding", in_sharding,
                      functools.partial(_call_in_explicit_mode, axes=axes))


def _call_in_explicit_mode(f, sharding, args, kwargs, *, axes):
    switched = _switched_mesh(axes, AxisType.Explicit, "explicit_axes")
    if switched is None:
        raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                         "enter into a mesh context when using `explicit_axes` API.")
    with use_abstract_mesh(switched[1]):
        out = f(*reshard(args, sharding), **kwargs)
    return _restated(out, get_abstract_mesh())
