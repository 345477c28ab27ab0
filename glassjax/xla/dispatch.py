"""Dispatch: running jaxprs and single primitives on a device.

Eager execution (``jnp.sin(x)`` outside any transformation) is ``apply_primitive``: the
primitive is staged into a one-equation jaxpr, lowered, compiled once per (primitive,
params, input types) and executed. So an eager result is computed by exactly the same
XLA code as the jitted one.

Programs with host callbacks (``debug.print``, ``pure_callback``) may still be calling
back into Python after the call that dispatched them has returned: the last such
execution per device is remembered, and ``effects_barrier`` waits for them. A program
with *ordered* effects also takes each effect's token from the previous such program
and returns the next one (``lowering.ordered_effects``): XLA starts its callbacks only
once the previous program's are done, without Python waiting for them.
"""
from __future__ import annotations

import atexit
import logging
import time
from typing import NamedTuple, Sequence

import numpy as np
from jaxlib import xla_client as xc

from glassjax import caches, config, core, monitoring, tree_util
from glassjax.mesh import Mesh, PartitionSpec, get_mesh
from glassjax.named_sharding import NamedSharding, as_typed, gspmd_to_named, typed_aval
from glassjax.rule_tables import Rules
from glassjax.xla import fastpath, lowering, runtime

logger = logging.getLogger(__name__)


class Placement(NamedTuple):
    """Where a program runs: its devices, in the order XLA numbers them, and for an SPMD
    program (one program over several devices) the mesh that names them. ``named``
    says the mesh is the user's, so results are reported as NamedShardings over it;
    arguments laid out by bare tile grids (GSPMDShardings) get a mesh made up from their
    grid instead (as JAX lowers them), and results are reported as tile grids too."""
    devices: tuple
    mesh: object = None
    named: bool = True

    @property
    def spmd(self) -> bool:
        return len(self.devices) > 1


class Compiled:
    """An XLA executable together with what is needed to call it: for each input it
    takes, the sharding its argument must have (arguments elsewhere are moved there
    first), and the shardings of its results."""
    __slots__ = ("executable", "in_avals", "out_avals", "kept_invars", "placement",
                 "in_shardings", "out_shardings", "donated_invars", "module_context",
                 "ordered_effects", "name")

    def __init__(self, executable, in_avals, out_avals, kept_invars, placement,
                 in_shardings, out_shardings, donated_invars, module_context,
                 ordered_effects=(), name=""):
        self.name = name            # ``jit(f)``: how messages name the program
        self.executable = executable
        self.in_avals = in_avals
        self.out_avals = out_avals
        self.kept_invars = kept_invars
        self.placement = placement
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self.donated_invars = donated_invars
        self.module_context = module_context
        self.ordered_effects = ordered_effects

    @property
    def device(self):
        """The first (for a single-device program: the) device it runs on."""
        return self.placement.devices[0]

    def __call__(self, *args):
        if config.jax_no_execution:
            raise RuntimeError(f"JAX tried to execute function {self.name}, but the "
                               "no_execution config option is set")
        args = [a._buf if isinstance(a, core.Token)  # a token is passed as its buffer
                else getattr(a, "_base_array", a)   # typed keys are passed as their words
                for a, keep in zip(args, self.kept_invars) if keep]
        for a in args:
            if isinstance(a, runtime.ArrayImpl):
                runtime.check_not_deleted(a)
        # (a result whose type records its split is committed to that layout)
        committed = runtime.committed_devices(args) is not None or any(
            getattr(a, "_sharding", None) for a in self.out_avals)
        arrays = [runtime.device_put(a, s) for a, s in zip(args, self.in_shardings)]
        self.check_layouts(arrays)
        if not self.module_context.host_callbacks and not self.ordered_effects:
            outs = runtime.execute(self.executable, arrays, self.out_avals,
                                   out_shardings=self.out_shardings, committed=committed)
        else:
            n = len(self.ordered_effects)
            token_sharding = _replicated(self.placement)
            tokens_in = [runtime.device_put(_effect_tokens.get(e, _NO_TOKEN), token_sharding)
                         for e in self.ordered_effects]
            outs, token = runtime.execute(
                self.executable, [*tokens_in, *arrays],
                [_TOKEN_AVAL] * n + list(self.out_avals),
                out_shardings=[token_sharding] * n + list(self.out_shardings),
                committed=committed, with_token=True)
            _effect_tokens.update(zip(self.ordered_effects, outs[:n]))
            _running_callbacks[self.device] = token
            outs = outs[n:]
        if needs_check_special():
            check_special(outs)
        return outs

    def check_layouts(self, arrays):
        """Every argument must be laid out as the program was compiled for: XLA does not
        check the pieces it is handed (a mismatch crashes the process), so we do."""
        for i, (a, s) in enumerate(zip(arrays, self.in_shardings)):
            if a.sharding is not s and not runtime.same_layout(a.sharding, s, a.ndim):
                raise RuntimeError(
                    f"argument {i} of the program with shape "
                    f"{a.aval.str_short()} is laid out as {a.sharding}, but the program "
                    f"was compiled for {s}")


