"""``with_sharding_constraint(x, sharding)``: ask for a layout in the middle of a program.

Inside ``jit`` the partitioner chooses how intermediate values are laid out over the
devices; a constraint pins one value's layout (e.g. "this activation is split over
'data'"), and the partitioner works around it. The value itself never changes, so every
transformation treats the constraint as the identity on values: JVP and transpose
constrain the tangent / cotangent the same way, vmap adds an unsplit batch dimension.

It prints as JAX 0.10.2 prints it::

    b:f32[8,4] = sharding_constraint[context_mesh=Mesh() layout=None
        sharding=NamedSharding(mesh=Mesh('x': 4, 'y': 2, ...), spec=P(None, 'y'), ...)
        unconstrained_dims=frozenset({})] a

and lowers to Shardy's ``sdy.sharding_constraint``.

``reshard(x, P('x'))`` is the same request in JAX's explicit-sharding mode, where a
sharding is part of a value's type and only ``Explicit`` mesh axes may be named: the
result's type records the new split (``f32[8@x,2]``), and the move is ``device_put``
eagerly, a constraint under ``jit``. Over Explicit axes a constraint is the result's
type too.
"""
from __future__ import annotations

import math

import numpy as np

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from glassjax import core, pretty, source_info, tree_util
from glassjax.interpreters import ad, batching
from glassjax.lax.utils import spec_of
from glassjax.mesh import (AbstractMesh, AxisType, Mesh, PartitionSpec, get_abstract_mesh,
                           get_mesh)
from glassjax.named_sharding import NamedSharding, typed_aval
from glassjax.xla import dispatch, lowering, runtime


class _EmptyMesh:
    """The ``context_mesh`` param when no ``set_mesh`` is active (JAX prints ``Mesh()``)."""

    def __repr__(self):
        return "Mesh()"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, _EmptyMesh)

    def __hash__(self):
        return hash(_EmptyMesh)


sharding_constraint_p = core.Primitive("sharding_constraint")
# Over Explicit mesh axes the constraint is also the result's type.
sharding_constraint_p.def_abstract_eval(
    lambda aval, *, sharding, **params: typed_aval(aval, sharding))
sharding_constraint_p.sharding_rule = lambda x, *, sharding, **params: spec_of(
    typed_aval(x, sharding))


def _impl(x, *, sharding, layout, context_mesh, unconstrained_dims):
    """Eagerly, the constraint is a move: the value is laid out as asked. A sharding
    over an abstract mesh (flax builds them from ``get_abstract_mesh()``) is laid out
    over the devices of the input's mesh, or else of the ``set_mesh`` mesh, as in JAX."""
    if isinstance(sharding.mesh, AbstractMesh):
        sharding = NamedSharding(_concrete_mesh_for(x, sharding), sharding.spec)
    return runtime.device_put(x, sharding, committed=True)


def _concrete_mesh_for(x, sharding) -> Mesh:
    own = getattr(x, "sharding", None)
    if isinstance(own, NamedSharding) and isinstance(own.mesh, Mesh):
        mesh = own.mesh
    elif get_mesh() is not None:
        mesh = get_mesh()
    elif own is not None:
        raise TypeError("The sharding on the input must be a `NamedSharding` since the "
                        "target sharding has an `AbstractMesh` in it. Got sharding type "
                        f"{type(own)} for shape {core.get_aval(x).str_short()}")
    else:
        raise ValueError("Target sharding contains a `jax.sharding.AbstractMesh`, which "
                         "needs a concrete mesh: the input's, or one set with "
                         "`jax.set_mesh`.")
    if mesh.shape_tuple != sharding.mesh.shape_tuple:
        raise ValueError(f"Mesh shape of the input {mesh.shape_tuple} does not match the "
                         f"mesh shape of the target sharding {sharding.mesh.shape_tuple} "
                         f"for shape {core.get_aval(x).str_short()}")
    return mesh


def _lowering(ctx, x, *, sharding, layout, context_mesh, unconstrained_dims):
    mctx = ctx.module_context
    text = sharding.sdy_sharding(ctx.avals_in[0].ndim, mctx.mesh_symbol(sharding.mesh))
    return sdy.ShardingConstraintOp(x, ir.Attribute.parse(text)).result


def _transpose(ct, x, **params):
    return [ct if type(ct) is ad.Zero else sharding_constraint_p.bind(ct, **params)]


def _batching(args, dims, *, sharding, **params):
    (x,), (d,) = args, dims
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, None)
    return sharding_constraint_p.bind(
        x, sharding=sharding.with_spec(PartitionSpec(*spec)), **params), d


