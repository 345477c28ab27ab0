"""``lax.scaled_dot``: a matrix product of block-scaled (quantized) operands.

Low-precision formats (``float8_e4m3fn``, ``float4_e2m1fn``) keep a narrow range; a
tensor is stored as such values plus one *scale* per block of ``k`` consecutive elements
along the contracting axes (``float8_e8m0fnu``: a power of two). ``scaled_dot`` computes
``dot_general(lhs * lhs_scale, rhs * rhs_scale)`` with each scale repeated over its block.

As in JAX 0.10.2 the primitive lowers to a ``stablehlo.composite "xla.scaled_dot"`` whose
decomposition dequantizes in bfloat16 (scales broadcast over their blocks, products in
bf16) and calls ``dot_general``: a backend with a fused kernel substitutes it, the CPU
runs the decomposition. Like JAX's, it has a batching rule and no derivatives.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

from glassjax import core, dtypes
from glassjax.interpreters import batching
from glassjax.lax.composite import composite
from glassjax.lax.conversion import convert_element_type
from glassjax.lax.dot import dot_general
from glassjax.lax.elementwise import mul
from glassjax.lax.structural import broadcast_in_dim, full, reshape
from glassjax.xla import dispatch, lowering


def _validate_operand_scale(side, operand, scale, contracting_dims: Sequence[int]):
    for i, size in enumerate(operand.shape):
        if i in contracting_dims:
            if size % scale.shape[i] != 0:
                raise TypeError(f"{side} contracting dim {i} of size {size} must be "
                                f"divisible by its scale's dim size {scale.shape[i]}.")
            if size // scale.shape[i] < 2:
                raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's "
                                f"dim size ({size // scale.shape[i]}) must be at least 2.")
        elif scale.shape[i] != size:
            raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                            f"{scale.shape[i]}.")


def _validate(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers):
    """JAX's checks: equal ranks, matching batch and contracting sizes, and scales that
    match the operand except along contracting axes, which they divide (blocks >= 2)."""
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    ranks = {lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}
    if len(ranks) != 1:
        raise TypeError(
            f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs "
            f"rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: "
            f"{rhs_scale.ndim}.")
    if len(lhs_batch) != len(rhs_batch):
        raise TypeError("LHS and RHS must have the same number of batch dimensions, got "
                        f"{len(lhs_batch)} and {len(rhs_batch)}.")
    if len(lhs_contracting) != len(rhs_contracting):
        raise TypeError("LHS and RHS must have the same number of contracting dimensions, "
                        f"got {len(lhs_contracting)} and {len(rhs_contracting)}.")
    for i, j in zip(lhs_batch, rhs_batch):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
            raise TypeError("All input tensors must have the same batch dimension size for "
                            f"batch dims ({i}, {j}).")
    for i, j in zip(lhs_contracting, rhs_contracting):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match "
                            f"RHS contracting dim {j} of size {rhs.shape[j]}.")
    _validate_operand_scale("LHS", lhs, lhs_scale, lhs_contracting)
    _validate_operand_scale("RHS", rhs, rhs_scale, rhs_contracting)


def _scaled_dot_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                              preferred_element_type):
    _validate(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers)
    (lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch) = dimension_numbers
    kept = lambda shape, contracting, batch: [d for i, d in enumerate(shape)
                                              if i not in contracting and i not in batch]
    shape = ([lhs.shape[i] for i in lhs_batch] +
             kept(lhs.shape, lhs_contracting, lhs_batch) +
             kept(rhs.shape, rhs_contracting, rhs_batch))
    return core.ShapedArray(shape, preferred_element_type)


def _repeat_over_blocks(scale, operand_shape, contracting_dims):
    """Each scale repeated over its block of the contracting axes: ``(.., K/k, ..)`` ->
    ``(.., K/k, k, ..)`` by broadcasting, then merged into ``(.., K, ..)``."""
    for i in contracting_dims:
        if scale.shape[i] != operand_shape[i]:
            k = operand_shape[i] // scale.shape[i]
            shape = list(scale.shape)
            expanded = shape[:i + 1] + [1] + shape[i + 1:]
            dims = [d for d in range(len(expanded)) if d != i + 1]
            scale = broadcast_in_dim(scale, expanded, dims)
            scale = broadcast_in_dim(scale, shape[:i + 1] + [k] + shape[i + 1:],
                                     list(range(len(expanded))))
            scale = reshape(scale, shape[:i] + [shape[i] * k] + shape[i + 1:])
    return scale


def _dequantized(x, scale, contracting_dims):
    scale = _repeat_over_blocks(scale, x.shape, contracting_dims)
    return mul(convert_element_type(x, dtypes.bfloat16),
               convert_element_type(scale, dtypes.bfloat16))


def _decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                   preferred_element_type):
    """What ``scaled_dot`` computes (the composite's body): dequantize in bf16, then
    ``dot_general``."""
    (lhs_contracting, rhs_contracting), _ = dimension_numbers
    return dot_general(_dequantized(lhs, lhs_scale, lhs_contracting),
                       _dequantized(rhs, rhs_scale, rhs_contracting),
                       dimension_numbers=dimension_numbers,
                       preferred_element_type=preferred_element_type)


scaled_dot_p = core.Primitive("scaled_dot")
scaled_dot_p.def_impl(functools.partial(dispatch.apply_primitive, scaled_dot_p))
scaled_dot_p.def_abstract_eval(_scaled_dot_abstract_eval)
lowering.register_lowering(scaled_dot_p, lowering.lower_fun(
    composite(_decomposition, name="xla.scaled_dot")))


def _scaled_dot_batching(args, dims, *, dimension_numbers, preferred_element_type):
    """All four operands get the batch axis first; it becomes one more batch dimension
    of the product (and every other dimension number shifts by one)."""
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    shift = lambda ds: tuple(d + 1 for d in ds)
    (lc, rc), (lb, rb) = dimension_numbers
    dimension_numbers = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
    return scaled_dot_p.bind(*args, dimension_numbers=dimension_numbers,
                             preferred_element_type=preferred_element_type), 0


batching.primitive_batchers[scaled_dot_p] = _scaled_dot_batching


def _unit_scale(operand, contracting_dims):
    """A scale of one per operand row (one block spanning each contracting axis)."""
    shape = [1 if i in contracting_dims else d for i, d in enumerate(operand.shape)]
    return convert_element_type(full(shape, 1.0, dtypes.bfloat16), dtypes.float8_e8m0fnu)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """``dot_general(lhs * lhs_scale, rhs * rhs_scale)`` where each scale entry covers a
    block of consecutive elements along the contracting axes (their size divided by the
    scale's). ``dimension_numbers`` defaults to a (batched) matrix product over the last
    axes; a missing scale is one; the result is ``preferred_element_type`` (bfloat16 by
    default)."""
    if dimension_numbers is None:
        if lhs.ndim in (0, 1):
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = lhs.ndim
        dimension_numbers = (((n - 1,), (n - 2,)),
                             (tuple(range(n - 2)), tuple(range(n - 2))))
    (lhs_contracting, rhs_contracting), _ = dimension_numbers
    if lhs_scale is None:
        lhs_scale = _unit_scale(lhs, lhs_contracting)
    if rhs_scale is None:
        rhs_scale = _unit_scale(rhs, rhs_contracting)
    element_type = dtypes.check_and_canonicalize_user_dtype(
        dtypes.bfloat16 if preferred_element_type is None else preferred_element_type,
        "scaled_dot")
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale,
                             dimension_numbers=dimension_numbers,
                             preferred_element_type=element_type)
