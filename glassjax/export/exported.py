"""``jax.export``: a jitted function frozen into StableHLO, to be shipped and called later.

``export(jit(f))(*specs)`` traces and lowers ``f`` for the given shapes and dtypes, and
keeps what a deployment needs: the StableHLO module (as a versioned *portable artifact*,
bytes a later StableHLO can still read), the input and output types and pytree
structures, and the platform it was lowered for. ``Exported.call`` brings the module back
into a program: the ``call_exported`` primitive, whose lowering copies the module's
functions into the caller's module and calls its ``main``. Nothing of ``f`` is needed any
more, only for the VJP, which an in-memory ``Exported`` exports on demand (and
``serialize(vjp_order=k)`` stores k levels of).

Exported with symbolic shapes (``symbolic_shape("b, 4")``), one module serves every
batch size: its ``main`` takes dynamic shapes (``tensor<?x4xf32>``) and computes the
dimension variables from them (export/shape_poly.py); a program calling it is compiled
after jaxlib's shape refinement has made every shape static again.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import struct
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes, shape_poly, tree_util
from glassjax.ad_api import vjp
from glassjax.custom_derivatives import custom_vjp
from glassjax.export import shape_poly as export_shape_poly
from glassjax.export.pytree_serialization import treedef_from_data, treedef_to_data
from glassjax.jit import jit
from glassjax.xla import dispatch, lowering, runtime

# The calling conventions of JAX 0.10.2 this module reads and writes. Since version 9 a
# ``main`` whose function has no ordered effects, no shape variables and one platform
# takes exactly the (kept) array arguments, which is what glassjax lowers.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


def default_export_platform() -> str:
    """The platform ``export`` lowers for when none is given: the default backend's."""
    return runtime.default_backend()


@dataclasses.dataclass(frozen=True)
class DisabledSafetyCheck:
    """A safety check that ``export`` (or a later ``call``) should skip."""
    _impl: str

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        """Allow calling on a platform the function was not exported for."""
        return DisabledSafetyCheck("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        """Allow a custom call to ``target_name``, whose ABI has no stability promise."""
        return DisabledSafetyCheck(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        """The target name, if this disables the custom-call check."""
        return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") \
            else None

    def __str__(self):
        return self._impl

    __repr__ = __str__


# Custom-call targets whose calling convention XLA keeps stable (JAX's list for CPU):
# a module calling anything else may not run with a later jaxlib.
_STABLE_CPU_KERNELS = {f"lapack_{t}{name}_ffi" for t in "sdcz" for name in
                       ("potrf", "geqrf", "getrf", "sytrd", "gehrd", "gees", "trsm",
                        "gtsv", "geev", "gesdd", "syevd")}
_STABLE_CPU_KERNELS |= {f"lapack_{t}orgqr_ffi" for t in "sd"} | {
    f"lapack_{t}ungqr_ffi" for t in "cz"} | {f"lapack_{t}heevd_ffi" for t in "cz"} | {
    f"lapack_{t}hetrd_ffi" for t in "cz"}
_STABLE_CUSTOM_CALLS = _STABLE_CPU_KERNELS | {
    "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
    "annotate_device_placement", "AllocateBuffer", "shape_assertion",
    # Shape polymorphism's dynamic ops, made static when shapes are refined.
    "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_rng_bit_generator",
    "stablehlo.dynamic_top_k"}
# The custom call through which compiled code calls a Python function (host callbacks).
_HOST_CALLBACK = "xla_ffi_python_cpu_callback"


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
    """A lowered function with everything needed to call it without its Python code.

    ``in_avals``/``out_avals`` are the flat argument and result types; ``in_tree`` the
    structure of ``(args, kwargs)``; ``module_kept_var_idx`` which arguments the module's
    ``main`` takes (unused ones are dropped)."""
    fun_name: str
    in_tree: Any
    in_avals: tuple
    out_tree: Any
    out_avals: tuple
    in_shardings_hlo: tuple
    out_shardings_hlo: tuple
    nr_devices: int
    platforms: tuple
    ordered_effects: tuple
    unordered_effects: tuple
    disabled_safety_checks: Sequence[DisabledSafetyCheck]
    mlir_module_serialized: bytes
    calling_convention_version: int
    module_kept_var_idx: tuple
    uses_global_constants: bool
    _get_vjp: Callable[[Exported], Exported] | None

    def mlir_module(self) -> str:
        """The StableHLO module as text, with its locations."""
        with runtime.mlir_context():
            return runtime.module_text(_module(self), debug_info=True)

    def __str__(self):
        # How a ``call_exported`` equation prints it (a whole module would be too long).
        return f"Exported(fun_name={self.fun_name}, ...)"

    def has_vjp(self) -> bool:
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The exported VJP: takes the primal arguments and the output cotangents, returns
        the input cotangents."""
        if self._get_vjp is None:
            raise ValueError("No VJP is available")
        return self._get_vjp(self)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """Bytes ``export.deserialize`` turns back into an equal ``Exported``, with
        ``vjp_order`` levels of VJPs (so ``grad`` works that many times after loading)."""
        return serialize(self, vjp_order)

    def call(self, *args, **kwargs):
        """Run the exported function on ``args`` (same pytree structure, shapes and dtypes
        as exported), eagerly or inside a traced function, differentiably if the VJP is
        available."""
        return call_exported(self)(*args, **kwargs)


def _module(exported: Exported) -> ir.Module:
    """The module of ``exported``, parsed in the current MLIR context."""
    return stablehlo.deserialize_portable_artifact(ir.Context.current,
                                                   exported.mlir_module_serialized)


# ----------------------------------------------------------------------------------------
# Exporting
# ----------------------------------------------------------------------------------------

def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()):
    """``export(jit(f))(*args, **kwargs)``: an ``Exported`` of ``f`` lowered for the
    shapes and dtypes of the arguments (arrays or ``ShapeDtypeStruct``s)."""
    if not hasattr(fun_jit, "trace"):
        raise ValueError("Function to be exported must be the result of `jit` but "
                         f"is: {fun_jit}")
    platforms = tuple(platforms) if platforms is not None else (default_export_platform(),)
    if platforms != (default_export_platform(),):
        raise NotImplementedError(
            f"glassjax lowers for the platform it runs on ({default_export_platform()!r}) "
            f"only; cannot export for {platforms}")

    def do_export(*args, **kwargs) -> Exported:
        traced = fun_jit.trace(*args, **kwargs)
        return _export_traced(traced, platforms, tuple(disabled_checks))
    return do_export


