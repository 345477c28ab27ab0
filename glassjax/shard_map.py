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

Transformations map it to shard_maps of transformed bodies: vmap adds an unsplit batch
axis, JVP carries tangent blocks beside primal ones, reverse mode splits it in two
(residuals, then the pullback taking cotangents first), each laid out as JAX 0.10.2 lays
it out so that the jaxprs print alike.

Read first: ``mesh.py`` (meshes, specs), ``named_sharding.py``, ``lax/parallel.py``.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from glassjax import core, tree_util
from glassjax.config import config
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.mesh import AxisType, Mesh, PartitionSpec, get_mesh
from glassjax.named_sharding import NamedSharding, dim_axes, sdy_dims, splits, typed_aval
from glassjax.lax import parallel, structural, utils as lax_utils
from glassjax.xla import dispatch, lowering

P = PartitionSpec


# ----------------------------------------------------------------------------------------
# Block shapes
# ----------------------------------------------------------------------------------------

def shard_aval(mesh, spec, aval, manual_axes=None):
    """The block one device sees of a value of type ``aval``; with ``manual_axes``
    (check_vma), it varies over the manual axes its spec splits it over."""
    vma = () if manual_axes is None else tuple(
        a for a in _typed_axes(mesh, spec.mesh_axes()) if a in manual_axes)
    return aval.update(shape=tuple(d // n for d, n in
                                   zip(aval.shape, splits(mesh, spec, aval.ndim))),
                       vma=vma)


def _typed_axes(mesh, axes) -> tuple:
    """The mesh axes among ``axes`` that types mention, in mesh order (all of them, or,
    with ``jax_remove_size_one_mesh_axis_from_type``, those of more than one device)."""
    drop_ones = config.jax_remove_size_one_mesh_axis_from_type
    return tuple(a for a in mesh.axis_names
                 if a in axes and not (drop_ones and mesh.shape[a] == 1))


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
shard_map_p.drawing = core.Drawing("shard_map", "shard_map",
                                  note="the body runs once on every device")


def _abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma,
                   newly_manual_axes):
    """The glued outputs; over Explicit axes their split is part of their type."""
    return [typed_aval(unshard_aval(mesh, s, a), NamedSharding(mesh, s))
            for s, a in zip(out_specs, jaxpr.out_avals)]


shard_map_p.def_abstract_eval(_abstract_eval)
shard_map_p.sharding_rule = lambda *avals, **params: [
    lax_utils.spec_of(a) for a in _abstract_eval(*avals, **params)]
shard_map_p.def_impl(lambda *args, **params: dispatch.apply_primitive(shard_map_p, *args,
                                                                      **params))
staging.effects_rules[shard_map_p] = lambda jaxpr, **_: jaxpr.effects
dispatch.mesh_rules[shard_map_p] = lambda params: [concrete_mesh(params["mesh"])]


def concrete_mesh(mesh) -> Mesh:
    """The devices of an equation's mesh: an AbstractMesh (``shard_map`` given no
    ``mesh=``) stands for the mesh of ``set_mesh``, as in JAX."""
    if isinstance(mesh, Mesh):
        return mesh
    context = get_mesh()
    if context is None or context.abstract_mesh != mesh:
        raise ValueError(f"shard_map over {mesh} needs its devices: run it under "
                         "`jax.set_mesh` of a mesh of that shape")
    return context


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
    mctx, mesh = ctx.module_context, concrete_mesh(mesh)
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
        sdy.ReturnOp(_lower_body(mctx, mesh, jaxpr, list(block.arguments), manual))
    return list(op.results)


def _lower_body(mctx, mesh, jaxpr, args, manual=()):
    """The body's ops, lowered with the mesh's axes as the collectives' device grid.
    Varying axes were checked when the body was traced; the rules that lower by tracing
    glassjax code (``lower_fun``) do not track them again, even when this shard_map was
    compiled from inside one of its own rules (an eager transpose)."""
    saved = (mctx.axis_env, mctx.spmd, mctx.manual_mesh, mctx.manual_axes,
             core.trace_ctx.vma_axes)
    mctx.axis_env, mctx.spmd = dict(mesh.shape), True
    mctx.manual_mesh = mesh
    mctx.manual_axes = frozenset(manual) | (saved[3] or frozenset())
    core.trace_ctx.vma_axes = None
    try:
        return lowering.lower_closed_jaxpr(mctx, jaxpr, args)
    finally:
        (mctx.axis_env, mctx.spmd, mctx.manual_mesh, mctx.manual_axes,
         core.trace_ctx.vma_axes) = saved


lowering.register_lowering(shard_map_p, _lowering)


