"""``glassjax.nn``: activation functions, softmax and one-hot encoding, as ``jax.nn``.

Each function is built the way JAX builds it -- most are small ``jit`` functions, a few
carry a ``custom_jvp`` for a better-behaved derivative (``relu``'s gradient at 0 is 0,
``softmax``'s is computed from its output) -- so their jaxprs read like JAX's.
"""
from __future__ import annotations

import operator

import numpy as np

from glassjax import core, dtypes, lax
from glassjax import numpy as jnp
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.numpy.util import ensure_arraylike, promote_args_inexact

__all__ = ["elu", "gelu", "hard_tanh", "leaky_relu", "log_sigmoid", "log_softmax",
           "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "softmax", "softplus",
           "swish", "tanh"]

tanh = jnp.tanh


@custom_jvp
@jit
def relu(x):
    """``max(x, 0)``, with gradient 0 at 0."""
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
@jit
def relu6(x):
    """``min(max(x, 0), 6)``, with gradient 0 at 0 and 6."""
    return jnp.minimum(jnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x:
              lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@jit
def softplus(x):
    """``log(1 + exp(x))``, computed without overflow."""
    return jnp.logaddexp(x, 0)


@jit(inline=True)
def sigmoid(x):
    """``1 / (1 + exp(-x))`` (the logistic primitive)."""
    return lax.logistic(x)


@jit
def silu(x):
    """``x * sigmoid(x)``."""
    x_arr = ensure_arraylike("silu", x)
    return x_arr * sigmoid(x_arr)


swish = silu


@jit
def log_sigmoid(x):
    """``log(sigmoid(x))`` as ``-softplus(-x)``."""
    x_arr = ensure_arraylike("log_sigmoid", x)
    return -softplus(-x_arr)


@jit
def elu(x, alpha=1.0):
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    x_arr = ensure_arraylike("elu", x)
    return jnp.where(x_arr > 0, x_arr, alpha * jnp.expm1(jnp.where(x_arr > 0, 0., x_arr)))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """``x`` where nonnegative, else ``negative_slope * x``."""
    x_arr = ensure_arraylike("leaky_relu", x)
    return jnp.where(x_arr >= 0, x_arr, negative_slope * x_arr)


@jit
def hard_tanh(x):
    """``x`` clipped to [-1, 1]."""
    x_arr = ensure_arraylike("hard_tanh", x)
    return jnp.where(x_arr > 1, 1, jnp.where(x_arr < -1, -1, x_arr))


@jit
def selu(x):
    """Scaled ELU with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit: ``x * Phi(x)``, or its tanh approximation."""
    [x_arr] = promote_args_inexact("gelu", x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x_arr.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x_arr + 0.044715 * (x_arr ** 3))))
        return x_arr * cdf
    sqrt_half = np.sqrt(0.5).astype(x_arr.dtype)
    return jnp.array(0.5 * x_arr * lax.erfc(-x_arr * sqrt_half), dtype=x_arr.dtype)


@jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``, shifted by the maximum for stability."""
    x_arr = ensure_arraylike("log_softmax", x)
    x_max = jnp.max(x_arr, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x_arr if where is None else jnp.where(where, x_arr, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where,
                                        keepdims=True))
    result = shifted - shifted_logsumexp
    return result if where is None else jnp.where(where, result, -np.inf)


def softmax(x, axis=-1, where=None, initial=-np.inf):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the (constant) maximum. (JAX
    0.10.2's default; its ``jax_softmax_custom_jvp`` variant is not provided.)"""
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
    """``x[..., None] == arange(num_classes)`` as ``dtype`` (indices out of range give
    all zeros), with the new axis at ``axis``."""
    num_classes = core.concrete_dim_or_error(
        num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    return _one_hot(jnp.asarray(x), num_classes, dtype=dtype, axis=axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    axis = operator.index(axis)
    output_pos_axis = axis % (x.ndim + 1)
    lhs = lax.expand_dims(x, (axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(output_pos_axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, output_pos_axis)
    return (lhs == rhs).astype(dtype)