def _replicated(placement: Placement):
    """A full copy on every device of ``placement``."""
    if not placement.spmd:
        return runtime.SingleDeviceSharding(placement.devices[0])
    return NamedSharding(placement.mesh, PartitionSpec())


# primitive -> function(params) -> the meshes the equation names (shard_map's mesh, a
# sharding constraint's), registered by the layers defining such primitives.
mesh_rules = Rules("mesh", "where a many-device equation runs")
# primitive -> function(params) -> the memory kinds (or None) the equation moves values
# to (``device_put``'s), registered by the layers defining such primitives.
memory_transfer_rules = Rules("memory_transfer",
                              "the memory kinds the equation moves values to")

# jaxpr -> ``_ruled_equations(jaxpr)`` (jaxprs do not change once made)
_ruled_equations_of = caches.table("xla.dispatch.ruled_equations", weak=True,
                                   why="entries die with their jaxpr")


def _ruled_equations(jaxpr: core.Jaxpr) -> list:
    """The equations of ``jaxpr`` and of its sub-jaxprs, in order, whose primitive has a
    mesh rule or a memory-transfer rule: the few that say where a program runs.
    Placing a program and lowering it both ask, so the walk over every equation is
    made once per jaxpr."""
    found = _ruled_equations_of.get(jaxpr)
    if found is None:
        found = _ruled_equations_of[jaxpr] = list(_walk_ruled(jaxpr, set()))
    return found


def _walk_ruled(jaxpr: core.Jaxpr, searched: set):
    """(``_ruled_equations``) Kept cheap: equations mostly share their params dicts
    (``core.shared_params``), and each distinct dict is searched for sub-jaxprs once."""
    for eqn in jaxpr.eqns:
        if eqn.primitive in mesh_rules or eqn.primitive in memory_transfer_rules:
            yield eqn
        if id(eqn.params) not in searched:
            searched.add(id(eqn.params))
            for sub in core.jaxprs_in_params(eqn.params):
                yield from _walk_ruled(sub, searched)


def jaxpr_meshes(jaxpr: core.Jaxpr) -> list:
    """The meshes named anywhere in ``jaxpr`` (sub-jaxprs included), first seen first."""
    found = []
    for eqn in _ruled_equations(jaxpr):
        rule = mesh_rules.get(eqn.primitive)
        for mesh in (rule(eqn.params) if rule else ()):
            if mesh not in found:
                found.append(mesh)
    return found