def _batching(axis_data, vals, dims, *, jaxpr, in_specs, out_specs, **params):
    """vmap of a shard_map: the body is the batched body, each batch axis staying where
    it is and never split (its spec gains a None there), as in JAX. Outputs that do not
    depend on the batch stay unbatched."""
    body, out_dims = batching.batch_jaxpr2(jaxpr, axis_data, dims)
    outs = shard_map_p.bind(
        *vals, jaxpr=body,
        in_specs=tuple(_batch_spec(s, d) for s, d in zip(in_specs, dims)),
        out_specs=tuple(_batch_spec(s, d) for s, d in zip(out_specs, out_dims)), **params)
    return outs, out_dims


def _batch_spec(spec, dim):
    """``spec`` with an unsplit axis inserted at ``dim`` (unbatched: unchanged)."""
    if dim is batching.not_mapped:
        return spec
    entries = list(spec) + [None] * (dim - len(spec))
    entries.insert(dim, None)
    return P(*entries)


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


# -- Residuals ----------------------------------------------------------------------------
# Reverse mode splits a shard_map in two: one computing the outputs and the *residuals*
# the other needs. Each device has residuals of its own. As in JAX 0.10.2, a residual that
# is an input (or an output) of the body is passed on with that value's spec; the others
# leave the first shard_map concatenated along their first axis over the manual axes they
# vary over (all the manual axes without check_vma), scalars as length-1 blocks.

def _residual_sources(outvars, num_out, res_avals, in_fwd) -> list:
    """Where each residual comes from: ``("in", i)`` the body's input i, ``("out", j)``
    its output j, or ``("new", aval)`` an extra output of the first shard_map.
    ``outvars`` are the first body's (``num_out`` outputs, then the residuals not
    forwarded from inputs); ``in_fwd`` gives, per residual, its input index or None."""
    out_index = {id(v): j for j, v in enumerate(outvars[:num_out]) if isinstance(v, core.Var)}
    extra = iter(zip(outvars[num_out:], res_avals))
    sources = []
    for f in in_fwd:
        if f is not None:
            sources.append(("in", f))
            continue
        var, aval = next(extra)
        j = out_index.get(id(var))
        sources.append(("out", j) if j is not None else ("new", aval))
    return sources


def _residual_spec(mesh, manual, check_vma, aval):
    """How a residual's blocks are put together (JAX's ``nospec``)."""
    names = tuple(a for a in mesh.axis_names if a in manual and
                  (not check_vma or a in getattr(aval, "vma", ())))
    return P(names) if names else P()


def _first_body(closed, num_out, sources, residuals_first):
    """The first shard_map's body: ``closed`` (outputs, then residuals not forwarded
    from inputs) returning its outputs and only the new residuals, scalars promoted."""
    extra = [kind == "new" for kind, _ in sources if kind != "in"]

    def fun(*args):
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        res = [structural.expand_dims(r, (0,)) if not np.shape(r) else r
               for r, new in zip(outs[num_out:], extra) if new]
        return [*res, *outs[:num_out]] if residuals_first else [*outs[:num_out], *res]
    return _retrace(fun, closed.in_avals)


def _gather_residuals(sources, ins, in_specs, outs, out_specs, new, new_specs):
    """The residual values with their specs, and which are promoted scalars."""
    new, new_specs = iter(new), iter(new_specs)
    values, specs, promoted = [], [], []
    for kind, where in sources:
        if kind == "in":
            values.append(ins[where]), specs.append(in_specs[where])
        elif kind == "out":
            values.append(outs[where]), specs.append(out_specs[where])
        else:
            values.append(next(new)), specs.append(next(new_specs))
        promoted.append(kind == "new" and not where.shape)
    return values, tuple(specs), promoted


