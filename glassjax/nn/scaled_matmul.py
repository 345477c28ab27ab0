"""Block-scaled matrix products: ``scaled_matmul`` and ``scaled_dot_general``.

The low-precision formats of recent accelerators (``mxfp8``: ``float8_e4m3fn`` values with
one ``float8_e8m0fnu`` power-of-two scale per block of 32; ``nvfp4``: ``float4_e2m1fn`` with
one ``float8_e4m3fn`` scale per 16, times a global scale) store a tensor as narrow values
plus scales. ``scaled_matmul`` multiplies such tensors; ``scaled_dot_general`` takes
full-precision inputs, *quantizes* them (per-block scale = max |x| / largest value of the
format), multiplies the quantized tensors and gives a straight-through gradient.

The ``scaled_matmul_wrapper`` primitive, like JAX's, is the product of ``(B, M, K)`` and
``(B, N, K)`` blocks. JAX lowers it to cuDNN on NVIDIA GPUs and to ``lax.scaled_dot`` (a
``xla.scaled_dot`` composite: dequantize in bfloat16, then ``dot_general``) on AMD ones;
JAX 0.10.2 has no CPU rule for it. glassjax uses the ``lax.scaled_dot`` lowering on CPU,
so these functions compute here (and their jaxprs are JAX's).
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.custom_derivatives import custom_vjp
from glassjax.interpreters import batching
from glassjax.jit import jit
from glassjax.lax.dot import _ranges_like, _remaining
from glassjax.xla import dispatch, lowering


@dataclass(slots=True)
class BlockScaleConfig:
    """How one operand is quantized: ``mode`` (``'mxfp8'``/``'nvfp4'``), ``block_size``
    elements per scale along the contracting axis, the value and scale dtypes, the
    ``global_scale`` (nvfp4) and ``infer_only``."""
    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


# ----------------------------------------------------------------------------------------
# The scaled_matmul_wrapper primitive: (B, M, K) x (B, N, K) -> (B, M, N)
# ----------------------------------------------------------------------------------------

def _scaled_matmul_abstract(a, b, a_scale, b_scale, *, preferred_element_type):
    batch, m, _ = a.shape
    return [core.ShapedArray((batch, m, b.shape[1]), preferred_element_type)]


def _scaled_matmul_lowering(a, b, a_scales, b_scales, *, preferred_element_type):
    """As JAX's ROCm rule: ``lax.scaled_dot`` contracting K (axis 2) over batch B."""
    return [lax.scaled_dot(a, b, lhs_scale=a_scales, rhs_scale=b_scales,
                           dimension_numbers=(((2,), (2,)), ((0,), (0,))),
                           preferred_element_type=preferred_element_type)]


scaled_matmul_wrapper_p = core.Primitive("scaled_matmul_wrapper")
scaled_matmul_wrapper_p.multiple_results = True
scaled_matmul_wrapper_p.def_impl(functools.partial(dispatch.apply_primitive,
                                                   scaled_matmul_wrapper_p))
scaled_matmul_wrapper_p.def_abstract_eval(_scaled_matmul_abstract)
lowering.register_lowering(scaled_matmul_wrapper_p,
                           lowering.lower_fun(_scaled_matmul_lowering, multiple_results=True))


def _scaled_matmul_batching(args, dims, *, preferred_element_type):
    """All four operands batched (as JAX requires): merge the batch axis with B, and
    split it out of the result again."""
    if any(d is batching.not_mapped for d in dims):
        raise NotImplementedError("scaled_matmul under vmap needs all four operands "
                                  f"batched; got batch dimensions {dims}")
    lhs, rhs, lhs_scales, rhs_scales = [batching.moveaxis(x, d, 0)
                                        for x, d in zip(args, dims)]
    *batch, m, k = lhs.shape
    n, k_scales = rhs.shape[-2], lhs_scales.shape[-1]
    b = functools.reduce(operator.mul, batch)
    lhs = jnp.reshape(lhs, (b, m, k))
    lhs_scales = jnp.reshape(lhs_scales, (b, m, k_scales))
    rhs = jnp.reshape(rhs, (b, n, k))
    rhs_scales = jnp.reshape(rhs_scales, (b, n, k_scales))
    out, = scaled_matmul_wrapper_p.bind(lhs, rhs, lhs_scales, rhs_scales,
                                        preferred_element_type=preferred_element_type)
    return [jnp.reshape(out, (*batch, m, n))], [0]