def placement_of(args, jaxpr: core.Jaxpr, names=None, fun_name="") -> Placement:
    """Where a program with these arguments runs, as in JAX: on the devices its committed
    arguments are on, or of the meshes its equations name, or else on the default
    device. Arguments that disagree are an error naming them."""
    devices = runtime.committed_devices(args, names, fun_name)
    meshes = jaxpr_meshes(jaxpr)
    mesh = meshes[0] if meshes else None
    if mesh is not None:
        if devices is not None and devices != mesh._flat_devices_tuple and len(devices) > 1:
            raise ValueError(
                "Received incompatible devices for jitted computation. Got argument "
                f"device ids {[d.id for d in devices]} and the device ids "
                f"{[d.id for d in mesh._flat_devices_tuple]} of the mesh {mesh} used "
                f"inside {fun_name or 'the computation'}")
        return Placement(mesh._flat_devices_tuple, mesh)
    if devices is None and _typed_over_context_mesh(jaxpr.outvars):
        return Placement(get_mesh()._flat_devices_tuple, get_mesh())
    if devices is None:
        return Placement((runtime.default_device(),))
    if len(devices) == 1:
        return Placement(devices)
    committed = [a for a in args if isinstance(a, runtime.ArrayImpl) and a._committed]
    named = [a.sharding.mesh for a in committed if isinstance(a.sharding, NamedSharding)]
    if named:
        return Placement(devices, named[0])
    first = committed[0]
    return Placement(devices, _grid_mesh(devices, first.sharding, first.ndim), named=False)


def _typed_over_context_mesh(outvars) -> bool:
    """A result typed as split over the ``set_mesh`` mesh's axes (made by ``iota`` or
    ``full`` with ``out_sharding=``): the program runs on that mesh's devices."""
    context = get_mesh()
    return context is not None and any(
        getattr(v.aval, "_sharding", None) and v.aval._sharding[0] == context.abstract_mesh
        for v in outvars)


def _grid_mesh(devices, sharding, ndim) -> Mesh:
    """A mesh over ``devices`` that names the axes of ``sharding``'s tile grid
    (``_axis_0``, ``_axis_1``, ...), as JAX makes one to lower a GSPMDSharding: a grid
    ``<=[4,2]T(1,0)`` is over a ``4 x 2`` arrangement of the devices."""
    hlo = sharding._to_xla_hlo_sharding(ndim)
    sizes = [len(devices)]
    if hlo.is_tiled() and hlo.is_tile_assignment_iota():
        sizes = hlo.get_axis_sizes()
    names = tuple(f"_axis_{i}" for i in range(len(sizes)))
    return Mesh(np.array(devices, dtype=object).reshape(sizes), names)


def arg_shardings(args, placement: Placement) -> tuple:
    """The layout of each argument as the program will take it: an array already split
    over the program's devices keeps its layout (named over the program's mesh); any
    other argument is copied whole to every device (None)."""
    if not placement.spmd:
        return (None,) * len(args)
    return tuple(_named_on(placement.mesh, a) for a in args)


def _named_on(mesh, x):
    """``x``'s layout as a NamedSharding over ``mesh``, or None if it is not on the
    mesh's devices or no spec over ``mesh`` says its layout (it is then copied whole to
    every device)."""
    if not isinstance(x, runtime.ArrayImpl) or x.sharding._device_assignment != \
            mesh._flat_devices_tuple:
        return None
    if isinstance(x.sharding, NamedSharding) and x.sharding.mesh == mesh:
        return x.sharding
    return gspmd_to_named(x.sharding._to_xla_hlo_sharding(x.ndim), mesh, x.ndim)


# -- jax_debug_nans / jax_debug_infs ------------------------------------------------------

