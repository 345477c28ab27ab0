"""``shard_map``: write the program one device runs, on its block of each array.

``shard_map(f, mesh=mesh, in_specs=P('i'), out_specs=P('i'))(x)`` cuts ``x`` into blocks
as the spec says (``x: f32[8]`` over ``'i': 4`` gives each device an ``f32[2]``), runs
``f`` on every device's block at once, and glues the output blocks back together. Inside
``f`` the mesh axes are *named axes*: ``lax.psum(y, 'i')`` sums ``y`` over the 4 devices,
``lax.axis_index('i')`` says which device this is.

It is one primitive, ``shard_map``, whose equation carries the body's jaxpr (at block
shapes), the mesh and the specs, and prints as in JAX 0.10.2::

    b:f32[8] = shard_map[check_vma=False in_specs=(P('i',),) jaxpr={ lambda ; c:f32[2]. ...}
                         mesh=Mesh('i': 4, axis_types=(Auto,)) newly_manual_axes=frozenset({'i'})
                         out_specs=(P('i',),)] a

Lowered, it is a ``sdy.manual_computation``: XLA's SPMD partitioner hands each device
its block, the body runs once per device, and collectives inside talk across devices.
``pmap`` is built on it (``pmap.py``).

Read first: ``mesh.py`` (meshes, specs), ``named_sharding.py``, ``lax/parallel.py``.
"""
from __future__ import annotations

import contextlib
import functools
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from glassjax import core, tree_util
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.mesh import AxisType, Mesh, PartitionSpec, get_mesh
from glassjax.named_sharding import NamedSharding, sdy_dims, splits
from glassjax.lax import parallel, structural
from glassjax.xla import dispatch, lowering

P = PartitionSpec


# ----------------------------------------------------------------------------------------
# Block shapes
# ----------------------------------------------------------------------------------------

def shard_aval(mesh, spec, aval, manual_axes=None):
    """The block one device sees of a value of type ``aval``; with ``manual_axes``
    (check_vma), it varies over the manual axes its spec splits it over."""
    vma = () if manual_axes is None else tuple(
        a for a in mesh.axis_names if a in manual_axes and a in spec.mesh_axes())
    return aval.update(shape=tuple(d // n for d, n in
                                   zip(aval.shape, splits(mesh, spec, aval.ndim))),
                       vma=vma)


def unshard_aval(mesh, spec, aval):
    """The whole value glued together from blocks of type ``aval`` (outside the body,
    nothing varies over manual axes)."""
    return aval.update(shape=tuple(d * n for d, n in
                                   zip(aval.shape, splits(mesh, spec, aval.ndim))),
                       vma=())


def _unmentioned(mesh, spec, manual_axes) -> tuple:
    """The manual axes a spec does not split over: the value is the same (replicated)
    on every device along them."""
    used = set(spec.mesh_axes())
    return tuple(a for a in mesh.axis_names if a in manual_axes and a not in used)


# ----------------------------------------------------------------------------------------
# The primitive and its rules
# ----------------------------------------------------------------------------------------

class ShardMapPrimitive(core.Primitive):
    multiple_results = True


shard_map_p = ShardMapPrimitive("shard_map")


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma,
                   newly_manual_axes):
    return [unshard_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals)]


shard_map_p.def_abstract_eval(_abstract_eval)
shard_map_p.def_impl(lambda *args, **params: dispatch.apply_primitive(shard_map_p, *args,
                                                                      **params))
staging.effects_rules[shard_map_p] = lambda jaxpr, **_: jaxpr.effects
dispatch.mesh_rules[shard_map_p] = lambda params: [params["mesh"]]


def _axis_env(mesh, manual_axes):
    """The named axes the body sees: the manual axes of the mesh, with their sizes."""
    return [(a, mesh.shape[a]) for a in mesh.axis_names if a in manual_axes]


def _in_body_scope(rule):
    """A rule that re-traces the body does so with the body's named axes in scope (and,
    with ``check_vma``, tracking which of them values vary over)."""
    @functools.wraps(rule)
    def scoped(*args, **params):
        with _body_scope(params["mesh"], params["newly_manual_axes"], params["check_vma"]):
            return rule(*args, **params)
    return scoped


@contextlib.contextmanager
def _body_scope(mesh, manual_axes, check_vma):
    manual = [a for a in mesh.axis_names if a in manual_axes]
    with core.extend_axis_env(_axis_env(mesh, manual_axes)):
        if not check_vma:
            yield
            return
        with core.tracking_vma(manual):
            yield


