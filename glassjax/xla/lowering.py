"""Lowering: jaxpr -> StableHLO (an MLIR module XLA compiles).

Each primitive has a lowering rule next to its definition, registered here with
``register_lowering(prim, rule)``. A rule receives a ``LoweringRuleContext`` (the input and
output avals, and the module being built) and one MLIR value per operand, and returns the
MLIR value(s) of its result(s). ``lower_jaxpr`` walks the equations of a jaxpr and calls
the rules in order; ``lower_module`` wraps that into a ``main`` function, which is what
``jit(f).lower(x).as_text()`` shows.

Ordered effects (``debug.print(..., ordered=True)``) are sequenced by *tokens*: every
function whose jaxpr has such an effect takes the effect's token as a leading argument
and returns the token its last effectful operation produced, so XLA cannot reorder them,
and ``dispatch`` passes the token of one execution on to the next.
"""
from __future__ import annotations

import functools
import itertools
import math
import re
import warnings
from typing import Callable, NamedTuple, Sequence

import numpy as np
import ml_dtypes
from jaxlib.mlir import ir, passmanager
from jaxlib.mlir.dialects import func as func_dialect
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes, shape_poly, source_info
from glassjax.rule_tables import Rules
from glassjax.slots import Slot, Slots
from glassjax.xla import runtime


class _Hooks(Slots):
    """What lowering needs from the refs layer above."""
    discharge_state = Slot("glassjax.ref", "discharge_state(closed) -> closed: the program "
                           "with its mutable array refs turned into array operations; a "
                           "jaxpr with the state effect is discharged before it is "
                           "lowered, as XLA knows no refs")


hooks = _Hooks()

lowering_rules = Rules("lowering", "jit: emit StableHLO")
# Primitives whose rules take extended-dtype operands (typed PRNG keys) as their physical
# arrays themselves; other primitives meeting such operands are lowered word by word.
extended_dtype_rules: set = set()


# Primitives whose rules make a single op of the equation's result type, named here, on
# the operands broadcast to the result's shape (``broadcast_to``) -- for equations
# whose params are all None and whose result is not complex (some ops expand into
# others for complex numbers). Most equations of big programs are such ops, and
# lowering makes them directly, without the rule's context and call.
single_ops = Rules("single_op", "jit: the one StableHLO op lowering emits directly")


def register_lowering(primitive, rule: Callable, *, handles_extended_dtypes=False,
                      inline=True, single_op: str | None = None):
    """``inline=False`` emits the rule's code once per module as a private function
    named after the primitive (one per input types and params) and calls it, as JAX
    does for the few primitives registered that way (argmax, argmin, threefry2x32).
    ``single_op``: see ``single_ops``."""
    lowering_rules[primitive] = rule if inline else _outlined(rule)
    if handles_extended_dtypes:
        extended_dtype_rules.add(primitive)
    if single_op is not None:
        single_ops[primitive] = single_op
    else:                                   # (a rule registered anew may do more)
        single_ops.pop(primitive, None)
    return rule