sharding_constraint_p.def_impl(_impl)
lowering.register_lowering(sharding_constraint_p, _lowering)
ad.deflinear2(sharding_constraint_p, _transpose)
batching.primitive_batchers[sharding_constraint_p] = _batching
dispatch.mesh_rules[sharding_constraint_p] = lambda params: [
    params["sharding"].mesh if isinstance(params["sharding"].mesh, Mesh)
    else _concrete_mesh_for(None, params["sharding"])]   # (over the set_mesh devices)


def with_sharding_constraint(x, shardings):
    """Constrain the layout of every leaf of ``x`` (a pytree); ``shardings`` is a
    NamedSharding, a PartitionSpec (over the mesh of ``set_mesh``), or a pytree prefix
    of them."""
    leaves, tree = tree_util.tree_flatten(x)
    per_leaf = tree_util.broadcast_prefix(
        shardings, x, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)))
    context = get_mesh()
    outs = []
    for leaf, sharding in zip(leaves, per_leaf):
        if isinstance(sharding, PartitionSpec):
            if context is None:
                raise ValueError(
                    "with_sharding_constraint requires a non-empty mesh in context when "
                    "given a PartitionSpec. Use `jax.set_mesh(mesh)`, or pass a "
                    f"NamedSharding. Got spec {sharding}.")
            sharding = NamedSharding(context, sharding)
        if not isinstance(sharding, NamedSharding):
            raise TypeError(f"with_sharding_constraint expects NamedSharding or "
                            f"PartitionSpec instances, got {sharding!r}")
        sharding.check_shape(core.get_aval(leaf).shape)
        outs.append(sharding_constraint_p.bind(
            leaf, sharding=sharding, layout=None,
            context_mesh=context if context is not None else _EmptyMesh(),
            unconstrained_dims=frozenset()))
    return tree_util.tree_unflatten(tree, outs)


# ----------------------------------------------------------------------------------------
# reshard
# ----------------------------------------------------------------------------------------
# Params: ``dst_sharding``, the layout over the devices of ``concrete_mesh`` with the axis
# types in force when it was asked for (inside ``auto_axes`` some axes are Auto, and a
# layout naming no Explicit axis leaves the partitioner free); ``concrete_mesh``, the
# mesh itself. Printed without params, as JAX prints it: ``b:f32[8,2] = reshard a``.

def _check_divisible(sharding, shape):
    for dim, (entry, size) in enumerate(zip(sharding.spec, shape)):
        if entry is None:
            continue
        axes = entry if isinstance(entry, tuple) else (entry,)
        n = math.prod(sharding.mesh.shape[a] for a in axes)
        if size % n:
            # JAX's types hold the sharding over the abstract mesh: it prints that one.
            shown = f"NamedSharding(mesh={sharding.mesh.abstract_mesh}, spec={sharding.spec})"
            raise ValueError(
                f"Sharding spec {axes} implies that array axis {dim} is partitioned {n} "
                f"times, but does not evenly divide the dimension size {size}. Got shape: "
                f"{tuple(shape)} and sharding {shown}")


def _reshard_abstract_eval(aval, *, dst_sharding, concrete_mesh):
    """Over Explicit axes the new layout is the result's type: ``f32[8,4@X]``."""
    _check_divisible(dst_sharding, aval.shape)
    return typed_aval(aval, dst_sharding)


reshard_p = core.Primitive("reshard")
reshard_p.def_abstract_eval(_reshard_abstract_eval)
reshard_p.sharding_rule = lambda x, **params: spec_of(_reshard_abstract_eval(x, **params))


def _leaves_layout_free(sharding) -> bool:
    """A target naming no axis over a mesh of ``Auto`` axes asks for nothing: the
    partitioner keeps or chooses the layout."""
    return not sharding.spec.mesh_axes() and all(
        t == AxisType.Auto for t in sharding.mesh.axis_types)


def _reshard_impl(x, *, dst_sharding, concrete_mesh):
    _check_divisible(dst_sharding, np.shape(x))
    if _leaves_layout_free(dst_sharding):
        # A value already laid out over these devices keeps its layout (relabelled with
        # the target's axis types); another one is put on all of them whole.
        own = getattr(x, "sharding", None)
        mesh = dst_sharding.mesh
        same = isinstance(own, NamedSharding) and own.mesh.update(
            axis_types=mesh.axis_types) == mesh
        dst_sharding = NamedSharding(mesh, own.spec if same else PartitionSpec())
    return runtime.device_put(x, dst_sharding, committed=True)


def _reshard_lowering(ctx, x, *, dst_sharding, concrete_mesh):
    if _leaves_layout_free(dst_sharding):
        return x
    text = dst_sharding.sdy_sharding(ctx.avals_in[0].ndim,
                                     ctx.module_context.mesh_symbol(concrete_mesh))
    return sdy.ShardingConstraintOp(x, ir.Attribute.parse(text)).result


