"""Host callbacks: calling Python functions from inside traced and compiled programs.

A compiled XLA program normally never returns to Python until it has finished. A *host
callback* is a hole in the program: a ``stablehlo.custom_call
@xla_ffi_python_cpu_callback`` whose ``index`` names a Python function handed to the
compiler with the module. When execution reaches the call, XLA passes the operands to that
function as NumPy arrays and continues with its results.

Three primitives are built on it:

* ``debug_callback`` and ``debug_print`` (``jax.debug.callback`` / ``jax.debug.print``)
  return nothing and carry an *effect*. Effects are how a jaxpr remembers that an
  equation matters although no output depends on it: dead-code elimination keeps it,
  partial evaluation runs it with the known values, and the custom call is marked
  ``has_side_effect`` so XLA keeps it too. *Ordered* effects are additionally threaded
  through a token, so XLA runs them in program order.
* ``pure_callback`` computes values, has no effect (XLA may drop or repeat it), and says
  up front which shapes and dtypes it returns.

Outside any trace the debug primitives call the Python function right away; under
``jit`` they run every time the compiled program runs, never while tracing.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import logging
import string
import sys
from typing import Any, Callable

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from glassjax import core, dtypes, tree_util
from glassjax.core import Effect
from glassjax.interpreters import ad, batching, partial_eval as pe, staging
from glassjax.interpreters import mlir as jax_mlir
from glassjax.xla import dispatch, lowering, runtime
from glassjax.xla.lowering import hlo

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------------------
# Effects
# ----------------------------------------------------------------------------------------

class DebugEffect(Effect):
    __str__ = lambda self: "Debug"


class OrderedDebugEffect(Effect):
    ordered = True
    __str__ = lambda self: "OrderedDebug"


class IOEffect(Effect):
    __str__ = lambda self: "IO"


class OrderedIOEffect(Effect):
    ordered = True
    __str__ = lambda self: "OrderedIO"


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
io_effect = IOEffect()
ordered_io_effect = OrderedIOEffect()


# ----------------------------------------------------------------------------------------
# Emitting a callback into StableHLO
# ----------------------------------------------------------------------------------------

def _u64(i: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), i)


def _layouts(ranks) -> ir.ArrayAttr:
    """Row-major layouts (dimensions listed minor to major), one per operand or result
    of the given rank (tokens have rank 0)."""
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.arange(rank - 1, -1, -1, dtype=np.int64),
                                    type=ir.IndexType.get()) for rank in ranks])


def _maximal_sharding(mctx: lowering.ModuleContext, num_values: int):
    """In a one-device program, callbacks run once, on device 0 (a "maximal" sharding of
    every value, as JAX annotates it). Replicated and partitioned programs get no
    annotation: there the callback runs on every device."""
    if mctx.num_replicas != 1 or mctx.num_partitions != 1:
        return None
    on_device_0 = sdy.TensorShardingAttr.get(sdy.MeshAttr.get([], [0]), [])
    return sdy.TensorShardingPerValueAttr.get([on_device_0] * max(1, num_values))


def emit_python_callback(ctx: lowering.LoweringRuleContext, callback: Callable, args,
                         *, has_side_effect: bool, ordered_effect: Effect | None = None
                         ) -> list:
    """Emit a custom call that runs ``callback(*numpy_args) -> sequence of results`` on
    the host, and register ``callback`` with the module. Results are checked against
    ``ctx.avals_out`` (JAX's errors). With ``ordered_effect`` the call also takes and
    returns that effect's token, chaining it after the previous call of the same effect
    (``lowering.token``; as in JAX, such a call carries no sharding annotation)."""
    mctx = ctx.module_context
    token = None if ordered_effect is None else lowering.token(mctx, ordered_effect)
    results, token, _ = _emit_host_call(ctx, callback, token, args, ctx.avals_in,
                                        ctx.avals_out, has_side_effect=has_side_effect)
    if ordered_effect is not None:
        lowering.set_token(mctx, ordered_effect, token)
    return results


def _emit_python_callback_jax(ctx, callback, token, operands, operand_avals, result_avals,
                              *, has_side_effect: bool, returns_token: bool = True,
                              partitioned: bool = False, sharding=None):
    """JAX's ``mlir.emit_python_callback`` (equinox's ``noinline`` lowers with it): the
    token, when given, is passed through the call explicitly. Returns ``(results, new
    token or None, the host function)``; a caller keeps the last alive
    (``ctx.module_context.add_keepalive``)."""
    del returns_token                   # (a given token is always returned, as in JAX)
    if partitioned or sharding is not None:
        raise NotImplementedError(
            "emit_python_callback: glassjax runs a host callback on one device; "
            "partitioned callbacks and callbacks with a sharding are not implemented")
    return _emit_host_call(ctx, callback, token, operands, operand_avals, result_avals,
                           has_side_effect=has_side_effect)


def _emit_host_call(ctx, callback, token, operands, operand_avals, result_avals, *,
                    has_side_effect):
    """The custom call itself: ``(results, new token or None, host function)``."""
    mctx = ctx.module_context

    def checked_callback(*np_args):
        outs = callback(*np_args)
        if len(outs) != len(result_avals):
            raise RuntimeError("Mismatched number of outputs from callback. Expected: "
                               f"{len(result_avals)}, Actual: {len(outs)}")
        outs = [np.asarray(o) for o in outs]
        outs = tuple(o.astype(dtypes.canonicalize_dtype(o.dtype), copy=False) for o in outs)
        for i, (out, aval) in enumerate(zip(outs, result_avals)):
            if out.shape != aval.shape:
                raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                   f"Expected: {aval.shape}, Actual: {out.shape}")
            if out.dtype != aval.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                   f"Expected: {aval.dtype}, Actual: {out.dtype}")
        return outs

    operands = list(operands)
    result_types = [lowering.aval_to_ir_type(a) for a in result_avals]
    in_ranks = [a.ndim for a in operand_avals]
    out_ranks = [a.ndim for a in result_avals]
    host_fn = checked_callback
    if token is not None:
        operands = [token, *operands]
        result_types = [hlo.TokenType.get(), *result_types]
        in_ranks, out_ranks = [0, *in_ranks], [0, *out_ranks]
        host_fn = lambda tok, *np_args: (tok, *checked_callback(*np_args))
    mctx.host_callbacks.append(host_fn)
    op = hlo.CustomCallOp.build_generic(results=result_types, operands=operands, attributes=dict(
        call_target_name=ir.StringAttr.get("xla_ffi_python_cpu_callback"),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        backend_config=ir.StringAttr.get(""),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        called_computations=ir.ArrayAttr.get([]),
        operand_layouts=_layouts(in_ranks), result_layouts=_layouts(out_ranks)))
    # The callback's index into the module's host callbacks, in the (FFI) dictionary
    # form of backend config XLA's python-callback handler reads.
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {"index": _u64(len(mctx.host_callbacks) - 1)})
    sharding = None if token is not None else _maximal_sharding(mctx, len(result_avals))
    if sharding is not None:
        op.operation.attributes["sdy.sharding"] = sharding
    results = list(op.results)
    if token is not None:
        token, *results = results
    return results, token, host_fn


jax_mlir.above.register(emit_python_callback=_emit_python_callback_jax)


def _on_host(args, api_name: str):
    """Callbacks see glassjax arrays on the host CPU, whatever computed them."""
    try:
        device = runtime.local_devices(backend="cpu")[0]
    except RuntimeError as err:
        raise RuntimeError(f"{api_name} failed to find a local CPU device to place the "
                           "inputs on. Make sure \"cpu\" is listed in --jax_platforms "
                           "or the JAX_PLATFORMS environment variable.") from err
    return [runtime.device_put(a, device, committed=True) for a in args]


# ----------------------------------------------------------------------------------------
# debug_callback
# ----------------------------------------------------------------------------------------

class DebugCallbackPrimitive(core.Primitive):
    multiple_results = True


debug_callback_p = DebugCallbackPrimitive("debug_callback")


def _debug_callback_impl(*args, callback, effect, partitioned):
    del effect, partitioned
    try:
        callback(*_on_host(args, "jax.debug.callback"))
    except BaseException:
        logger.exception("jax.debug.callback failed")
        raise
    return []


debug_callback_p.def_impl(_debug_callback_impl)
debug_callback_p.def_abstract_eval(lambda *avals, **params: [])
staging.effects_rules[debug_callback_p] = lambda effect, **_: frozenset({effect})


def _debug_callback_lowering(ctx, *args, callback, effect, partitioned):
    def host_fn(*np_args):
        _debug_callback_impl(*np_args, callback=callback, effect=effect,
                             partitioned=partitioned)
        return ()
    return emit_python_callback(ctx, host_fn, args, has_side_effect=True,
                                ordered_effect=effect if effect.ordered else None)


lowering.register_lowering(debug_callback_p, _debug_callback_lowering)


# -- rules shared by the debug primitives ------------------------------------------------

def _debug_batching(primitive, args, dims, **params):
    """vmap runs the callback once per batch element, in order (an unrolled loop)."""
    from glassjax import lax
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped)
    for i in range(size):
        primitive.bind(*(x if d is batching.not_mapped else
                         lax.index_in_dim(x, i, axis=d, keepdims=False)
                         for x, d in zip(args, dims)), **params)
    return [], []


def _debug_jvp(primitive, primals, tangents, **params):
    """Derivatives see the primal values only; the callback has no tangent."""
    return primitive.bind(*primals, **params), []


def _debug_transpose(cts, *args, **params):
    return [None] * len(args)


def _debug_partial_eval_custom(primitive, saveable, unks_in, inst_in, eqn):
    """``remat`` splits a function into a known (forward) and a staged (recomputed)
    part. A debug callback goes where it shows the most values: into the staged part if
    any input is unknown, into both if the policy does not let it be saved (it then runs
    twice, which is the point: it shows what is recomputed)."""
    if any(unks_in):
        return None, eqn, [], [], [v for v, inst in zip(eqn.invars, inst_in) if not inst]
    if saveable(primitive, *(v.aval for v in eqn.invars), **eqn.params):
        return (eqn, eqn, [], [], []) if all(inst_in) else (eqn, None, [], [], [])
    return eqn, eqn, [], [], []


def _register_debug_rules(primitive):
    batching.primitive_batchers[primitive] = functools.partial(_debug_batching, primitive)
    ad.primitive_jvps[primitive] = functools.partial(_debug_jvp, primitive)
    ad.primitive_transposes[primitive] = _debug_transpose
    pe.partial_eval_jaxpr_custom_rules[primitive] = functools.partial(
        _debug_partial_eval_custom, primitive)


_register_debug_rules(debug_callback_p)


# ----------------------------------------------------------------------------------------
# debug_print: a debug callback that formats and prints its arguments
# ----------------------------------------------------------------------------------------
# JAX gives printing its own primitive so that the jaxpr shows the format string and
# the argument structure instead of an opaque Python function.

def split_static_args(args, kwargs):
    """Flatten ``(args, kwargs)``; leaves that are not arrays (strings, None, ...) are
    kept aside as static values ``{position: value}`` and given back to the callback."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    static, dynamic = {}, []
    for i, leaf in enumerate(leaves):
        try:
            core.shaped_abstractify(leaf)
            dynamic.append(leaf)
        except (AssertionError, TypeError):
            static[i] = leaf
    return in_tree, dynamic, static