batching.primitive_batchers[scaled_matmul_wrapper_p] = _scaled_matmul_batching


@functools.partial(jit, static_argnames=("preferred_element_type",))
def _scaled_matmul(lhs, rhs, lhs_scales, rhs_scales,
                   preferred_element_type=np.dtype("float32")):
    return scaled_matmul_wrapper_p.bind(lhs, rhs, lhs_scales, rhs_scales,
                                        preferred_element_type=preferred_element_type)[0]


def _scaled_matmul_3d(lhs, rhs, lhs_scales, rhs_scales,
                      preferred_element_type=np.dtype("float32")):
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
        preferred_element_type, "scaled_matmul_wrapper")
    return _scaled_matmul(lhs, rhs, lhs_scales, rhs_scales,
                          preferred_element_type=preferred_element_type)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """Block-scaled batched matrix product ``(B, M, K) x (B, N, K) -> (B, M, N)``::

        a_scaled = lhs * jnp.repeat(lhs_scales, K // lhs_scales.shape[-1], axis=-1)
        b_scaled = rhs * jnp.repeat(rhs_scales, K // rhs_scales.shape[-1], axis=-1)
        jnp.einsum('BMK,BNK->BMN', a_scaled, b_scaled)

    (dequantized in bfloat16, accumulated in ``preferred_element_type``)."""
    a, b, a_scales, b_scales = lhs, rhs, lhs_scales, rhs_scales
    if not all(x.ndim == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    (batch_a, m_a, k_a), (batch_b, n_b, k_b) = a.shape, b.shape
    if k_a != k_b or batch_a != batch_b:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) "
                         "and contract (K) dimensions, but got shapes "
                         f"{a.shape} and {b.shape}")
    (batch_as, m_as, k_as), (batch_bs, n_bs, k_bs) = a_scales.shape, b_scales.shape
    if k_as != k_bs or batch_as != batch_bs:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and "
                         f"contract (K) dimensions, but got shapes {a_scales.shape} and "
                         f"{b_scales.shape}")
    if m_as != m_a or n_bs != n_b:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions "
                         f"of inputs, but got shapes a: {a.shape}, b: {b.shape}, "
                         f"a_scales: {a_scales.shape}, b_scales: {b_scales.shape}")
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
        preferred_element_type, "scaled_matmul")
    return _scaled_matmul_3d(a, b, a_scales, b_scales,
                             preferred_element_type=preferred_element_type)


# ----------------------------------------------------------------------------------------
# Quantization
# ----------------------------------------------------------------------------------------

def _shape_normalization(x, dimension_numbers):
    """``x`` transposed and reshaped to ``(batch, rows, contracting)``."""
    contracting_dims, batch_dims = dimension_numbers
    order = range(x.ndim)
    contracting = [d for d in order if d in contracting_dims]
    batch = [d for d in order if d in batch_dims]
    rows = [d for d in order if d not in contracting_dims and d not in batch_dims]
    size = lambda dims: math.prod(x.shape[d] for d in dims)
    return jnp.reshape(jnp.transpose(x, batch + rows + contracting),
                       (size(batch), size(rows), size(contracting)))


def _dot_output_shape(lhs_shape, rhs_shape, lhs_dn, rhs_dn):
    """``dot_general``'s output shape: batch, then lhs kept, then rhs kept dimensions."""
    (lhs_contract, lhs_batch), (rhs_contract, rhs_batch) = lhs_dn, rhs_dn
    return tuple([d for i, d in enumerate(lhs_shape) if i in lhs_batch] +
                 [d for i, d in enumerate(lhs_shape)
                  if i not in lhs_contract and i not in lhs_batch] +
                 [d for i, d in enumerate(rhs_shape)
                  if i not in rhs_contract and i not in rhs_batch])