def _linearize(nonzeros, *primals, jaxpr, mesh, in_specs, out_specs, check_vma,
               newly_manual_axes):
    """Reverse mode, as JAX 0.10.2 does it: one shard_map computing the residuals (see
    above) and then the primal outputs, one taking the residuals and the tangents."""
    params = dict(mesh=mesh, check_vma=check_vma, newly_manual_axes=newly_manual_axes)
    nconsts = len(jaxpr.consts)
    primal, num_res, out_nz, res_fwd, tangent = ad.linearize_jaxpr(
        jaxpr, list(nonzeros), instantiate=False,
        allow_fwds=[False] * nconsts + [True] * len(primals))
    num_out = len(primal.out_avals) - num_res
    sources = _residual_sources(primal.jaxpr.outvars, num_out, primal.out_avals[num_out:],
                                [None if f is None else f - nconsts for f in res_fwd])
    new_specs = [_residual_spec(mesh, newly_manual_axes, check_vma, aval)
                 for kind, aval in sources if kind == "new"]
    outs = shard_map_p.bind(*primals, jaxpr=_first_body(primal, num_out, sources, True),
                            in_specs=in_specs, out_specs=(*new_specs, *out_specs), **params)
    primals_out = outs[len(new_specs):]
    residuals, res_specs, promoted = _gather_residuals(
        sources, primals, in_specs, primals_out, out_specs, outs[:len(new_specs)], new_specs)
    tangent = _promote_scalar_inputs(tangent, promoted)
    tangent_in_specs = (*res_specs, *_filter(nonzeros, in_specs))
    tangent_out_specs = _filter(out_nz, out_specs)
    tangent_avals = [a.to_tangent_aval() for a in _abstract_eval(
        jaxpr=jaxpr, in_specs=in_specs, out_specs=out_specs, **params)]

    def linearized(res, *tangents):
        outs = iter(shard_map_p.bind(
            *res, *(t for t, nz in zip(tangents, nonzeros) if nz), jaxpr=tangent,
            in_specs=tangent_in_specs, out_specs=tangent_out_specs, **params))
        return [next(outs) if nz else ad.Zero(a) for a, nz in zip(tangent_avals, out_nz)]

    return list(primals_out), out_nz, residuals, linearized


def _promote_scalar_inputs(closed, which):
    """``closed`` taking the (first) inputs flagged in ``which`` as length-1 blocks."""
    which = list(which) + [False] * (len(closed.in_avals) - len(which))
    if not any(which):
        return closed
    avals = [a.update(shape=(1,)) if w else a for a, w in zip(closed.in_avals, which)]

    def fun(*args):
        args = [structural.squeeze(x, (0,)) if w else x for x, w in zip(args, which)]
        return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
    return _retrace(fun, avals)


ad.primitive_linearizations[shard_map_p] = _in_body_scope(_linearize)


def _partial_eval(trace, *args, jaxpr, in_specs, out_specs, mesh, newly_manual_axes,
                  check_vma):
    """Partly known inputs: a known shard_map computing the known outputs and then the
    residuals (see above), and an unknown one taking the residuals first."""
    params = dict(mesh=mesh, check_vma=check_vma, newly_manual_axes=newly_manual_axes)
    unknowns = [trace.is_unknown(a) for a in args]
    knowns = [not u for u in unknowns]
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr_nounits(
        jaxpr, unknowns, instantiate=False)
    num_out = len(known.out_avals) - num_res
    invar_index = {id(v): i for i, v in enumerate(known.jaxpr.invars)}
    res_vars = known.jaxpr.outvars[num_out:]
    in_fwd = [invar_index.get(id(v)) for v in res_vars]
    outvars = [*known.jaxpr.outvars[:num_out],
               *(v for v, f in zip(res_vars, in_fwd) if f is None)]
    sources = _residual_sources(outvars, num_out, [
        a for a, f in zip(known.out_avals[num_out:], in_fwd) if f is None], in_fwd)
    known = _first_body(_forwarding_dropped(known, num_out, in_fwd), num_out, sources,
                        False)
    new_specs = [_residual_spec(mesh, newly_manual_axes, check_vma, aval)
                 for kind, aval in sources if kind == "new"]
    known_ins, known_in_specs = _filter(knowns, args), _filter(knowns, in_specs)
    known_out_specs = _filter([not uk for uk in out_unknowns], out_specs)
    outs = shard_map_p.bind_with_trace(
        trace.known_trace, known_ins,
        dict(params, jaxpr=known, in_specs=known_in_specs,
             out_specs=(*known_out_specs, *new_specs)))
    known_outs = outs[:num_out]
    residuals, res_specs, promoted = _gather_residuals(
        sources, known_ins, known_in_specs, known_outs, known_out_specs, outs[num_out:],
        new_specs)
    unknown_outs = iter(shard_map_p.bind_with_trace(
        trace.unknown_trace, [*residuals, *_filter(unknowns, args)],
        dict(params, jaxpr=_promote_scalar_inputs(unknown, promoted),
             in_specs=(*res_specs, *_filter(unknowns, in_specs)),
             out_specs=_filter(out_unknowns, out_specs))))
    known_outs = iter(known_outs)
    return [next(unknown_outs) if uk else next(known_outs) for uk in out_unknowns]


def _forwarding_dropped(closed, num_out, in_fwd):
    """``closed`` without the residual outputs that are just its inputs."""
    if all(f is None for f in in_fwd):
        return closed
    keep = [True] * num_out + [f is None for f in in_fwd]
    jaxpr = closed.jaxpr.replace(outvars=[v for v, k in zip(closed.jaxpr.outvars, keep) if k])
    return core.ClosedJaxpr(jaxpr, closed.consts)