def _export_traced(traced, platforms, disabled_checks) -> Exported:
    result = traced._result
    closed = result.closed_jaxpr
    if result.lifted:
        raise ValueError("Cannot export a function that closes over traced values")
    if lowering.ordered_effects(closed.effects):
        raise NotImplementedError("glassjax cannot export functions with ordered effects")
    in_avals = tuple(closed.in_avals)
    symbolic = not all(shape_poly.is_constant_shape(a.shape) for a in in_avals)
    # Solving the dimension variables from the arguments' shapes must be possible.
    solution = export_shape_poly.Solution(
        in_avals, export_shape_poly.arg_paths(result.in_tree)) if symbolic else None
    lowered = traced.lower()
    if lowered._lowered.placement.spmd:
        raise NotImplementedError("glassjax exports single-device programs only")
    # Lowered again with locations, which the module keeps for whoever reads it later
    # (its arguments located at their names, as in JAX).
    module = lowered._lower(locations=True).module_context.module
    kept = tuple(i for i, k in enumerate(lowered._lowered.kept_invars) if k)
    with module.context:
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(
            symbolic)
        if symbolic:
            _wrap_main(module, solution, kept)
        _check_custom_calls(module, disabled_checks)
        serialized = runtime.serialize_portable_artifact(
            module, stablehlo.get_version_from_compatibility_requirement(
                stablehlo.StablehloCompatibilityRequirement.WEEK_4))
    fun_name = traced._jitted._name
    exported = Exported(
        fun_name=fun_name, in_tree=result.in_tree, in_avals=in_avals,
        out_tree=result.out_tree,
        out_avals=tuple(closed.out_avals),
        in_shardings_hlo=(None,) * len(in_avals),
        out_shardings_hlo=(None,) * len(closed.out_avals),
        nr_devices=1, platforms=platforms, ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=disabled_checks, mlir_module_serialized=bytes(serialized),
        calling_convention_version=maximum_supported_calling_convention_version,
        module_kept_var_idx=kept, uses_global_constants=False,
        _get_vjp=lambda exp: _export_vjp(traced._jitted._fun, exp))
    return exported