def _outlined(rule: Callable) -> Callable:
    def call(ctx: LoweringRuleContext, *args, **params):
        multiple = ctx.primitive.multiple_results
        out_types = [aval_to_ir_type(a) for a in ctx.avals_out]

        dim_vars = ctx.module_context.dim_vars     # (passed first, as to every function)

        def emit(fn_name):
            in_types = [aval_to_ir_type(core.ShapedArray((), dim_value_dtype()))] * len(
                dim_vars) + [aval_to_ir_type(a) for a in ctx.avals_in]
            with ir.InsertionPoint(ctx.module_context.module.body):
                fn = func_dialect.FuncOp(fn_name, ir.FunctionType.get(in_types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            fn_args = list(fn.add_entry_block().arguments)
            _dim_values.append(dict(zip(dim_vars, fn_args)))
            try:
                with ir.InsertionPoint(fn.entry_block):
                    outs = rule(ctx, *fn_args[len(dim_vars):], **params)
                    func_dialect.ReturnOp(outs if multiple else [outs])
            finally:
                _dim_values.pop()
        key = (ctx.primitive, tuple(ctx.avals_in), repr(sorted(params.items())))
        fn_name = _emitted_once(ctx.module_context, key, ctx.primitive.name, emit)
        dims = [_dim_values[-1][v] for v in dim_vars]
        results = func_dialect.CallOp(out_types, ir.FlatSymbolRefAttr.get(fn_name),
                                      [*dims, *args]).results
        return list(results) if multiple else results[0]
    return call


def _emitted_once(mctx, key, name: str, emit: Callable) -> str:
    """The symbol of the private function that ``key`` stands for, emitted first
    (``emit(fn_name)``) the first time this module needs it: a jaxpr called twice, or
    an outlined rule applied twice to the same types, is one function."""
    fn_name = mctx._func_names.get(key)
    if fn_name is None:
        fn_name = mctx._func_names[key] = mctx.unique_name(name)
        emit(fn_name)
    return fn_name


# ----------------------------------------------------------------------------------------
# Types and constants
# ----------------------------------------------------------------------------------------

_IR_TYPES = {
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
    np.dtype(np.float16): ir.F16Type.get,
    np.dtype(ml_dtypes.bfloat16): ir.BF16Type.get,
    np.dtype(np.float32): ir.F32Type.get,
    np.dtype(np.float64): ir.F64Type.get,
    np.dtype(np.complex64): lambda: ir.ComplexType.get(ir.F32Type.get()),
    np.dtype(np.complex128): lambda: ir.ComplexType.get(ir.F64Type.get()),
    # Sub-byte integers and narrow floats (ml_dtypes), as JAX maps them.
    np.dtype(dtypes.int1): lambda: ir.IntegerType.get_signless(1),
    np.dtype(dtypes.int2): lambda: ir.IntegerType.get_signless(2),
    np.dtype(dtypes.int4): lambda: ir.IntegerType.get_signless(4),
    np.dtype(dtypes.uint1): lambda: ir.IntegerType.get_unsigned(1),
    np.dtype(dtypes.uint2): lambda: ir.IntegerType.get_unsigned(2),
    np.dtype(dtypes.uint4): lambda: ir.IntegerType.get_unsigned(4),
    np.dtype(dtypes.float8_e3m4): ir.Float8E3M4Type.get,
    np.dtype(dtypes.float8_e4m3): ir.Float8E4M3Type.get,
    np.dtype(dtypes.float8_e4m3b11fnuz): ir.Float8E4M3B11FNUZType.get,
    np.dtype(dtypes.float8_e4m3fn): ir.Float8E4M3FNType.get,
    np.dtype(dtypes.float8_e4m3fnuz): ir.Float8E4M3FNUZType.get,
    np.dtype(dtypes.float8_e5m2): ir.Float8E5M2Type.get,
    np.dtype(dtypes.float8_e5m2fnuz): ir.Float8E5M2FNUZType.get,
    np.dtype(dtypes.float8_e8m0fnu): ir.Float8E8M0FNUType.get,
    np.dtype(dtypes.float6_e2m3fn): ir.Float6E2M3FNType.get,
    np.dtype(dtypes.float6_e3m2fn): ir.Float6E3M2FNType.get,
    np.dtype(dtypes.float4_e2m1fn): ir.Float4E2M1FNType.get,
}


def dtype_to_ir_type(dtype) -> ir.Type:
    dtype = np.dtype(dtype)
    if dtype == dtypes.float0:       # float0 tangents are lowered as booleans, as in JAX
        dtype = np.dtype(np.bool_)
    return _IR_TYPES[dtype]()


def aval_to_ir_type(aval) -> ir.RankedTensorType:
    if aval is core.abstract_token:
        return hlo.TokenType.get()
    if isinstance(aval.dtype, dtypes.ExtendedDType):   # held as its physical array
        aval = aval.dtype.physical_aval(aval)
    if not shape_poly.is_constant_shape(aval.shape):     # f32[b,4] is tensor<?x4xf32>
        return ir.RankedTensorType.get(ir_shape(aval.shape), dtype_to_ir_type(aval.dtype))
    if math.prod(aval.shape) * aval.dtype.itemsize >= 2 ** 63:
        # XLA aborts the process on such a shape; a learner's typo must not. A dimension
        # MLIR cannot even hold (an int64) is a TypeError, as MLIR's is in JAX.
        error = TypeError if max(aval.shape) >= 2 ** 63 else ValueError
        raise error(f"Cannot lower a value of type {aval.str_short()}: its size in "
                    "bytes does not fit in 64 bits.")
    return ir.RankedTensorType.get(aval.shape, dtype_to_ir_type(aval.dtype))


# ----------------------------------------------------------------------------------------
# Symbolic dimensions: every function of a shape-polymorphic module takes the values of
# the dimension variables as leading scalar arguments, and computes its dynamic sizes
# from them (JAX's convention).
# ----------------------------------------------------------------------------------------

# The values of the dimension variables in the function being emitted ({} outside one).
_dim_values: list[dict] = [{}]


def ir_shape(shape) -> list[int]:
    """An MLIR tensor shape: a symbolic dimension is dynamic (``?``)."""
    return [ir.ShapedType.get_dynamic_size() if shape_poly.is_symbolic_dim(d) else d
            for d in shape]


def dim_value_dtype():
    """The integer type dimension values are computed in (int64 with x64)."""
    return dtypes.canonicalize_dtype(np.int64)


class DimOps(shape_poly.Ops):
    """``DimExpr.evaluate`` emitting StableHLO on scalar integer tensors."""
    @staticmethod
    def const(k):
        return ir_constant(np.array(k, dim_value_dtype()))
    add = staticmethod(hlo.add)
    mul = staticmethod(hlo.multiply)
    max = staticmethod(hlo.maximum)
    min = staticmethod(hlo.minimum)

    @staticmethod
    def floordiv(x, y):
        """Python's floor division: truncating division, minus one when the signs of
        the operands differ and the remainder is not zero."""
        q, r = hlo.divide(x, y), hlo.remainder(x, y)
        zero = DimOps.const(0)
        signs_differ = hlo.compare(_compare_lt(x, zero), _compare_lt(y, zero),
                                   hlo.ComparisonDirectionAttr.get("NE"))
        adjust = hlo.and_(signs_differ, hlo.compare(r, zero,
                                                    hlo.ComparisonDirectionAttr.get("NE")))
        return hlo.select(adjust, hlo.subtract(q, DimOps.const(1)), q)

    @staticmethod
    def mod(x, y):
        return hlo.subtract(x, hlo.multiply(y, DimOps.floordiv(x, y)))


def _compare_lt(x, y):
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get("LT"))


def eval_dim(d, env: dict | None = None) -> ir.Value:
    """A dimension (int or symbolic) as a scalar integer of the function being emitted,
    from the values of the variables there (or in ``env``)."""
    return shape_poly.evaluate(d, _dim_values[-1] if env is None else env, DimOps)


def shape_tensor(shape) -> ir.Value:
    """A 1-D int32 tensor holding ``shape`` (how dynamic ops take their output shapes):
    each dimension reshaped to one element, concatenated, as JAX builds it."""
    i32 = ir.IntegerType.get_signless(32)
    pieces = []
    for d in shape:
        if not shape_poly.is_symbolic_dim(d):
            pieces.append(ir_constant(np.array([d], np.int32)))
            continue
        value = eval_dim(d)
        if ir.RankedTensorType(value.type).element_type != i32:
            value = hlo.convert(ir.RankedTensorType.get((), i32), value)
        pieces.append(hlo.reshape(ir.RankedTensorType.get((1,), i32), value))
    if not pieces:
        return ir_constant(np.zeros((0,), np.int32))
    return pieces[0] if len(pieces) == 1 else hlo.concatenate(pieces, 0)


def dim_vars_of(avals) -> tuple[str, ...]:
    """The dimension variables in the shapes of ``avals``, sorted (their order as
    leading arguments)."""
    names = set()
    for aval in avals:
        for d in getattr(aval, "shape", ()):
            if shape_poly.is_symbolic_dim(d):
                names |= d.variables()
    return tuple(sorted(names))


def op(name: str, result_type: ir.Type, operands=(), attributes=None) -> ir.Value:
    """The result of a new op ``name`` (e.g. ``"stablehlo.constant"``) whose result type
    is known. The generated builders (``hlo.constant(...)``) also work out the result
    type and wrap the op in Python objects, which takes twice as long; the ops every
    program has many of (constants, broadcasts, elementwise ops: see ``result``) are
    made this way."""
    return ir.Operation.create(name, results=[result_type], operands=list(operands),
                               attributes=attributes).result


def result(ctx: LoweringRuleContext, name: str, operands, attributes=None) -> ir.Value:
    """The result of a new op ``name`` (e.g. ``"stablehlo.sine"``) with one result, of
    the equation's output type (from the module's cache of types): how elementwise and
    reshaping ops are made. (``op`` written out: the commonest op-making call.)"""
    return ir.Operation.create(name, results=[ctx.module_context.ir_type(ctx.avals_out[0])],
                               operands=operands, attributes=attributes).result


def broadcast_to(ctx: ModuleContext, xs, avals, shape) -> list[ir.Value]:
    """The operands ``xs`` (of types ``avals``) of an n-ary op broadcast to its result's
    ``shape`` explicitly, as StableHLO does not broadcast: ``broadcast_in_dim`` aligns
    trailing axes and expands size-1 axes."""
    return [x if aval.shape == shape else ctx.broadcast(x, aval, shape)
            for x, aval in zip(xs, avals)]


def ir_constant(val) -> ir.Value:
    """A ``stablehlo.constant`` holding ``val`` (a NumPy array or scalar)."""
    val = np.asarray(val)
    if val.dtype == dtypes.float0:
        val = np.zeros(val.shape, np.bool_)
    if val.dtype == np.bool_ and val.size != 1:
        # MLIR's i1 buffers are bit-packed, and a one-byte buffer reads as a splat; a
        # uint8 constant converted to bool (nonzero is true) holds any pattern.
        as_bytes = ir_constant(val.astype(np.uint8))
        return hlo.convert(ir.RankedTensorType.get(val.shape, dtype_to_ir_type(np.bool_)),
                           as_bytes)
    return op("stablehlo.constant", *_constant_type_and_value(val))


def _constant_type_and_value(val: np.ndarray) -> tuple[ir.Type, tuple, dict]:
    """The result type, operands (none) and attributes of a ``stablehlo.constant``
    holding ``val`` (a boolean one holds a single element)."""
    ir_type = ir.RankedTensorType.get(val.shape, dtype_to_ir_type(val.dtype))
    if val.dtype == np.bool_:
        elements = ir.DenseElementsAttr.get_splat(
            ir_type, ir.BoolAttr.get(bool(val.reshape(-1)[0])))
    else:
        elements = ir.DenseElementsAttr.get(np.ascontiguousarray(val), type=ir_type)
    return ir_type, (), {"value": elements}


def full_like_aval(value, aval) -> ir.Value:
    """A constant of ``aval``'s shape filled with ``value`` (a splat, then broadcast)."""
    scalar = ir_constant(np.array(value, aval.dtype))
    return broadcast_in_dim(scalar, aval.shape, ())


def broadcast_in_dim(x: ir.Value, shape, broadcast_dimensions,
                     result_type: ir.Type | None = None) -> ir.Value:
    """``result_type``: the result's type when the caller has it at hand (else it is
    worked out from ``x``'s)."""
    if not shape_poly.is_constant_shape(shape):
        elt = ir.RankedTensorType(x.type).element_type
        return hlo.dynamic_broadcast_in_dim(
            ir.RankedTensorType.get(ir_shape(shape), elt), x, shape_tensor(shape),
            i64_array(broadcast_dimensions))
    if result_type is None:
        elt = ir.RankedTensorType(x.type).element_type
        result_type = ir.RankedTensorType.get(tuple(shape), elt)
    return op("stablehlo.broadcast_in_dim", result_type, [x],
              {"broadcast_dimensions": i64_array(broadcast_dimensions)})


def reshape(x: ir.Value, aval_out) -> ir.Value:
    """``x`` reshaped to ``aval_out``'s shape (computed in the program if symbolic)."""
    if not shape_poly.is_constant_shape(aval_out.shape):
        return hlo.dynamic_reshape(aval_to_ir_type(aval_out), x, shape_tensor(aval_out.shape))
    return op("stablehlo.reshape", aval_to_ir_type(aval_out), [x])


def iota(aval_out, dimension: int) -> ir.Value:
    """``stablehlo.iota`` of ``aval_out``'s type (``dynamic_iota`` if its shape is
    symbolic)."""
    if not shape_poly.is_constant_shape(aval_out.shape):
        return hlo.dynamic_iota(aval_to_ir_type(aval_out), shape_tensor(aval_out.shape),
                                dimension)
    return hlo.iota(aval_to_ir_type(aval_out), dimension)


def slice_op(x: ir.Value, aval_out, start_indices, limit_indices, strides) -> ir.Value:
    """``stablehlo.slice``, or ``real_dynamic_slice`` when a bound is symbolic (the
    bounds are then computed in the program, as JAX lowers them)."""
    if not shape_poly.is_constant_shape((*start_indices, *limit_indices)):
        return hlo.real_dynamic_slice(
            aval_to_ir_type(aval_out),
            x, *(shape_tensor(v) for v in (start_indices, limit_indices, strides)))
    return hlo.slice(x, [int(i) for i in start_indices], [int(i) for i in limit_indices],
                     [int(i) for i in strides])


def convert(x: ir.Value, aval_out) -> ir.Value:
    return op("stablehlo.convert", aval_to_ir_type(aval_out), [x])


def i64_array(xs) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(x) for x in xs])