class InternalFloatingPointError(Exception):
    """An execution produced a NaN or an infinity while ``jax_debug_nans`` /
    ``jax_debug_infs`` is set. Callers turn it into JAX's ``FloatingPointError``: an
    eager primitive names itself; a jit call re-runs its function un-jitted, so that the
    primitive that made the value raises."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


def needs_check_special() -> bool:
    return config.jax_debug_nans or config.jax_debug_infs


def check_special(outs):
    for out in outs:
        if not np.issubdtype(out.dtype, np.inexact):
            continue
        value = np.asarray(out)
        if config.jax_debug_nans and np.isnan(value).any():
            raise InternalFloatingPointError("nan")
        if config.jax_debug_infs and np.isinf(value).any():
            raise InternalFloatingPointError("inf")


# An ordered effect's token crosses between executions as an empty array.
_TOKEN_AVAL = core.ShapedArray((0,), np.bool_)
_NO_TOKEN = np.zeros(0, np.bool_)
# ordered effect -> the token returned by the last execution having it
_effect_tokens: dict = {}


# device -> token of the last execution with host callbacks dispatched there (executions
# on one device run in order, so waiting for the last one waits for all).
_running_callbacks: dict = {}


@atexit.register
def effects_barrier():
    """Wait until every computation dispatched so far has run its host callbacks (also at
    exit, so that no callback is cut off)."""
    while _running_callbacks:
        _, token = _running_callbacks.popitem()
        token.block_until_ready()
    _effect_tokens.clear()


def compile_jaxpr(name: str, closed: core.ClosedJaxpr, placement: Placement | None = None,
                  *, donated_invars=None, keep_unused=False, result_names=None,
                  in_shardings=None, out_shardings=None) -> Compiled:
    """Lower and compile a closed jaxpr as the ``main`` of a module named ``jit_<name>``
    for ``placement`` (default: the default device). For an SPMD placement,
    ``in_shardings`` / ``out_shardings`` (one NamedSharding or None per input / output)
    fix layouts; None leaves an input replicated and an output to XLA's choice."""
    placement = placement or Placement((runtime.default_device(),))
    lowered = lower_jaxpr(name, closed, placement, donated_invars=donated_invars,
                          keep_unused=keep_unused, result_names=result_names,
                          in_shardings=in_shardings, out_shardings=out_shardings)
    return compile_lowered(closed, lowered)


class LoweredJaxpr(NamedTuple):
    name: str               # ``jit(f)``
    module_context: lowering.ModuleContext
    kept_invars: list       # which of the jaxpr's inputs ``main`` takes
    donated: list           # donation flags of the kept inputs
    placement: Placement
    in_shardings: list      # the layout of each kept input (SPMD programs)
    memory_kinds: lowering.MemoryKinds | None    # None: all in device memory


def _moves_memory(jaxpr: core.Jaxpr) -> bool:
    """Whether an equation of ``jaxpr`` (or of a sub-jaxpr) moves values out of device
    memory."""
    return any(k not in (None, "device")
               for eqn in _ruled_equations(jaxpr) if eqn.primitive in memory_transfer_rules
               for k in memory_transfer_rules[eqn.primitive](eqn.params))


def _kind_of(aval):
    space = getattr(aval, "memory_space", core.MemorySpace.Device)
    return None if space is core.MemorySpace.Any else core.mem_space_to_kind(space)


def memory_kinds(closed: core.ClosedJaxpr, kept, out_shardings) -> lowering.MemoryKinds | None:
    """Which memory each kept argument and each result of ``closed`` is in, as JAX
    decides it: arguments as their types say, results as ``out_shardings`` asks or else
    as their types say. None (nothing to write in the program) when all are in device
    memory and no equation moves values to another memory. ``retyped``: the memory kind
    a result's type takes from ``out_shardings`` (None: its type stays)."""
    avals_in = [a for a, k in zip(closed.in_avals, kept) if k]
    asked = [getattr(s, "memory_kind", None) for s in out_shardings or
             [None] * len(closed.out_avals)]
    args = [_kind_of(a) for a in avals_in]
    results = [k or _kind_of(a) for k, a in zip(asked, closed.out_avals)]
    if (all(k in (None, "device") for k in [*args, *asked]) and
            not _moves_memory(closed.jaxpr)):
        return None
    # (JAX types a result by the memory kind of a NamedSharding asked for it, not of
    # another sharding)
    retyped = [s.memory_kind if isinstance(s, NamedSharding) else None
               for s in out_shardings or [None] * len(closed.out_avals)]
    return lowering.MemoryKinds([None if k == "device" else k for k in args], results,
                                asked, retyped)