def _lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes):
    """``sdy.manual_computation``: XLA gives the region each device's blocks. Inside it,
    collectives name devices by their position in the mesh (row-major), so the module
    context's axis environment becomes the mesh's axes."""
    mctx = ctx.module_context
    if mesh.size == 1:            # one device: no partitioning, the body is inlined
        return _lower_body(mctx, mesh, jaxpr, args)
    symbol = mctx.mesh_symbol(mesh)

    def per_value(specs, avals):
        shardings = ", ".join(          # (typed keys: their words' trailing axes too)
            f"<@{symbol}, {sdy_dims(s, lowering.aval_to_ir_type(a).rank)}>"
            for s, a in zip(specs, avals))
        return ir.Attribute.parse(f"#sdy.sharding_per_value<[{shardings}]>")

    manual = [a for a in mesh.axis_names if a in newly_manual_axes]
    op = sdy.ManualComputationOp(
        [lowering.aval_to_ir_type(a) for a in ctx.avals_out], list(args),
        per_value(in_specs, ctx.avals_in), per_value(out_specs, ctx.avals_out),
        sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in manual]))
    block = op.regions[0].blocks.append(*[lowering.aval_to_ir_type(a)
                                          for a in jaxpr.in_avals])
    with ir.InsertionPoint(block):
        sdy.ReturnOp(_lower_body(mctx, mesh, jaxpr, list(block.arguments)))
    return list(op.results)


def _lower_body(mctx, mesh, jaxpr, args):
    saved = mctx.axis_env, mctx.spmd
    mctx.axis_env, mctx.spmd = dict(mesh.shape), True
    try:
        return lowering.lower_closed_jaxpr(mctx, jaxpr, args)
    finally:
        mctx.axis_env, mctx.spmd = saved


lowering.register_lowering(shard_map_p, _lowering)


def _batching(axis_data, vals, dims, *, jaxpr, in_specs, out_specs, **params):
    """vmap of a shard_map: the batch axis goes first and is never split (specs gain a
    leading None); the body is the batched body. Outputs that do not depend on the
    batch stay unbatched."""
    vals = [batching.bdim_at_front(x, d, axis_data.size) if d is not batching.not_mapped
            else x for x, d in zip(vals, dims)]
    batched = [d is not batching.not_mapped for d in dims]
    body, out_batched = batching.batch_jaxpr(jaxpr, axis_data, batched, instantiate=False)
    in_specs = tuple(P(None, *s) if b else s for s, b in zip(in_specs, batched))
    out_specs = tuple(P(None, *s) if b else s for s, b in zip(out_specs, out_batched))
    outs = shard_map_p.bind(*vals, jaxpr=body, in_specs=in_specs, out_specs=out_specs,
                            **params)
    return outs, [0 if b else batching.not_mapped for b in out_batched]


batching.fancy_primitive_batchers[shard_map_p] = _in_body_scope(_batching)


def _filter(flags, xs):
    return tuple(x for f, x in zip(flags, xs) if f)