def module_name(api_name: str, fun_name: str) -> str:
    """``jit(<lambda>)`` becomes ``jit__lambda``: JAX's module names, usable as symbols."""
    return sanitize_name(f"{api_name}({fun_name})").rstrip("_")


def sanitize_name(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)


# ----------------------------------------------------------------------------------------
# Contexts
# ----------------------------------------------------------------------------------------

class ModuleContext:
    """What rules share while one module is built: the module itself, private functions
    already emitted (inner ``jit``s are lowered once per jaxpr), host callbacks, the
    meshes the program names, and the named axes collectives reduce over.

    ``axis_env`` (axis name -> size, major to minor) lays the program's copies out on a
    grid: the copy at grid position ``p`` runs on device number ``p`` in row-major order.
    Under ``xla_computation(f, axis_env=...)`` the copies are *replicas*; inside a
    ``shard_map`` body they are the *partitions* of an SPMD program (``spmd``), and
    collectives then name partitions by global device ids, as JAX emits them."""

    def __init__(self, name: str, *, platform="cpu", axis_env=None, num_replicas=1,
                 num_partitions=1):
        self.context = runtime.mlir_context()
        self.platform = platform
        self.axis_env = dict(axis_env or {})
        self.spmd = False
        # Inside a shard_map body: its mesh and the axes manual there (a subset of the
        # mesh's when the others stay Auto), else None.
        self.manual_mesh = self.manual_axes = None
        self.mesh_names: dict = {}      # mesh -> its ``sdy.mesh`` symbol
        self.mesh = None                # the program's mesh (SPMD programs), else None
        self.devices = None             # the devices it is compiled for, if known
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.host_callbacks: list = []
        self.tokens: dict = {}      # (block, ordered effect) -> its latest token there
        self.keepalives: list = []
        self._func_names: dict = {}
        self._names_used: set = set()
        self._ir_types: dict = {}       # (shape, dtype) -> its MLIR type
        self._aval_types: dict = {}     # id(aval) -> (its MLIR type, aval)
        self._literals: dict = {}       # (dtype, bytes) -> its constant's type and value
        self._literal_objects: dict = {}    # Literal (by identity) -> the same
        self._broadcasts: dict = {}     # (rank, shape, dtype) -> broadcast's type and attrs
        self._memo: dict = {}           # see ``memo``
        self._uniquing_counter = 0
        # Each operation located at its equation's name stack and user frames (what
        # ``Lowered.as_text(debug_info=True)`` shows); off for the modules that compile.
        self.locations = False
        # Whether a value of an extended dtype (typed PRNG keys) has been met: until
        # one is, no equation needs the check (only results can be the first one).
        self.extended_met = False
        self.dim_vars: tuple[str, ...] = ()     # a shape-polymorphic module's variables
        # Whether the module must have its shapes refined before compiling (it calls a
        # shape-polymorphic exported function).
        self.uses_dim_vars = False
        with self.context, ir.Location.unknown(self.context):
            self.module = ir.Module.create()
            self.module.operation.attributes["sym_name"] = ir.StringAttr.get(name)
        self.symbol_table = ir.SymbolTable(self.module.operation)

    def add_keepalive(self, value):
        """Keep ``value`` (a host callback's function) alive as long as the module."""
        self.keepalives.append(value)

    def unique_name(self, base: str) -> str:
        """``base``, else ``base_N``: how MLIR's symbol table renames, with one counter
        for the whole module (a second ``g`` after a renamed ``f_0`` becomes ``g_1``)."""
        name = base
        while name in self._names_used:
            name = f"{base}_{self._uniquing_counter}"
            self._uniquing_counter += 1
        self._names_used.add(name)
        return name

    def ir_type(self, aval) -> ir.Type:
        """``aval_to_ir_type(aval)``, made once per aval object in this module: a
        program asks for the same few types over and over, its equations mostly sharing
        their avals. (Looked up by identity: comparing equal avals costs more than
        making the few types twice; each entry keeps its aval alive, so ids stay
        unique.)"""
        entry = self._aval_types.get(id(aval))
        if entry is None:
            entry = self._aval_types[id(aval)] = (aval_to_ir_type(aval), aval)
        return entry[0]

    def tensor_type(self, shape: tuple, dtype) -> ir.Type:
        """The type of an array of this shape and dtype (see ``ir_type``)."""
        ir_type = self._ir_types.get((shape, dtype))
        if ir_type is None:
            ir_type = aval_to_ir_type(core.ShapedArray(shape, dtype))
            self._ir_types[(shape, dtype)] = ir_type
        return ir_type

    def memo(self, key, make: Callable):
        """``make()``, made once per ``key`` (hashable) in this module: for the
        attributes a rule's equations repeat (every layer's dot has the same dimension
        numbers), which cost more to make than the op itself."""
        made = self._memo.get(key)
        if made is None:
            made = self._memo[key] = make()
        return made

    def broadcast(self, x: ir.Value, aval, shape: tuple) -> ir.Value:
        """``x`` (of type ``aval``) broadcast to ``shape`` along its trailing axes (see
        ``broadcast_to``); the op's type and attribute made once per kind of broadcast in
        the module, as a program broadcasts its scalars the same way over and over."""
        key = (aval.ndim, shape, aval.dtype)
        made = self._broadcasts.get(key)
        if made is None:
            dims = range(len(shape) - aval.ndim, len(shape))
            if not shape_poly.is_constant_shape(shape):
                return broadcast_in_dim(x, shape, dims, self.tensor_type(shape, aval.dtype))
            made = self._broadcasts[key] = (self.tensor_type(shape, aval.dtype),
                                            {"broadcast_dimensions": i64_array(dims)})
        return op("stablehlo.broadcast_in_dim", made[0], [x], made[1])

    def literal(self, lit: core.Literal) -> ir.Value:
        """A new ``stablehlo.constant`` holding a literal (each use gets its own, as in
        JAX); its type and attribute are made once per distinct value in the module. A
        symbolic dimension (a loop's length, say) is computed from the variables."""
        attrs = self._literal_objects.get(lit)     # (a program's equations often
        if attrs is None:                           # share their Literal objects)
            if shape_poly.is_symbolic_dim(lit.val):
                return convert(eval_dim(lit.val), lit.aval)
            val = np.asarray(lit.val, lit.aval.dtype)
            if val.dtype.kind not in "biufc":       # (a float0 zero)
                return ir_constant(val)
            key = (val.dtype, val.tobytes())
            attrs = self._literals.get(key)
            if attrs is None:
                attrs = self._literals[key] = _constant_type_and_value(val)
            self._literal_objects[lit] = attrs
        return ir.Operation.create("stablehlo.constant", results=[attrs[0]],
                                   attributes=attrs[2]).result     # (``op``, written out)

    def mesh_symbol(self, mesh) -> str:
        """The name of the module's ``sdy.mesh`` symbol for ``mesh`` (``@mesh`` for the
        first one), declared at the top of the module on first use."""
        name = self.mesh_names.get(mesh)
        if name is None:
            name = self.mesh_names[mesh] = self.unique_name("mesh")
            axes = ", ".join(f'"{a}"={n}' for a, n in zip(mesh.axis_names, mesh.axis_sizes))
            with ir.InsertionPoint.at_block_begin(self.module.body):
                sdy.MeshOp(name, ir.Attribute.parse(f"#sdy.mesh<[{axes}]>"))
        return name


