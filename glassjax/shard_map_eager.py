"""Eager ``shard_map``: outside ``jit``, the body runs op by op, as in JAX 0.10.2.

Called at top level, ``shard_map(f, ...)(x)`` does not stage ``f``: ``f`` runs in Python
on tracers of a ``ShardMapTrace``, and each operation it performs is sent at once to all
devices (a one-operation ``shard_map``). So ``print`` inside ``f`` shows every device's
block::

    On cpu:0 at mesh coordinates (i,) = (0,):
    [0. 1. 2.]

A value inside the body is held as one global array whose leading axis has one entry
per block: as many as the mesh axes it varies over (``vma``) have devices, split over
those axes (a value the same on every device has one entry, replicated). Arguments enter
that form and results leave it through identity ``shard_map``s, so the checks of the
staged ``shard_map`` (out_specs that claim replication, ...) apply unchanged.
"""
from __future__ import annotations

import numpy as np

from glassjax import caches, core, lax, tree_util
from glassjax.config import disable_jit
from glassjax.interpreters import staging
from glassjax.jit import jit
from glassjax.shard_map import (_body_scope, _broadcast_specs, _check_out_ranks, eager_runner,
                                shard_map)
from glassjax.mesh import PartitionSpec as P


class ShardMapTrace(core.Trace):
    """Runs a shard_map body eagerly over ``mesh``'s ``manual`` axes."""

    def __init__(self, mesh, manual, check_vma):
        self.mesh, self.check_vma = mesh, check_vma
        self.manual = tuple(a for a in mesh.axis_names if a in manual)

    def order(self, axes) -> tuple:
        return tuple(a for a in self.manual if a in axes)

    def spec(self, vma) -> P:
        """The layout of a held value's leading axis: split over the axes it varies over."""
        return P(self.order(vma) or None)

    def hold(self, x):
        """``(value, vma)`` of a tracer of this trace, or of a constant (which varies over
        no axis; without check_vma every value is taken to vary over every axis)."""
        if isinstance(x, ShardMapTracer) and x._trace is self:
            return x.val, x.vma
        if isinstance(x, core.Tracer):
            raise core.escaped_tracer_error(x)
        vma = () if self.check_vma else self.manual
        return self.run(_add_singleton, [x], [P()], self.spec(vma), self.check_vma), vma

    def staged(self, body, in_specs, out_specs, check_vma):
        """A (staged: under jit) shard_map of ``body`` over the trace's mesh."""
        return jit(shard_map(body, mesh=self.mesh, in_specs=tuple(in_specs),
                             out_specs=out_specs, check_vma=check_vma,
                             axis_names=frozenset(self.manual)))

    def run(self, body, args, in_specs, out_specs, check_vma):
        """``staged`` of a module-level ``body`` (entering / leaving the body), run now."""
        key = (body, tuple(in_specs), out_specs, check_vma, self.mesh, self.manual)
        fun = _appliers.get(key) or _appliers.setdefault(
            key, self.staged(body, in_specs, out_specs, check_vma))
        return _apply(fun, args)

    def applier(self, primitive, params, vmas, out_vmas):
        """``primitive`` applied to every device's blocks at once."""
        def apply(*blocks):
            outs = primitive.bind(*map(_rem_singleton, blocks), **params)
            outs = outs if primitive.multiple_results else [outs]
            return [_add_singleton(o) for o in outs]
        apply.__name__ = primitive.name
        return self.staged(apply, map(self.spec, vmas), [self.spec(v) for v in out_vmas],
                           self.check_vma)

    def process_primitive(self, primitive, tracers, params):
        vals, vmas = zip(*map(self.hold, tracers)) if tracers else ((), ())
        if not self.check_vma:
            vmas = [self.manual] * len(vals)
        out_vmas = self.result_vmas(primitive, params, vals, vmas)
        key = (primitive, tuple(params.items()), self.mesh, self.manual, self.check_vma,
               tuple(vmas), tuple(out_vmas))
        try:
            applier = _appliers.get(key)
        except TypeError:             # unhashable params: compiled for this call only
            key, applier = None, None
        if applier is None:
            applier = self.applier(primitive, params, vmas, out_vmas)
            if key is not None:
                if len(_appliers) >= _APPLIERS_SIZE:
                    _appliers.clear()
                _appliers[key] = applier
        outs = _apply(applier, vals)
        tracers = [ShardMapTracer(self, o, v) for o, v in zip(outs, out_vmas)]
        return tracers if primitive.multiple_results else tracers[0]

    def result_vmas(self, primitive, params, vals, vmas) -> list:
        """The axes each result varies over: the staged body's typing rules tell."""
        if not self.check_vma:
            return [self.manual] * _num_results(primitive, params, vals)
        avals = [core.ShapedArray(v.shape[1:], v.dtype, core.get_aval(v).weak_type,
                                  vma=self.order(m)) for v, m in zip(vals, vmas)]
        with core.set_current_trace(core.eval_trace), \
                _body_scope(self.mesh, frozenset(self.manual), True):
            _, _, out_avals = staging.trace_to_jaxpr(
                lambda *xs: _as_list(primitive, primitive.bind(*xs, **params)), avals)
        return [a.vma for a in out_avals]

    def process_custom_jvp_call(self, primitive, fun, jvp, tracers, *, symbolic_zeros):
        del primitive, jvp, symbolic_zeros           # (eagerly, the rule is not needed)
        with core.set_current_trace(self):
            return fun.call_wrapped(*tracers)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, tracers, out_trees,
                                symbolic_zeros):
        del primitive, fwd, bwd, out_trees, symbolic_zeros
        with core.set_current_trace(self):
            return fun.call_wrapped(*tracers)


