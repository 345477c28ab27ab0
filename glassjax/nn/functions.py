"""Activation functions, softmax, standardization and one-hot encoding, as ``jax.nn``.

Each function is built the way JAX builds it -- most are small ``jit`` functions (so a
jaxpr shows ``jit[name=softplus ...]``), ``sigmoid`` is an inlined jit (just
``logistic``), and a few carry a ``custom_jvp`` for a better-behaved derivative
(``relu``'s gradient at 0 is 0, ``log1mexp``'s is ``1 / expm1(x)``) -- so values,
gradients and jaxprs read like JAX's.
"""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.config import config
from glassjax import numpy as jnp
from glassjax.custom_derivatives import custom_jvp
from glassjax.jit import jit
from glassjax.mesh import PartitionSpec as P
from glassjax.named_sharding import NamedSharding, typeof_sharding
from glassjax.nn.special import logsumexp
from glassjax.numpy.reductions import _count
from glassjax.numpy.util import (check_arraylike, check_arraylike_or_none, ensure_arraylike,
                                 promote_args_inexact)

tanh = jnp.tanh


@jit
def identity(x):
    """``x`` unchanged (as an array)."""
    return ensure_arraylike("identity", x)


# ----------------------------------------------------------------------------------------
# Rectifiers
# ----------------------------------------------------------------------------------------

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
def elu(x, alpha=1.0):
    """``x`` where positive, else ``alpha * (exp(x) - 1)`` (the inner ``where`` keeps
    ``expm1`` of large positive x out of the gradient)."""
    x_arr = ensure_arraylike("elu", x)
    return jnp.where(x_arr > 0, x_arr, alpha * jnp.expm1(jnp.where(x_arr > 0, 0., x_arr)))


@jit
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@jit
def selu(x):
    """Scaled ELU with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


# ----------------------------------------------------------------------------------------
# Smooth rectifiers and sigmoids
# ----------------------------------------------------------------------------------------

@jit
def softplus(x):
    """``log(1 + exp(x))``, computed without overflow."""
    return jnp.logaddexp(x, 0)


@jit
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``: an algebraic softplus."""
    x, b = ensure_arraylike("squareplus", x, b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def sparse_plus(x):
    """0 below -1, ``x`` above 1, and the parabola ``(x + 1)**2 / 4`` joining them."""
    x = ensure_arraylike("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x):
    """``x / (|x| + 1)``."""
    x_arr = ensure_arraylike("soft_sign", x)
    return x_arr / (jnp.abs(x_arr) + 1)


@jit(inline=True)
def sigmoid(x):
    """``1 / (1 + exp(-x))`` (the logistic primitive; inlined, so no ``jit`` shows)."""
    return lax.logistic(x)


@jit
def sparse_sigmoid(x):
    """0 below -1, 1 above 1, linear between: the derivative of ``sparse_plus``."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@jit
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return relu6(x + 3.) / 6.


@jit
def log_sigmoid(x):
    """``log(sigmoid(x))`` as ``-softplus(-x)``."""
    x_arr = ensure_arraylike("log_sigmoid", x)
    return -softplus(-x_arr)


@jit
def silu(x):
    """``x * sigmoid(x)``."""
    x_arr = ensure_arraylike("silu", x)
    return x_arr * sigmoid(x_arr)


swish = silu


@jit
def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x_arr = ensure_arraylike("hard_silu", x)
    return x_arr * hard_sigmoid(x_arr)


hard_swish = hard_silu


@jit
def mish(x):
    """``x * tanh(softplus(x))``."""
    x_arr = ensure_arraylike("mish", x)
    return x_arr * jnp.tanh(softplus(x_arr))


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit: ``x * Phi(x)``, or its tanh approximation."""
    x_arr = jnp.asarray(*promote_args_inexact("gelu", x))
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x_arr.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x_arr + 0.044715 * (x_arr ** 3))))
        return x_arr * cdf
    sqrt_half = np.sqrt(0.5).astype(x_arr.dtype)
    return jnp.array(0.5 * x_arr * lax.erfc(-x_arr * sqrt_half), dtype=x_arr.dtype)


@jit(static_argnames=("axis",))
def glu(x, axis: int = -1):
    """Gated linear unit: split ``x`` in halves ``a, b`` along ``axis``, return
    ``a * sigmoid(b)``."""
    x_arr = ensure_arraylike("glu", x)
    assert x_arr.shape[axis] % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x_arr, 2, axis)
    return x1 * sigmoid(x2)


@custom_jvp
@jit
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0``: ``log(-expm1(-x))`` near 0, ``log1p(-exp(-x))``
    beyond ``log 2`` (each form is accurate on its side)."""
    x = ensure_arraylike("log1mexp", x)
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


# ----------------------------------------------------------------------------------------
# Normalizations
# ----------------------------------------------------------------------------------------

@jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``logsumexp(x) - log(n)``, ``n`` the number of (selected) elements reduced."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    count = _count(x, axis, keepdims, where, lse.dtype)
    return lse - jnp.log(count)


@jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``, shifted by the maximum for stability. Masked
    out elements (``where`` False) give -inf."""
    x_arr = ensure_arraylike("log_softmax", x)
    x_max = jnp.max(x_arr, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x_arr if where is None else jnp.where(where, x_arr, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where,
                                        keepdims=True))
    result = shifted - shifted_logsumexp
    return result if where is None else jnp.where(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum; masked out
    elements give 0. By default (as in JAX 0.10.2) differentiated through its operations
    with the maximum's gradient stopped; with ``jax_softmax_custom_jvp`` by its own rule
    ``y * (dx - sum(y * dx))``, which keeps fewer intermediates."""
    if config.jax_softmax_custom_jvp:
        return _softmax(x, axis, where)
    return _softmax_deprecated(x, axis, where)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x, axis=-1, where=None, initial=-np.inf):
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


def _softmax_deprecated(x, axis=-1, where=None, initial=-np.inf):
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


@jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` with the statistics over ``axis``.
    ``algorithm="fast"`` takes the variance as ``E[x^2] - E[x]^2`` (clipped at 0),
    ``"stable"`` as ``E[(x - E[x])^2]``."""
    check_arraylike("standardize", x)
    check_arraylike_or_none("standardize", mean, variance, where)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True,
                                where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(
                f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


# ----------------------------------------------------------------------------------------
# One-hot encoding
# ----------------------------------------------------------------------------------------

def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
    """``x[..., None] == arange(num_classes)`` as ``dtype`` (indices out of range give
    all zeros), with the new axis at ``axis``."""
    num_classes = core.concrete_dim_or_error(
        num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
    x_arr = jnp.asarray(x)
    if not dtypes.issubdtype(x_arr.dtype, np.integer):
        warnings.warn("jax.nn.one_hot input should be integer-typed; got "
                      f"dtype={x_arr.dtype}", DeprecationWarning, stacklevel=2)
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    return _one_hot(x_arr, num_classes, dtype=dtype, axis=axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    axis = operator.index(axis)
    output_pos_axis = axis % (x.ndim + 1)
    lhs = lax.expand_dims(x, (axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(output_pos_axis, num_classes)
    # (the classes are whole on every device of x's mesh, as JAX types them)
    over = typeof_sharding(core.get_aval(x))
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, output_pos_axis, out_sharding=None
                               if over is None else NamedSharding(over.mesh,
                                                                  P(*[None] * (x.ndim + 1))))
    return (lhs == rhs).astype(dtype)