def _retrace(fun, avals) -> core.ClosedJaxpr:
    jaxpr, consts, _ = staging.trace_to_jaxpr(fun, avals)
    return core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), []) if not consts \
        else core.ClosedJaxpr(jaxpr, consts)


pe.partial_eval_rules[shard_map_p] = _in_body_scope(_partial_eval)


def _partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """Inside ``checkpoint``: a known shard_map computing the known outputs and the
    residuals ``saveable`` lets it keep, and a staged shard_map taking them first (laid
    out as ``_linearize`` lays residuals out)."""
    params = eqn.params
    mesh, manual, check_vma = params["mesh"], params["newly_manual_axes"], params["check_vma"]
    closed = params["jaxpr"]
    with _body_scope(mesh, manual, check_vma):
        known, staged, unks_out, inst_out, num_res = pe.partial_eval_jaxpr_custom(
            closed.jaxpr, unks_in, inst_in, False, False, saveable)
        res_avals = [v.aval for v in staged.invars[:num_res]]
        promoted = [not a.shape for a in res_avals]
        num_known_out = len(known.outvars) - num_res
        known = _promote_scalar_outputs(core.ClosedJaxpr(known, closed.consts),
                                        [False] * num_known_out + promoted)
        staged = _promote_scalar_inputs(core.ClosedJaxpr(staged, closed.consts), promoted)
    res_specs = tuple(_residual_spec(mesh, manual, check_vma, a) for a in res_avals)
    residuals = [core.Var(unshard_aval(mesh, spec, a.update(shape=(1,)) if p else a))
                 for spec, a, p in zip(res_specs, res_avals, promoted)]
    eqn_known = eqn.replace(
        invars=[x for x, uk in zip(eqn.invars, unks_in) if not uk],
        outvars=[*(v for v, uk in zip(eqn.outvars, unks_out) if not uk), *residuals],
        params=dict(params, jaxpr=known,
                    in_specs=_filter([not uk for uk in unks_in], params["in_specs"]),
                    out_specs=(*_filter([not uk for uk in unks_out], params["out_specs"]),
                               *res_specs)),
        effects=known.effects)
    eqn_staged = eqn.replace(
        invars=[*residuals, *(x for x, i in zip(eqn.invars, inst_in) if i)],
        outvars=[v for v, i in zip(eqn.outvars, inst_out) if i],
        params=dict(params, jaxpr=staged,
                    in_specs=(*res_specs, *_filter(inst_in, params["in_specs"])),
                    out_specs=_filter(inst_out, params["out_specs"])),
        effects=staged.effects)
    new_inst = [x for x, i in zip(eqn.invars, inst_in) if isinstance(x, core.Var) and not i]
    return eqn_known, eqn_staged, unks_out, inst_out, new_inst + residuals


def _promote_scalar_outputs(closed, which):
    """``closed`` returning the outputs flagged in ``which`` as length-1 blocks."""
    if not any(which):
        return closed

    def fun(*args):
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        return [structural.expand_dims(o, (0,)) if w else o for o, w in zip(outs, which)]
    return _retrace(fun, closed.in_avals)


pe.partial_eval_jaxpr_custom_rules[shard_map_p] = _partial_eval_custom


def _dce(used_outputs, eqn):
    """Unused outputs leave the shard_map, with the body's work only they needed and the
    inputs nothing else reads."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    closed = eqn.params["jaxpr"]
    jaxpr, used_inputs = pe.dce_jaxpr(closed.jaxpr, used_outputs)
    if jaxpr is closed.jaxpr:
        return used_inputs, eqn
    params = dict(eqn.params, jaxpr=core.ClosedJaxpr(jaxpr, closed.consts),
                  in_specs=_filter(used_inputs, eqn.params["in_specs"]),
                  out_specs=_filter(used_outputs, eqn.params["out_specs"]))
    return used_inputs, eqn.replace(invars=list(_filter(used_inputs, eqn.invars)),
                                    outvars=list(_filter(used_outputs, eqn.outvars)),
                                    params=params)


pe.dce_rules[shard_map_p] = _dce


def _transpose(cts, *args, jaxpr, in_specs, out_specs, mesh, check_vma,
               newly_manual_axes):
    """The transpose is a shard_map of the transposed body, taking the cotangents first
    and the residuals after them, as in JAX. Without replication checks
    (``check_vma=False``, as pmap uses), a cotangent of an output replicated over some
    axes is first divided among those devices, and an input replicated over some axes
    gets the sum of its devices' cotangents (``psum``)."""
    linear = [ad.is_undefined_primal(x) for x in args]
    ct_zeros = [type(ct) is ad.Zero for ct in cts]
    nz_out_specs = _filter([not z for z in ct_zeros], out_specs)
    nz_cts = [ct for ct in cts if type(ct) is not ad.Zero]
    if not check_vma:
        nz_cts = [_div(ct, math.prod(mesh.shape[a] for a in
                                     _unmentioned(mesh, spec, newly_manual_axes)))
                  for ct, spec in zip(nz_cts, nz_out_specs)]
    lin_specs = _filter(linear, in_specs)
    with _body_scope(mesh, newly_manual_axes, check_vma):
        body, in_zeros = _transposed_body(jaxpr, linear, ct_zeros, mesh, newly_manual_axes,
                                          check_vma, lin_specs)
    outs = iter(shard_map_p.bind(
        *nz_cts, *(x for x, lin in zip(args, linear) if not lin), jaxpr=body,
        in_specs=(*nz_out_specs, *_filter([not lin for lin in linear], in_specs)),
        out_specs=tuple(s for s, z in zip(lin_specs, in_zeros) if not z),
        mesh=mesh, check_vma=check_vma, newly_manual_axes=newly_manual_axes))
    zeros = iter(in_zeros)
    return [(ad.Zero(x.aval) if next(zeros) else next(outs)) if lin else None
            for x, lin in zip(args, linear)]