def merge_static_args(in_tree, dynamic, static: dict):
    """Rebuild ``(args, kwargs)`` from the dynamic leaves and the static ones."""
    dynamic = iter(dynamic)
    leaves = [static[i] if i in static else next(dynamic) for i in range(in_tree.num_leaves)]
    return tree_util.tree_unflatten(in_tree, leaves)


def format_and_print(fmt, np_printoptions, has_placeholders, logging_record, *args,
                     **kwargs):
    """``fmt.format(*args, **kwargs)`` with the NumPy print options of the call site,
    written to stdout, or (``debug.log``) logged as a copy of ``logging_record``, which
    names the user's line that asked for it."""
    if has_placeholders:
        with np.printoptions(**np_printoptions):
            msg = fmt.format(*args, **kwargs)
    else:
        msg = " ".join((fmt, *(str(a) for a in args)))
    if logging_record is not None:
        record = copy.copy(logging_record)
        record.msg = msg
        logger.handle(record)
    else:
        sys.stdout.write(msg + "\n")


def make_logging_record(level: int) -> logging.LogRecord:
    """A log record (message still empty) placed at the innermost caller outside
    glassjax: the line of user code a ``debug.log`` was written on."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("glassjax"):
        frame = frame.f_back
    file_name, line_no = ((frame.f_code.co_filename, frame.f_lineno) if frame is not None
                          else ("(unknown file)", 0))
    return logger.makeRecord(logger.name, level, file_name, line_no, "", (), None)


class DebugPrintPrimitive(core.Primitive):
    multiple_results = True


debug_print_p = DebugPrintPrimitive("debug_print")


def _print_callback(fmt, in_tree, static_args, np_printoptions, has_placeholders,
                    logging_record):
    """The flat Python function a ``debug_print`` equation calls back."""
    def print_flat(*dynamic):
        args, kwargs = merge_static_args(in_tree, dynamic, dict(static_args))
        format_and_print(fmt, dict(np_printoptions), has_placeholders, logging_record,
                         *args, **kwargs)
    return print_flat


def _print_effect(ordered):
    return ordered_debug_effect if ordered else debug_effect


def _debug_print_impl(*args, fmt, ordered, partitioned, in_tree, static_args,
                      np_printoptions, has_placeholders, logging_record):
    callback = _print_callback(fmt, in_tree, static_args, np_printoptions,
                               has_placeholders, logging_record)
    return _debug_callback_impl(*args, callback=callback, effect=_print_effect(ordered),
                                partitioned=partitioned)


debug_print_p.def_impl(_debug_print_impl)
debug_print_p.def_abstract_eval(lambda *avals, **params: [])
staging.effects_rules[debug_print_p] = lambda ordered, **_: frozenset(
    {_print_effect(ordered)})


def _debug_print_lowering(ctx, *args, fmt, ordered, partitioned, in_tree, static_args,
                          np_printoptions, has_placeholders, logging_record):
    callback = _print_callback(fmt, in_tree, static_args, np_printoptions,
                               has_placeholders, logging_record)
    return _debug_callback_lowering(ctx, *args, callback=callback,
                                    effect=_print_effect(ordered), partitioned=partitioned)


lowering.register_lowering(debug_print_p, _debug_print_lowering)
_register_debug_rules(debug_print_p)


class _FormatChecker(string.Formatter):
    """Checks a format string against its arguments without formatting anything (the
    values are not known while tracing)."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(
                f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. You may "
                "be passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and "
                "instead should pass in a regular string.")