class LoweringRuleContext(NamedTuple):
    module_context: ModuleContext
    primitive: core.Primitive | None
    avals_in: Sequence
    avals_out: Sequence


# ----------------------------------------------------------------------------------------
# Lowering jaxprs
# ----------------------------------------------------------------------------------------

def lower_jaxpr(ctx: ModuleContext, jaxpr: core.Jaxpr, consts: Sequence[ir.Value],
                args: Sequence[ir.Value]) -> list[ir.Value]:
    """Emit the equations of ``jaxpr`` at the current insertion point: the interpreters'
    loop (``core.interpret``), each equation emitted by ``_lower_equation``."""
    if not ctx.extended_met:
        ctx.extended_met = _any_extended(v.aval for v in (*jaxpr.constvars, *jaxpr.invars))
    return core.interpret(jaxpr, consts, args, functools.partial(_lower_equation, ctx),
                          core.Environment(literal=ctx.literal))


def _lower_equation(ctx: ModuleContext, eqn: core.JaxprEqn, invals) -> list[ir.Value]:
    """The results of one equation: the single op its rule would make
    (``single_ops``), made directly, or else its primitive's rule. (Single ops are left
    to their rules where operations get locations or XLA metadata.)"""
    primitive, info = eqn.primitive, eqn.source_info
    op_name = single_ops.get(primitive)
    if (op_name is not None and not ctx.extended_met and not ctx.locations and
            (info is None or not info.xla_metadata)):
        out = _single_op(ctx, eqn, invals, op_name)
        if out is not None:         # (of an ordinary dtype, as its operands are)
            return [out]
    avals_in = [a.aval for a in eqn.invars]
    avals_out = [v.aval for v in eqn.outvars]
    if not ctx.extended_met and _any_extended(avals_out):
        ctx.extended_met = True
    rule = lowering_rules.get(primitive)
    if rule is None:
        raise NotImplementedError(f"MLIR translation rule for primitive "
                                  f"'{primitive.name}' not found")
    if ctx.extended_met and (_any_extended(avals_in) or _any_extended(avals_out)) and (
            primitive not in extended_dtype_rules and
            not any(core.jaxprs_in_params(eqn.params))):   # calls pass them on
        rule = _word_by_word(rule)
    rule_ctx = LoweringRuleContext._make((ctx, primitive, avals_in, avals_out))
    if ctx.locations and info is not None:
        with eqn_location(eqn):
            outs = rule(rule_ctx, *invals, **eqn.params)
    else:
        outs = rule(rule_ctx, *invals, **eqn.params)
    outs = outs if primitive.multiple_results else [outs]
    if info is not None and info.xla_metadata:
        for out in outs:
            if isinstance(out, ir.Value) and isinstance(out.owner, ir.OpView):
                add_frontend_attributes(out.owner.operation, info.xla_metadata)
    return outs