def _transposed_body(jaxpr, linear, ct_zeros, mesh, manual, check_vma, lin_specs):
    """The body's transpose as a jaxpr from ``(*cotangents, *residuals)``, and which
    input cotangents are zero."""
    transposed, in_zeros = ad.transpose_jaxpr(jaxpr, linear, ct_zeros)
    num_res = sum(not lin for lin in linear)
    num_cts = len(transposed.in_avals) - num_res
    nz_lin_specs = [s for s, z in zip(lin_specs, in_zeros) if not z]

    def fun(*args):
        cts, res = args[:num_cts], args[num_cts:]
        outs = core.eval_jaxpr(transposed.jaxpr, transposed.consts, *res, *cts)
        if check_vma:
            return outs
        return [parallel.psum(o, axes) if (axes := _unmentioned(mesh, s, manual)) else o
                for o, s in zip(outs, nz_lin_specs)]
    avals = transposed.in_avals
    return _retrace(fun, [*avals[num_res:], *avals[:num_res]]), in_zeros


def _div(x, n):
    return x if n == 1 else x / n


ad.primitive_transposes[shard_map_p] = _transpose


# ----------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------

class _Infer:
    """``in_specs``'s default: infer them from the arguments (JAX's ``sharding.Infer``),
    possible only over Explicit mesh axes."""

    def __repr__(self):
        return "jax.sharding.Infer"


Infer = _Infer()


# Outside any transformation the body runs op by op instead (``shard_map_eager.py``
# registers its runner here).
eager_runner: list = []


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
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
    return _shard_map(f, mesh, mesh, out_specs, in_specs, axis_names, check_vma)


