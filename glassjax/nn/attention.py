"""``jax.nn.dot_product_attention``: scaled dot-product attention, the XLA
implementation (softmax of ``q k^T * scale`` plus bias and masks, times ``v``).

Layout ``[batch, length, heads, head_dim]``. Grouped-query attention (fewer key/value
heads than query heads) vmaps the core over the query heads of each group.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes, lax
from glassjax import numpy as jnp
from glassjax.nn.functions import softmax
from glassjax.nn.special import logsumexp
from glassjax.vmap_api import vmap


def _large_negative(dtype):
    """A finite stand-in for -inf, so that fully masked rows stay NaN-free."""
    dtype_max = min(dtypes.finfo(dtype).max, dtypes.finfo(np.float32).max)
    return jnp.asarray(-0.7 * dtype_max, dtype=dtype)


def _causal_mask(T, S):
    return jnp.tril(jnp.ones((T, S), dtype=bool))[None, None, :, :]


def _window_mask(T, S, local_window_size):
    query_pos, key_pos = jnp.array(range(T)), jnp.array(range(S))
    left_window, right_window = local_window_size
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left_window
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right_window
    return jnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _padding_mask_logits(T, S, q_seqlen, kv_seqlen):
    q_mask = kv_mask = True
    if q_seqlen is not None:
        q_mask = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return jnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    if (mask is None and not is_causal and q_seqlen is None and kv_seqlen is None
            and local_window_size is None):
        return logits
    combined = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = jnp.logical_and(combined, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        combined = jnp.logical_and(combined, _causal_mask(T, S))
    if local_window_size is not None:
        combined = jnp.logical_and(combined, _window_mask(T, S, local_window_size))
    if q_seqlen is not None or kv_seqlen is not None:
        combined = jnp.logical_and(combined, _padding_mask_logits(T, S, q_seqlen, kv_seqlen))
    return jnp.where(combined, logits, _large_negative(logits.dtype))


def _attention_core(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                    local_window_size, return_residual):
    """Attention for one query head per key/value head (``BTNH``, ``BSNH``)."""
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits *= jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded_logits = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen,
                                 local_window_size).astype(np.float32)
    probs = softmax(padded_logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:      # padded queries give zeros
        q_mask = jnp.arange(0, encoded.shape[1])[None, :] < q_seqlen[:, None]
        encoded *= q_mask[:, :, None, None].astype(encoded.dtype)
    if return_residual:
        lse = logsumexp(padded_logits, axis=-1).astype(key.dtype)
        return encoded, lax.stop_gradient(jnp.transpose(lse, (0, 2, 1)))
    return encoded


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   local_window_size, return_residual):
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def grouped(t):
        """Bias/mask ``[B, N or 1, T, S]`` split into ``[B, K, G, T, S]``."""
        if t is None:
            return t
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
        return jnp.reshape(t, (tB, K, G, tT, tS))
    out = vmap(_attention_core, in_axes=(3, None, None, 2, 2, None, None, None, None, None,
                                         None), out_axes=3)(
        query, key, value, grouped(bias), grouped(mask), is_causal, scale, q_seqlen,
        kv_seqlen, local_window_size, return_residual)
    if return_residual:
        encoded, lse = out
        return jnp.reshape(encoded, (B, T, N, H)), jnp.reshape(lse, (B, T, N))
    return jnp.reshape(out, (B, T, N, H))


def _check_shape_and_dtype(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
    """``softmax(q k^T / sqrt(head_dim) + bias, masked) v`` for ``[B, T, N, H]`` queries
    and ``[B, S, K, H]`` keys/values (``N`` a multiple of ``K``; leading axes may be
    omitted). Masks: a boolean ``mask``, ``is_causal``, sequence lengths, a local
    window. ``return_residual`` also returns the softmax's log-sum-exp."""
    output_shape = jnp.asarray(query).shape

    def ensure_4d(t):
        t = jnp.asarray(t)
        return jnp.expand_dims(t, axis=tuple(range(4 - t.ndim))) if t.ndim < 4 else t
    query_arr, key_arr, value_arr = ensure_4d(query), ensure_4d(key), ensure_4d(value)
    bias = ensure_4d(bias) if bias is not None else None
    mask = ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = key_arr.shape
    _check_shape_and_dtype(value_arr, [B, S, K, H], key_arr.dtype, "value")
    _check_shape_and_dtype(query_arr, [B, -1, -1, H], key_arr.dtype, "query")
    _check_shape_and_dtype(mask, [-1] * 4, np.dtype(bool), "mask")
    _check_shape_and_dtype(bias, [-1] * 4, None, "bias")
    _check_shape_and_dtype(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check_shape_and_dtype(key_value_seq_lengths, [B], np.dtype("int32"),
                           "key_value_seq_lengths")
    if query_arr.shape[-2] % K != 0:
        raise ValueError("The number of query heads must be a multiple of key/value heads, "
                         f"but got {query_arr.shape[-2]} vs {K}")
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("the cudnn implementation needs a GPU; glassjax runs "
                                      "attention with implementation='xla'")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
    out = _attention_xla(query_arr, key_arr, value_arr, bias, mask, is_causal, scale_val,
                         query_seq_lengths, key_value_seq_lengths, local_window_size,
                         return_residual)
    if return_residual:
        out, residual = out
        return jnp.reshape(out, output_shape), jnp.reshape(residual, output_shape[:-1])
    return jnp.reshape(out, output_shape)
