"""``glassjax.random``: JAX's counter-based pseudo-random numbers, bit for bit.

There is no hidden generator state. A *key* is two ``uint32`` words, and every random
array is a pure function of a key: the bits for an array of shape ``S`` are the
Threefry-2x32 hash, under the key, of the counters ``0 .. size(S)-1`` (each counter as
two 32-bit words, high and low). Splitting a key hashes counters the same way and keeps
both output words as the new keys; ``fold_in`` hashes the pair ``(0, data)``. This is
JAX's ``threefry2x32`` implementation with ``jax_threefry_partitionable`` on (its
default), so the same seed gives the same numbers as JAX.

Floating-point samples are built from the bits: ``uniform`` puts random mantissa bits
under the exponent of 1.0 (a float in [1, 2)) and subtracts 1; ``normal`` maps a
uniform sample through the inverse error function.

Two kinds of keys, as in JAX: *raw* keys (``PRNGKey``: a ``uint32[2]`` array) and
*typed* keys (``random.key``: an array of dtype ``key<fry>`` overlaying those words).
Unlike JAX, a typed key array is a pytree holding its words rather than an array type
of the engine, so inside ``jit``/``vmap`` jaxprs show the ``uint32`` words.
"""
from __future__ import annotations

import math

import numpy as np

from glassjax import dtypes, lax, tree_util
from glassjax import numpy as jnp
from glassjax.jit import jit

__all__ = ["PRNGKey", "bernoulli", "bits", "categorical", "fold_in", "gumbel", "key",
           "key_data", "key_impl", "normal", "permutation", "randint", "split", "uniform",
           "wrap_key_data"]

_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
                64: np.dtype(np.uint64)}


# ----------------------------------------------------------------------------------------
# The Threefry-2x32 hash
# ----------------------------------------------------------------------------------------

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _rotate_left(x, d):
    return lax.shift_left(x, np.uint32(d)) | lax.shift_right_logical(x, np.uint32(32 - d))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) of the counter words ``(x1, x2)`` under
    the key ``(k1, k2)``, elementwise over arrays of ``uint32``: a pair of arrays."""
    ks = [k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA)]
    x = [x1 + ks[0], x2 + ks[1]]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x[0] = x[0] + x[1]
            x[1] = x[0] ^ _rotate_left(x[1], r)
        x = [x[0] + ks[(i + 1) % 3], x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)]
    return x[0], x[1]


def _counters(shape):
    """The flat index of every element of ``shape`` as (high word, low word) arrays."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise NotImplementedError("random arrays of 2**32 or more elements")
    low = lax.reshape(lax.iota(np.uint32, size), shape)
    return lax.full(shape, 0, np.uint32), low


def _hash_counters(key, shape):
    k1, k2 = key[0], key[1]
    high, low = _counters(shape)
    return threefry2x32(k1, k2, high, low)


# ----------------------------------------------------------------------------------------
# Keys
# ----------------------------------------------------------------------------------------

class PRNGImpl:
    """A PRNG implementation, named as JAX names it (only threefry2x32 here)."""

    def __init__(self, name, tag):
        self.name, self.tag = name, tag

    def __str__(self):
        return self.name

    def __repr__(self):
        return repr(self.name)


threefry2x32_impl = PRNGImpl("threefry2x32", "fry")