def _shard_map(f, mesh, recorded, out_specs, in_specs, axis_names, check_vma):
    """``shard_map`` over the devices of ``mesh``; its equations name ``recorded`` (the
    mesh itself, or the AbstractMesh of ``set_mesh`` when no ``mesh=`` was given, as in
    JAX)."""
    manual = frozenset(axis_names) if axis_names else frozenset(mesh.axis_names)
    explicit = manual == set(mesh.axis_names) and set(mesh.explicit_axes) >= manual
    infer = in_specs is Infer
    if infer:
        _check_inferable(mesh, manual)
    name = getattr(f, "__name__", "<unnamed function>")
    if not infer:
        _check_specs(in_specs, manual, "in")
    _check_specs(out_specs, manual, "out")

    def mapped(*args):
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = ([_inferred_spec(mesh, manual, x) for x in leaves] if infer else
                 _broadcast_specs(in_specs, args, in_tree, "in_specs"))
        avals = [core.get_aval(x) for x in leaves]
        _check_args(f, name, mesh, tree_util.tree_unflatten(in_tree, specs) if infer else
                    in_specs, args, specs, avals)
        if not infer and explicit:
            for x, spec in zip(leaves, specs):
                _check_spec_of_argument(mesh, manual, x, spec)
        if eager_runner and core.trace_ctx.trace is core.eval_trace:
            return eager_runner[0](f, mesh, manual, check_vma, in_tree, leaves, specs,
                                   out_specs)
        out_tree_box = []

        def body(*blocks):
            outs = f(*tree_util.tree_unflatten(in_tree, blocks))
            out_leaves, out_tree = tree_util.tree_flatten(outs)
            out_specs_flat = _broadcast_specs(out_specs, outs, out_tree, "out_specs")
            _check_out_ranks(name, out_specs, outs, out_specs_flat,
                             [core.get_aval(x).update(vma=()) for x in out_leaves])
            out_tree_box.append((out_tree, out_specs_flat, _spec_keys(out_specs, outs)))
            if check_vma and config.jax_auto_pcast:
                out_leaves = [_vary_over_spec(mesh, x, s)
                              for x, s in zip(out_leaves, out_specs_flat)]
            return out_leaves

        with _body_scope(mesh, manual, check_vma):
            jaxpr, consts, _ = staging.trace_to_jaxpr(body, [
                shard_aval(mesh, s, a, manual if check_vma else None)
                for s, a in zip(specs, avals)])
        out_tree, out_spec_leaves, spec_keys = out_tree_box[0]
        if check_vma:
            _check_replication(name, mesh, out_spec_leaves, spec_keys, jaxpr.out_avals)
        closed = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), [])
        results = shard_map_p.bind(
            *consts, *leaves, jaxpr=closed, mesh=recorded,
            in_specs=(P(),) * len(consts) + tuple(specs), out_specs=tuple(out_spec_leaves),
            check_vma=check_vma, newly_manual_axes=manual)
        return tree_util.tree_unflatten(out_tree, results)

    mapped.__name__ = name
    return mapped


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """A ``shard_map`` over the one mesh axis ``axis_name`` of the context mesh
    (``set_mesh``), written like ``vmap``: ``in_axes`` / ``out_axes`` say which dimension
    of each argument / result is split over it (None: not split). Each instance of ``f``
    sees its block; the other mesh axes stay as they are."""
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got "
                        f"{axis_name}")
    if in_axes is not None and in_axes is not Infer and not isinstance(in_axes,
                                                                         (int, tuple)):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple "
                        "of entries corresponding to the positional arguments passed to the "
                        f"function, but got {in_axes}.")
    if in_axes is not Infer and not all(isinstance(a, int)
                                        for a in tree_util.tree_leaves(in_axes)):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or (nested) "
                        f"container with those types as leaves, but got {in_axes}.")
    if not all(isinstance(a, int) for a in tree_util.tree_leaves(out_axes)):
        raise TypeError("smap out_axes must be an int, None, or (nested) container with "
                        f"those types as leaves, but got {out_axes}.")

    def to_specs(axes):
        return tree_util.tree_map(
            lambda a: P() if a is None else P(*[None] * a, axis_name), axes,
            is_leaf=lambda a: a is None)
    mapped = shard_map(f, mesh=None, in_specs=Infer if in_axes is Infer else
                       to_specs(in_axes), out_specs=to_specs(out_axes),
                       axis_names={axis_name}, check_vma=True)
    if in_axes is not Infer:
        return mapped

    @functools.wraps(f)
    def inferred(*args):
        mesh = get_mesh()
        kind = None if mesh is None else mesh._name_to_type.get(axis_name)
        if kind is not None and kind != AxisType.Explicit:
            raise TypeError(f"in_axes was not specified when axis_name="
                            f"{frozenset({axis_name})} was of type {kind}")
        return mapped(*args)
    return inferred


def _vary_over_spec(mesh, x, spec):
    """An output the same along an axis its spec splits it over is cast to vary along
    it (``pvary``, as JAX inserts): its blocks are then typed as the spec says."""
    vma = getattr(core.get_aval(x), "vma", ())
    missing = tuple(a for a in _typed_axes(mesh, spec.mesh_axes()) if a not in vma)
    return parallel.pvary_p.bind(x, axes=missing) if missing else x


def _on_context_mesh(f, **kwargs):
    """``shard_map(f)`` over whatever mesh ``set_mesh`` makes current when it is called."""
    def mapped(*args):
        mesh = get_mesh()
        if mesh is None or mesh.empty:
            raise ValueError("The context mesh cannot be empty. Use "
                             "`jax.set_mesh(mesh)` to enter into a mesh context")
        return _shard_map(f, mesh, mesh.abstract_mesh, **kwargs)(*args)

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
    """The spec of argument ``x`` over the manual axes, read from its type (sharding in
    types: an array, or a tracer inside ``jit``, split over Explicit axes of a mesh
    like ``mesh``); anything else is whole on every device."""
    aval = core.get_aval(x)
    typed = getattr(aval, "_sharding", None)
    if typed is None or typed[0] != mesh.abstract_mesh:
        return P(*[None] * aval.ndim)
    return P(*[None if p is None else
               tuple(a for a in p if a in manual) or None if isinstance(p, tuple) else
               p if p in manual else None
               for p in typed[1]])


def _check_spec_of_argument(mesh, manual, x, spec):
    """Over ``Explicit`` axes an argument's layout is part of its type (a traced one's
    too): ``in_specs`` must say it (JAX's check)."""
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