def _in_memory(sharding, kind):
    if kind is None or kind == sharding.memory_kind:
        return sharding
    return sharding.with_memory_kind(kind)


def _typed_out_shardings(avals, mesh):
    """Sharding in types: results whose types are split over ``mesh``'s Explicit axes
    are laid out as their types say (as JAX lays them out); the others are left to the
    partitioner. None when no result's type is split."""
    if not mesh.explicit_axes:
        return None
    abstract = mesh.abstract_mesh
    out = [NamedSharding(mesh, PartitionSpec(*typed[1]))
           if (typed := getattr(a, "_sharding", None)) is not None and typed[0] == abstract
           else None for a in avals]
    return out if any(s is not None for s in out) else None


def lower_jaxpr(name: str, closed: core.ClosedJaxpr, placement: Placement | None = None,
                *, donated_invars=None, keep_unused=False, result_names=None,
                in_shardings=None, out_shardings=None, locations=False) -> LoweredJaxpr:
    """The StableHLO module of a closed jaxpr, ``main`` in a module named ``jit_<name>``.

    Unused inputs are dropped from ``main``'s signature unless ``keep_unused`` (JAX's
    default too), so XLA does not hold buffers it never reads. ``locations`` locates
    each operation at its equation's source (for reading, not for compiling)."""
    placement = placement or Placement((runtime.default_device(),))
    pruned, kept = prune_for_lowering(closed, keep_unused)
    donated = [d for d, k in zip(donated_invars or [False] * len(kept), kept) if k]
    kept_shardings = None
    spmd = {}
    if placement.spmd:
        replicated = _replicated(placement)
        kept_shardings = [s or replicated for s, k in
                          zip(in_shardings or [None] * len(kept), kept) if k]
        if out_shardings is None and placement.named:
            out_shardings = _typed_out_shardings(closed.out_avals, placement.mesh)
        spmd = dict(mesh=placement.mesh, num_partitions=len(placement.devices),
                    arg_shardings=kept_shardings, result_shardings=out_shardings)
    program = f"jit({name})"
    mapping = [repr(s) if s is not None else "UnspecifiedValue"
               for s in in_shardings or [None] * len(closed.in_avals)]
    log_compile("Compiling %s with global shapes and types %r. Argument mapping: (%s%s).",
                program, tuple(closed.in_avals), ", ".join(mapping),
                "," if len(mapping) == 1 else "")
    start = time.perf_counter()
    kinds = memory_kinds(closed, kept, out_shardings)
    arg_names = None
    if locations and (debug := closed.jaxpr.debug_info) is not None and debug.arg_names:
        arg_names = [n for n, k in zip(debug.arg_names, kept) if k]
    mctx = lowering.lower_module(lowering.module_name("jit", name), pruned,
                                 donated_invars=donated, result_names=result_names,
                                 devices=placement.devices, locations=locations,
                                 memory_kinds=kinds, arg_names=arg_names,
                                 dim_vars=lowering.dim_vars_of(closed.in_avals), **spmd)
    elapsed = time.perf_counter() - start
    log_compile("Finished jaxpr to MLIR module conversion %s in %.9f sec", program, elapsed)
    monitoring.record_event_duration_secs(monitoring.JAXPR_TO_MLIR_MODULE_EVENT, elapsed,
                                          fun_name=program)
    return LoweredJaxpr(program, mctx, kept, donated, placement, kept_shardings, kinds)


def log_compile(message: str, *args):
    """Log a step of tracing or compiling a program: at WARNING when the user asked to
    see them (``jax_log_compiles``), else at DEBUG."""
    level = logging.WARNING if config.jax_log_compiles else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, message, *args)