def _wrap_main(module: ir.Module, solution, kept: Sequence[int]):
    """JAX's calling convention for a shape-polymorphic module: the lowered ``main``
    (which takes the dimension variables first) becomes ``_wrapped_jax_export_main``,
    and a new ``main`` taking only the arrays computes the variables from their shapes
    and calls it."""
    table = ir.SymbolTable(module.operation)
    name = "_wrapped_jax_export_main"
    if name in table:       # an exported function this one calls has taken the name
        other = next(f"{name}_{k}" for k in itertools.count() if f"{name}_{k}" not in table)
        table.replace_all_symbol_uses(name, other, module.operation)
        table.set_symbol_name(table[name], other)
    wrapped = table["main"]
    table.set_symbol_name(wrapped, name)
    wrapped.attributes["sym_visibility"] = ir.StringAttr.get("private")
    wrapped_type = ir.FunctionType(ir.TypeAttr(wrapped.attributes["function_type"]).value)
    n_dims = len(solution.dim_vars)
    with ir.InsertionPoint.at_block_begin(module.body), ir.Location.unknown():
        main = lowering.func_dialect.FuncOp(
            "main", ir.FunctionType.get(wrapped_type.inputs[n_dims:], wrapped_type.results))
    main.attributes["sym_visibility"] = ir.StringAttr.get("public")
    if "res_attrs" in wrapped.attributes:
        main.attributes["res_attrs"] = wrapped.attributes["res_attrs"]
    with ir.Location.unknown():
        block = main.add_entry_block()
    with ir.InsertionPoint(block), ir.Location.unknown():
        args = dict(zip(kept, block.arguments))
        missing = {s.arg for s in solution.steps} - set(args)
        if missing:
            raise NotImplementedError("glassjax cannot export a function whose unused "
                                      f"arguments {sorted(missing)} alone give the values "
                                      "of dimension variables")
        dims = solution.emit(args)
        call = lowering.func_dialect.CallOp(
            list(wrapped_type.results), ir.FlatSymbolRefAttr.get("_wrapped_jax_export_main"),
            [*dims, *block.arguments])
        lowering.func_dialect.ReturnOp(list(call.results))


def _custom_calls(module: ir.Module, targets_ok: Callable[[str], bool]) -> list[str]:
    """The custom calls in ``module`` whose target is not ``targets_ok``."""
    bad = []

    def walk(op):
        if op.name == "stablehlo.custom_call":
            target = ir.StringAttr(op.attributes["call_target_name"]).value
            if not targets_ok(target):
                bad.append(f"{op} at {op.location}")
        for region in op.regions:
            for block in region:
                for inner in block:
                    walk(inner.operation)
    walk(module.operation)
    return bad


def _check_custom_calls(module: ir.Module, disabled_checks):
    """Refuse custom calls to targets without a stability promise (host callbacks among
    them: the Python function they call does not travel with the module)."""
    allowed = _STABLE_CUSTOM_CALLS | {c.is_custom_call() for c in disabled_checks}
    bad = _custom_calls(module, allowed.__contains__)
    if bad:
        raise ValueError(
            "Cannot serialize code with custom calls whose targets have no compatibility "
            "guarantees. See https://docs.jax.dev/en/latest/export/export.html"
            "#compatibility-guarantees-for-custom-calls. Examples are:\n"
            + "\n".join(bad) + ".\n")


def _export_vjp(primal_fun: Callable, exported: Exported) -> Exported:
    """Export the VJP of ``primal_fun`` at ``exported``'s types, as a function of the flat
    primal arguments followed by the output cotangents (``fun_vjp_jax``, as in JAX)."""
    n = len(exported.in_avals)

    def fun_vjp_jax(*args_and_cts):
        def flat_primal(*args_flat):
            args, kwargs = tree_util.tree_unflatten(exported.in_tree, args_flat)
            return tree_util.tree_leaves(primal_fun(*args, **kwargs))
        _, pullback = vjp(flat_primal, *args_and_cts[:n])
        return pullback(list(args_and_cts[n:]))

    specs = [core.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
             for a in exported.in_avals]
    specs += [core.ShapeDtypeStruct(a.shape, a.to_tangent_aval().dtype)
              for a in exported.out_avals]
    return export(jit(fun_vjp_jax), platforms=exported.platforms,
                  disabled_checks=exported.disabled_safety_checks)(*specs)