def _reshard_transpose(ct, x, *, dst_sharding, concrete_mesh):
    """The cotangent goes back to the operand's layout, as its type records it."""
    if type(ct) is ad.Zero:
        return [ct]
    back = dst_sharding.with_spec(PartitionSpec(*spec_of(x.aval)))
    return [reshard_p.bind(ct, dst_sharding=back, concrete_mesh=concrete_mesh)]


def _reshard_batching(args, dims, *, dst_sharding, concrete_mesh):
    (x,), (d,) = args, dims
    spec = list(dst_sharding.spec) + [None] * (x.ndim - 1 - len(dst_sharding.spec))
    spec.insert(d, None)
    return reshard_p.bind(x, dst_sharding=dst_sharding.with_spec(PartitionSpec(*spec)),
                          concrete_mesh=concrete_mesh), d


reshard_p.def_impl(_reshard_impl)
lowering.register_lowering(reshard_p, _reshard_lowering)
ad.deflinear2(reshard_p, _reshard_transpose)
batching.primitive_batchers[reshard_p] = _reshard_batching
dispatch.mesh_rules[reshard_p] = lambda params: [params["concrete_mesh"]]
pretty.pp_eqn_rules[reshard_p] = pretty.hide_params(lambda params: {})


def _reshard_target(sharding, ndim) -> NamedSharding:
    """``sharding`` (a NamedSharding, or a PartitionSpec over the current mesh) with one
    spec entry per dimension, checked as JAX checks ``reshard``'s ``out_shardings``."""
    if sharding is None or isinstance(sharding, NamedSharding) and sharding.mesh.empty:
        raise ValueError("Reshard should only be used with out_shardings which are non-None "
                         f"and have a non-empty mesh. Got sharding {sharding}.")
    if not isinstance(sharding, (NamedSharding, PartitionSpec)):
        raise TypeError("`out_sharding` argument of reshard only supports instances of "
                        f"`NamedSharding` or `PartitionSpec`. Got {sharding} of type: "
                        f"{type(sharding)}")
    context = get_abstract_mesh()
    if isinstance(sharding, PartitionSpec):
        if context.empty:
            raise ValueError("Using PartitionSpec when you are not under a mesh context is "
                             "not allowed. Please pass a NamedSharding instance or enter "
                             f"into a mesh context via `jax.set_mesh`. Got {sharding}")
        mesh, types = get_mesh(), context.axis_types
        if mesh is None or mesh.empty or mesh.size != context.size:
            raise ValueError(f"reshard to {sharding} under an abstract mesh only: glassjax "
                             "needs the devices of `jax.set_mesh(mesh)` to place the value")
        if (mesh.axis_names, mesh.axis_sizes) != (context.axis_names, context.axis_sizes):
            # ``use_abstract_mesh`` of another shape over the same devices: lay them out so
            mesh = Mesh(np.asarray(mesh.devices).reshape(context.axis_sizes),
                        context.axis_names, context.axis_types)
        spec = sharding
    else:
        mesh, types, spec = sharding.mesh, sharding.mesh.axis_types, sharding.spec
    name_to_type = dict(zip(mesh.axis_names, types))
    for axis in (*spec.mesh_axes(), *spec.unreduced, *spec.reduced):
        if name_to_type[axis] in (AxisType.Auto, AxisType.Manual):
            raise ValueError(
                "PartitionSpec passed to reshard cannot contain axis names that are of "
                f"type Auto or Manual. Got PartitionSpec: {spec} with axis name: {axis} of "
                f"type: AxisType.{name_to_type[axis].name}. This error occurs at source: "
                f" {source_info.summarize(source_info.current())}")
    target = NamedSharding(mesh.update(axis_types=types), spec._normalized_spec_for_aval(ndim))
    return target


def reshard(xs, out_shardings):
    """Lay every leaf of ``xs`` out as ``out_shardings`` (a NamedSharding or a
    PartitionSpec over the ``set_mesh`` mesh, or a pytree prefix of them) says: a move
    between devices now, a layout constraint under ``jit``."""
    leaves, tree = tree_util.tree_flatten(xs)
    per_leaf = tree_util.broadcast_prefix(
        out_shardings, xs,
        is_leaf=lambda s: s is None or isinstance(s, (NamedSharding, PartitionSpec)))
    outs = []
    for leaf, sharding in zip(leaves, per_leaf):
        target = _reshard_target(sharding, core.get_aval(leaf).ndim)
        concrete = sharding.mesh if isinstance(sharding, NamedSharding) else get_mesh()
        if concrete.axis_names != target.mesh.axis_names:     # (reshaped, see above)
            concrete = target.mesh
        outs.append(reshard_p.bind(leaf, dst_sharding=target, concrete_mesh=concrete))
    return tree_util.tree_unflatten(tree, outs)