class KeyTy(dtypes.ExtendedDType):
    """The dtype of typed keys, ``key<fry>``: ``jnp.issubdtype(d, dtypes.prng_key)``."""
    type = dtypes.prng_key

    def __init__(self, impl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"

    __repr__ = dtypes.ExtendedDType.__str__

    def __eq__(self, other):
        return type(other) is KeyTy and other._impl is self._impl

    def __hash__(self):
        return hash((KeyTy, self._impl.name))


@tree_util.register_pytree_node_class
class KeyArray:
    """Typed keys of shape ``S``, stored as their ``uint32`` words of shape ``(*S, 2)``."""
    dtype = KeyTy(threefry2x32_impl)

    def __init__(self, data):
        self._data = data

    shape = property(lambda self: tuple(self._data.shape[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, index):
        return KeyArray(self._data[index])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        return (f"Array({self.shape}, dtype={self.dtype}) overlaying:\n"
                f"{self._data}")

    __str__ = __repr__

    def tree_flatten(self):
        return (self._data,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0])


def key(seed, *, impl=None) -> KeyArray:
    """A typed key (dtype ``key<fry>``) from an integer seed."""
    return KeyArray(PRNGKey(seed))


def wrap_key_data(key_bits, *, impl=None) -> KeyArray:
    """Typed keys overlaying ``uint32`` words of shape ``(..., 2)``."""
    return KeyArray(_check_key("wrap_key_data", key_bits, batched=True))


def key_impl(keys) -> PRNGImpl:
    return threefry2x32_impl


def _rewrap(like, data):
    """Results of split/fold_in are typed keys when the input key was."""
    return KeyArray(data) if isinstance(like, KeyArray) else data


def _check_key(name, key, batched=False):
    if isinstance(key, KeyArray):
        key = key._data
    key = jnp.asarray(key)
    if key.dtype != np.uint32 or key.shape[-1:] != (2,):
        raise TypeError(f"{name} accepts a PRNG key of dtype uint32 and shape (..., 2) "
                        f"(as made by PRNGKey); got an array of dtype {key.dtype} and "
                        f"shape {key.shape}")
    if key.ndim != 1 and not batched:
        raise ValueError(f"{name} accepts a single key, but was given a key array of "
                         f"shape {key.shape[:-1]} != (). Use jax.vmap for batching.")
    return key


def PRNGKey(seed) -> jnp.ndarray:
    """A raw key from an integer seed: ``[high 32 bits, low 32 bits]`` of the seed (only
    the low word without x64, where seeds are 32-bit)."""
    if isinstance(seed, int):
        seed = np.int64(seed)      # as JAX: large Python ints wrap instead of failing
    seed = jnp.asarray(seed)
    if seed.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if not dtypes.issubdtype(seed.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return _seed(seed)


@jit
def _seed(seed):
    high = lax.shift_right_logical(seed, lax.full_like(seed, 32))
    low = lax.convert_element_type(seed, np.uint32)
    return jnp.stack([lax.convert_element_type(high, np.uint32), low])


def key_data(keys):
    """The ``uint32`` words of keys (a raw key is its own data)."""
    return keys._data if isinstance(keys, KeyArray) else jnp.asarray(keys)


def split(key, num: int | tuple = 2):
    """``num`` new keys (an array of shape ``(num, 2)``, or ``(*num, 2)``) from ``key``."""
    data = _check_key("split", key)
    shape = tuple(num) if isinstance(num, (tuple, list)) else (int(num),)
    return _rewrap(key, _split(data, shape))


@jit(static_argnums=1)
def _split(key, shape):
    bits1, bits2 = _hash_counters(key, shape)
    return jnp.stack([bits1, bits2], axis=len(shape))


def fold_in(key, data):
    """A new key from ``key`` and an integer ``data``: the hash of ``(0, data)``."""
    words = _check_key("fold_in", key)
    return _rewrap(key, _fold_in(words, jnp.asarray(data).astype(np.uint32)))


@jit
def _fold_in(key, data):
    x1, x2 = threefry2x32(key[0], key[1], np.uint32(0), data)
    return jnp.stack([x1, x2])


# ----------------------------------------------------------------------------------------
# Random bits and the distributions built on them
# ----------------------------------------------------------------------------------------

def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)


def _random_bits(key, bit_width, shape):
    bits1, bits2 = _hash_counters(key, shape)
    dtype = _UINT_DTYPES[bit_width]
    if bit_width == 64:
        high = lax.convert_element_type(bits1, dtype)
        return lax.shift_left(high, np.uint64(32)) | lax.convert_element_type(bits2, dtype)
    mixed = bits1 ^ bits2
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers (``uint32`` by default)."""
    key = _check_key("bits", key)
    dtype = np.dtype(np.uint32 if dtype is None else dtype)
    if dtype not in _UINT_DTYPES.values():
        raise TypeError(f"dtype argument to `bits` must be an unsigned int dtype, got "
                        f"{dtype}")
    dtype = dtypes.canonicalize_dtype(dtype)
    return _bits(key, _shape(shape), dtype.itemsize * 8)


@jit(static_argnums=(1, 2))
def _bits(key, shape, bit_width):
    return _random_bits(key, bit_width, shape)


def _float_dtype(dtype, name):
    dtype = dtypes.canonicalize_dtype(np.dtype(dtypes.default_float_dtype()
                                               if dtype is None else dtype))
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Samples uniform in ``[minval, maxval)``."""
    key = _check_key("uniform", key)
    return _uniform(key, minval, maxval, _shape(shape), _float_dtype(dtype, "uniform"))


@jit(static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    minval = lax.broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits      # at least 8 random bits per sample
    uint_dtype = _UINT_DTYPES[nbits]
    random = lax.convert_element_type(_random_bits(key, rng_bits, shape), uint_dtype)
    # Random mantissa under the exponent of 1.0: a float in [1, 2), then minus 1.
    mantissa = lax.shift_right_logical(random, jnp.array(rng_bits - nmant, uint_dtype))
    one_bits = jnp.asarray(np.array(1.0, dtype).view(uint_dtype))
    floats = lax.bitcast_convert_type(mantissa | one_bits, dtype) - jnp.array(1.0, dtype)
    return lax.max(minval, lax.reshape(floats * (maxval - minval) + minval, shape))


def normal(key, shape=(), dtype=None):
    """Standard normal samples: ``sqrt(2) * erfinv(u)`` for ``u`` uniform in (-1, 1)."""
    key = _check_key("normal", key)
    return _normal(key, _shape(shape), _float_dtype(dtype, "normal"))


@jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(key, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)``: twice the dtype's bits of randomness, reduced
    modulo the span (JAX's method, so the same key gives the same integers)."""
    key = _check_key("randint", key)
    dtype = dtypes.canonicalize_dtype(np.dtype(dtypes.default_int_dtype()
                                               if dtype is None else dtype))
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    if info.bits >= 32:
        return _randint(key, minval, maxval, _shape(shape), dtype)
    # Narrow types are sampled as int32 (less bias), then converted.
    minval = jnp.asarray(minval).astype(np.int32).clip(int(info.min), int(info.max))
    maxval = jnp.asarray(maxval).astype(np.int32).clip(int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, _shape(shape), np.dtype(np.int32)).astype(dtype)


def _clip_to(val, dtype):
    """``val`` converted to the integer ``dtype``, clipped to its range (not wrapped)."""
    info = dtypes.iinfo(dtype)
    if dtypes.iinfo(val.dtype).max > info.max:
        val = lax.min(val, jnp.asarray(info.max).astype(val.dtype))
    if dtypes.iinfo(val.dtype).min < info.min:
        val = lax.max(val, jnp.asarray(info.min).astype(val.dtype))
    return val.astype(dtype)


@jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # maxval beyond the dtype's range (randint(k, (), 0, 256, uint8)) widens the span.
    out_of_range = maxval > _clip_to(jnp.array(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    minval = lax.broadcast_to_rank(_clip_to(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(_clip_to(maxval, dtype), len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = _split(key, (2,))
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    unsigned = _UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    span = lax.select(out_of_range & (maxval > minval), span + lax.full_like(span, 1), span)
    # (higher * 2**nbits + lower) % span without overflow: 2**nbits % span, squared.
    multiplier = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(multiplier * multiplier, span)
    offset = lax.rem(higher, span) * multiplier + lax.rem(lower, span)
    return minval + lax.convert_element_type(lax.rem(offset, span), dtype)


def bernoulli(key, p=0.5, shape=None):
    """Booleans that are True with probability ``p``."""
    key = _check_key("bernoulli", key)
    p = jnp.asarray(p)
    if not dtypes.issubdtype(p.dtype, np.floating):
        p = p.astype(dtypes.default_float_dtype())
    shape = p.shape if shape is None else _shape(shape)
    return uniform(key, shape, p.dtype) < p


def gumbel(key, shape=(), dtype=None):
    """Standard Gumbel samples: ``-log(-log(u))``."""
    key = _check_key("gumbel", key)
    return _gumbel(key, _shape(shape), _float_dtype(dtype, "gumbel"))


@jit(static_argnums=(1, 2))
def _gumbel(key, shape, dtype):
    tiny = np.array(dtypes.finfo(dtype).tiny, dtype)
    return -jnp.log(-jnp.log(_uniform(key, tiny, 1.0, shape, dtype)))


def categorical(key, logits, axis: int = -1, shape=None):
    """Indices drawn with probabilities ``softmax(logits)`` (the Gumbel-max trick)."""
    key = _check_key("categorical", key)
    logits = jnp.asarray(logits)
    axis = axis % logits.ndim
    batch = logits.shape[:axis] + logits.shape[axis + 1:]
    shape = batch if shape is None else _shape(shape)
    noise_shape = shape[:len(shape) - len(batch)] + logits.shape
    noise = gumbel(key, noise_shape, logits.dtype)
    return jnp.argmax(noise + logits, axis=axis + len(shape) - len(batch))


def permutation(key, x, axis: int = 0):
    """A random permutation of ``arange(x)`` (an int) or of ``x`` along ``axis``: sorted
    by random 32-bit keys, in as many rounds as make collisions unlikely."""
    key = _check_key("permutation", key)
    x = jnp.arange(x) if isinstance(x, int) or np.ndim(x) == 0 else jnp.asarray(x)
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = split(key)
        sort_keys = _bits(subkey, x.shape, 32)
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x