check_format = _FormatChecker().format


# ----------------------------------------------------------------------------------------
# pure_callback
# ----------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class _FlatCallback:
    """The user's function, callable with flat arguments and returning flat results. A
    dataclass (not a closure) so that calling the same function with the same argument
    structure gives equal params, and so a cache hit."""
    callback_func: Callable[..., Any]
    in_tree: Any   # the PyTreeDef of (args, kwargs)

    def __call__(self, *flat_args):
        args, kwargs = tree_util.tree_unflatten(self.in_tree, flat_args)
        return tree_util.tree_leaves(self.callback_func(*args, **kwargs))


class PureCallbackPrimitive(core.Primitive):
    multiple_results = True


pure_callback_p = PureCallbackPrimitive("pure_callback")


def _call_on_host(api_name, callback, args):
    """What the compiled program calls: the user's function on host arrays, results
    turned into NumPy arrays for XLA (a failure is logged, as JAX logs it, and raised)."""
    try:
        return [np.asarray(out) for out in callback(*_on_host(args, api_name))]
    except BaseException:
        logger.exception(f"{api_name} failed")
        raise


# Eagerly, a pure_callback is compiled and run like any primitive (through XLA, which
# calls back), so it behaves the same inside and outside jit.
pure_callback_p.def_impl(functools.partial(dispatch.apply_primitive, pure_callback_p))
pure_callback_p.def_abstract_eval(lambda *avals, result_avals, **params: list(result_avals))


