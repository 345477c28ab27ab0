"""``dot_general``: the one contraction primitive behind ``@``, ``dot``, ``matmul``,
``einsum`` and ``tensordot``.

``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`` names the
axes that are summed over (contracting) and the axes that are matched elementwise
(batch). The result's axes are: batch axes, then the remaining lhs axes, then the
remaining rhs axes. The primitive is *bilinear*, so its transpose with respect to either
operand is again a ``dot_general`` (of the cotangent with the other operand), followed
by a ``transpose`` that puts the axes back in the operand's order.
"""
from __future__ import annotations

import enum
import itertools

from collections.abc import Sequence
from typing import Any, NamedTuple, Union

import numpy as np

from glassjax import caches, core, dtypes, pretty
from glassjax.config import config
from glassjax.interpreters import ad, batching
from glassjax.lax.conversion import _convert_element_type
from glassjax.lax.structural import transpose
from glassjax.lax.utils import (canonicalize_axis, ensure_index_tuple, spec_of,
                                standard_primitive)
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir


class Precision(enum.Enum):
    """How precisely matmuls on accelerators compute float32 products (no effect on
    CPU): ``DEFAULT`` (fastest), ``HIGH``, ``HIGHEST``."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name


_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST, "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT,
    "fastest": Precision.DEFAULT, None: Precision.DEFAULT}


class DotAlgorithm(NamedTuple):
    """An explicit algorithm for a dot product, given as ``precision``: the types the
    operands are rounded to, the accumulator's type, and for algorithms that emulate a
    higher precision with several products of split operands, how many. Which ones a
    platform runs is its business; the CPU backend runs only some presets."""
    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """Named dot algorithms, ``LHS_RHS_ACCUM`` (``_X3``: three products emulate the
    accumulator's precision); also accepted by name, ``precision="F32_F32_F32"``."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name

    @property
    def supported_lhs_types(self):
        """The operand types the algorithm takes as they are (others are converted to the
        first one); None: any."""
        if self is DotAlgorithmPreset.DEFAULT or self.name.startswith("ANY_F8"):
            return None
        if self.name.startswith("F16_"):
            return (np.float16,)
        if self in (DotAlgorithmPreset.BF16_BF16_BF16, DotAlgorithmPreset.BF16_BF16_F32):
            return (dtypes.bfloat16, np.float32)
        if self is DotAlgorithmPreset.F64_F64_F64:
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self):
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        if self.name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return {"F16_F16_F16": np.float16, "BF16_BF16_BF16": dtypes.bfloat16,
                "F64_F64_F64": np.float64}.get(self.name, np.float32)

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        """The result types the algorithm can produce directly (None: any)."""
        if self.name.startswith("ANY_F8_ANY_F8_F32"):
            return (np.float32, np.float16, dtypes.bfloat16, dtypes.float8_e4m3fn,
                    dtypes.float8_e5m2, dtypes.float8_e5m2fnuz, dtypes.float8_e4m3fnuz,
                    dtypes.float8_e4m3b11fnuz)
        narrow = {DotAlgorithmPreset.F16_F16_F32: np.float16,
                  DotAlgorithmPreset.BF16_BF16_F32: dtypes.bfloat16}.get(self)
        if narrow is not None:      # a narrow result only from narrow operands
            both = dtypes.promote_types(lhs_dtype, rhs_dtype)
            return (np.float32, narrow) if both == np.dtype(narrow) else (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


# The presets XLA's CPU backend honours (it would silently ignore the others, so they
# are refused, as in JAX); and the StableHLO algorithm of each (types, products).
_CPU_ALGORITHMS = {
    DotAlgorithmPreset.DEFAULT: None,
    DotAlgorithmPreset.F16_F16_F16: ("f16", "f16", "f16", 1),
    DotAlgorithmPreset.F32_F32_F32: ("f32", "f32", "f32", 1),
    DotAlgorithmPreset.F64_F64_F64: ("f64", "f64", "f64", 1),
    DotAlgorithmPreset.BF16_BF16_F32: ("bf16", "bf16", "f32", 1),
    DotAlgorithmPreset.BF16_BF16_F32_X3: ("bf16", "bf16", "f32", 3),
    DotAlgorithmPreset.BF16_BF16_F32_X6: ("bf16", "bf16", "f32", 6),
}


def _algorithm_compute_types(preset: DotAlgorithmPreset, lhs_dtype, rhs_dtype, out_dtype):
    """The operand and accumulator types ``preset`` computes with for these types."""
    def pick(dtype, supported):
        return dtype if supported is None or np.dtype(dtype) in supported else supported[0]
    lhs = pick(lhs_dtype, preset.supported_lhs_types)
    rhs = pick(rhs_dtype, preset.supported_rhs_types)
    return lhs, rhs, pick(out_dtype, preset.supported_output_types(lhs, rhs))


# The types of ``precision`` and ``dimension_numbers`` arguments (for annotations).
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]