def _single_op(ctx: ModuleContext, eqn: core.JaxprEqn, invals, op_name: str):
    """The result of the op ``op_name`` the equation's rule would make alone
    (``single_ops``), made directly; None if the equation is not such a one."""
    aval_out = eqn.outvars[0].aval
    if aval_out.dtype.kind == "c":
        return None
    for v in eqn.params.values():
        if v is not None:
            return None
    shape = aval_out.shape
    for a in eqn.invars:
        if a.aval.shape != shape:
            invals = broadcast_to(ctx, invals, [a.aval for a in eqn.invars], shape)
            break
    return ir.Operation.create(op_name, results=[ctx.ir_type(aval_out)],
                               operands=invals).result


def add_frontend_attributes(op: ir.Operation, metadata) -> None:
    """Give ``op`` the ``set_xla_metadata`` attributes (``(key, value)`` pairs) as XLA
    frontend attributes, which the compiler passes on; ones it already has stay."""
    attributes = {k: ir.StringAttr.get(str(v).lower() if isinstance(v, bool) else str(v))
                  for k, v in metadata}
    if "mhlo.frontend_attributes" in op.attributes:
        attributes.update({a.name: a.attr for a in
                           ir.DictAttr(op.attributes["mhlo.frontend_attributes"])})
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(attributes)


