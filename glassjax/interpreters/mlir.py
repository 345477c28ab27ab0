"""``jax.interpreters.mlir``: registering a primitive's lowering the way JAX's
"JAX primitives" tutorial does, ``mlir.register_lowering(prim, rule, platform='cpu')``.

A rule receives the lowering context and one MLIR value per operand and returns the
result values, built with jaxlib's MLIR bindings (``ir``, and the StableHLO dialect JAX
calls ``hlo``), as glassjax's own rules are (``glassjax/xla/lowering.py``), except that
JAX's rules return a list of results even for a one-result primitive.
glassjax compiles for one platform, so ``platform`` only checks that it is that one.

``emit_python_callback`` lowers a call of Python code on the host (a higher layer,
callbacks.py, defines it and fills the slot ``above``).

``ir_attribute`` and ``custom_call`` are JAX's helpers for rules that call foreign code
(``jax.ffi``): Python values become MLIR attributes, and a ``stablehlo.custom_call`` is
built with the layouts and aliasing XLA needs.
"""
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir import ir

from glassjax import core, dtypes
from glassjax.slots import Slot, Slots
from glassjax.xla import lowering, runtime
from glassjax.xla.lowering import LoweringRuleContext, hlo

__all__ = ["LoweringRuleContext", "custom_call", "emit_python_callback", "ir", "ir_attribute",
           "lower_fun", "register_lowering"]


class Above(Slots):
    """What this module names but a higher layer defines (see glassjax/slots.py)."""
    emit_python_callback = Slot("glassjax.callbacks",
                                "JAX's emit_python_callback: a host call in a lowering")


above = Above()


def register_lowering(primitive, rule, platform=None):
    """``rule(ctx, *operands) -> [results]`` lowers ``primitive`` (on ``platform``, if
    given: rules for platforms glassjax does not run on are kept out)."""
    if platform is not None and platform != runtime.default_backend():
        return

    def glassjax_rule(ctx, *operands, **params):
        outs = rule(ctx, *operands, **params)      # JAX's rules return a sequence always
        return outs if primitive.multiple_results else _single(outs)
    lowering.register_lowering(primitive, glassjax_rule)


def lower_fun(fun, multiple_results: bool = True):
    """A rule in JAX's convention (a list of results) that traces ``fun`` at the rule's
    input avals and lowers its jaxpr inline: a primitive defined by other operations
    (equinox lowers its own primitives so)."""
    rule = lowering.lower_fun(fun, multiple_results)

    def jax_rule(ctx, *operands, **params):
        outs = rule(ctx, *operands, **params)
        return outs if multiple_results else [outs]
    return jax_rule


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect: bool, returns_token: bool = True,
                         partitioned: bool = False, sharding=None):
    """JAX's helper for a rule that calls Python on the host: a custom call running
    ``callback(*numpy operands) -> results`` (checked against ``result_avals``), threaded
    through ``token`` if one is given. Returns ``(results, new token or None, the host
    function)``; keep the last alive with ``ctx.module_context.add_keepalive``."""
    return above.emit_python_callback(
        ctx, callback, token, operands, operand_avals, result_avals,
        has_side_effect=has_side_effect, returns_token=returns_token,
        partitioned=partitioned, sharding=sharding)


def _single(outs):
    """glassjax's rules for one-result primitives return the value itself."""
    if isinstance(outs, ir.Value):
        return outs
    (out,) = outs
    return out


# ----------------------------------------------------------------------------------------
# Attributes and custom calls
# ----------------------------------------------------------------------------------------

def _scalar_attribute(val) -> ir.Attribute:
    ir_type = lowering.dtype_to_ir_type(val.dtype)
    if isinstance(ir_type, ir.IntegerType):
        return ir.IntegerAttr.get(ir_type, int(val))
    if isinstance(ir_type, ir.FloatType):
        return ir.FloatAttr.get(ir_type, float(val))
    raise TypeError(f"Unsupported scalar attribute type: {type(val)}")