def canonicalize_precision(precision):
    """None, a pair of ``Precision`` values (one per operand), or a dot algorithm. None
    means ``jax_default_matmul_precision``, which is None unless set."""
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        if default not in _PRECISION_STRINGS and \
                default not in DotAlgorithmPreset.__members__:
            raise ValueError(
                "jax_default_matmul_precision flag must be set to None, a value in "
                f"{list(_PRECISION_STRINGS)}, or the name of a lax.DotAlgorithmPreset, "
                f"but got {default}")
        return canonicalize_precision(default)
    if isinstance(precision, str) and precision in _PRECISION_STRINGS:
        return Precision(precision), Precision(precision)
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    if isinstance(precision, Precision):
        return precision, precision
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(s, str) for s in precision):
            return (canonicalize_precision(precision[0])[0],
                    canonicalize_precision(precision[1])[0])
    raise ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        f"- a lax.DotAlgorithm value;\nbut got {precision}.")


# -- shape and dtype rules ----------------------------------------------------------------

def _delete(tup, idx):
    idx = set(idx)
    return tuple(t for i, t in enumerate(tup) if i not in idx)


def _check_dims(side, ndim, contracting, batch):
    if not all(0 <= d < ndim for d in (*contracting, *batch)):
        raise TypeError(f"dot_general requires {side} dimension numbers to be nonnegative "
                        f"and less than the number of axes of the {side} value, got "
                        f"{side}_batch of {batch} and {side}_contracting of {contracting} "
                        f"for {side} of rank {ndim}")


def _dot_general_shape_rule(lhs, rhs, *, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    _check_dims("lhs", lhs.ndim, lhs_contracting, lhs_batch)
    _check_dims("rhs", rhs.ndim, rhs_contracting, rhs_batch)
    if len(lhs_batch) != len(rhs_batch):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lhs_batch} and rhs_batch {rhs_batch}.")
    for side, what, dims in [("lhs", "batch", lhs_batch), ("rhs", "batch", rhs_batch),
                             ("lhs", "contracting", lhs_contracting),
                             ("rhs", "contracting", rhs_contracting)]:
        if len(set(dims)) != len(dims):
            raise TypeError(f"dot_general requires {side} {what} dimensions to be "
                            f"distinct, got {side}_{what} {dims}.")
    for side, batch, contracting in [("lhs", lhs_batch, lhs_contracting),
                                     ("rhs", rhs_batch, rhs_contracting)]:
        if set(batch) & set(contracting):
            raise TypeError(f"dot_general requires {side} batch dimensions to be disjoint "
                            f"from contracting dimensions, got {side}_batch {batch} and "
                            f"{side}_contracting {contracting}.")
    for what, lhs_dims, rhs_dims in [
            ("lhs batch dimensions and rhs batch dimensions", lhs_batch, rhs_batch),
            ("contracting dimensions", lhs_contracting, rhs_contracting)]:
        lhs_sizes = tuple(lhs.shape[i] for i in lhs_dims)
        rhs_sizes = tuple(rhs.shape[i] for i in rhs_dims)
        if lhs_sizes != rhs_sizes:
            raise TypeError(f"dot_general requires {what} to have the same shape, got "
                            f"{lhs_sizes} and {rhs_sizes}.")
    return _dot_general_shape(lhs.shape, rhs.shape, dimension_numbers)


def _dot_general_shape(lhs_shape, rhs_shape, dimension_numbers):
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    batch_shape = tuple(lhs_shape[i] for i in lhs_batch)
    lhs_tensored = _delete(lhs_shape, (*lhs_contracting, *lhs_batch))
    rhs_tensored = _delete(rhs_shape, (*rhs_contracting, *rhs_batch))
    return batch_shape + lhs_tensored + rhs_tensored


def _bit_width(dtype):
    if dtypes.issubdtype(dtype, np.inexact):
        return dtypes.finfo(dtype).bits
    if dtypes.issubdtype(dtype, np.integer):
        return dtypes.iinfo(dtype).bits
    return 1   # bool