def _pure_callback_lowering(ctx, *args, callback, sharding, **params):
    del sharding     # glassjax compiles for one device: the callback runs there
    host_fn = lambda *np_args: _call_on_host("jax.pure_callback", callback, np_args)
    return emit_python_callback(ctx, host_fn, args, has_side_effect=False)


lowering.register_lowering(pure_callback_p, _pure_callback_lowering)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to "
                     "use callbacks while taking gradients.")


def _pure_callback_transpose(cts, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use "
                     "`jax.custom_vjp` to use callbacks while taking gradients.")


ad.primitive_jvps[pure_callback_p] = _pure_callback_jvp
ad.primitive_transposes[pure_callback_p] = _pure_callback_transpose


def batch_with_vmap_method(primitive, args, dims, *, vmap_method, result_avals,
                           **params):
    """Batch a call of code glassjax cannot look into (a callback, an FFI call) the way
    its user says it vectorizes (``vmap_method``): call it once per element in a loop
    (``sequential``), or once on the whole batch with unbatched inputs given a size-1
    (``expand_dims``) or full-size (``broadcast_all``) leading axis, or as-is
    (``legacy_vectorized``)."""
    from glassjax import lax
    size, = {x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped}
    args = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims)]
    batched_avals = tuple(batching.unmapped_aval(a, size, 0) for a in result_avals)
    if vmap_method == "legacy_vectorized":
        outs = primitive.bind(*args, vmap_method=vmap_method, result_avals=batched_avals,
                              **params)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        args = [lax.broadcast(x, (n,)) if d is batching.not_mapped else x
                for x, d in zip(args, dims)]
        outs = primitive.bind(*args, vmap_method=vmap_method, result_avals=batched_avals,
                              **params)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        outs = _call_sequentially(primitive, args, dims,
                                  vmap_method == "sequential_unrolled",
                                  dict(vmap_method=vmap_method, result_avals=result_avals,
                                       **params))
    else:
        raise NotImplementedError(
            f"vmap is only supported for the {primitive.name} primitive when vmap_method "
            "is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
            f"'broadcast_all', or 'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    return tuple(outs), (0,) * len(outs)


batching.primitive_batchers[pure_callback_p] = functools.partial(
    batch_with_vmap_method, pure_callback_p)


def _call_sequentially(primitive, args, dims, unroll, params):
    """Batch a callback by calling it once per element, in a ``scan`` over the mapped
    arguments (already moved to axis 0)."""
    from glassjax import lax
    mapped = [d is not batching.not_mapped for d in dims]

    def one_element(carry, xs):
        xs = iter(xs)
        merged = [next(xs) if m else x for x, m in zip(args, mapped)]
        return carry, primitive.bind(*merged, **params)
    _, outs = lax.scan(one_element, (), [x for x, m in zip(args, mapped) if m],
                       unroll=unroll)
    return outs

_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None]