def eqn_location(eqn) -> ir.Location:
    """``loc("scope/inner/sin"(callsite(f at <module>)))``: the equation's name stack and
    primitive, at its user frames (innermost first, each named by its function), as JAX
    locates operations. (JAX also prefixes ``jit(f)/`` and locates arguments, results
    and functions; glassjax does not.)"""
    info = eqn.source_info
    name = "/".join(filter(None, [str(info.name_stack), eqn.primitive.name]))
    frames = [ir.Location.name(f.function_name, childLoc=ir.Location.file(
        f.file_name, f.start_line, f.start_column, f.end_line, f.end_column))
        for f in itertools.islice(source_info.user_frames(info.traceback), 10)]
    if not frames:
        return ir.Location.name(name)
    at = frames[0] if len(frames) == 1 else ir.Location.callsite(frames[0], frames[1:])
    return ir.Location.name(name, childLoc=at)


def _is_extended(aval) -> bool:
    return isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType)   # (tokens: none)


def _any_extended(avals) -> bool:
    """Is any of ``avals`` of an extended dtype? A plain loop: it runs for every
    equation, and a generator calling a function per aval costs twice as much."""
    for aval in avals:
        if isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType):
            return True
    return False


def _word_by_word(rule):
    """A rule for a structural primitive (slice, reshape, select_n, ...) applied to arrays
    of an extended dtype whose elements are ``n`` words (typed keys: two ``uint32``):
    such a primitive moves elements without looking inside them, so it is applied to
    each word plane (an ordinary array of the key array's shape) and the results are
    stacked back along the trailing axis."""
    def plane(aval):
        word = aval.dtype.physical_aval(aval.update(shape=())).dtype
        return core.ShapedArray(aval.shape, word)

    def word(x, aval, i):
        shape = aval.dtype.physical_aval(aval).shape
        piece = hlo.slice(x, i64_array([0] * (len(shape) - 1) + [i]),
                          i64_array((*shape[:-1], i + 1)), i64_array([1] * len(shape)))
        return hlo.reshape(aval_to_ir_type(plane(aval)), piece)

    def stack(pieces, aval):
        column = ir.RankedTensorType.get((*aval.shape, 1), dtype_to_ir_type(plane(aval).dtype))
        return hlo.concatenate([hlo.reshape(column, p) for p in pieces], len(aval.shape))

    def physical(ctx, *args, **params):
        if not all(_is_extended(a) for a in ctx.avals_out):
            raise NotImplementedError(f"{ctx.primitive} of extended-dtype arrays")
        ext = ctx.avals_out[0]
        n_words = ext.dtype.physical_aval(ext.update(shape=())).shape[-1]
        planes = ctx._replace(
            avals_in=[plane(a) if _is_extended(a) else a for a in ctx.avals_in],
            avals_out=[plane(a) for a in ctx.avals_out])
        per_word = []
        for i in range(n_words):
            outs = rule(planes, *[word(x, a, i) if _is_extended(a) else x
                                  for x, a in zip(args, ctx.avals_in)], **params)
            per_word.append(outs if ctx.primitive.multiple_results else [outs])
        outs = [stack([w[k] for w in per_word], aval) for k, aval in enumerate(ctx.avals_out)]
        return outs if ctx.primitive.multiple_results else outs[0]
    return physical


def lower_closed_jaxpr(ctx: ModuleContext, closed: core.ClosedJaxpr, args):
    consts = [ir_constant(_constant_value(v.aval, c))
              for v, c in zip(closed.jaxpr.constvars, closed.consts)]
    return lower_jaxpr(ctx, closed.jaxpr, consts, args)


def _constant_value(aval, c):
    """The host value of a constant embedded in the module (an int64 NumPy array becomes
    int32 as its type says). A ``ShapeDtypeStruct`` traced as a constant (``eval_shape``
    allows it) has a type but no value: compiling refuses it, as JAX does."""
    if isinstance(c, core.ShapeDtypeStruct):
        raise TypeError("A ShapeDtypeStruct does not have a value and cannot be used as a "
                        "constant in a JAX function.")
    return aval.dtype.physical_value(c) if _is_extended(aval) else np.asarray(c, aval.dtype)


def lower_fun(fun: Callable, multiple_results: bool = False):
    """Make a lowering rule from a Python function written with glassjax ops: trace it at
    the rule's input avals and lower the resulting jaxpr inline. Used where an op is
    most clearly expressed in terms of other ops (e.g. ``logistic`` as ``1/(1+exp(-x))``)."""
    from glassjax.interpreters import staging

    def rule(ctx: LoweringRuleContext, *args, **params):
        traced = lambda *xs: (fun(*xs, **params) if multiple_results
                              else [fun(*xs, **params)])
        with core.extend_axis_env(ctx.module_context.axis_env.items()):  # named axes
            jaxpr, consts, _ = staging.trace_to_jaxpr(traced, ctx.avals_in)
        outs = lower_closed_jaxpr(ctx.module_context, core.ClosedJaxpr(jaxpr, consts), args)
        return outs if multiple_results else outs[0]
    return rule