@caches.lru("lax.dot._type_properties", None, why="one entry per dtype")
def _type_properties(dt):
    """How "wide" a dtype is for XLA, as a tuple compared lexicographically (cached: a
    pure function of the dtype, asked for every dot)."""
    c = dtypes.complex_real_dtype(dt) if dtypes.issubdtype(dt, np.complexfloating) else dt
    floating = dtypes.issubdtype(c, np.floating)
    return (dtypes.issubdtype(dt, np.complexfloating),
            dtypes.finfo(c).maxexp if floating else -1,
            dtypes.finfo(c).nmant if floating else -1,
            _bit_width(c), not dtypes.issubdtype(c, np.unsignedinteger))


def _dot_general_dtype_rule(lhs, rhs, *, dimension_numbers, precision,
                            preferred_element_type, out_sharding):
    """Mixed input types are allowed when one is "wider" in XLA's sense (complex, then
    exponent range, mantissa, bit width, signedness); the result has that type unless
    ``preferred_element_type`` asks for a wider one."""
    lhs_prop, rhs_prop = _type_properties(lhs.dtype), _type_properties(rhs.dtype)
    if lhs_prop > rhs_prop:
        result = lhs.dtype
    elif rhs_prop > lhs_prop:
        result = rhs.dtype
    else:
        if lhs.dtype != rhs.dtype:
            raise TypeError(f"lax.dot_general argument type error: {lhs.dtype}, "
                            f"{rhs.dtype}")
        result = lhs.dtype
    if preferred_element_type is None or result == preferred_element_type:
        return result
    if (not dtypes.issubdtype(result, np.floating) and
            _bit_width(preferred_element_type) < _bit_width(result)):
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        f"type, got preferred_element_type of {preferred_element_type} for "
                        f"result type of {result}.")
    return preferred_element_type


# -- transpose rules ----------------------------------------------------------------------

def _ranges_like(*xs):
    """Consecutive ranges with the lengths of ``xs``: the result axes of each group."""
    start = 0
    for x in xs:
        yield range(start, start + len(x))
        start += len(x)


def _remaining(original, *removed_lists):
    removed = set(itertools.chain(*removed_lists))
    return [i for i in original if i not in removed]


def _dot_general_transpose_lhs(ct, x, y, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding, swap_ans=False):
    """The cotangent of ``x``: contract the output cotangent with ``y`` over the axes
    that came from ``y``; what is left are x's axes (batch, kept, contracted), which
    a ``transpose`` puts back in x's order."""
    dims, unsorted_axes, out_axes = _transpose_plan(dimension_numbers, x.aval.ndim,
                                                    core.ndim_of(y), swap_ans)
    out = dot_general(ct, y, dims, precision=precision,
                      preferred_element_type=preferred_element_type,
                      out_sharding=_transposed_sharding(x.aval, (ct, y), unsorted_axes))
    x_bar = transpose(out, out_axes)
    if x_bar.dtype != x.aval.dtype:
        x_bar = _convert_element_type(x_bar, x.aval.dtype, x.aval.weak_type)
    return x_bar


@caches.lru("lax.dot._transpose_plan", 256, shortcut=True)
def _transpose_plan(dimension_numbers, x_ndim, y_ndim, swap_ans):
    """``_dot_general_transpose_lhs``'s index work, which depends only on the dimension
    numbers and ranks: worked out once for each layer shape a program repeats.
    Returns the product's dimension numbers (tuples of ints, which ``dot`` takes as they
    are), x's axes in the order the product yields them, and the permutation that puts
    them back. (Worked out on every call in reference mode.)"""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
    x_contract_sorted_by_y = [xc for _, xc in sorted(zip(y_contract, x_contract))]
    unsorted_axes = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = sorted(range(len(unsorted_axes)), key=unsorted_axes.__getitem__)
    return dims, tuple(unsorted_axes), tuple(out_axes)


def _transposed_sharding(aval, operands, axes):
    """Sharding in types: the split of the product giving an operand's cotangent is the
    operand's own (its axes in the order the product yields them, ``axes``). An unsplit
    operand asks for an unsplit result, so contracting axes split on both sides is not
    ambiguous here (the partial sums are added up)."""
    typed = aval._sharding
    if typed is not None:
        return NamedSharding(typed[0], PartitionSpec(*[typed[1][a] for a in axes]))
    for o in operands:
        other = getattr(core.get_aval(o), "_sharding", None)
        if other is not None:
            return NamedSharding(other[0], PartitionSpec(*[None] * aval.ndim))
    return None