def _check_replication(name, mesh, specs, keys, out_avals):
    """With check_vma, an output may leave a mesh axis out of its spec (be replicated
    along it) only if it does not vary over it; JAX's error names every output that
    does (``keys``: where its spec sits in ``out_specs``)."""
    msgs = []
    for spec, key, aval in zip(specs, keys, out_avals):
        used = set(spec.mesh_axes())
        vma = getattr(aval, "vma", ())
        if not set(vma) - used:
            continue
        unmentioned = [a for a in mesh.axis_names if a not in used]
        if len(unmentioned) > 1:
            need = ",".join(a for a in mesh.axis_names if a in used)
            diff = ",".join(a for a in unmentioned if a in vma)
            got = ",".join(a for a in mesh.axis_names if a in vma)
            msgs.append(f"* out_specs{key} is {spec} which implies that the corresponding "
                        f"output value is only varying across mesh axes {{{need}}} and not "
                        f"{{{diff}}}, but it was inferred to be possibly varying over "
                        f"{{{got}}}")
        else:
            msgs.append(f"* out_specs{key} is {spec} which implies that the corresponding "
                        f"output value is replicated across mesh axis '{unmentioned[0]}', "
                        "but could not infer replication over any axes")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{name}' was given out_specs which require "
        "replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis names "
        f"{tuple(mesh.axis_names)}.\n\n" + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. "
        "If not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to `jax.shard_map`.")


def _spec_keys(specs, tree) -> list[str]:
    """For each leaf of ``tree``, where its spec sits in ``specs`` (a pytree prefix of
    it): ``''`` for a lone spec, ``'[0]'`` for the first of a tuple, ..."""
    is_spec = lambda s: isinstance(s, PartitionSpec) or s is None   # noqa: E731
    paths, treedef = tree_util.tree_flatten_with_path(specs, is_leaf=is_spec)
    keys = tree_util.tree_unflatten(treedef, [tree_util.keystr(p) for p, _ in paths])
    if isinstance(keys, str):
        return [keys] * len(tree_util.tree_leaves(tree))
    return tree_util.broadcast_prefix(keys, tree, is_leaf=lambda x: x is None)


def _check_specs(specs, manual, prefix):
    """Every leaf a PartitionSpec naming manual axes only (JAX's errors)."""
    leaves = tree_util.tree_flatten_with_path(
        specs, is_leaf=lambda s: isinstance(s, PartitionSpec))[0]
    wrong = [f"  {prefix}_specs{tree_util.keystr(k)} is {x} of type {type(x).__name__}, "
             for k, x in leaves if not isinstance(x, PartitionSpec)]
    if wrong:
        raise TypeError(f"shard_map {prefix}_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but:\n\n"
                        + "\n\n".join(wrong) + "\n\n"
                        f"Check the {prefix}_specs values passed to shard_map.")
    unknown = [f"  {prefix}_specs{tree_util.keystr(k)} refers to {a!r}"
               for k, spec in leaves for a in spec.mesh_axes() if a not in manual]
    if unknown:
        raise ValueError(f"shard_map {prefix}_specs argument must refer to an axis marked "
                         f"as manual ({manual}), but:\n\n" + "\n\n".join(unknown)
                         + f"\n\nCheck the {prefix}_specs values passed to shard_map.")


def _bullets(msgs) -> str:
    """JAX's list of problems: one without its bullet, several as bullets."""
    return msgs[0][2:] if len(msgs) == 1 else "\n\n".join(msgs)


def _arg_descriptions(f, name, args):
    """For each leaf of ``args``: ``'args[0]'`` and what binds it, as JAX words it
    (``, where args[0] is bound to f's parameter 'x',``)."""
    paths = [p for p, _ in tree_util.tree_flatten_with_path(args)[0]]
    try:
        params = [q for q in inspect.signature(f).parameters.values()
                  if q.kind not in (q.KEYWORD_ONLY, q.VAR_KEYWORD)]
        inspect.signature(f).bind(*args)
    except (TypeError, ValueError):
        params = None
    out = []
    for path in paths:
        extra = ""
        if params is not None:
            arg = tree_util.keystr(path[:1])
            i = path[0].idx
            if i >= len(params) or params[i].kind == params[i].VAR_POSITIONAL:
                extra = (f", where args{arg} is the index {i - len(params) + 1} component "
                         f"of {name}'s varargs parameter '{params[-1].name}',")
            else:
                extra = f", where args{arg} is bound to {name}'s parameter '{params[i]}',"
        out.append((tree_util.keystr(path), extra))
    return out