# ----------------------------------------------------------------------------------------
# Serialization: a versioned container of the portable artifact and a JSON header
# ----------------------------------------------------------------------------------------

# The container: MAGIC, then the format version, the header's length and the lengths of
# the module and of the nested VJP (each a little-endian uint64), then the JSON header,
# the module's portable artifact and the VJP's own container (empty if not kept).
_MAGIC = b"glassjax.Exported"
_FORMAT_VERSION = 2
_LENGTHS = struct.Struct("<IQQQ")


def _aval_to_data(aval) -> list:
    """Shape and dtype: like JAX's format, this one keeps no weak types (a deserialized
    function's results are strongly typed). A symbolic dimension is written as its text
    (``"2*b"``), read back by parsing."""
    name = "float0" if aval.dtype == dtypes.float0 else np.dtype(aval.dtype).name
    shape = [str(d) if shape_poly.is_symbolic_dim(d) else d for d in aval.shape]
    return [shape, name]


def _aval_from_data(data, scope) -> core.ShapedArray:
    shape, name = data
    dtype = dtypes.float0 if name == "float0" else np.dtype(getattr(ml_dtypes, name, name))
    if any(isinstance(d, str) for d in shape):
        shape = shape_poly.symbolic_shape(", ".join(map(str, shape)) + ",", scope=scope)
    return core.ShapedArray(tuple(shape), dtype)


def _symbolic_scope(avals):
    """The scope of the symbolic dimensions in ``avals`` (None if there are none)."""
    for aval in avals:
        for d in aval.shape:
            if shape_poly.is_symbolic_dim(d):
                return d.scope
    return None


def serialize(exported: Exported, vjp_order: int = 0) -> bytearray:
    """``exported`` as bytes, with ``vjp_order`` levels of its VJP."""
    if exported.ordered_effects or exported.unordered_effects:
        raise NotImplementedError("glassjax cannot serialize functions with effects")
    header = dict(
        fun_name=exported.fun_name,
        in_tree=treedef_to_data(exported.in_tree),
        out_tree=treedef_to_data(exported.out_tree),
        in_avals=[_aval_to_data(a) for a in exported.in_avals],
        out_avals=[_aval_to_data(a) for a in exported.out_avals],
        platforms=list(exported.platforms), nr_devices=exported.nr_devices,
        disabled_checks=[str(c) for c in exported.disabled_safety_checks],
        calling_convention_version=exported.calling_convention_version,
        module_kept_var_idx=list(exported.module_kept_var_idx),
        uses_global_constants=exported.uses_global_constants)
    scope = _symbolic_scope(exported.in_avals)
    if scope is not None:
        header["symbolic_constraints"] = scope._texts
    text = json.dumps(header).encode()
    vjp_bytes = serialize(exported.vjp(), vjp_order - 1) if vjp_order > 0 else b""
    module = exported.mlir_module_serialized
    return bytearray(_MAGIC + _LENGTHS.pack(_FORMAT_VERSION, len(text), len(module),
                                            len(vjp_bytes)) + text + module + vjp_bytes)