def _dot_general_transpose_rhs(ct, x, y, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding):
    """By symmetry: the lhs rule with the roles of the operands swapped."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_general_transpose_lhs(ct, y, x, dimension_numbers=swapped,
                                      precision=precision,
                                      preferred_element_type=preferred_element_type,
                                      out_sharding=out_sharding, swap_ans=True)


# -- batching -----------------------------------------------------------------------------

def _batch_dimension_numbers(ndims, batch_dims, dimension_numbers):
    """Dimension numbers for operands with a mapped axis. If both operands are mapped,
    the mapped axes become a new (first) batch dimension; if only one is, its mapped
    axis is just one more free axis, which lands at a known place in the result."""
    lhs_ndim, _ = ndims
    lbd, rbd = batch_dims
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    bump = lambda dims, b: tuple(d + (d >= b) for d in dims)
    if lbd is not None and rbd is not None:
        lhs_batch = (lbd,) + bump(lhs_batch, lbd)
        rhs_batch = (rbd,) + bump(rhs_batch, rbd)
        lhs_contract = bump(lhs_contract, lbd)
        rhs_contract = bump(rhs_contract, rbd)
        result_batch_dim = 0
    elif rbd is None:
        lhs_tensor = [d for d in range(lhs_ndim)
                      if d not in lhs_batch and d not in lhs_contract]
        result_batch_dim = len(lhs_batch) + sum(d < lbd for d in lhs_tensor)
        lhs_batch = bump(lhs_batch, lbd)
        lhs_contract = bump(lhs_contract, lbd)
    else:
        rhs_tensor = _remaining(range(ndims[1]), rhs_batch, rhs_contract)
        result_batch_dim = lhs_ndim - len(lhs_contract) + sum(d < rbd for d in rhs_tensor)
        rhs_batch = bump(rhs_batch, rbd)
        rhs_contract = bump(rhs_contract, rbd)
    return ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)), result_batch_dim


def _dot_general_batch(args, dims, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding):
    lhs, rhs = args
    lbd, rbd = dims
    new_dims, result_stack_dim = _batch_dimension_numbers(
        (core.ndim_of(lhs), core.ndim_of(rhs)), (lbd, rbd), dimension_numbers)
    result_shape = _dot_general_shape(core.shape_of(lhs), core.shape_of(rhs), new_dims)
    out = dot_general(lhs, rhs, new_dims, precision=precision,
                      preferred_element_type=preferred_element_type)
    return out, canonicalize_axis(result_stack_dim, len(result_shape))


# -- lowering and printing ----------------------------------------------------------------

def _dot_general_lower(ctx, lhs, rhs, *, dimension_numbers, precision,
                       preferred_element_type, out_sharding):
    """``stablehlo.dot_general``. Mixed-type operands are first converted to the result
    type (CPU and GPU backends cannot multiply mixed types). With a dot algorithm, the
    operands are converted to the types it computes in, the product is made in its
    accumulation type and then converted to the result type."""
    lhs_aval, rhs_aval = ctx.avals_in
    aval_out = acc_aval = ctx.avals_out[0]
    algorithm = {}
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        if precision not in _CPU_ALGORITHMS:
            raise ValueError(f"The precision '{precision}' is not supported by "
                             "dot_general on CPU")
        lhs_type, rhs_type, acc_type = _algorithm_compute_types(
            precision, lhs_aval.dtype, rhs_aval.dtype, aval_out.dtype)
        lhs = lowering.convert(lhs, lhs_aval.update(dtype=lhs_type)) \
            if np.dtype(lhs_type) != lhs_aval.dtype else lhs
        rhs = lowering.convert(rhs, rhs_aval.update(dtype=rhs_type)) \
            if np.dtype(rhs_type) != rhs_aval.dtype else rhs
        acc_aval = aval_out.update(dtype=acc_type)
        if precision is not DotAlgorithmPreset.DEFAULT:
            lhs_t, rhs_t, acc_t, n_ops = _CPU_ALGORITHMS[precision]
            algorithm["algorithm"] = hlo.DotAlgorithm.get(
                ir.Type.parse(lhs_t), ir.Type.parse(rhs_t), ir.Type.parse(acc_t), 1, 1,
                n_ops, False)
        precision = None
    elif lhs_aval.dtype != rhs_aval.dtype:
        lhs = lowering.convert(lhs, lhs_aval.update(dtype=aval_out.dtype))
        rhs = lowering.convert(rhs, rhs_aval.update(dtype=aval_out.dtype))
    pair = (Precision.DEFAULT, Precision.DEFAULT) if precision is None else precision

    def attributes():
        (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
        return {"dot_dimension_numbers": hlo.DotDimensionNumbers.get(
                    lhs_batching_dimensions=[int(d) for d in lhs_batch],
                    rhs_batching_dimensions=[int(d) for d in rhs_batch],
                    lhs_contracting_dimensions=[int(d) for d in lhs_contracting],
                    rhs_contracting_dimensions=[int(d) for d in rhs_contracting]),
                "precision_config": ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p))
                                                      for p in pair])}
    mctx = ctx.module_context
    out = lowering.op("stablehlo.dot_general", mctx.ir_type(acc_aval), [lhs, rhs],
                      {**mctx.memo(("dot_general", dimension_numbers, pair), attributes),
                       **algorithm})
    return lowering.convert(out, aval_out) if acc_aval.dtype != aval_out.dtype else out


def _dot_general_printed_params(params):
    """None-valued params are hidden, and dimension numbers print as lists (shorter)."""
    printed = {k: v for k, v in params.items() if v is not None and k != "out_sharding"}
    (lhs_cont, rhs_cont), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    printed["dimension_numbers"] = ((list(lhs_cont), list(rhs_cont)),
                                    (list(lhs_batch), list(rhs_batch)))
    return printed


def _dot_general_sharding(lhs, rhs, *, dimension_numbers, precision,
                           preferred_element_type, out_sharding):
    """Batch dimensions keep their (agreeing) splits, then the lhs's free dimensions,
    then the rhs's. Contracting dimensions split on both sides leave the result's
    split ambiguous: ``out_sharding`` must say (JAX's errors)."""
    (lc, rc), (lb, rb) = dimension_numbers
    if out_sharding is not None:
        ndim = len(lhs.shape) + len(rhs.shape) - 2 * len(lc) - len(lb)
        return out_sharding.spec._normalized_spec_for_aval(ndim)
    ls, rs = spec_of(lhs), spec_of(rhs)
    for what, l, r in (("lhs batch dimensions and rhs batch dimensions",
                        [ls[i] for i in lb], [rs[i] for i in rb]),
                       ("contracting dimensions", [ls[i] for i in lc], [rs[i] for i in rc])):
        if any(a is not None and b is not None and a != b for a, b in zip(l, r)):
            consistent = " the consistent" if "batch" in what else " consistent"
            raise core.ShardingTypeError(
                f"dot_general requires {what} to have{consistent} sharding, got "
                f"{tuple(l)} and {tuple(r)}.")
    lcs, rcs = tuple(ls[i] for i in lc), tuple(rs[i] for i in rc)
    if any(a is not None and b is not None for a, b in zip(lcs, rcs)):
        raise core.ShardingTypeError(
            "Contracting dimensions are sharded and it is ambiguous how the output should "
            "be sharded. Please specify the output sharding via the `out_sharding` "
            f"parameter. Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}")
    free = lambda spec, used: [e for i, e in enumerate(spec) if i not in used]
    return ([ls[i] for i in lb] + free(ls, set(lc) | set(lb)) +
            free(rs, set(rc) | set(rb)))


dot_general_p = standard_primitive(_dot_general_shape_rule, _dot_general_dtype_rule,
                                   "dot_general")
dot_general_p.sharding_rule = _dot_general_sharding
lowering.register_lowering(dot_general_p, _dot_general_lower)
ad.defbilinear(dot_general_p, _dot_general_transpose_lhs, _dot_general_transpose_rhs)
batching.primitive_batchers[dot_general_p] = _dot_general_batch
pretty.pp_eqn_rules[dot_general_p] = pretty.hide_params(_dot_general_printed_params)


# -- public functions ---------------------------------------------------------------------

def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
    """General dot product. Without ``dimension_numbers``: the ordinary vector/matrix
    product of operands of rank 1 or 2 (the last axis of lhs with the first of rhs)."""
    lhs_shape, rhs_shape = core.shape_of(lhs), core.shape_of(rhs)
    if dimension_numbers is None:
        if (1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2 and
                lhs_shape[-1] == rhs_shape[0]):
            dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
        else:
            raise ValueError(
                "jax.lax.dot: dimension_numbers must be specified when not performing "
                "simple un-batched matrix-matrix, matrix-vector, or vector-vector "
                f"products; got lhs_shape={lhs_shape} rhs_shape={rhs_shape}")
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    cdims = (ensure_index_tuple(lhs_contract), ensure_index_tuple(rhs_contract))
    bdims = (ensure_index_tuple(lhs_batch), ensure_index_tuple(rhs_batch))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
            preferred_element_type, "dot")
    return dot_general_p.bind(lhs, rhs, dimension_numbers=(cdims, bdims),
                              precision=canonicalize_precision(precision),
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                *, out_sharding=None):
    """``dot`` with explicit ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``."""
    return dot(lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
               preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the leading (batch) axes of two arrays of equal rank."""
    if min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError("Arguments to batch_matmul must be at least 2D, got "
                         f"{lhs.ndim}, {rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError("Arguments to batch_matmul must have same ndim, got "
                         f"{lhs.ndim}, {rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)),
                       precision=precision)
