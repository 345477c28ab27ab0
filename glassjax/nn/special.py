"""``logsumexp``: the numerically stable ``log(sum(b * exp(a)))`` shared by ``glassjax.nn``
and ``glassjax.scipy.special`` (JAX keeps it in ``jax._src.ops.special``).

It lives below both packages so that ``scipy.special`` can import ``nn`` (for ``softmax``)
without a cycle.
"""
from __future__ import annotations

import numpy as np

from glassjax import lax
from glassjax import numpy as jnp
from glassjax.numpy.reductions import _reduction_dims
from glassjax.numpy.util import promote_args_inexact


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
    """``log(sum(b * exp(a), axis))``, computed as ``m + log(sum(b * exp(a - m)))`` with
    ``m`` the (constant, gradient-stopped) finite maximum, so nothing overflows.

    With ``return_sign`` the result is ``(log|sum|, sign(sum))``; otherwise a negative
    sum (possible with negative ``b``) gives NaN.
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    # (jnp.asarray: glassjax's promotion leaves Python scalars as Python scalars.)
    if b is not None:
        a_arr, b_arr = map(jnp.asarray, promote_args_inexact("logsumexp", a, b))
        a_arr = jnp.where(b_arr != 0, a_arr, -np.inf)    # b == 0 terms contribute nothing
    else:
        a_arr = jnp.asarray(*promote_args_inexact("logsumexp", a))
    dims = _reduction_dims(a_arr, axis)
    amax = jnp.max(a_arr.real, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, dims)

    exp_a = lax.exp(lax.sub(a_arr, amax_with_dims.astype(a_arr.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b_arr)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    is_complex = np.issubdtype(a_arr.dtype, np.complexfloating)
    if return_sign or not is_complex:
        sumexp = abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out