def deserialize(blob: bytes | bytearray) -> Exported:
    """The ``Exported`` that ``Exported.serialize`` wrote into ``blob``."""
    blob = bytes(blob)
    if not blob.startswith(_MAGIC):
        raise ValueError("Not a serialized glassjax Exported (bad magic bytes)")
    start = len(_MAGIC) + _LENGTHS.size
    version, n_header, n_module, n_vjp = _LENGTHS.unpack(blob[len(_MAGIC):start])
    if version != _FORMAT_VERSION:
        raise ValueError(f"Unsupported serialization format version {version}; this "
                         f"glassjax reads version {_FORMAT_VERSION}")
    header = json.loads(blob[start:start + n_header])
    module = blob[start + n_header:start + n_header + n_module]
    vjp_blob = blob[start + n_header + n_module:start + n_header + n_module + n_vjp]
    version = header["calling_convention_version"]
    if not (minimum_supported_calling_convention_version <= version <=
            maximum_supported_calling_convention_version):
        raise ValueError(f"The calling convention version {version} is outside the "
                         "supported range [{minimum_supported_calling_convention_version}"
                         f"..{maximum_supported_calling_convention_version}]")
    n_in, n_out = len(header["in_avals"]), len(header["out_avals"])
    # All symbolic dimensions of one export share a scope, rebuilt with its constraints.
    scope = shape_poly.SymbolicScope(header.get("symbolic_constraints", []))
    return Exported(
        fun_name=header["fun_name"],
        in_tree=treedef_from_data(header["in_tree"]),
        in_avals=tuple(_aval_from_data(a, scope) for a in header["in_avals"]),
        out_tree=treedef_from_data(header["out_tree"]),
        out_avals=tuple(_aval_from_data(a, scope) for a in header["out_avals"]),
        in_shardings_hlo=(None,) * n_in, out_shardings_hlo=(None,) * n_out,
        nr_devices=header["nr_devices"], platforms=tuple(header["platforms"]),
        ordered_effects=(), unordered_effects=(),
        disabled_safety_checks=tuple(DisabledSafetyCheck(c)
                                     for c in header["disabled_checks"]),
        mlir_module_serialized=module, calling_convention_version=version,
        module_kept_var_idx=tuple(header["module_kept_var_idx"]),
        uses_global_constants=header["uses_global_constants"],
        _get_vjp=(lambda _: deserialize(vjp_blob)) if vjp_blob else None)


# ----------------------------------------------------------------------------------------
# Calling: the call_exported primitive
# ----------------------------------------------------------------------------------------

class CallExportedPrimitive(core.Primitive):
    multiple_results = True


call_exported_p = CallExportedPrimitive("call_exported")
call_exported_p.def_impl(lambda *args, exported: dispatch.apply_primitive(
    call_exported_p, *args, exported=exported))


def _arg_path(exported: Exported, index: int) -> str:
    """``args[0]['u']``: where flat argument ``index`` sits in ``(args, kwargs)``."""
    leaves = tree_util.tree_unflatten(exported.in_tree, range(exported.in_tree.num_leaves))
    path, _ = tree_util.tree_flatten_with_path(leaves)[0][index]
    where = ("args", "kwargs")[path[0].idx]
    return where + tree_util.keystr(path[1:])


def _call_exported_abstract_eval(*avals, exported: Exported):
    """The result types for arguments of types ``avals``: the exported ones, where the
    dimension variables (if any) take the values the argument shapes give them."""
    for i, (want, got) in enumerate(zip(exported.in_avals, avals)):
        where = _arg_path(exported, i)
        if len(want.shape) != len(got.shape):
            raise ValueError(f"Rank mismatch for {where}: expected {want.shape} and "
                             f"called with {got.shape}")
        if want.dtype != got.dtype:
            raise ValueError(f"Dtype mismatch for {where}: expected {want.dtype} and "
                             f"called with {got.dtype}")
        for d, (w, g) in enumerate(zip(want.shape, got.shape)):
            if not shape_poly.is_symbolic_dim(w) and w != g:
                raise ValueError(f"Shape mismatch for {where}.shape[{d}] (expected same "
                                 f"constant): expected {want.shape} and called with "
                                 f"{got.shape}")
    if not _is_polymorphic(exported):
        return list(exported.out_avals)
    # (Called with symbolic shapes of the caller, the variables get symbolic values.)
    env = _solution(exported).solve([a.shape for a in avals])
    return [a.update(shape=tuple(shape_poly.evaluate(d, env) for d in a.shape))
            for a in exported.out_avals]


def _is_polymorphic(exported: Exported) -> bool:
    return not all(shape_poly.is_constant_shape(a.shape) for a in exported.in_avals)


def _solution(exported: Exported):
    return export_shape_poly.Solution(exported.in_avals,
                                      export_shape_poly.arg_paths(exported.in_tree))


call_exported_p.def_abstract_eval(_call_exported_abstract_eval)