def ordered_effects(effects) -> list:
    """The ordered effects among ``effects``, in the fixed order of their tokens."""
    return sorted((e for e in effects if getattr(e, "ordered", False)), key=str)


def token(mctx: ModuleContext, effect) -> ir.Value:
    """The latest token of ``effect`` in the block being emitted. A block that was given
    none (a loop body, a branch) starts its own chain with ``after_all``."""
    key = (ir.InsertionPoint.current.block, effect)
    if key not in mctx.tokens:
        mctx.tokens[key] = hlo.AfterAllOp([]).result
    return mctx.tokens[key]


def set_token(mctx: ModuleContext, effect, value: ir.Value):
    """Record ``value`` as the latest token of ``effect`` in the block being emitted."""
    mctx.tokens[(ir.InsertionPoint.current.block, effect)] = value


def private_function(ctx: LoweringRuleContext, name: str, closed: core.ClosedJaxpr) -> str:
    """The symbol of a private function computing ``closed``, emitted once per jaxpr."""
    mctx = ctx.module_context

    def emit(fn_name):
        mctx.keepalives.append(closed)
        _emit_function(mctx, fn_name, closed, public=False)
    return _emitted_once(mctx, id(closed.jaxpr), name, emit)


def call_private_function(ctx: LoweringRuleContext, name: str,
                          closed: core.ClosedJaxpr, args) -> list[ir.Value]:
    """``func.call`` a private function holding ``closed`` (emitted once per jaxpr)."""
    mctx = ctx.module_context
    fn_name = private_function(ctx, name, closed)
    effects = ordered_effects(closed.effects)
    out_types = [hlo.TokenType.get()] * len(effects) + [aval_to_ir_type(a)
                                                        for a in closed.out_avals]
    dims = [_dim_values[-1][v] for v in mctx.dim_vars]
    results = func_dialect.CallOp(out_types, ir.FlatSymbolRefAttr.get(fn_name),
                                  [*dims, *(token(mctx, e) for e in effects),
                                   *args]).results
    for e, t in zip(effects, results):
        set_token(mctx, e, t)
    return list(results)[len(effects):]


def _emit_function(mctx: ModuleContext, name: str, closed: core.ClosedJaxpr, *,
                   public: bool, arg_attrs=None, result_attrs=None, placed_results=None,
                   arg_names=None):
    """A function computing ``closed``; the values of the module's dimension variables
    (``jax.global_constant``) and then the tokens of its ordered effects (``jax.token``)
    come first among its arguments, the tokens first among its results."""
    effects = ordered_effects(closed.effects)
    token_types = [hlo.TokenType.get()] * len(effects)
    dim_types = [aval_to_ir_type(core.ShapedArray((), dim_value_dtype()))] * len(
        mctx.dim_vars)
    in_types = dim_types + token_types + [aval_to_ir_type(a) for a in closed.in_avals]
    out_types = token_types + [aval_to_ir_type(a) for a in closed.out_avals]
    if effects or mctx.dim_vars:
        token_attrs = [{"jax.token": ir.BoolAttr.get(True)} for _ in effects]
        dim_attrs = [{"jax.global_constant": ir.StringAttr.get(v)} for v in mctx.dim_vars]
        arg_attrs = dim_attrs + token_attrs + (arg_attrs or [{} for _ in closed.in_avals])
        if effects:
            result_attrs = token_attrs + (result_attrs or [{} for _ in closed.out_avals])
    with ir.InsertionPoint(mctx.module.body):
        fn = func_dialect.FuncOp(name, ir.FunctionType.get(in_types, out_types))
    fn.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
    if arg_attrs is not None:
        fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in arg_attrs])
    if result_attrs is not None:
        fn.result_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in result_attrs])
    arg_locs = None
    if arg_names is not None:        # (dimension variables and tokens first, unnamed)
        arg_locs = [ir.Location.unknown()] * (len(dim_types) + len(effects)) + [
            ir.Location.name(n) for n in arg_names]
    block = fn.add_entry_block(arg_locs=arg_locs)
    args = list(block.arguments)
    _dim_values.append(dict(zip(mctx.dim_vars, args)))
    try:
        with ir.InsertionPoint(block):
            outs = lower_with_tokens(mctx, closed, args[len(dim_types):])
            if placed_results is not None:
                outs[len(effects):] = map(_annotate_placement, outs[len(effects):],
                                          placed_results)
            func_dialect.ReturnOp(outs)
    finally:
        _dim_values.pop()
    return fn


def _annotate_placement(value: ir.Value, memory_kind):
    """A result the user asked to be put in some memory (``jit(out_shardings=...)`` with a
    memory kind) passes through XLA's ``annotate_device_placement``, which makes the
    transfer (as JAX lowers it)."""
    if memory_kind is None:
        return value
    op = hlo.CustomCallOp([value.type], [value],
                          call_target_name=ir.StringAttr.get("annotate_device_placement"),
                          has_side_effect=ir.BoolAttr.get(True),
                          backend_config=ir.StringAttr.get(""),
                          api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1))
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"_xla_buffer_placement": ir.StringAttr.get(memory_kind)})
    return op.result


def lower_with_tokens(mctx: ModuleContext, closed: core.ClosedJaxpr, values) -> list:
    """Lower ``closed`` into the current block (a function body, and so could a loop
    body or a branch be) whose leading ``values`` are the tokens of the ordered effects
    of ``closed``: each effect's chain starts at its token, and the chains' last tokens
    lead the results."""
    effects = ordered_effects(closed.effects)
    for e, t in zip(effects, values):
        set_token(mctx, e, t)
    outs = lower_closed_jaxpr(mctx, closed, values[len(effects):])
    return [*(token(mctx, e) for e in effects), *outs]


