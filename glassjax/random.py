"""``glassjax.random``: JAX's counter-based pseudo-random numbers, bit for bit.

There is no hidden generator state: every random array is a pure function of a *key*
(see ``glassjax.prng``: threefry2x32, keys of dtype ``key<fry>``). Functions accept both
typed keys (``random.key(0)``) and raw ``uint32[2]`` keys (``random.PRNGKey(0)``); a raw
key is wrapped on entry (``random_wrap``) and keys returned for a raw key are raw again
(``random_unwrap``), which is what jaxprs show.

Every sampler is built as JAX builds it, from ``random_bits`` and the same arithmetic in
the same order, inside ``jit``-ed helpers of the same names (``_uniform``, ``_normal``,
...): so the same key gives the same numbers and ``make_jaxpr`` prints the same program.
Floating-point samples start from ``uniform``: random mantissa bits under the exponent of
1.0 (a float in [1, 2)) minus 1; the other distributions transform uniforms (``normal``
through ``erf_inv``, ``exponential`` through ``log1p``, ...), or loop until a proposal is
accepted (``gamma``, ``poisson``, ``binomial``).
"""
from __future__ import annotations

import functools
import inspect
import math
import operator
import warnings
from collections.abc import Sequence
from functools import partial

import numpy as np

from glassjax import core, dtypes, lax, nn, prng
from glassjax.config import config
from glassjax import numpy as jnp
from glassjax.interpreters import ad, batching
from glassjax.jit import jit
from glassjax.lax import elementwise as lax_elementwise, utils as lax_utils
from glassjax.lax.sharding_constraint import reshard
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.numpy import util as jnp_util
from glassjax.prng import PRNGImpl
from glassjax.vmap_api import vmap
from glassjax.xla import dispatch, lowering

__all__ = ["PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical",
           "cauchy", "chisquare", "choice", "clone", "dirichlet", "double_sided_maxwell",
           "exponential", "f", "fold_in", "gamma", "generalized_normal", "geometric",
           "gumbel", "key", "key_data", "key_dtype", "key_impl", "laplace", "loggamma",
           "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal",
           "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher",
           "randint", "random_gamma_p", "rayleigh", "split", "t", "triangular", "truncated_normal", "uniform", "wald",
           "weibull_min", "wrap_key_data"]

UINT_DTYPES = prng.UINT_DTYPES


def __dir__():
    """The public API only, as ``dir(jax.random)`` lists it (this module also holds the
    implementation's helpers)."""
    return __all__


# ----------------------------------------------------------------------------------------
# Checking arguments
# ----------------------------------------------------------------------------------------

def _is_key(x) -> bool:
    return dtypes.issubdtype(getattr(x, "dtype", None) or np.float32, dtypes.prng_key)


def _check_prng_key(name, key, *, allow_batched=False):
    """A typed key, and whether it was a raw ``uint32`` key wrapped here."""
    if _is_key(key):
        wrapped_key, wrapped = key, False
    elif jnp_util.is_array(key) or isinstance(key, (np.ndarray, np.generic)):
        wrapped_key, wrapped = prng.random_wrap(jnp.asarray(key),
                                                impl=default_prng_impl()), True
    elif np.isscalar(key):    # e.g. random.uniform(0, ...): the key-data check names it
        wrapped_key, wrapped = prng.random_wrap(key, impl=default_prng_impl()), True
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if wrapped:
        _check_legacy_key()
    if not allow_batched and wrapped_key.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of "
                         f"shape {np.shape(key)} != (). Use jax.vmap for batching.")
    return wrapped_key, wrapped


_LEGACY_KEY_MESSAGE = (
    "Legacy uint32 key array passed as key to jax.random function. Please create keys "
    "using jax.random.key(). If use of a raw key array was intended, set "
    'jax_legacy_prng_key="allow".')


def _check_legacy_key():
    """A raw uint32 key was given: ``jax_legacy_prng_key`` says whether that is fine
    ("allow"), worth a warning ("warn") or an error ("error")."""
    if config.jax_legacy_prng_key == "error":
        raise ValueError(_LEGACY_KEY_MESSAGE)
    if config.jax_legacy_prng_key == "warn":
        warnings.warn(_LEGACY_KEY_MESSAGE, stacklevel=3)
    elif config.jax_enable_custom_prng:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning)


def _return_prng_keys(was_wrapped, key):
    """Keys made from raw keys are returned raw, unless ``jax_enable_custom_prng``."""
    if config.jax_enable_custom_prng:
        return key
    return prng.random_unwrap(key) if was_wrapped else key


def _canonicalize_shape(shape):
    return lax_utils.canonicalize_shape(shape)


def _check_shape(name, shape, *param_shapes):
    if param_shapes:
        shape_ = jnp.broadcast_shapes(shape, *param_shapes)
        if shape != shape_:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with "
                             "shape argument, and the result of broadcasting the shapes "
                             f"must equal the shape argument, but got result {shape_} for "
                             f"shape argument {shape}.")