def compile_lowered(closed: core.ClosedJaxpr, lowered: LoweredJaxpr) -> Compiled:
    """Compile the module ``lower_jaxpr`` made of ``closed`` for its placement."""
    mctx, placement = lowered.module_context, lowered.placement
    start = time.perf_counter()
    module = mctx.module
    if mctx.uses_dim_vars:
        module = runtime.refine_polymorphic_shapes(module)
    exe = runtime.compile(module, devices=placement.devices,
                          num_partitions=len(placement.devices),
                          host_callbacks=mctx.host_callbacks)
    elapsed = time.perf_counter() - start
    log_compile("Finished XLA compilation of %s in %.9f sec", lowered.name, elapsed)
    monitoring.record_event_duration_secs(monitoring.BACKEND_COMPILE_EVENT, elapsed,
                                          fun_name=lowered.name)
    if placement.spmd:
        in_shardings = lowered.in_shardings
        kept_avals = [a for a, k in zip(closed.in_avals, lowered.kept_invars) if k]
        first_in = (in_shardings[0], kept_avals[0].ndim) if in_shardings else None
        out_shardings = [_sharding_from_xla(hlo, placement, aval, first_in) for hlo, aval
                         in zip(exe.get_output_shardings(), closed.out_avals)]
        out_avals = [typed_aval(a, s) for a, s in zip(closed.out_avals, out_shardings)]
    else:
        in_shardings = [runtime.SingleDeviceSharding(placement.devices[0])] * \
            sum(lowered.kept_invars)
        out_shardings = [runtime.SingleDeviceSharding(placement.devices[0])] * \
            len(closed.out_avals)
        out_avals = closed.out_avals
    kinds = lowered.memory_kinds
    if kinds is not None:       # (values in host memory: their shardings say so)
        in_shardings = [_in_memory(s, k) for s, k in zip(in_shardings, kinds.args)]
        out_shardings = [_in_memory(s, k) for s, k in zip(out_shardings, kinds.results)]
        out_avals = [a if type(a) is not core.ShapedArray else
                     a.update(memory_space=core.mem_kind_to_space(k) if k is not None
                              else traced.memory_space)
                     for a, traced, k in zip(out_avals, closed.out_avals, kinds.retyped)]
    ordered = lowering.ordered_effects(closed.jaxpr.effects)
    return Compiled(exe, closed.in_avals, out_avals, lowered.kept_invars, placement,
                    in_shardings, out_shardings, lowered.donated, mctx, ordered,
                    lowered.name)


def _sharding_from_xla(hlo, placement: Placement, aval, first_in=None):
    """The layout XLA chose for a result, reported as JAX reports it: over a user's mesh
    as the first argument's sharding when it is that layout, else named by a spec over
    the mesh (on a mesh of ``Explicit`` axes the spec has an entry per dimension, as
    the result's type does); else as XLA's tile grid over the devices."""
    ndim = len(aval.shape)
    if not isinstance(hlo, xc.HloSharding):        # (jaxlib reports OpSharding protos)
        hlo = xc.HloSharding.from_proto(hlo)
    grid = runtime.GSPMDSharding(list(placement.devices), hlo)
    if not placement.named:
        return grid
    mesh = placement.mesh
    if mesh.explicit_axes:
        return as_typed(gspmd_to_named(hlo, mesh, ndim), ndim) or grid
    if first_in is not None and first_in[1] == ndim and \
            runtime.same_pieces(first_in[0], grid, ndim):
        return first_in[0]
    return gspmd_to_named(hlo, mesh, ndim) or grid