# (primitive, params, mesh, manual axes, check_vma, vmas in, vmas out), or (body, specs,
# ...) -> the jitted shard_map applying it (jit compiles it once per block types).
# Emptied when large.
_APPLIERS_SIZE = 1024
_appliers = caches.table("shard_map_eager.appliers", bound=_APPLIERS_SIZE)


def _apply(staged, args):
    """Run a staged per-operation shard_map now. It is compiled even under
    ``disable_jit`` (JAX applies these as primitives, which ``disable_jit`` leaves
    alone); run as a plain call it would re-enter this eager runner without end."""
    with core.set_current_trace(core.eval_trace), disable_jit(False):
        return staged(*args)


def _as_list(primitive, outs):
    return list(outs) if primitive.multiple_results else [outs]


def _num_results(primitive, params, vals) -> int:
    out = primitive.abstract_eval(*[core.ShapedArray(v.shape[1:], v.dtype) for v in vals],
                                  **params)
    return len(out) if primitive.multiple_results else 1


def _rem_singleton(x):
    return lax.squeeze(x, [0])


def _add_singleton(x):
    return lax.expand_dims(x, [0])


class ShardMapTracer(core.Tracer):
    """One value of an eager shard_map body: its type is one device's block."""
    __slots__ = ("val", "vma")

    def __init__(self, trace, val, vma):
        super().__init__(trace)
        self.val, self.vma = val, tuple(vma)

    @property
    def aval(self):
        aval = core.get_aval(self.val)
        return core.ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type,
                                vma=self.vma if self._trace.check_vma else ())

    def blocks(self) -> list:
        """Each device's block, in the mesh's device order."""
        trace, value = self._trace, np.asarray(self.val)
        mesh, held = trace.mesh, trace.order(self.vma)
        out = []
        for position in np.ndindex(*mesh.axis_sizes):
            coords = dict(zip(mesh.axis_names, position))
            entry = 0
            for a in held:
                entry = entry * mesh.shape[a] + coords[a]
            out.append(value[entry])
        return out

    def __str__(self):
        mesh = self._trace.mesh
        names = f"({', '.join(map(str, mesh.axis_names))},)"
        return "\n".join(
            f"On {device} at mesh coordinates {names} = {position}:\n{block}\n"
            for (position, device), block in zip(np.ndenumerate(mesh.devices),
                                                 self.blocks()))

    __repr__ = __str__


def run(f, mesh, manual, check_vma, in_tree, leaves, specs, out_specs):
    """``shard_map(f)`` of the flat arguments ``leaves`` run eagerly (see the module
    docstring)."""
    trace = ShardMapTrace(mesh, manual, check_vma)
    vmas = [trace.order(s.mesh_axes()) if check_vma else trace.manual for s in specs]
    held = [trace.run(_add_singleton, [x], [s], trace.spec(v), check_vma)
            for x, s, v in zip(leaves, specs, vmas)]
    tracers = [ShardMapTracer(trace, x, v) for x, v in zip(held, vmas)]
    with _body_scope(mesh, frozenset(trace.manual), check_vma), \
            core.set_current_trace(trace):
        outs = f(*tree_util.tree_unflatten(in_tree, tracers))
    out_leaves, out_tree = tree_util.tree_flatten(outs)
    flat_specs = _broadcast_specs(out_specs, outs, out_tree, "out_specs")
    _check_out_ranks(getattr(f, "__name__", "<unnamed function>"), out_specs, outs,
                     flat_specs, [core.get_aval(x).update(vma=()) for x in out_leaves])
    results = []
    for x, spec in zip(out_leaves, flat_specs):
        val, vma = trace.hold(x)
        results.append(trace.run(_rem_singleton, [val], [trace.spec(vma)], spec,
                                 check_vma))
    return tree_util.tree_unflatten(out_tree, results)


eager_runner.append(run)