def _jvp(primals, tangents, *, jaxpr, in_specs, out_specs, **params):
    """One shard_map computing primal and tangent blocks; a tangent has its primal's
    spec."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    outs = shard_map_p.bind(
        *primals, *_filter(nonzeros, tangents), jaxpr=jvp_jaxpr,
        in_specs=(*in_specs, *_filter(nonzeros, in_specs)),
        out_specs=(*out_specs, *_filter(out_nonzeros, out_specs)), **params)
    n = len(out_specs)
    tangents_out = iter(outs[n:])
    avals = _abstract_eval(jaxpr=jaxpr, in_specs=in_specs, out_specs=out_specs, **params)
    return outs[:n], [next(tangents_out) if nz else ad.Zero(a.to_tangent_aval())
                      for a, nz in zip(avals, out_nonzeros)]


ad.primitive_jvps[shard_map_p] = _in_body_scope(_jvp)


def _partial_eval(trace, *args, jaxpr, in_specs, out_specs, mesh, newly_manual_axes,
                  **params):
    """Partly known inputs (reverse mode): a known shard_map computing the known outputs
    and the residuals, then an unknown one taking them. Each device has residuals of its
    own, so they leave the first shard_map stacked along a leading axis split over every
    manual axis (scalars become length-1 blocks), and enter the second the same way."""
    unknowns = [trace.is_unknown(a) for a in args]
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr_nounits(
        jaxpr, unknowns, instantiate=False)
    every = tuple(a for a in mesh.axis_names if a in newly_manual_axes)
    res_avals = known.out_avals[len(known.out_avals) - num_res:]
    known = _map_outputs(known, num_res, lambda r: structural.expand_dims(r, (0,)))
    unknown = _map_inputs(unknown, res_avals,
                          lambda r: structural.squeeze(r, (0,)))
    res_specs = (P(every),) * num_res
    knowns = [not u for u in unknowns]
    shared = dict(mesh=mesh, newly_manual_axes=newly_manual_axes, **params)
    known_out_specs = tuple(s for s, uk in zip(out_specs, out_unknowns) if not uk)
    known_outs = shard_map_p.bind_with_trace(
        trace.known_trace, _filter(knowns, args),
        dict(shared, jaxpr=known, in_specs=_filter(knowns, in_specs),
             out_specs=known_out_specs + res_specs))
    num_known = len(known_outs) - num_res
    residuals = known_outs[num_known:]
    unknown_outs = iter(shard_map_p.bind_with_trace(
        trace.unknown_trace, [*residuals, *_filter(unknowns, args)],
        dict(shared, jaxpr=unknown, in_specs=res_specs + _filter(unknowns, in_specs),
             out_specs=tuple(s for s, uk in zip(out_specs, out_unknowns) if uk))))
    known_outs = iter(known_outs[:num_known])
    return [next(unknown_outs) if uk else next(known_outs) for uk in out_unknowns]


def _map_outputs(closed, last_n, f):
    """``closed`` with ``f`` applied to its last ``last_n`` outputs."""
    def fun(*args):
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        cut = len(outs) - last_n
        return [*outs[:cut], *map(f, outs[cut:])]
    return _retrace(fun, closed.in_avals)


def _map_inputs(closed, first_avals, f):
    """``closed`` taking its first inputs with a leading length-1 axis (undone by ``f``)."""
    n = len(first_avals)
    avals = [a.update(shape=(1, *a.shape)) for a in first_avals] + closed.in_avals[n:]

    def fun(*args):
        return core.eval_jaxpr(closed.jaxpr, closed.consts, *map(f, args[:n]), *args[n:])
    return _retrace(fun, avals)


def _retrace(fun, avals) -> core.ClosedJaxpr:
    jaxpr, consts, _ = staging.trace_to_jaxpr(fun, avals)
    return core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), []) if not consts \
        else core.ClosedJaxpr(jaxpr, consts)


pe.partial_eval_rules[shard_map_p] = _in_body_scope(_partial_eval)


def _transpose(cts, *args, jaxpr, in_specs, out_specs, mesh, check_vma,
               newly_manual_axes):
    """The transpose is a shard_map of the transposed body. Without replication checks
    (``check_vma=False``, as pmap uses), a cotangent of an output replicated over some
    axes is divided among those devices, and an input replicated over some axes gets the
    sum of its devices' cotangents (``psum``), as in JAX."""
    linear = [ad.is_undefined_primal(x) for x in args]
    ct_zeros = [type(ct) is ad.Zero for ct in cts]
    transposed, in_zeros = ad.transpose_jaxpr(jaxpr, linear, ct_zeros)
    lin_specs = [s for s, lin in zip(in_specs, linear) if lin]
    nz_out_specs = [s for s, z in zip(out_specs, ct_zeros) if not z]
    if not check_vma:
        transposed = _fix_replication(transposed, mesh, newly_manual_axes,
                                      sum(not lin for lin in linear), nz_out_specs,
                                      [s for s, z in zip(lin_specs, in_zeros) if not z])
    operands = [*(x for x, lin in zip(args, linear) if not lin),
                *(ct for ct in cts if type(ct) is not ad.Zero)]
    outs = iter(shard_map_p.bind(
        *operands, jaxpr=transposed,
        in_specs=(*_filter([not lin for lin in linear], in_specs), *nz_out_specs),
        out_specs=tuple(s for s, z in zip(lin_specs, in_zeros) if not z),
        mesh=mesh, check_vma=check_vma, newly_manual_axes=newly_manual_axes))
    zeros = iter(in_zeros)
    return [(ad.Zero(x.aval) if next(zeros) else next(outs)) if lin else None
            for x, lin in zip(args, linear)]


def _fix_replication(transposed, mesh, manual, num_res, ct_specs, out_specs):
    def fun(*args):
        res, cts = args[:num_res], args[num_res:]
        cts = [_div(ct, math.prod(mesh.shape[a] for a in _unmentioned(mesh, s, manual)))
               for ct, s in zip(cts, ct_specs)]
        outs = core.eval_jaxpr(transposed.jaxpr, transposed.consts, *res, *cts)
        return [parallel.psum(o, axes) if (axes := _unmentioned(mesh, s, manual)) else o
                for o, s in zip(outs, out_specs)]
    return _retrace(fun, transposed.in_avals)


