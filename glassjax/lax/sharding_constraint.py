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
"""
from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from glassjax import core, pretty, tree_util
from glassjax.interpreters import ad, batching
from glassjax.mesh import PartitionSpec, get_mesh
from glassjax.lax.utils import spec_of
from glassjax.named_sharding import NamedSharding, spec_to_sharding, typed_aval
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
    """Eagerly, the constraint is a move: the value is laid out as asked."""
    return runtime.device_put(x, sharding, committed=True)


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
dispatch.mesh_rules[sharding_constraint_p] = lambda params: [params["sharding"].mesh]


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


# -- reshard: the explicit-sharding way to move a value ----------------------------------

reshard_p = core.Primitive("reshard")
reshard_p.def_abstract_eval(lambda aval, *, sharding: typed_aval(aval, sharding))
reshard_p.sharding_rule = lambda x, *, sharding: spec_of(typed_aval(x, sharding))
reshard_p.def_impl(lambda x, *, sharding: runtime.device_put(x, sharding, committed=True))
lowering.register_lowering(reshard_p, lambda ctx, x, *, sharding: _lowering(
    ctx, x, sharding=sharding, layout=None, context_mesh=None, unconstrained_dims=None))
batching.primitive_batchers[reshard_p] = lambda args, dims, *, sharding: _batching(
    args, dims, sharding=sharding)
dispatch.mesh_rules[reshard_p] = lambda params: [params["sharding"].mesh]
pretty.pp_eqn_rules[reshard_p] = pretty.hide_params(lambda params: {})


def _reshard_transpose(ct, x, *, sharding):
    """The cotangent goes back to the operand's layout (its type's split)."""
    if type(ct) is ad.Zero:
        return [ct]
    back = NamedSharding(sharding.mesh, PartitionSpec(*spec_of(x.aval)))
    return [reshard_p.bind(ct, sharding=back)]


ad.deflinear2(reshard_p, _reshard_transpose)


def reshard(xs, out_shardings):
    """Lay every leaf of ``xs`` out as ``out_shardings`` says (NamedShardings or
    PartitionSpecs over the mesh of ``set_mesh``, or a pytree prefix of them). On a mesh
    of ``Explicit`` axes the new split is part of the result's type: ``f32[8@X]``."""
    leaves, tree = tree_util.tree_flatten(xs)
    per_leaf = tree_util.broadcast_prefix(
        out_shardings, xs, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)))
    outs = []
    for leaf, sharding in zip(leaves, per_leaf):
        sharding = spec_to_sharding(sharding, "reshard")
        if not isinstance(sharding, NamedSharding) or sharding.mesh.empty:
            raise ValueError("Reshard should only be used with out_shardings which are "
                             f"non-None and have a non-empty mesh. Got sharding {sharding}.")
        ndim = core.get_aval(leaf).ndim
        sharding = sharding.with_spec(sharding.spec._normalized_spec_for_aval(ndim))
        outs.append(reshard_p.bind(leaf, sharding=sharding))
    return tree_util.tree_unflatten(tree, outs)