def _cast_to_e8m0_rounding_up(x):
    """The biased exponent of a power of two >= ``x`` (``float8_e8m0fnu``'s bits)."""
    bits = x.astype(np.float32).view(np.uint32)
    exp, mant = bits >> 23, bits & 0x7FFFFF
    round_up = jnp.logical_and(jnp.logical_and(mant > 0, exp != 0xFE),
                               ~jnp.logical_and(exp == 0, mant <= 0x400000))
    return jnp.where(round_up, exp + 1, exp).astype(np.uint8)


def _e8m0_to_dtype(x, dtype):
    value = (x.astype(np.uint32) << 23).view(np.float32)
    near_zero = 2 ** -15 if dtype == np.float16 else 2 ** -127
    return jnp.where(value == 0, jnp.array(near_zero, np.float32), value).astype(dtype)


def _quantize(x, config):
    """``x`` ``(B, M, K)`` as ``config.data_type`` values and one ``config.scale_type``
    scale per block of ``config.block_size`` along K."""
    shape = x.shape
    block = config.block_size
    assert shape[-1] >= block and shape[-1] % block == 0
    x = x.reshape(shape[:-1] + (shape[-1] // block, block))
    largest = dtypes.finfo(config.data_type).max.astype(x.dtype)

    def scales_per_block(values):
        return jnp.max(jnp.abs(values), axis=-1, keepdims=True) / largest

    if config.mode == "mxfp8":
        scales_q = _cast_to_e8m0_rounding_up(scales_per_block(x))
        scaled_x = x / _e8m0_to_dtype(scales_q, x.dtype)
    elif config.mode == "nvfp4":
        scale_max = dtypes.finfo(config.scale_type).max.astype(x.dtype)
        x /= config.global_scale
        scales_q = jnp.clip(scales_per_block(x), 0, scale_max)
        scales_q = lax.optimization_barrier(scales_q.astype(config.scale_type))
        scaled_x = x / scales_q.astype(np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    x_q = jnp.clip(scaled_x, -largest, largest).astype(config.data_type).reshape(shape)
    scales_q = jnp.reshape(scales_q, scales_q.shape[:-1]).view(config.scale_type)
    return x_q, scales_q


# ----------------------------------------------------------------------------------------
# scaled_dot_general: quantize, multiply, straight-through gradient
# ----------------------------------------------------------------------------------------

def _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    if preferred_element_type is None:
        preferred_element_type = dtypes.result_type(lhs, rhs, return_weak_type_flag=False)
    else:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
            preferred_element_type, "scaled_dot_impl")
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_dn, rhs_dn = (lhs_contract, lhs_batch), (rhs_contract, rhs_batch)
    lhs_3d, rhs_3d = _shape_normalization(lhs, lhs_dn), _shape_normalization(rhs, rhs_dn)
    lhs_q, lhs_scales = _quantize(lhs_3d, configs[0])
    rhs_q, rhs_scales = _quantize(rhs_3d, configs[1])
    nvfp4 = configs[0].mode == "nvfp4"
    out = _scaled_matmul_3d(lhs_q, rhs_q, lhs_scales, rhs_scales,
                            preferred_element_type=np.float32 if nvfp4
                            else preferred_element_type)
    if nvfp4:
        out *= configs[0].global_scale * configs[1].global_scale
        out = out.astype(preferred_element_type)
    return jnp.reshape(out, _dot_output_shape(lhs.shape, rhs.shape, lhs_dn, rhs_dn))




def _transpose_lhs(g, x, y, *, dimension_numbers, preferred_element_type, configs,
                   swap_ans=False):
    """The cotangent of ``x`` in ``dot(x, y)``: ``g`` times ``y``, itself a quantized
    product (unless nvfp4, whose backward product is a plain matmul)."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = _remaining(range(x.ndim), x_contract, x_batch)
    y_kept = _remaining(range(y.ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y)
    y_dn, g_dn = (y_kept, y_batch), (ans_y, ans_batch)
    y_3d, g_3d = _shape_normalization(y, y_dn), _shape_normalization(g, g_dn)
    if configs[0].mode != "nvfp4":
        g_q, g_scales = _quantize(g_3d, configs[0])
        y_q, y_scales = _quantize(y_3d, configs[1])
        out = _scaled_matmul_3d(g_q, y_q, g_scales, y_scales, preferred_element_type)
    else:
        out = jnp.matmul(g_3d, jnp.permute_dims(y_3d, (0, 2, 1)),
                         preferred_element_type=preferred_element_type)
    out = jnp.reshape(out, _dot_output_shape(g.shape, y.shape, g_dn, y_dn))
    return lax.transpose(out, tuple(out_axes))


def _transpose_rhs(g, x, y, *, dimension_numbers, preferred_element_type, configs):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    return _transpose_lhs(g, y, x, dimension_numbers=((y_contract, x_contract),
                                                      (y_batch, x_batch)),
                          preferred_element_type=preferred_element_type, configs=configs,
                          swap_ans=True)


@functools.partial(custom_vjp, nondiff_argnums=(2, 3, 4))
def scaled_dot_general_fn(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs)


def scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    out = _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs)
    return out, (lhs, rhs)


def scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, res, g):
    """Both cotangents quantize ``g`` with ``configs[2]``. A straight-through estimator:
    gradients pass through quantization unchanged, except (nvfp4) where the input was
    clipped, where they are zero."""
    lhs, rhs = res
    kw = dict(dimension_numbers=dimension_numbers,
              preferred_element_type=preferred_element_type)
    grad_lhs = _transpose_lhs(g, lhs, rhs, configs=[configs[2], configs[1]], **kw)
    grad_rhs = _transpose_rhs(g, lhs, rhs, configs=[configs[2], configs[0]], **kw)
    if configs[2].mode == "nvfp4":
        largest = dtypes.finfo(configs[0].data_type).max.astype(lhs.dtype)
        scale_max = dtypes.finfo(configs[0].scale_type).max.astype(lhs.dtype)
        grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * largest * scale_max,
                             grad_lhs, 0)
        grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * largest * scale_max,
                             grad_rhs, 0)
    return grad_lhs, grad_rhs


scaled_dot_general_fn.defvjp(scaled_dot_fwd, scaled_dot_bwd)


def get_scaled_dot_general_config(mode, global_scale=None):
    """The ``BlockScaleConfig`` of a format: ``'mxfp8'`` (float8_e4m3fn values, one
    float8_e8m0fnu scale per 32) or ``'nvfp4'`` (float4_e2m1fn values, one float8_e4m3fn
    scale per 16, and ``global_scale``, default ``[1.0]``)."""
    if mode == "nvfp4":
        return BlockScaleConfig(
            mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
            scale_type=dtypes.float8_e4m3fn,
            global_scale=jnp.ones((1,), dtype=np.float32) if global_scale is None
            else global_scale, infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32,
                                data_type=dtypes.float8_e4m3fn,
                                scale_type=dtypes.float8_e8m0fnu, global_scale=None,
                                infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _as_tuples(dimension_numbers):
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    return (tuple(lhs_contract), tuple(rhs_contract)), (tuple(lhs_batch), tuple(rhs_batch))


def _with_batch_dim(lhs, rhs, dimension_numbers):
    """Operands without batch dimensions get a trailing size-1 one (the quantized
    product is batched)."""
    contracting, (lhs_batch, rhs_batch) = dimension_numbers
    if lhs_batch == ():
        lhs, lhs_batch = jnp.expand_dims(lhs, axis=lhs.ndim), (lhs.ndim,)
    if rhs_batch == ():
        rhs, rhs_batch = jnp.expand_dims(rhs, axis=rhs.ndim), (rhs.ndim,)
    return lhs, rhs, (contracting, (lhs_batch, rhs_batch))


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` of ``lhs`` and ``rhs`` quantized block-wise as ``configs``
    say (one ``BlockScaleConfig`` each for lhs, rhs and the incoming gradient; see
    ``get_scaled_dot_general_config``), with a straight-through gradient. Without
    ``configs`` it is ``lax.dot_general``."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    if preferred_element_type not in (np.dtype("float32"), np.dtype("bfloat16"),
                                      np.dtype("float16")):
        raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                        "{preferred_element_type}")
    dimension_numbers = _as_tuples(dimension_numbers)
    lhs_b, rhs_b, dn_batched = _with_batch_dim(lhs, rhs, dimension_numbers)
    out = scaled_dot_general_fn(lhs_b, rhs_b, dn_batched, preferred_element_type, configs)
    if dn_batched != dimension_numbers:
        return jnp.squeeze(out, axis=0)
    return out