def _div(x, n):
    return x if n == 1 else x / n


ad.primitive_transposes[shard_map_p] = _in_body_scope(_transpose)


# ----------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------

# Outside any transformation the body runs op by op instead (``shard_map_eager.py``
# registers its runner here).
eager_runner: list = []


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map ``f`` over blocks of its inputs on the devices of ``mesh`` (see the module
    docstring). ``in_specs`` / ``out_specs`` are PartitionSpecs or pytree prefixes of
    the arguments / results; ``axis_names`` are the mesh axes made manual (all of them
    by default)."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, but got "
                        f"{f} of type {type(f)}.")
    if mesh is None:          # the mesh of ``set_mesh`` at the time of the call, as in JAX
        return _on_context_mesh(f, out_specs=out_specs, in_specs=in_specs,
                                axis_names=axis_names, check_vma=check_vma)
    if not isinstance(mesh, Mesh):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` or a "
                        "`jax.sharding.AbstractMesh` instance for its second argument, "
                        f"but got {mesh} of type {type(mesh)}.")
    manual = frozenset(axis_names) if axis_names else frozenset(mesh.axis_names)
    explicit = manual == set(mesh.axis_names) and set(mesh.explicit_axes) >= manual
    if in_specs is None:
        _check_inferable(mesh, manual)
    name = getattr(f, "__name__", "<unnamed function>")
    _check_specs(mesh, in_specs, "in_specs")
    _check_specs(mesh, out_specs, "out_specs")

    def mapped(*args):
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = (_broadcast_specs(in_specs, args, in_tree, "in_specs") if in_specs is not
                 None else [_inferred_spec(mesh, manual, x) for x in leaves])
        avals = [core.get_aval(x) for x in leaves]
        for x, aval, spec in zip(leaves, avals, specs):
            _check_divisible(name, mesh, spec, aval)
            if in_specs is not None and explicit:
                _check_spec_of_argument(mesh, manual, x, spec)
        if eager_runner and core.trace_ctx.trace is core.eval_trace:
            return eager_runner[0](f, mesh, manual, check_vma, in_tree, leaves, specs,
                                   out_specs)
        out_tree_box = []

        def body(*blocks):
            outs = f(*tree_util.tree_unflatten(in_tree, blocks))
            out_leaves, out_tree = tree_util.tree_flatten(outs)
            out_tree_box.append((out_tree, outs))
            return out_leaves

        with _body_scope(mesh, manual, check_vma):
            jaxpr, consts, _ = staging.trace_to_jaxpr(body, [
                shard_aval(mesh, s, a, manual if check_vma else None)
                for s, a in zip(specs, avals)])
        out_tree, outs = out_tree_box[0]
        out_spec_leaves = _broadcast_specs(out_specs, outs, out_tree, "out_specs")
        if check_vma:
            _check_replication(name, mesh, out_spec_leaves, jaxpr.out_avals)
        closed = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])
        results = shard_map_p.bind(
            *consts, *leaves, jaxpr=closed, mesh=mesh,
            in_specs=(P(),) * len(consts) + tuple(specs), out_specs=tuple(out_spec_leaves),
            check_vma=check_vma, newly_manual_axes=manual)
        return tree_util.tree_unflatten(out_tree, results)

    mapped.__name__ = name
    return mapped


def _on_context_mesh(f, **kwargs):
    """``shard_map(f)`` over whatever mesh ``set_mesh`` makes current when it is called."""
    def mapped(*args):
        mesh = get_mesh()
        if mesh is None or mesh.empty:
            raise ValueError("The context mesh cannot be empty. Use "
                             "`jax.set_mesh(mesh)` to enter into a mesh context")
        return shard_map(f, mesh=mesh, **kwargs)(*args)

    mapped.__name__ = getattr(f, "__name__", "<unnamed function>")
    return mapped


def _check_inferable(mesh, manual):
    """Without ``in_specs``, the specs are the arguments' own, which only arrays over
    ``Explicit`` axes have (as in JAX)."""
    types = [mesh._name_to_type[a] for a in mesh.axis_names if a in manual]
    if any(t != AxisType.Explicit for t in types):
        raise TypeError("shard_map in_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but it was `None` when "
                        f"axis_names={frozenset(manual)} are of type "
                        f"{', '.join(map(str, types))}")


def _inferred_spec(mesh, manual, x):
    """The spec of argument ``x`` over the manual axes: its NamedSharding's over a mesh
    like ``mesh`` (an array elsewhere is whole on every device). JAX reads it from the
    argument's type; glassjax's types carry no shardings, so a traced argument (inside
    ``jit``) cannot say."""
    if isinstance(x, core.Tracer):
        raise NotImplementedError(
            "shard_map without in_specs of a traced argument (inside jit or another "
            "transformation): glassjax's types carry no shardings to infer them from; "
            "pass in_specs")
    sharding = getattr(x, "sharding", None)
    ndim = np.ndim(x)
    if not isinstance(sharding, NamedSharding) or \
            sharding.mesh.abstract_mesh != mesh.abstract_mesh:
        return P(*[None] * ndim)
    return P(*[None if p is None else
               tuple(a for a in p if a in manual) or None if isinstance(p, tuple) else
               p if p in manual else None
               for p in sharding.spec._normalized_spec_for_aval(ndim)])


def _check_spec_of_argument(mesh, manual, x, spec):
    """Over ``Explicit`` axes an argument's layout is part of its type: ``in_specs`` must
    say it (JAX's check; a traced argument's layout is unknown here, so not checked)."""
    if isinstance(x, core.Tracer):
        return
    ndim = np.ndim(x)
    own = _inferred_spec(mesh, manual, x)
    if spec._normalized_spec_for_aval(ndim) != own:
        raise ValueError(
            f"in_specs passed to shard_map: {spec._normalized_spec_for_aval(ndim)} does "
            f"not match the specs of the input: {own} for arg: "
            f"{core.get_aval(x).str_short()}. `in_specs` is an optional argument so you "
            "can omit specifying it and shard_map will infer the in_specs from the "
            "arguments. If you want to reshard your inputs, you can use `jax.reshard` on "
            "the arguments and then pass those args to shard_map.")


def _check_replication(name, mesh, specs, out_avals):
    """With check_vma, an output may leave a manual axis out of its spec (be replicated
    along it) only if it does not vary over it, as JAX checks."""
    for spec, aval in zip(specs, out_avals):
        unmentioned = [a for a in getattr(aval, "vma", ()) if a not in spec.mesh_axes()]
        if unmentioned:
            shape = tuple(mesh.axis_sizes)
            raise ValueError(
                f"shard_map applied to the function '{name}' was given out_specs which "
                "require replication which can't be statically inferred given the "
                f"mesh:\n\nThe mesh given has shape {shape} with corresponding axis "
                f"names {tuple(mesh.axis_names)}.\n\nout_specs is {spec!r} which implies "
                "that the corresponding output value is replicated across mesh axis "
                f"'{unmentioned[0]}', but could not infer replication over any axes\n\n"
                "Check if these output values are meant to be replicated over those mesh "
                "axes. If not, consider revising the corresponding out_specs entries. If "
                "so, consider disabling the check by passing the check_vma=False "
                "argument to `jax.shard_map`.")


def _check_specs(mesh, specs, which):
    for spec in tree_util.tree_leaves(specs, is_leaf=lambda s: s is None):
        if spec is None:
            continue
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"shard_map {which} must be a pytree of PartitionSpec "
                            f"instances, but got {spec!r} of type {type(spec)}")
        for a in spec.mesh_axes():
            if a not in mesh.axis_names:
                raise ValueError(f"shard_map {which} refers to {a!r}, which is not an "
                                 f"axis of the mesh {mesh}")


def _broadcast_specs(specs, tree, treedef, which) -> list:
    """One spec per leaf of ``tree``: ``specs`` is a pytree prefix of it."""
    if isinstance(specs, PartitionSpec):
        return [specs] * treedef.num_leaves
    is_spec = lambda s: isinstance(s, PartitionSpec)   # noqa: E731
    errors = tree_util.prefix_errors(specs, tree, is_leaf=is_spec)
    if errors:
        raise errors[0](f"shard_map {which}") from None
    return tree_util.broadcast_prefix(specs, tree, is_leaf=is_spec)


def _check_divisible(name, mesh, spec, aval):
    spec._check_compatible_wrt_shape(aval.shape)
    for d, (size, n) in enumerate(zip(aval.shape, splits(mesh, spec, aval.ndim))):
        if size % n:
            raise ValueError(
                f"shard_map applied to the function '{name}' was given argument arrays "
                f"with axis sizes that are not evenly divisible by the corresponding mesh "
                f"axis sizes: the array of type {aval.str_short()} with spec {spec!r} has "
                f"axis {d} of size {size}, which is not divisible by {n}.")