def _call_exported_lowering(ctx: lowering.LoweringRuleContext, *args, exported: Exported):
    """Copy the exported module's functions into the module being built (renamed where
    their names are taken; ``main`` becomes ``call_exported_<fun_name>``) and call it with
    the arguments it kept."""
    platform = default_export_platform()
    if platform not in exported.platforms and \
            DisabledSafetyCheck.platform() not in exported.disabled_safety_checks:
        raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                         f"'{exported.platforms}' but it is used on '{(platform,)}'.")
    mctx = ctx.module_context
    module = _module(exported)
    if _custom_calls(module, lambda target: target != _HOST_CALLBACK):
        # Its index names a Python function of the exporting program, not of this one.
        raise ValueError(f"Cannot call the exported function '{exported.fun_name}': it "
                         "contains host callbacks, whose Python functions are not part of "
                         "the export")
    table = ir.SymbolTable(module.operation)
    renames = {}
    for op in module.body.operations:
        if "sym_name" in op.attributes:
            old = ir.StringAttr(op.attributes["sym_name"]).value
            base = f"call_exported_{exported.fun_name}" if old == "main" else old
            renames[old] = mctx.unique_name(lowering.sanitize_name(base))
    for old, new in renames.items():
        if old != new:
            table.replace_all_symbol_uses(old, new, module.operation)
            table.set_symbol_name(table[old], new)
    for op in list(module.body.operations):
        if op.operation.name == "func.func":
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")
        mctx.module.body.append(op)
    main = renames["main"]
    # A polymorphic callee takes dynamic shapes (``tensor<?x4xf32>``): the arguments
    # are converted to them, the results back, and the module's shapes are refined to
    # static ones before it is compiled.
    kept = [_convert_type(args[i], exported.in_avals[i])
            for i in exported.module_kept_var_idx]
    out_types = [lowering.aval_to_ir_type(a) for a in exported.out_avals]
    outs = lowering.func_dialect.CallOp(out_types, ir.FlatSymbolRefAttr.get(main),
                                        kept).results
    if _is_polymorphic(exported):
        mctx.uses_dim_vars = True
    return [_convert_type(x, a) for x, a in zip(outs, ctx.avals_out)]


def _convert_type(x: ir.Value, aval) -> ir.Value:
    ir_type = lowering.aval_to_ir_type(aval)
    return x if x.type == ir_type else hlo.convert(ir_type, x)


lowering.register_lowering(call_exported_p, _call_exported_lowering)


def call_exported(exported: Exported) -> Callable:
    """The function ``Exported.call`` is: checks the argument structure, then applies
    ``call_exported`` under a ``custom_vjp`` whose backward pass calls the exported VJP."""
    if not isinstance(exported, Exported):
        raise ValueError(f"The exported argument must be an export.Exported. "
                         f"Found {exported}.")

    @custom_vjp
    def f_flat(*args_flat):
        return call_exported_p.bind(*args_flat, exported=exported)

    def f_flat_vjp_fwd(*args_flat):
        return f_flat(*args_flat), args_flat     # the arguments are the residuals

    def f_flat_vjp_bwd(args_flat, cts_out):
        exp_vjp = exported.vjp()
        cts = [core.float0_zeros(a.shape) if a.dtype == dtypes.float0 else ct
               for ct, a in zip(cts_out, exp_vjp.in_avals[len(args_flat):])]
        return tuple(call_exported(exp_vjp)(*args_flat, *cts))

    f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)

    def f_imported(*args, **kwargs):
        args_flat, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ValueError(_structure_mismatch(exported, in_tree))
        return tree_util.tree_unflatten(exported.out_tree, f_flat(*args_flat))
    return f_imported


def _structure_mismatch(exported: Exported, in_tree) -> str:
    given = tree_util.tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    expected = tree_util.tree_unflatten(exported.in_tree, [0] * exported.in_tree.num_leaves)
    lines = []
    for path, thing1, thing2, explanation in tree_util.equality_errors(given, expected):
        where = ("args", "kwargs")[path[0].idx] + tree_util.keystr(path[1:])
        lines.append(f"   - {where} is a {thing1} in the invocation and a {thing2} when "
                     f"exported, so {explanation}.\n")
    return ("The invocation args and kwargs must have the same pytree structure as when "
            f"the function '{exported.fun_name}' was exported, but they have the "
            "following structural differences:\n" + "\n".join(lines))