def _array_attribute(val: np.ndarray) -> ir.Attribute:
    if 0 in val.strides and val.size > 0:
        raise ValueError("NumPy arrays with zero strides are not supported as MLIR "
                         "attributes")
    return ir.DenseElementsAttr.get(np.ascontiguousarray(val),
                                    type=lowering.dtype_to_ir_type(val.dtype),
                                    shape=val.shape)


def ir_attribute(val) -> ir.Attribute:
    """A Python value as an MLIR attribute, as JAX converts them: NumPy scalars and
    arrays keep their dtype (dense elements for arrays, 0-d ones too), Python ``bool``/``int``/
    ``float`` become 1-bit/64-bit values, strings string attributes, dtypes type
    attributes, dicts and sequences dictionary and array attributes."""
    if isinstance(val, (ir.Attribute, ir.Type)):
        return val
    if hasattr(val, "val") and isinstance(val.val, np.ndarray):   # a HashableArray
        return _array_attribute(val.val)
    if isinstance(val, np.generic):
        return _scalar_attribute(val)
    if isinstance(val, np.ndarray):       # a dense attribute, even with zero dimensions
        return _array_attribute(val)
    if isinstance(val, np.dtype):
        return ir.TypeAttr.get(lowering.dtype_to_ir_type(val))
    if type(val) in dtypes.python_scalar_dtypes:
        return _scalar_attribute(np.array(val, dtypes.python_scalar_dtypes[type(val)]))
    if isinstance(val, (str, bytes)):
        return ir.StringAttr.get(val)
    if isinstance(val, dict) or hasattr(val, "_d"):            # dict or FrozenDict
        return ir.DictAttr.get({k: ir_attribute(v) for k, v in dict(val).items()})
    if isinstance(val, (list, tuple)):
        return ir.ArrayAttr.get([ir_attribute(v) for v in val])
    if hasattr(val, "__jax_array__"):
        return ir_attribute(val.__jax_array__())
    raise TypeError(f"No attribute handler defined for type: {type(val)}")


def _layouts_attr(layouts) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.atleast_1d(np.asarray(l, dtype=np.int64)),
                                    type=ir.IndexType.get()) for l in layouts])


def custom_call(call_target_name: str, *, result_types: Sequence[ir.Type],
                operands: Sequence[ir.Value], backend_config="",
                has_side_effect: bool = False, api_version: int = 2,
                operand_output_aliases: dict[int, int] | None = None,
                operand_layouts=None, result_layouts=None, extra_attributes=None,
                called_computations: Sequence[str] = ()):
    """A ``stablehlo.custom_call`` of ``call_target_name``. A dictionary
    ``backend_config`` holds the typed-FFI attributes: XLA reads it from
    ``mhlo.backend_config`` (the op's own ``backend_config`` must be a string, so it is
    left empty) together with ``api_version = 1``. Layouts are minor to major, one per
    operand and result; ``operand_output_aliases`` maps operands to the results that
    reuse their buffers."""
    if backend_config is None:
        backend_config = ""
    attributes = dict(
        call_target_name=ir.StringAttr.get(call_target_name),
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        backend_config=ir.StringAttr.get("" if isinstance(backend_config, dict)
                                         else backend_config),
        api_version=ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32),
            1 if isinstance(backend_config, dict) else api_version),
        called_computations=ir.ArrayAttr.get(
            [ir.FlatSymbolRefAttr.get(name) for name in called_computations]))
    if operand_output_aliases is not None:
        attributes["output_operand_aliases"] = ir.ArrayAttr.get([
            hlo.OutputOperandAlias.get(
                output_tuple_indices=[out] if len(result_types) > 1 else [],
                operand_index=operand, operand_tuple_indices=[])
            for operand, out in operand_output_aliases.items()])
    attributes.update(extra_attributes or {})
    if operand_layouts is not None:
        attributes["operand_layouts"] = _layouts_attr(operand_layouts)
    if result_layouts is not None:
        attributes["result_layouts"] = _layouts_attr(result_layouts)
    op = hlo.CustomCallOp.build_generic(results=list(result_types), operands=list(operands),
                                        attributes=attributes)
    if isinstance(backend_config, dict):
        op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(backend_config)
    return op