def _result_aval(shape_dtype) -> core.ShapedArray:
    dtype = np.dtype(shape_dtype.dtype)
    if dtypes.canonicalize_dtype(dtype) != dtype:
        raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                         "`jax_enable_x64` is disabled")
    return core.ShapedArray(shape_dtype.shape, dtype)


def _flat_callback_args(primitive, callback, args, kwargs):
    """The flat arguments of a callback call, checked as ``Primitive.bind`` checks them
    in JAX, and the callback taking them."""
    flat_args, in_tree = tree_util.tree_flatten((args, kwargs))
    for i, arg in enumerate(flat_args):
        try:
            core.get_aval(arg)
        except TypeError as err:
            raise TypeError(
                f"Error interpreting argument to {primitive} as a JAX value. The "
                f"problematic value is of type {type(arg)} and was passed to "
                f"{primitive} at position {i}.\n") from err
    return flat_args, _FlatCallback(callback, in_tree)


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
    """Call ``callback(*args, **kwargs)`` on the host, from traced code too.

    ``callback`` must be pure: it may be called any number of times, or not at all if
    its results are unused. ``result_shape_dtypes`` is a pytree of objects with
    ``shape`` and ``dtype`` (e.g. ``ShapeDtypeStruct``) describing what it returns;
    ``vmap_method`` says how it behaves under ``vmap`` (see the batching rule)."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, "
                         f"but got: {vmap_method}")
    return _bind_callback(pure_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, vmap_method=vmap_method)


def _bind_callback(prim, callback, result_shape_dtypes, args, kwargs, **params):
    """Bind a callback primitive on the flattened arguments, declaring the flattened
    result types; the outputs come back in the declared pytree."""
    flat_args, flat_callback = _flat_callback_args(prim, callback, args, kwargs)
    result_avals, out_tree = tree_util.tree_flatten(
        tree_util.tree_map(_result_aval, result_shape_dtypes))
    outs = prim.bind(*flat_args, callback=flat_callback, result_avals=tuple(result_avals),
                     **params)
    return tree_util.tree_unflatten(out_tree, outs)


# ----------------------------------------------------------------------------------------
# io_callback: a callback with side effects
# ----------------------------------------------------------------------------------------

class IOCallbackPrimitive(core.Primitive):
    multiple_results = True


io_callback_p = IOCallbackPrimitive("io_callback")


io_callback_p.def_impl(functools.partial(dispatch.apply_primitive, io_callback_p))
io_callback_p.def_abstract_eval(lambda *avals, result_avals, **params: list(result_avals))
# The effect keeps an unused call alive (no DCE) and, when ordered, in program order.
staging.effects_rules[io_callback_p] = lambda ordered, **_: frozenset(
    {ordered_io_effect if ordered else io_effect})


def _io_callback_lowering(ctx, *args, callback, sharding, ordered, **params):
    del sharding
    host_fn = lambda *np_args: _call_on_host("jax.io_callback", callback, np_args)
    return emit_python_callback(ctx, host_fn, args, has_side_effect=True,
                                ordered_effect=ordered_io_effect if ordered else None)


lowering.register_lowering(io_callback_p, _io_callback_lowering)


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_transpose(cts, *args, **params):
    raise ValueError("IO callbacks do not support transpose.")


def _io_callback_batching(args, dims, *, ordered, **params):
    """One call per element, in order (the callback's effects happen once each)."""
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    args = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims)]
    outs = _call_sequentially(io_callback_p, args, dims, False,
                              dict(ordered=ordered, **params))
    return tuple(outs), (0,) * len(outs)


ad.primitive_jvps[io_callback_p] = _io_callback_jvp
ad.primitive_transposes[io_callback_p] = _io_callback_transpose
batching.primitive_batchers[io_callback_p] = _io_callback_batching


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                sharding=None, ordered: bool = False, **kwargs: Any):
    """Call ``callback(*args, **kwargs)`` on the host for its side effects (logging,
    writing files, reading state), from traced code too. Unlike ``pure_callback`` it is
    never removed when its results are unused; ``ordered=True`` also keeps the calls
    in program order. It cannot be differentiated, and under ``vmap`` an unordered one
    is called once per element."""
    return _bind_callback(io_callback_p, callback, result_shape_dtypes, args, kwargs,
                          sharding=sharding, ordered=ordered)