def _check_broadcast_shapes(name, shape, *args):
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return jnp.broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = _canonicalize_shape(shape)
    _check_shape(name, shape, *arg_shapes)
    return shape


def _check_all_safe_to_cast(name, dtype, *args):
    """Parameters must convert to the sample dtype without losing range (float64 into
    float32 is not safe when x64 is on; Python scalars always are)."""
    for arg in args:
        if type(arg) in dtypes.python_scalar_dtypes or dtypes.is_weakly_typed(arg):
            continue
        arg_dtype = dtypes.dtype(arg, canonicalize=True)
        if jnp.result_type(arg_dtype, dtype) != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{arg_dtype} to {dtype}")


def _float_dtype(name, dtype, kinds=np.floating, what="a float dtype"):
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, kinds):
        raise ValueError(f"dtype argument to `{name}` must be {what}, got {dtype}")
    return dtype


def _sampler_args(name, key, shape, dtype, *params, kinds=np.floating,
                  what="a float dtype"):
    """The checks a sampler starts with: one key, a float dtype, a shape (that its
    parameters, if any, broadcast to), parameters that cast to that dtype safely.
    Returns ``(key, shape, dtype)``."""
    key, _ = _check_prng_key(name, key)
    dtype = _float_dtype(name, dtype, kinds, what)
    shape = (_check_broadcast_shapes(name, shape, *params) if params else
             _canonicalize_shape(shape))
    _check_all_safe_to_cast(name, dtype, *params)
    return key, shape, dtype