def lower_module(name: str, closed: core.ClosedJaxpr, *, result_names=None,
                 donated_invars=None, axis_env=None, num_replicas=1, num_partitions=1,
                 platform="cpu", mesh=None, arg_shardings=None, result_shardings=None,
                 devices=None, locations=False, memory_kinds=None,
                 arg_names=None, dim_vars=None) -> ModuleContext:
    """The whole program as a module with a public ``main``, as ``jit(f).lower`` shows.
    With ``locations``, operations are located at their equations' sources and ``main``'s
    arguments at ``arg_names`` (the names XLA then gives its instructions).

    An SPMD program (``num_partitions`` > 1) is one program for all devices of ``mesh``;
    ``arg_shardings`` / ``result_shardings`` (NamedShardings or None, one per input /
    output) are written on ``main`` as Shardy attributes, and XLA's partitioner splits
    the program accordingly. ``memory_kinds`` (``MemoryKinds``, or None when everything
    is in device memory) say which memory each argument and result is in. ``dim_vars``
    are the dimension variables of a shape-polymorphic program (default: those in the
    shapes of its inputs)."""
    if core.state_effect in closed.effects:
        closed = hooks.discharge_state(closed)
    mctx = ModuleContext(name, platform=platform, axis_env=axis_env,
                         num_replicas=num_replicas, num_partitions=num_partitions)
    mctx.dim_vars = dim_vars_of(closed.in_avals) if dim_vars is None else tuple(dim_vars)
    mctx.mesh, mctx.devices = mesh, devices
    mctx.locations = locations
    with mctx.context, ir.Location.unknown(mctx.context):
        if mesh is not None:
            mctx.mesh_symbol(mesh)
        i32 = ir.IntegerType.get_signless(32)
        mctx.module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
            i32, num_partitions)
        mctx.module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(
            i32, num_replicas)
        mctx.unique_name("main")
        donated = donated_invars or [False] * len(closed.in_avals)
        arg_attrs = _sharding_attrs(mctx, _donation_attrs(closed, donated, num_partitions),
                                    arg_shardings, closed.in_avals)
        result_attrs = None
        if result_names is not None:
            result_attrs = [{"jax.result_info": ir.StringAttr.get(n)} for n in result_names]
        result_attrs = _sharding_attrs(mctx, result_attrs, result_shardings,
                                       closed.out_avals)
        placed = None
        if memory_kinds is not None:
            arg_attrs = _memory_attrs(arg_attrs, memory_kinds.args)
            result_attrs = _memory_attrs(result_attrs, memory_kinds.results)
            placed = memory_kinds.asked
        _emit_function(mctx, "main", closed, public=True, arg_attrs=arg_attrs,
                       result_attrs=result_attrs, placed_results=placed,
                       arg_names=arg_names if locations else None)
        # Shardy meshes written inline in sharding attributes (host callbacks pin
        # themselves to device 0 that way) become named ``sdy.mesh`` symbols, and mesh
        # symbols get their ``stablehlo.mesh`` attribute, as in JAX. (The pass walks the
        # whole module: skipped when there is no mesh.)
        if mctx.host_callbacks or mctx.mesh_names:
            passmanager.PassManager.parse("builtin.module(sdy-lift-inlined-meshes)").run(
                mctx.module.operation)
    return mctx


def _sharding_attrs(mctx: ModuleContext, attrs, shardings, avals):
    """Add ``sdy.sharding`` to the argument or result attributes ``attrs``."""
    if shardings is None or not any(s is not None for s in shardings):
        return attrs
    attrs = attrs or [{} for _ in avals]
    for attr, sharding, aval in zip(attrs, shardings, avals):
        if sharding is not None:
            attr["sdy.sharding"] = ir.Attribute.parse(sharding.sdy_sharding(
                aval_to_ir_type(aval).rank,      # (typed keys: with their words' axes)
                mctx.mesh_symbol(sharding.mesh)))
    return attrs


class MemoryKinds(NamedTuple):
    """Where a program's values live (each a memory kind, or None for "not said"): its
    arguments, its results, and the results whose memory ``jit``'s ``out_shardings``
    asked for (``retyped``: see ``dispatch.memory_kinds``)."""
    args: list
    results: list
    asked: list
    retyped: list


def _memory_attrs(attrs, kinds):
    """Add ``mhlo.memory_kind`` to argument or result attributes."""
    attrs = attrs or [{} for _ in kinds]
    for attr, kind in zip(attrs, kinds):
        if kind is not None:
            attr["mhlo.memory_kind"] = ir.StringAttr.get(kind)
    return attrs


def _donation_attrs(closed, donated, num_partitions=1):
    """A donated input whose buffer can hold an output is aliased to it
    (``tf.aliasing_output``, counting the leading tokens among the outputs), so XLA
    writes the result in place. The others cannot be used: JAX's warning says so (a
    partitioned program leaves donation to XLA, which does not warn)."""
    attrs = [{} for _ in closed.in_avals]
    free_outputs = list(enumerate(closed.out_avals,
                                  start=len(ordered_effects(closed.effects))))
    for i, (aval, d) in enumerate(zip(closed.in_avals, donated)):
        if not d:
            continue
        for k, (j, out) in enumerate(free_outputs):
            if (out.shape, out.dtype) == (aval.shape, aval.dtype):
                attrs[i]["tf.aliasing_output"] = ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(32), j)
                del free_outputs[k]
                break
    unused = [str(aval) for aval, d, attr in zip(closed.in_avals, donated, attrs)
              if d and not attr]
    if unused and num_partitions == 1:
        warnings.warn(f"Some donated buffers were not usable: {', '.join(unused)}.\nSee an "
                      "explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.")
    return attrs if any(attrs) else None