def prune_for_lowering(closed: core.ClosedJaxpr, keep_unused=False):
    """What a jit lowers, as in JAX: the jaxpr without its dead equations (and the
    constants only they read), and without the inputs nothing reads -- or with
    ``keep_unused`` the jaxpr as it is. Returns the pruned jaxpr and which inputs it
    kept. A shape-polymorphic program keeps all its inputs: their shapes carry the
    values of its dimension variables."""
    from glassjax.interpreters import partial_eval as pe   # late: it sits above dispatch
    jaxpr, n = closed.jaxpr, len(closed.jaxpr.constvars)
    if keep_unused or lowering.dim_vars_of(closed.in_avals):
        return closed, [True] * len(jaxpr.invars)
    # One pass finds the dead equations, constants and inputs alike: the constants are
    # passed as leading inputs that are never kept for their own sake.
    as_inputs = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
    pruned, used = pe.dce_jaxpr(as_inputs, [True] * len(jaxpr.outvars), False)
    n_consts = sum(used[:n])
    pruned = pruned.replace(constvars=pruned.invars[:n_consts],
                            invars=pruned.invars[n_consts:])
    consts = [c for c, u in zip(closed.consts, used) if u]
    return core.ClosedJaxpr(pruned, consts), used[n:]


def lowering_used_invars(jaxpr: core.Jaxpr) -> list[bool]:
    """Which inputs an equation or an output reads (scanning only until all have been
    seen, which is usually early)."""
    unread = set(jaxpr.invars).difference(v for v in jaxpr.outvars
                                          if isinstance(v, core.Var))
    for eqn in jaxpr.eqns:
        if not unread:
            break
        for a in eqn.invars:
            if isinstance(a, core.Var):
                unread.discard(a)
    return [v not in unread for v in jaxpr.invars]


def _hashable_params(params):
    return tuple(sorted((k, _hashable(v)) for k, v in params.items()))


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, (core.Jaxpr, core.ClosedJaxpr)):
        return ("jaxpr", v)     # hashed by identity; the key keeps it alive
    if isinstance(v, np.ndarray):
        return ("ndarray", v.tobytes(), v.shape, v.dtype)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


def _compile_primitive(primitive, params, in_avals, placement, shardings) -> Compiled:
    from glassjax.interpreters import staging     # late: it sits above dispatch
    invars = [core.Var(a) for a in in_avals]
    out_avals = primitive.abstract_eval(*in_avals, **params)
    outs = list(out_avals) if primitive.multiple_results else [out_avals]
    outvars = [core.Var(a) for a in outs]
    effects = staging.primitive_effects(primitive, params)   # (dead code keeps them)
    eqn = core.JaxprEqn(invars, outvars, primitive, params, effects)
    closed = core.ClosedJaxpr(core.Jaxpr([], invars, outvars, [eqn], effects), [])
    return compile_jaxpr(primitive.name, closed, placement, keep_unused=True,
                         in_shardings=shardings)


# (primitive, params, input avals, placement, layouts, options) -> Compiled; emptied when it
# grows large, so a long-running kernel's memory stays bounded (params may hold jaxprs).
_PRIMITIVE_CACHE_SIZE = 4096
_primitive_cache = caches.table("xla.dispatch.primitive_executables",
                                bound=_PRIMITIVE_CACHE_SIZE)


def _run_primitive(primitive, params, args):
    """The Python path of an eager primitive: compile (once per input types), run."""
    in_avals = tuple(core.get_aval(a) for a in args)
    names = [f"args[{i}]" for i in range(len(args))]       # (how JAX names them)
    placement = _primitive_placement(primitive, params, args, names)
    shardings = arg_shardings(args, placement)
    key = (primitive, _hashable_params(params), in_avals, placement, shardings,
           config.trace_context())     # (x64, threefry_partitionable, ... change programs)
    compiled = _primitive_cache.get(key)
    if compiled is None:
        if len(_primitive_cache) >= _PRIMITIVE_CACHE_SIZE:
            _primitive_cache.clear()
        compiled = _primitive_cache[key] = _compile_primitive(primitive, params,
                                                              in_avals, placement, shardings)
    outs = compiled(*args)
    return compiled, (outs if primitive.multiple_results else outs[0])