def _with_out_sharding(sampler):
    """The sampler with JAX's ``out_sharding=`` keyword: a layout (a NamedSharding, or a
    PartitionSpec over the ``set_mesh`` mesh) for the result, which is drawn whole and
    then resharded; a traced key is first resharded whole onto the mesh, as JAX's
    ``auto_axes`` does (an eager one is used where it is). The numbers do not depend on it (as in JAX, whose threefry is
    partitionable: where a number lands does not change it). A NamedSharding over the
    empty mesh (``jax.typeof(x).sharding`` outside any mesh) asks for nothing."""
    @functools.wraps(sampler)
    def sample(key, *args, out_sharding=None, **kwargs):
        if out_sharding is None or (isinstance(out_sharding, NamedSharding)
                                    and out_sharding.mesh.empty):
            # (A sharding on no mesh, such as ``jax.typeof(x).sharding`` outside any
            # mesh, asks for nothing: JAX canonicalizes it to None.)
            return sampler(key, *args, **kwargs)
        if isinstance(key, core.Tracer):
            mesh = out_sharding.mesh if isinstance(out_sharding, NamedSharding) else None
            key = reshard(key, PartitionSpec() if mesh is None
                          else NamedSharding(mesh, PartitionSpec()))
        return reshard(sampler(key, *args, **kwargs), out_sharding)
    signature = inspect.signature(sampler)
    sample.__signature__ = signature.replace(parameters=[
        *signature.parameters.values(),
        inspect.Parameter("out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return sample


def _standard_sampler(draw, doc):
    """``name(key, shape=(), dtype=None)`` for a distribution with no
    parameters of its own: the checks of ``_sampler_args``, then ``draw`` (named
    ``_name``) jitted, as JAX's jaxprs show it."""
    name = draw.__name__.lstrip("_")
    drawn = jit(draw, static_argnums=(1, 2))

    def sample(key, shape=(), dtype=None):
        return drawn(*_sampler_args(name, key, shape, dtype))
    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = doc
    return sample


_const = lax_elementwise._const


def _isnan(x):
    return lax.ne(x, x)


# ----------------------------------------------------------------------------------------
# Keys
# ----------------------------------------------------------------------------------------

def default_prng_impl() -> PRNGImpl:
    """The implementation named by ``jax_default_prng_impl`` (threefry2x32 unless set)."""
    name = config.jax_default_prng_impl
    if name not in prng.prngs:
        raise NotImplementedError(
            f"jax_default_prng_impl={name!r}: glassjax implements only "
            f"{', '.join(prng.prngs)}")
    return prng.prngs[name]


def _resolve_prng_impl(impl_spec) -> PRNGImpl:
    if impl_spec is None:
        return default_prng_impl()
    if isinstance(impl_spec, PRNGImpl):
        return impl_spec
    if isinstance(impl_spec, prng.KeyTy):
        return impl_spec._impl
    if isinstance(impl_spec, str):
        if impl_spec in prng.prngs:
            return prng.prngs[impl_spec]
        names = ", ".join(f'"{s}"' for s in prng.prngs)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". Did you mean '
                         f"one of: {names}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG "
                    "implementation.")


def key_dtype(impl=None) -> prng.KeyTy:
    """The dtype of keys of a PRNG implementation (``key<fry>`` by default)."""
    return prng.KeyTy(_resolve_prng_impl(impl))


def _key(ctor_name, seed, impl_spec):
    impl = _resolve_prng_impl(impl_spec)
    if _is_key(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of "
                        f"shape {np.shape(seed)} != (). Use jax.vmap for batching")
    return prng.random_seed(seed, impl=impl)


def _impl_or_dtype(fun_name, impl, dtype):
    """The implementation a key constructor was given: ``impl``, or ``dtype`` (a key
    dtype names its implementation), never both."""
    if dtype is None:
        return impl
    if impl is not None:
        raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                         f"jax.random.{fun_name}")
    return dtype


def key(seed, *, impl=None, dtype=None):
    """A typed key (a scalar of dtype ``key<fry>``) from an integer seed."""
    return _key("key", seed, _impl_or_dtype("key", impl, dtype))


def PRNGKey(seed, *, impl=None):
    """A raw key from an integer seed: ``uint32[2]``, the seed's high and low words."""
    return _return_prng_keys(True, _key("PRNGKey", seed, impl))


def fold_in(key, data):
    """A new key from ``key`` and a 32-bit integer ``data``."""
    key, wrapped = _check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    out = prng.random_fold_in(key, jnp.asarray(data, dtype="uint32"))
    return _return_prng_keys(wrapped, out)


def _split(key, num=2):
    if key.ndim:
        raise TypeError("split accepts a single key, but was given a key array of shape "
                        f"{key.shape} != (). Use jax.vmap for batching.")
    shape = tuple(num) if isinstance(num, Sequence) else (num,)
    return prng.random_split(key, shape=shape)


def split(key, num: int | tuple = 2):
    """``num`` new keys (an array of keys of shape ``(num,)``, or ``num`` if a tuple)."""
    typed_key, wrapped = _check_prng_key("split", key)
    return _return_prng_keys(wrapped, _split(typed_key, num))


def key_impl(keys) -> str:
    """The name of the keys' PRNG implementation (``'threefry2x32'``)."""
    typed_keys, _ = _check_prng_key("key_impl", keys, allow_batched=True)
    return typed_keys.dtype._impl.name


def key_data(keys):
    """The ``uint32`` words underlying keys (shape ``(*keys.shape, 2)``)."""
    keys, _ = _check_prng_key("key_data", keys, allow_batched=True)
    return prng.random_unwrap(keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys overlaying ``uint32`` words of shape ``(..., 2)``."""
    impl = _impl_or_dtype("wrap_key_data", impl, dtype)
    return prng.random_wrap(key_bits_array, impl=_resolve_prng_impl(impl))


random_clone_p = core.Primitive("random_clone")
random_clone_p.def_impl(partial(dispatch.apply_primitive, random_clone_p))   # a new array
random_clone_p.def_abstract_eval(lambda key: key)
batching.defvectorized(random_clone_p)
lowering.register_lowering(random_clone_p, lambda ctx, key: key,
                           handles_extended_dtypes=True)


def clone(key):
    """The same key as a new, fresh value: with ``jax_debug_key_reuse`` the clone may be
    consumed without consuming ``key`` (``key_reuse.py``)."""
    return random_clone_p.bind(key)


# ----------------------------------------------------------------------------------------
# Bits, uniforms and integers
# ----------------------------------------------------------------------------------------

def _random_bits(key, bit_width, shape):
    return prng.random_bits(key, bit_width=bit_width, shape=shape)


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers (``uint32`` by default)."""
    key, _ = _check_prng_key("bits", key)
    dtype = dtypes.canonicalize_dtype(np.uint64) if dtype is None else \
        dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got "
                         f"{dtype}")
    return _random_bits(key, dtype.itemsize * 8, _canonicalize_shape(shape))


def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Samples uniform in ``[minval, maxval)``."""
    key, _ = _check_prng_key("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    return _uniform(key, minval, maxval, _canonicalize_shape(shape), dtype)


@jit(static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits        # at least 8 random bits per sample
    bits = _random_bits(key, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint_dtype)
    # Random mantissa under the exponent of 1.0: a float in [1, 2), then minus 1.
    float_bits = lax.shift_right_logical(bits, jnp.array(rng_bits - nmant, uint_dtype))
    float_bits = lax.bitwise_or(float_bits, jnp.asarray(
        np.array(1.0, dtype).view(uint_dtype), dtype=uint_dtype))
    floats = lax.bitcast_convert_type(float_bits, dtype) - jnp.array(1., dtype)
    return lax.max(minval, lax.reshape(floats * (maxval - minval) + minval, shape))


def _convert_and_clip_integer(val, dtype):
    """``val`` converted to the integer ``dtype``, clipped to its range (not wrapped)."""
    lo = max(dtypes.iinfo(dtype).min, dtypes.iinfo(val.dtype).min)
    hi = min(dtypes.iinfo(dtype).max, dtypes.iinfo(val.dtype).max)
    return jnp.clip(val, _const(val, lo), _const(val, hi)).astype(dtype)


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)``: twice the dtype's bits of randomness reduced
    modulo the span (narrow dtypes are sampled as int32, for less bias)."""
    key, _ = _check_prng_key("randint", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = _canonicalize_shape(shape)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sampling_dtype = dtype
    if info.bits < 32:
        sampling_dtype = np.dtype("int32")
        minval = jnp.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
        maxval = jnp.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, shape, sampling_dtype).astype(dtype)


@jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    _check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    jnp_util.check_arraylike("randint", minval, maxval)
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # maxval beyond the dtype (randint(k, (), 0, 256, uint8)) widens the span by one.
    maxval_out_of_range = lax.gt(maxval, _convert_and_clip_integer(
        jnp.array(dtypes.iinfo(dtype).max, dtype), maxval.dtype))
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split(key)
    higher_bits, lower_bits = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    span = lax.convert_element_type(maxval - minval, UINT_DTYPES[nbits])
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    span = lax.select(maxval_out_of_range & (maxval > minval),
                      lax.add(span, _const(span, 1)), span)
    # (higher * 2**nbits + lower) % span without overflow: 2**nbits % span, squared.
    multiplier = lax.rem(_const(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier),
                     lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


# ----------------------------------------------------------------------------------------
# Permutations and choices
# ----------------------------------------------------------------------------------------

def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (an int) or of ``x`` along ``axis``."""
    key, _ = _check_prng_key("permutation", key)
    jnp_util.check_arraylike("permutation", x)
    axis = lax_utils.canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(dtypes.dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = core.concrete_or_error(int, x, "argument x of jax.random.permutation()")
        return _shuffle(key, jnp.arange(r), axis)
    if independent or np.ndim(x) == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, ind, axis, unique_indices=True)


@jit(static_argnums=(2,))
def _shuffle(key, x, axis):
    """Sort by random 32-bit keys, in as many rounds as make ties unlikely."""
    uint32max = dtypes.iinfo(np.uint32).max
    num_rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(uint32max)))
    for _ in range(num_rounds):
        key, subkey = _split(key)
        sort_keys = _random_bits(subkey, 32, x.shape)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Samples from ``a`` (an array, or ``arange(a)`` for an int), uniformly or with
    probabilities ``p``, with or without replacement."""
    key, _ = _check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError("shape argument of jax.random.choice must be a sequence, got "
                        f"{shape}")
    jnp_util.check_arraylike("choice", a)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = core.concrete_or_error(int, a, "The error occurred in jax.random.choice()")
    else:
        axis = lax_utils.canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        jnp_util.check_arraylike("choice", p)
        p_arr, = jnp_util.promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as "
                             f"a.shape[axis]. p has shape {p_arr.shape} and a.shape[axis] "
                             f"is {n_inputs}.")
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = jnp.searchsorted(p_cuml, r).astype(int)
        else:
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = lax.top_k(g, k=n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


# ----------------------------------------------------------------------------------------
# Continuous distributions from uniforms
# ----------------------------------------------------------------------------------------

def normal(key, shape=(), dtype=None):
    """Standard normal samples (complex dtypes: real and imaginary parts each with
    variance 1/2)."""
    key, _ = _check_prng_key("normal", key)
    dtype = _float_dtype("normal", dtype, np.inexact, "a float or complex dtype")
    return _normal(key, _canonicalize_shape(shape), dtype)


@jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        sqrt2 = np.array(np.sqrt(2), dtype)
        key_re, key_im = _split(key)
        real_dtype = np.array(0, dtype).real.dtype
        re = _normal_real(key_re, shape, real_dtype).astype(dtype)
        im = _normal_real(key_im, shape, real_dtype).astype(dtype)
        return (re + 1j * im) / sqrt2
    return _normal_real(key, shape, dtype)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(``mean``, ``cov``): ``mean + factor @ z`` for standard normal ``z``
    and a ``factor`` with ``factor @ factor.T == cov`` (Cholesky, or from ``eigh`` /
    ``svd``)."""
    key, _ = _check_prng_key("multivariate_normal", key)
    mean, cov = jnp_util.promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    if dtype is None:
        dtype = mean.dtype
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError("dtype argument to `multivariate_normal` must be a float dtype, "
                         f"got {dtype}")
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@jit(static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if not np.ndim(mean) >= 1:
        raise ValueError("multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError("multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = jnp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    normal_samples = normal(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, normal_samples)


@jit(static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    """``sqrt(2) * erfinv(u)`` for ``u`` uniform in (-1, 1)."""
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    hi = np.array(1.0, dtype)
    u = uniform(key, shape, dtype, lo, hi)
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Random ``n x m`` matrices with orthonormal columns (rows if ``n < m``), uniform
    under the Haar measure: the QR of a Gaussian matrix, with R's diagonal signs moved
    into Q (Mezzadri 2007)."""
    shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("orthogonal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    n = core.concrete_or_error(operator.index, n, "The error occurred in "
                               "jax.random.orthogonal()")
    m = n if m is None else core.concrete_or_error(operator.index, m, "The error occurred "
                                                   "in jax.random.orthogonal()")
    return _orthogonal(key, n, m, shape, dtype)


@jit(static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    z = normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp.linalg.qr(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    x = q * jnp.expand_dims(jnp.sign(d), -2)
    return jnp.swapaxes(x, -1, -2) if n < m else x


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal samples conditioned on ``lower < x < upper`` (inverse-CDF sampling)."""
    if shape is not None:
        shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    return _truncated_normal(key, lower, upper, shape, dtype)


@jit(static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = jnp.broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax.erf_inv(u)
    # Rounding may land on the bounds; the samples must lie strictly inside.
    return jnp.clip(out,
                    lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype=dtype)),
                    lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype=dtype)))


def bernoulli(key, p=0.5, shape=None, mode: str = "low"):
    """Booleans that are True with probability ``p``."""
    if shape is not None:
        shape = _canonicalize_shape(shape)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key, _ = _check_prng_key("bernoulli", key)
    dtype = dtypes.dtype(p, canonicalize=True)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, shape=shape, mode=mode)


@jit(static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    dtype = dtypes.dtype(p)
    if mode == "high":       # two uniforms: resolution below the float's epsilon
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 *= 2 ** -dtypes.finfo(dtype).nmant
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


def _cauchy(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).eps, maxval=1.)
    return lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))


cauchy = _standard_sampler(_cauchy, """Standard Cauchy samples: ``tan(pi * (u - 1/2))``.""")


def _exponential(key, shape, dtype):
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


exponential = _standard_sampler(_exponential, """Standard exponential samples: ``-log(1 - u)``.""")


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples: ``-log(-log(u))`` (``mode='high'``: more resolution
    near 1, from two uniforms)."""
    key, _ = _check_prng_key("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(key, _canonicalize_shape(shape), dtype, mode)


@jit(static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    info = dtypes.finfo(dtype)
    if mode == "high":
        high, low = _uniform(key, minval=0., maxval=1., shape=(2,) + shape, dtype=dtype)
        x = jnp.where(high >= 0.5, high, high + 2 ** -info.nmant * low + info.tiny)
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(_uniform(key, minval=info.tiny, maxval=1., shape=shape,
                                      dtype=dtype)))


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis``: the
    Gumbel-max trick (top-k of perturbed logits without replacement)."""
    key, _ = _check_prng_key("categorical", key)
    jnp_util.check_arraylike("categorical", logits)
    logits_arr = jnp.asarray(logits)
    batch_shape = tuple(np.delete(logits_arr.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _canonicalize_shape(shape)
        _check_shape("categorical", shape, batch_shape)
    shape_prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        if axis >= 0:
            axis -= len(logits_arr.shape)
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % len(logits_arr.shape), logits_arr.shape[axis])
        noise = gumbel(key, (*shape_prefix, *logits_shape), logits_arr.dtype, mode=mode)
        return jnp.argmax(noise + lax.expand_dims(logits_arr, tuple(range(len(shape_prefix)))),
                          axis=axis)
    logits_arr += gumbel(key, logits_arr.shape, logits_arr.dtype, mode=mode)
    k = math.prod(shape_prefix)
    if k > logits_arr.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed "
                         f"number of categories ({logits_arr.shape[axis]}).")
    _, indices = lax.top_k(jnp.moveaxis(logits_arr, axis, -1), k)
    dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax.reshape(indices, shape, dimensions)


def _laplace(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=-1. + dtypes.finfo(dtype).epsneg, maxval=1.)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


laplace = _standard_sampler(_laplace, """Standard Laplace samples: ``sign(u) * log(1 - |u|)`` for ``u`` in (-1, 1).""")


def _logistic(key, shape, dtype):
    x = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).tiny, maxval=1.)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


logistic = _standard_sampler(_logistic, """Standard logistic samples: ``log(u) - log(1 - u)``.""")


def pareto(key, b, shape=None, dtype=None):
    """Pareto samples of shape parameter ``b``: ``exp(e / b)``, ``e`` exponential."""
    key, shape, dtype = _sampler_args("pareto", key, shape, dtype, b)
    return _pareto(key, b, shape, dtype)


@jit(static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = exponential(key, shape, dtype)
    return lax.exp(e / b)


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh samples: ``scale * sqrt(-2 log u)``."""
    key, shape, dtype = _sampler_args("rayleigh", key, shape, dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


@jit(static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = jnp.broadcast_to(scale.astype(dtype), shape)
    sqrt_u = lax.sqrt(lax.mul(lax.log(u), _const(scale, -2)))
    return lax.mul(scale, sqrt_u)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples: ``(-log(1 - u)) ** (1 / concentration) * scale``."""
    key, shape, dtype = _sampler_args("weibull_min", key, shape, dtype)
    return _weibull_min(key, scale, concentration, shape, dtype)


@jit(static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    random_uniform = uniform(key=key, shape=shape, minval=0, maxval=1, dtype=dtype)
    return jnp.power(-jnp.log1p(-random_uniform), 1.0 / concentration) * scale


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (inverse CDF)."""
    key, shape, dtype = _sampler_args("triangular", key, shape, dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@jit(static_argnums=(4, 5), inline=True)
def _triangular(key, left, mode, right, shape, dtype):
    left = jnp.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = jnp.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = jnp.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """Log-normal samples: ``exp(sigma * normal)``."""
    key, shape, dtype = _sampler_args("lognormal", key, shape, dtype, sigma,
                                      kinds=np.inexact, what="a float or complex dtype")
    return _lognormal(key, sigma, shape, dtype)


@jit(static_argnums=(2, 3), inline=True)
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(normal(key, shape, dtype) * sigma)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples of mean ``mean``."""
    key, shape, dtype = _sampler_args("wald", key, shape, dtype, mean)
    return _wald(key, mean, shape, dtype)


@jit(static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = _split(key, 2)
    mean = jnp.broadcast_to(mean.astype(dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def geometric(key, p, shape=None, dtype=None):
    """Number of Bernoulli(``p``) trials up to the first success: ``floor(log u /
    log(1 - p)) + 1``."""
    key, _ = _check_prng_key("geometric", key)
    dtype = _float_dtype("geometric", int if dtype is None else dtype, np.integer,
                         "an int dtype")
    shape = _check_broadcast_shapes("geometric", shape, p)
    return _geometric(key, p, shape, dtype)


@jit(static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    jnp_util.check_arraylike("geometric", p)
    p, = jnp_util.promote_dtypes_inexact(p)
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    g = lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1
    return g.astype(dtype)


def rademacher(key, shape=(), dtype=None):
    """-1 or +1 with equal probability."""
    key, _ = _check_prng_key("rademacher", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    return _rademacher(key, _canonicalize_shape(shape), dtype)


@jit(static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    samples = bernoulli(key=key, p=0.5, shape=shape).astype(dtype)
    return (2 * samples - 1).astype(dtype)


def _maxwell(key, shape, dtype):
    norm_rvs = normal(key=key, shape=shape + (3,), dtype=dtype)
    return jnp.sqrt(jnp.sum(norm_rvs * norm_rvs, axis=-1))


maxwell = _standard_sampler(_maxwell, """Maxwell samples: the length of a 3-vector of standard normals.""")


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with a random sign, scaled and shifted."""
    key, shape, dtype = _sampler_args("double_sided_maxwell", key, shape, dtype)
    return _double_sided_maxwell(key, loc, scale, shape, dtype)


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shapes = jnp.broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (shape or params_shapes) + params_shapes
    maxwell_key, rademacher_key = _split(key)
    maxwell_rvs = maxwell(maxwell_key, shape=shape, dtype=dtype)
    random_sign = rademacher(rademacher_key, shape=shape, dtype=dtype)
    return random_sign * maxwell_rvs * scale + loc


# ----------------------------------------------------------------------------------------
# Gamma and the distributions built on it
# ----------------------------------------------------------------------------------------

def _gamma_one(key, alpha, log_space):
    """One Gamma(``alpha``) sample by Marsaglia and Tsang's rejection method (alpha < 1
    is boosted: sample Gamma(alpha + 1) and multiply by ``u ** (1 / alpha)``)."""
    zero, one, two, minus_one = (_const(alpha, v) for v in (0, 1, 2, -1))
    one_over_two, one_over_three = _const(alpha, 0.5), _const(alpha, 1. / 3.)
    squeeze_const = _const(alpha, 0.0331)
    dtype = dtypes.dtype(alpha)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_over_three)
    c = lax.div(one_over_three, lax.sqrt(d))

    def cond_fn(kXVU):
        _, X, V, U = kXVU
        # rejected when U >= 1 - 0.0331 X^2 and log U >= X/2 + d (1 - V + log V)
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(squeeze_const, lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, one_over_two),
                                       lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

    def body_fn(kXVU):
        def next_kxv(kxv):
            key, subkey = _split(kxv[0])
            x = normal(subkey, (), dtype=dtype)
            return key, x, lax.add(one, lax.mul(x, c))

        key, x_key, U_key = _split(kXVU[0], 3)
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv,
                                 (x_key, zero, minus_one))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        U = uniform(U_key, (), dtype=dtype)
        return key, X, V, U

    key, subkey = _split(key)
    _, _, V, _ = lax.while_loop(cond_fn, body_fn, (key, zero, one, two))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(boost_mask | (log_samples == 0), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = 1 - uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key, a, *, log_space, use_vmap=False):
    """One key per alpha (each key split into as many as there are alphas per key)."""
    a_shape = np.shape(a)
    split_count = math.prod(a_shape[key.ndim:])
    keys = vmap(_split, in_axes=(0, None))(key.flatten(), split_count).flatten()
    alphas = a.flatten()
    if use_vmap:
        samples = vmap(partial(_gamma_one, log_space=log_space))(keys, alphas)
    else:
        samples = lax.map(lambda args: _gamma_one(*args, log_space=log_space),
                          (keys, alphas))
    return jnp.reshape(samples, a_shape)


def _gamma_batching_rule(batched_args, batch_dims, *, log_space):
    k, a = batched_args
    bk, ba = batch_dims
    size = next(t.shape[i] for t, i in zip(batched_args, batch_dims) if i is not None)
    k = batching.bdim_at_front(k, bk, size)
    a = batching.bdim_at_front(a, ba, size)
    return random_gamma_p.bind(k, a, log_space=log_space), 0


random_gamma_p = core.Primitive("random_gamma")
random_gamma_p.def_impl(_gamma_impl)
random_gamma_p.def_abstract_eval(lambda key, a, **_: a)
lowering.register_lowering(
    random_gamma_p, lowering.lower_fun(partial(_gamma_impl, use_vmap=True)),
    handles_extended_dtypes=True)
batching.primitive_batchers[random_gamma_p] = _gamma_batching_rule


def _gamma_grad(sample, a, *, log_space):
    """``d sample / d a``, by implicit differentiation: the sample stays at the same
    probability ``P(a, sample)`` as ``a`` moves (``lax.random_gamma_grad``; in log space
    divided by the sample, whose underflow to zero is kept at the smallest float)."""
    samples, alphas = jnp.reshape(sample, -1), jnp.reshape(a, -1)
    grad = lax.random_gamma_grad
    if log_space:
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, jnp.finfo(samples.dtype).tiny)
        samples = lax.select(samples == 0, tiny, samples)
        grad = lambda alpha, x: lax.random_gamma_grad(alpha, x) / x
    return lax.map(lambda args: grad(*args), (alphas, samples)).reshape(np.shape(a))


ad.defjvp2(random_gamma_p, None,
           lambda tangent, ans, key, a, **params: tangent * _gamma_grad(ans, a, **params))


def gamma(key, a, shape=None, dtype=None):
    """Gamma(``a``) samples (unit scale)."""
    key, _ = _check_prng_key("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype)


def loggamma(key, a, shape=None, dtype=None):
    """Logarithms of Gamma(``a``) samples, accurate also for small ``a``."""
    key, _ = _check_prng_key("loggamma", key)
    dtype = _float_dtype("gamma", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype, log_space=True)


@jit(static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = np.shape(a)
    else:
        _check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = jnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(``a``, ``b``) samples, from two log-gamma samples."""
    key, _ = _check_prng_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    _check_all_safe_to_cast("beta", dtype, a, b)
    shape = _check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@jit(static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    _check_shape("beta", shape, np.shape(a), np.shape(b))
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    key_a, key_b = _split(key)
    a = jnp.broadcast_to(a, shape)
    b = jnp.broadcast_to(b, shape)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)   # scaled so the exps cannot underflow
    gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(``alpha``) samples: normalized gamma samples (a softmax of log-gammas)."""
    key, _ = _check_prng_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _dirichlet(key, alpha, shape, dtype)


@jit(static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        _check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    log_gamma_samples = loggamma(key, alpha, shape + np.shape(alpha)[-1:], dtype)
    return nn.softmax(log_gamma_samples, -1)


def t(key, df, shape=None, dtype=None):
    """Student's t samples: ``normal * sqrt(df / 2 / gamma(df / 2))``."""
    key, shape, dtype = _sampler_args("t", key, shape, dtype, df)
    return _t(key, df, shape, dtype)


@jit(static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    _check_shape("t", shape, np.shape(df))
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(key)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square samples: twice Gamma(``df / 2``)."""
    key, shape, dtype = _sampler_args("chisquare", key, shape, dtype, df)
    return _chisquare(key, df, shape, dtype, None)


@jit(static_argnums=(2, 3, 4))
def _chisquare(key, df, shape, dtype, out_sharding):
    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, a=lax.div(df, two), shape=shape, dtype=dtype)
    return lax.mul(jnp.exp(log_g), two)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution samples: the ratio of two scaled chi-squares."""
    key, shape, dtype = _sampler_args("f", key, shape, dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype, None)


@jit(static_argnums=(3, 4, 5))
def _f(key, dfnum, dfden, shape, dtype, out_sharding):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


def generalized_normal(key, p: float, shape=(), dtype=None):
    """Samples with density proportional to ``exp(-|x| ** p)``."""
    shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("generalized_normal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    return _generalized_normal(key, p, shape, dtype)


@jit(static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    keys = split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    r = rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


def ball(key, d: int, p: float = 2, shape=(), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d``."""
    shape = _canonicalize_shape(shape)
    key, _ = _check_prng_key("ball", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    d = core.concrete_or_error(operator.index, d, "The error occurred in jax.random.ball()")
    return _ball(key, p, d, shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


# ----------------------------------------------------------------------------------------
# Discrete distributions by rejection
# ----------------------------------------------------------------------------------------

@jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Knuth's method for small ``lam``: count uniforms until their product < e^-lam."""
    def body_fn(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + jnp.log(u)

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, np.float32, shape)
    k = lax.while_loop(cond_fn, body_fn, (0, k_init, key, log_rate_init))[1]
    return (k - 1).astype(dtype)


def _rejection_loop(propose, key, k_init, accepted, max_iters):
    """The loop of a transformed-rejection sampler (Hörmann's PTRS and BTRS):
    ``propose(key)`` returns ``(key, k, accept)``, a candidate per element and whether
    it is accepted; each element keeps its first accepted candidate, and the loop stops
    when all have one (or after ``max_iters``)."""
    def body_fn(carry):
        i, k_out, accepted, key = carry
        key, k, accept = propose(key)
        k_out = lax.select(accept, k, k_out)
        accepted |= accept
        return i + 1, k_out, accepted, key

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    return lax.while_loop(cond_fn, body_fn, (0, k_init, accepted, key))[1]


@jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hörmann's transformed rejection (PTRS) for large ``lam``."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose(key):
        key, subkey_0, subkey_1 = _split(key, 3)
        u = uniform(subkey_0, shape, lam.dtype) - 0.5
        v = uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t
        return key, k, accept1 | (~reject & accept2)

    k_init = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype("bool"), shape)
    return _rejection_loop(propose, key, k_init, accepted, max_iters).astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(dtypes.iinfo(dtype).max)
    result = lax.select(use_knuth,
                        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(``lam``) samples (integers)."""
    key, _ = _check_prng_key("poisson", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = np.shape(lam) if shape is None else _canonicalize_shape(shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return _poisson(key, lam, shape, dtype)


def _stirling_approx_tail(k):
    stirling_tail_vals = jnp.array(
        [0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
         0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
         0.0118967099458917, 0.010411265261972, 0.00925546218271273,
         0.00833056343336287], dtype=k.dtype)
    use_tail_values = k <= 9
    k = lax.clamp(_const(k, 0.0), k, _const(k, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_tail_values, stirling_tail_vals[jnp.asarray(k, dtype="int32")],
                      approx)


@jit(static_argnums=(3, 4, 5), inline=True)
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """Count geometric waiting times until they exceed ``count`` (small count * p)."""
    log1minusprob = jnp.log1p(-prob)

    def body_fn(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond_fn(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    num_geom_init = lax.full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = lax.full_like(prob, 0, prob.dtype, shape)
    k = lax.while_loop(cond_fn, body_fn, (0, num_geom_init, geom_sum_init, key))[1]
    return (k - 1).astype(dtype)


@jit(static_argnums=(3, 4, 5), inline=True)
def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hörmann's BTRS transformed rejection for large ``count * p``."""
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def propose(key):
        key, subkey_0, subkey_1 = split(key, 3)
        u = uniform(subkey_0, shape, prob.dtype)
        v = uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1))) +
              (count + 1) * jnp.log((count - m + 1) / (count - k + 1)) +
              (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1)) +
              _stirling_approx_tail(m) + _stirling_approx_tail(count - m) -
              _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept2 = v <= ub
        return key, k, accept1 | (~reject & accept2)

    k_init = lax.full_like(prob, -1, prob.dtype, shape)
    accepted = jnp.full(shape, False, bool)
    return _rejection_loop(propose, key, k_init, accepted, max_iters).astype(dtype)


@jit(static_argnums=(3, 4), inline=True)
def _binomial(key, count, prob, shape, dtype):
    if shape is None:
        shape = jnp.broadcast_shapes(np.shape(count), np.shape(prob))
    else:
        _check_shape("binomial", shape, np.shape(count), np.shape(prob))
    prob, = jnp_util.promote_dtypes_inexact(prob)
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)    # sample the rarer outcome
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, jnp.full_like(samples, np.inf, dtype),
                         samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(``n``, ``p``) samples (as floats)."""
    key, _ = _check_prng_key("binomial", key)
    jnp_util.check_arraylike("binomial", n, p)
    dtype = _float_dtype("binomial", dtype)
    if shape is not None:
        shape = _canonicalize_shape(shape)
    return _binomial(key, n, p, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial counts: successive binomials of the remaining trials."""
    key, _ = _check_prng_key("multinomial", key)
    jnp_util.check_arraylike("multinomial", n, p)
    n, p = jnp_util.promote_dtypes_inexact(n, p)
    if shape is None:
        shape = p.shape
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.broadcast_to(p, shape)

    def draw(remainder, ratio_key):
        ratio, key = ratio_key
        count = binomial(key, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = jnp.moveaxis(p, -1, 0)
    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
    keys = split(key, ratios.shape[0])
    _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


# Every sampler JAX 0.10.2 gives an ``out_sharding=`` keyword (see _with_out_sharding).
(
    ball, bernoulli, beta, bits, categorical, cauchy, chisquare, dirichlet, exponential,
    f, gamma, generalized_normal, geometric, gumbel, laplace, loggamma, logistic,
    lognormal, maxwell, multivariate_normal, normal, orthogonal, pareto, permutation,
    poisson, rademacher, randint, rayleigh, t, triangular, truncated_normal, uniform,
    wald,
) = map(_with_out_sharding, (
    ball, bernoulli, beta, bits, categorical, cauchy, chisquare, dirichlet, exponential,
    f, gamma, generalized_normal, geometric, gumbel, laplace, loggamma, logistic,
    lognormal, maxwell, multivariate_normal, normal, orthogonal, pareto, permutation,
    poisson, rademacher, randint, rayleigh, t, triangular, truncated_normal, uniform,
    wald,
))