def _check_args(f, name, mesh, in_specs, args, specs, avals):
    """Specs no longer than their arguments' ranks, splitting them evenly (JAX's
    errors, naming each argument by its position and parameter)."""
    keys = _spec_keys(in_specs, args)
    too_long = [i for i, (s, a) in enumerate(zip(specs, avals)) if len(s) > a.ndim]
    described = None
    if too_long:
        described = _arg_descriptions(f, name, args)
        msgs = [f"* in_specs{keys[i]} is {specs[i]} which has length {len(specs[i])}, but "
                f"the passed args{described[i][0]}{described[i][1]} has shape "
                f"{avals[i].str_short()}, which has rank {avals[i].ndim} (and "
                f"{avals[i].ndim} < {len(specs[i])})" for i in too_long]
        raise ValueError(_rank_error(name, "in", msgs,
                                     any(not avals[i].ndim for i in too_long)))
    msgs = []
    for i, (spec, aval) in enumerate(zip(specs, avals)):
        for d, axes in enumerate(dim_axes(spec, aval.ndim)):
            n = math.prod(mesh.shape[a] for a in axes)
            if aval.shape[d] % n:
                if described is None:
                    described = _arg_descriptions(f, name, args)
                where = f"axes {axes}" if len(axes) > 1 else f"axis '{axes[0]}'"
                total = "total " if len(axes) > 1 else ""
                msgs.append(
                    f"* the passed args{described[i][0]} of shape {aval.str_short()}"
                    f"{described[i][1]} corresponds to in_specs{keys[i]} of value {spec}, "
                    f"which maps array axis {d} (of size {aval.shape[d]}) to mesh {where} "
                    f"(of {total}size {n}), but {n} does not evenly divide {aval.shape[d]}")
    if msgs:
        raise ValueError(
            f"shard_map applied to the function '{name}' was given argument arrays with "
            "axis sizes that are not evenly divisible by the corresponding mesh axis "
            f"sizes:\n\nThe mesh given has shape {tuple(mesh.axis_sizes)} with "
            f"corresponding axis names {tuple(mesh.axis_names)}.\n\n{_bullets(msgs)}\n\n"
            "Array arguments' axis sizes must be evenly divisible by the mesh axis or "
            "axes indicated by the corresponding elements of the argument's in_specs "
            "entry. Consider checking that in_specs are correct, and if so consider "
            f"changing the mesh axis sizes or else padding the input and adapting '{name}' "
            "appropriately.")


def _check_out_ranks(name, out_specs, outs, specs, avals):
    keys = _spec_keys(out_specs, outs)
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(outs)[0]]
    bad = [i for i, (s, a) in enumerate(zip(specs, avals)) if len(s) > a.ndim]
    if bad:
        msgs = [f"* out_specs{keys[i]} is {specs[i]} which has length {len(specs[i])}, but "
                f"{name}(*args){paths[i]} has shape {avals[i].str_short()}, which has rank "
                f"{avals[i].ndim} (and {avals[i].ndim} < {len(specs[i])})" for i in bad]
        scalar = any(not avals[i].ndim for i in bad)
        msg = _rank_error(name, "out", msgs, scalar)
        if scalar:
            msg += (" In particular, for rank 0 outputs which are not constant over the "
                    "mesh, add at least one (singleton) axis to them so that they can be "
                    "concatenated using out_specs.")
        raise ValueError(msg)


def _rank_error(name, prefix, msgs, scalar) -> str:
    msg = (f"shard_map applied to the function '{name}' was given an {prefix}_specs entry "
           f"which is too long to be compatible with the corresponding {prefix}put value "
           f"from the function:\n\n{_bullets(msgs)}\n\nEntries in {prefix}_specs must be "
           f"of length no greater than the number of axes in the corresponding {prefix}put "
           f"value.\n\nEither revise the spec to be shorter, or modify '{name}' so that "
           f"its {prefix}puts have sufficient rank.")
    if scalar:
        msg += (f"\n\nFor scalar values (rank 0), consider using an {prefix}_specs entry "
                "of `P()`, where `P = jax.sharding.PartitionSpec`.")
    return msg


def _broadcast_specs(specs, tree, treedef, which) -> list:
    """One spec per leaf of ``tree``: ``specs`` is a pytree prefix of it, where None
    stands for ``P()`` (the whole value on every device), as in JAX."""
    if specs is None or isinstance(specs, PartitionSpec):
        return [specs or P()] * treedef.num_leaves
    is_spec = lambda s: s is None or isinstance(s, PartitionSpec)   # noqa: E731
    errors = tree_util.prefix_errors(specs, tree, is_leaf=is_spec)
    if errors:
        raise errors[0](f"shard_map {which}") from None
    return [s or P() for s in tree_util.broadcast_prefix(specs, tree, is_leaf=is_spec)]