def _primitive_placement(primitive, params, args, names) -> Placement:
    rule = mesh_rules.get(primitive)
    eqn_meshes = rule(params) if rule else ()
    if not eqn_meshes and not any(core.jaxprs_in_params(params)):
        devices = runtime.committed_devices(args, names, primitive.name)
        if devices is None and _asks_split_over_context_mesh(params):
            return Placement(get_mesh()._flat_devices_tuple, get_mesh())
        if devices is None or len(devices) == 1:      # the common case, kept quick
            return Placement(devices or (runtime.default_device(),))
    in_avals = [core.get_aval(a) for a in args]
    invars = [core.Var(a) for a in in_avals]
    eqn = core.JaxprEqn(invars, [], primitive, params)
    return placement_of(args, core.Jaxpr([], invars, [], [eqn]), names, primitive.name)


def _asks_split_over_context_mesh(params) -> bool:
    """A result asked to be split over the abstract mesh of ``set_mesh`` (``iota`` or
    ``broadcast_in_dim`` with a typed ``sharding``): it is made on that mesh's devices,
    laid out as its type says."""
    context = get_mesh()
    return context is not None and any(
        isinstance(p, NamedSharding) and p.mesh.abstract_mesh == context.abstract_mesh
        and p.spec.mesh_axes() for p in params.values())


def _run_primitive_checked(primitive, params, args):
    try:
        return _run_primitive(primitive, params, args)
    except InternalFloatingPointError as err:
        raise FloatingPointError(f"invalid value ({err.kind}) encountered in "
                                 f"{primitive.name}") from None


def _primitive_callable(primitive, params):
    """A C++ dispatcher (``fastpath``) running ``primitive`` with ``params``: after the
    first call with some input types, later calls never enter Python."""
    def run(*args):
        return _run_primitive_checked(primitive, params, args)[1]

    def cache_miss(*args):
        compiled, out = _run_primitive_checked(primitive, params, args)
        outs = out if primitive.multiple_results else [out]
        tree = tree_util.tree_structure(out)
        return out, fastpath.fastpath_data(compiled, outs, tree), False

    run.__name__ = run.__qualname__ = primitive.name
    return fastpath.cpp_function(primitive.name, run, cache_miss)


# (primitive, params) -> C++ callable; emptied when it grows large (params may hold jaxprs)
_primitive_callables = caches.table("xla.dispatch.primitive_callables",
                                    bound=_PRIMITIVE_CACHE_SIZE)


def _value_types(v):
    """The types inside a param value: ``(1,)`` and ``(np.int64(1),)`` are equal and hash
    alike, yet the callable closes over the params and would hand later calls the
    other's values (and ``True``/``1``, ``2``/``2.0`` differ in meaning)."""
    return tuple(map(type, v)) if type(v) is tuple else type(v)


def apply_primitive(primitive, *args, **params):
    """Run one primitive eagerly on concrete arguments (its ``impl``), like JAX: through
    a cached C++ dispatcher, so that an eager op costs about what a jit call costs."""
    try:
        key = (primitive, *params.items(), *map(_value_types, params.values()))
        fun = _primitive_callables.get(key)
    except TypeError:                          # lists, arrays, dicts among the values
        try:
            key = (primitive, _hashable_params(params))
            fun = _primitive_callables.get(key)
        except TypeError:                      # unhashable after all: the Python path
            return _run_primitive_checked(primitive, params, args)[1]
    if fun is None:
        if len(_primitive_callables) >= _PRIMITIVE_CACHE_SIZE:
            _primitive_callables.clear()
        fun = _primitive_callables[key] = _primitive_callable(primitive, params)
    return fun(*args)


def execute_closed_jaxpr(name: str, closed: core.ClosedJaxpr, args: Sequence, **kw):
    """Compile (uncached) and run: used by ``jit`` primitives met in eager interpretation
    of a jaxpr; the ``jit`` API keeps its own cache."""
    placement = placement_of(args, closed.jaxpr, fun_name=name)
    return compile_jaxpr(name, closed, placement, in_shardings=arg_shardings(args, placement),
                         **kw)(*args)
