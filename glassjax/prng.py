"""PRNG keys and the primitives on them: JAX's threefry2x32 generator, bit for bit.

A PRNG *implementation* (``PRNGImpl``) says how a key is stored (threefry2x32: two
``uint32`` words) and gives four functions on those words: ``seed`` (an integer to a
key), ``split`` (a key to an array of new keys), ``fold_in`` (a key and an integer to a
new key) and ``random_bits`` (a key to an array of random unsigned integers).

A *typed key array* has the extended dtype ``key<fry>``: its elements are whole keys, so
``key(0)`` is a scalar (shape ``()``) overlaying the words ``uint32[2]``. Tracing keeps
that type, which is why jaxprs show ``a:key<fry>[]`` and the primitives ``random_seed``,
``random_split``, ``random_fold_in``, ``random_bits``, ``random_wrap`` (words to keys) and
``random_unwrap`` (keys to words). Only when lowering do keys become their words: each
of these primitives lowers by tracing the implementation's function on the words
(``lower_fun``), and structural primitives (slicing, reshaping, ...) on keys are lowered
word by word (``lowering._word_by_word``).

The implementation functions themselves are built from ordinary ops and one primitive
of their own, ``threefry2x32``: the Threefry-2x32 block cipher (20 rounds) applied
elementwise to counter words. With ``jax_threefry_partitionable`` (JAX's default) the
bits of an array of shape ``S`` hash the 64-bit counters ``0 .. size(S)-1``, given as
(high, low) word pairs by ``iota_2x32_shape``; both output words are kept for ``split``
and xor-ed for ``random_bits``.
"""
from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple

import numpy as np

from glassjax import core, dtypes, lax, shape_poly
from glassjax import numpy as jnp
from glassjax.array import Shard
from glassjax.config import config
from glassjax.interpreters import ad, batching
from glassjax.jit import jit
from glassjax.lax import utils
from glassjax.vmap_api import vmap
from glassjax.xla import dispatch, lowering, runtime
from glassjax.xla.lowering import hlo

UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
               64: np.dtype(np.uint64)}


# ----------------------------------------------------------------------------------------
# PRNG implementations and key types
# ----------------------------------------------------------------------------------------

class PRNGImpl(NamedTuple):
    """A PRNG: the shape of a key's ``uint32`` words and the functions on them. Printed
    by its tag (``random_seed[impl=fry]``)."""
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str
    tag: str

    def __str__(self):
        return self.tag

    def __hash__(self):
        return hash(self.tag)


prngs: dict = {}


class KeyTy(dtypes.ExtendedDType):
    """The dtype of typed keys of one implementation, e.g. ``key<fry>``."""
    type = dtypes.prng_key

    def __init__(self, impl: PRNGImpl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"

    __repr__ = dtypes.ExtendedDType.__str__
    itemsize = property(lambda self: 4 * math.prod(self._impl.key_shape))

    def __eq__(self, other):
        return type(other) is KeyTy and other._impl == self._impl

    def __hash__(self):
        return hash((KeyTy, self._impl))

    # What lowering and the runtime ask of an extended dtype: the array holding the keys.

    def physical_aval(self, aval) -> core.ShapedArray:
        return core.ShapedArray((*aval.shape, *self._impl.key_shape), np.uint32)

    def physical_value(self, keys):
        return np.asarray(keys._base_array)

    def wrap_physical(self, words) -> "PRNGKeyArray":
        return PRNGKeyArray(self._impl, words)


def keys_aval(impl, shape) -> core.ShapedArray:
    return core.ShapedArray(shape, KeyTy(impl))


def _check_key_data(impl, key_data):
    """JAX's checks of the words given to ``wrap_key_data``."""
    ndim = len(impl.key_shape)
    if not all(hasattr(key_data, attr) for attr in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have "
                        f"ndim, shape, and dtype attributes. Got {key_data}")
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= "
                        f"1; got ndim={key_data.ndim}")
    if tuple(key_data.shape[-ndim:]) != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                        f"end with {impl.key_shape}; got shape={tuple(key_data.shape)} for "
                        f"impl={impl!r}")
    if key_data.dtype not in (np.uint32, dtypes.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={key_data.dtype}")


class PRNGKeyArray(runtime.Array):
    """A concrete array of typed keys: a device array of their words with the key dtype
    on top. Keys support no arithmetic; indexing and reshaping work as on arrays."""
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, impl: PRNGImpl, key_data):
        _check_key_data(impl, key_data)
        self._impl = impl
        if not isinstance(key_data, runtime.ArrayImpl):
            key_data = runtime.device_put(np.asarray(key_data))
        self._base_array = key_data
        # Whether these keys were used up (a mask for each key), tracked while
        # jax_debug_key_reuse is on (key_reuse.py).
        self._consumed = False

    dtype = property(lambda self: KeyTy(self._impl))
    shape = property(lambda self: tuple(self._base_array.shape[:-len(self._impl.key_shape)]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.itemsize * self.size)
    aval = property(lambda self: keys_aval(self._impl, self.shape))
    weak_type = False
    _committed = property(lambda self: self._base_array._committed)
    committed = property(lambda self: self._base_array.committed)
    sharding = property(lambda self: self._base_array.sharding)
    device = property(lambda self: self._base_array.device)

    @property
    def addressable_shards(self) -> list[Shard]:
        return [Shard(s.device, s.index, s.replica_id, PRNGKeyArray(self._impl, s.data))
                for s in self._base_array.addressable_shards]

    def addressable_data(self, index: int) -> "PRNGKeyArray":
        return PRNGKeyArray(self._impl, self._base_array.addressable_data(index))

    def devices(self):
        return self._base_array.devices()

    def block_until_ready(self):
        self._base_array.block_until_ready()
        return self

    def is_deleted(self):
        return self._base_array.is_deleted()

    def delete(self):
        self._base_array.delete()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (PRNGKeyArray(self._impl, k) for k in self._base_array)

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                        "Use jax.random.key_data(arr) if you wish to extract the "
                        "underlying integer array.")

    def __repr__(self):
        return (f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n"
                f"{self._base_array}")

    __str__ = __repr__

    def copy(self):
        return PRNGKeyArray(self._impl, self._base_array.copy())


def _install_array_methods():
    """Indexing and reshaping are the methods every array has (on keys they trace to
    structural primitives, which lower word by word); ``==`` compares the words. The
    other operators are there so that ``key + 1`` fails as ``jnp.add`` fails on keys."""
    from glassjax.numpy import array_methods
    for name, method in array_methods._OPERATORS.items():
        setattr(PRNGKeyArray, name, method)
    for name in ("reshape", "ravel", "flatten", "squeeze", "swapaxes", "take", "transpose"):
        setattr(PRNGKeyArray, name, array_methods._METHODS[name])
    for name in ("T", "at"):
        setattr(PRNGKeyArray, name, property(array_methods._PROPERTIES[name]))
    PRNGKeyArray.__eq__ = lambda self, other: _keys_equal(self, other)
    PRNGKeyArray.__ne__ = lambda self, other: ~_keys_equal(self, other)


def _keys_equal(a, b):
    return jnp.all(random_unwrap(a) == random_unwrap(b), axis=-1)


# ----------------------------------------------------------------------------------------
# Primitives on key arrays
# ----------------------------------------------------------------------------------------

def _zero_jvp(primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    return out, ad.Zero.from_primal_value(out)


def _iterated_vmap(n, f):
    """``f`` on one key, mapped over ``n`` leading axes of keys."""
    for _ in range(n):
        f = vmap(f)
    return f


def _lower_on_words(function_of, multiple_results=False):
    """A lowering rule running ``function_of(*avals_in, **params)`` (a function of the
    physical arrays) traced at the physical avals of the operands."""
    def rule(ctx, *args, **params):
        fun = function_of(*ctx.avals_in, **params)
        phys = [a.dtype.physical_aval(a) if isinstance(a.dtype, KeyTy) else a
                for a in ctx.avals_in]
        traced = lowering.lower_fun(fun, multiple_results)
        return traced(ctx._replace(avals_in=phys), *args)
    return rule


def _key_primitive(name, abstract_eval, function_of, batcher=batching.defvectorized):
    """A primitive on key arrays that runs, and lowers, through the words: its results
    are computed by ``function_of(*avals_in, **params)`` applied to physical arrays."""
    prim = core.Primitive(name)
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    lowering.register_lowering(prim, _lower_on_words(function_of),
                               handles_extended_dtypes=True)
    ad.primitive_jvps[prim] = functools.partial(_zero_jvp, prim)
    batcher(prim)
    return prim


# random_seed: integer seeds -> keys

def random_seed(seeds, impl: PRNGImpl):
    # Python ints go through int64 so that large seeds wrap (as in JAX) instead of failing.
    seeds = jnp.asarray(np.int64(seeds) if isinstance(seeds, int) else seeds)
    return random_seed_p.bind(seeds, impl=impl)


random_seed_p = _key_primitive(
    "random_seed",
    lambda seeds, *, impl: keys_aval(impl, seeds.shape),
    lambda seeds, *, impl: _iterated_vmap(seeds.ndim, impl.seed))


# random_split: keys[S] -> keys[*S, *shape]

def random_split(keys, shape):
    return random_split_p.bind(keys, shape=shape)


random_split_p = _key_primitive(
    "random_split",
    lambda keys, *, shape: keys_aval(keys.dtype._impl, (*keys.shape, *shape)),
    lambda keys, *, shape: _iterated_vmap(
        keys.ndim, lambda k: keys.dtype._impl.split(k, shape)))


# random_fold_in: keys and uint32 messages, broadcast together

def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, jnp.asarray(msgs))


def _fold_in_abstract_eval(keys, msgs):
    shape = utils.broadcasting_shape_rule("random_fold_in", keys, msgs)
    return keys_aval(keys.dtype._impl, shape)


def _vmap_broadcasting(shape1, shape2, f):
    """``f`` on one key and one message, mapped over the (broadcast) axes of both: an
    axis of size 1 on one side is squeezed and that side is left unmapped there."""
    if not shape1 and not shape2:
        return f
    if not shape1 or not shape2:
        n, axes = (len(shape2), (None, 0)) if not shape1 else (len(shape1), (0, None))
        for _ in range(n):
            f = vmap(f, in_axes=axes)
        return f
    for d1, d2 in reversed(list(zip(shape1, shape2))):
        if d1 == d2:
            f = vmap(f)
        else:
            f = _squeezed_vmap(f, left=d1 == 1)
    return f


def _squeezed_vmap(f, left):
    def mapped(x, y):
        if left:
            return vmap(f, in_axes=(None, 0))(jnp.squeeze(x, axis=0), y)
        return vmap(f, in_axes=(0, None))(x, jnp.squeeze(y, axis=0))
    return mapped


random_fold_in_p = _key_primitive(
    "random_fold_in", _fold_in_abstract_eval,
    lambda keys, msgs: _vmap_broadcasting(keys.shape, msgs.shape,
                                          keys.dtype._impl.fold_in),
    batcher=batching.defbroadcasting)


# random_bits: keys[S] -> uint<bit_width>[*S, *shape]

def random_bits(keys, bit_width, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=shape)


random_bits_p = _key_primitive(
    "random_bits",
    lambda keys, *, bit_width, shape: core.ShapedArray((*keys.shape, *shape),
                                                      UINT_DTYPES[bit_width]),
    lambda keys, *, bit_width, shape: _iterated_vmap(
        keys.ndim, lambda k: keys.dtype._impl.random_bits(k, bit_width, shape)))


# random_wrap / random_unwrap: words <-> keys, free casts

def random_wrap(base_arr, *, impl):
    _check_key_data(impl, base_arr)
    return random_wrap_p.bind(base_arr, impl=impl)


random_wrap_p = core.Primitive("random_wrap")
random_wrap_p.def_impl(lambda base_arr, *, impl: PRNGKeyArray(impl, base_arr))
random_wrap_p.def_abstract_eval(
    lambda base, *, impl: keys_aval(impl, base.shape[:base.ndim - len(impl.key_shape)]))
lowering.register_lowering(random_wrap_p, lambda ctx, base_arr, *, impl: base_arr,
                           handles_extended_dtypes=True)
ad.primitive_jvps[random_wrap_p] = functools.partial(_zero_jvp, random_wrap_p)


def _random_wrap_batcher(args, dims, *, impl):
    (x,), (d,) = args, dims
    return random_wrap(batching.bdim_at_front(x, d, 1), impl=impl), 0


batching.primitive_batchers[random_wrap_p] = _random_wrap_batcher


def random_unwrap(keys):
    if not dtypes.issubdtype(keys.dtype, dtypes.prng_key):
        raise TypeError(f"random_unwrap takes key array operand, got keys.dtype="
                        f"{keys.dtype!r}")
    return random_unwrap_p.bind(keys)


random_unwrap_p = core.Primitive("random_unwrap")
random_unwrap_p.def_impl(lambda keys: keys._base_array)
random_unwrap_p.def_abstract_eval(lambda keys: keys.dtype.physical_aval(keys))
lowering.register_lowering(random_unwrap_p, lambda ctx, keys: keys,
                           handles_extended_dtypes=True)
ad.primitive_jvps[random_unwrap_p] = functools.partial(_zero_jvp, random_unwrap_p)
batching.defvectorized(random_unwrap_p)


# ----------------------------------------------------------------------------------------
# The threefry2x32 implementation
# ----------------------------------------------------------------------------------------

# threefry2x32: the cipher itself, elementwise over broadcast uint32 arrays

def _threefry2x32_abstract_eval(*avals):
    if any(a.dtype != np.uint32 for a in avals):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got {avals}")
    aval = core.ShapedArray(utils.broadcasting_shape_rule("threefry2x32", *avals),
                            np.uint32)
    return [aval, aval]


def _rotate_left(x, d):
    """``x`` rotated left by ``d`` bits (a uint32 scalar, traced in the rolled loop)."""
    return lax.shift_left(x, d) | lax.shift_right_logical(x, np.uint32(32) - d)


def _rotate_list(xs):
    return xs[1:] + xs[:1]


def _apply_rounds(x, rotations):
    for r in rotations:
        x = [x[0] + x[1], x[1]]
        x[1] = x[0] ^ _rotate_left(x[1], r)
    return x


def _threefry_rounds(key1, key2, x1, x2):
    """The five 4-round blocks of Threefry-2x32, as a loop (XLA compiles it quickly on
    CPU, where JAX uses the same rolled form), each followed by a key injection."""
    rotations = [np.array([13, 15, 26, 6], np.uint32), np.array([17, 29, 16, 24], np.uint32)]
    ks = [key1, key2, key1 ^ key2 ^ np.uint32(0x1BD11BDA)]
    x = [x1 + ks[0], x2 + ks[1]]

    def block(i, state):
        x, ks, rotations = state
        x = _apply_rounds(x, rotations[0])
        x = [x[0] + ks[0], x[1] + ks[1] + jnp.asarray(i + 1, dtype=np.uint32)]
        return x, _rotate_list(ks), _rotate_list(rotations)

    x, _, _ = lax.fori_loop(0, 5, block, (x, _rotate_list(ks), rotations))
    return tuple(x)


threefry2x32_p = core.Primitive("threefry2x32")
threefry2x32_p.multiple_results = True
threefry2x32_p.def_impl(functools.partial(dispatch.apply_primitive, threefry2x32_p))
threefry2x32_p.def_abstract_eval(_threefry2x32_abstract_eval)
lowering.register_lowering(threefry2x32_p,
                           lowering.lower_fun(_threefry_rounds, multiple_results=True),
                           inline=False)
batching.defbroadcasting(threefry2x32_p)


# iota_2x32_shape: the 64-bit counters 0 .. size-1 of a shape, as (high, low) words

def iota_2x32_shape(shape):
    if not shape:
        return (jnp.zeros((), np.uint32),) * 2
    return iota_2x32_shape_p.bind(shape=shape)


def _iota_2x32_shape_lowering(ctx, *, shape):
    """The row-major flat index, computed in uint64 from one iota per axis, then split."""
    u64 = core.ShapedArray(shape, np.uint64)

    def const(value):           # (a symbolic stride is computed in the program)
        scalar = hlo.convert(lowering.aval_to_ir_type(u64.update(shape=())),
                             lowering.eval_dim(value)) \
            if shape_poly.is_symbolic_dim(value) else lowering.ir_constant(np.uint64(value))
        return lowering.broadcast_in_dim(scalar, shape, ())

    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    iotas = [lowering.iota(u64, d) for d in range(len(shape))]
    terms = [hlo.multiply(const(s), iota) for s, iota in zip(strides, iotas)]
    counts = functools.reduce(hlo.add, terms)
    word = lowering.aval_to_ir_type(ctx.avals_out[0])
    return [hlo.convert(word, hlo.shift_right_logical(counts, const(32))),
            hlo.convert(word, counts)]


iota_2x32_shape_p = core.Primitive("iota_2x32_shape")
iota_2x32_shape_p.multiple_results = True
iota_2x32_shape_p.def_impl(functools.partial(dispatch.apply_primitive, iota_2x32_shape_p))
iota_2x32_shape_p.def_abstract_eval(
    lambda *, shape: [core.ShapedArray(shape, np.uint32)] * 2)
lowering.register_lowering(iota_2x32_shape_p, _iota_2x32_shape_lowering)


# The implementation's functions, on words

def threefry_seed(seed):
    return _threefry_seed(seed)


@jit(inline=True)
def _threefry_seed(seed):
    if seed.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if not dtypes.issubdtype(seed.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")

    def word(k):
        return lax.expand_dims(lax.convert_element_type(k, np.uint32), [0])
    high = word(lax.shift_right_logical(seed, lax.full_like(seed, 32)))
    return lax.concatenate([high, word(seed)], 0)    # the low word: the seed mod 2**32


@jit(inline=True)
def threefry_2x32(keypair, count):
    """The hash of an array of ``uint32`` counts: its two halves are the two words."""
    key1, key2 = keypair
    flat = count.ravel()
    odd = flat.shape[0] % 2
    if odd:
        flat = jnp.concatenate([flat, jnp.uint32([0])])
    x = threefry2x32_p.bind(key1, key2, *jnp.split(flat, 2))
    out = jnp.concatenate(x)
    return lax.reshape(out[:-1] if odd else out, count.shape)


def threefry_split(key, shape):
    return _threefry_split(key, tuple(map(core.concrete_dim_or_error, shape)))


@jit(static_argnums=(1,))
def _threefry_split(key, shape):
    if config.jax_threefry_partitionable:
        return _threefry_split_foldlike(key, shape)
    return _threefry_split_original(key, shape)


@jit(static_argnums=(1,), inline=True)
def _threefry_split_original(key, shape):
    """The pre-partitionable split: new keys are the hash of the counts 0 .. 2n-1."""
    counts = lax.iota(np.uint32, math.prod(shape) * 2)
    return lax.reshape(threefry_2x32(key, counts), (*shape, 2))


@jit(static_argnums=(1,), inline=True)
def _threefry_split_foldlike(key, shape):
    k1, k2 = key
    counts1, counts2 = iota_2x32_shape(shape)
    bits1, bits2 = threefry2x32_p.bind(k1, k2, counts1, counts2)
    return jnp.stack([bits1, bits2], axis=bits1.ndim)


def threefry_fold_in(key, data):
    return _threefry_fold_in(key, jnp.asarray(data, dtype="uint32"))


@jit
def _threefry_fold_in(key, data):
    return threefry_2x32(key, threefry_seed(data))


def threefry_random_bits(key, bit_width, shape):
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    if not config.jax_threefry_partitionable:
        return _threefry_random_bits_original(key, bit_width, shape)
    if shape_poly.is_constant_shape(shape) and math.prod(shape) > 2 ** 64:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    k1, k2 = key
    counts1, counts2 = iota_2x32_shape(shape)
    bits1, bits2 = threefry2x32_p.bind(k1, k2, counts1, counts2)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        high = lax.convert_element_type(bits1, dtype)
        low = lax.convert_element_type(bits2, dtype)
        return lax.shift_left(high, jnp.asarray(32, dtype=dtype)) | low
    if bit_width == 32:
        return bits1 ^ bits2
    return lax.convert_element_type(bits1 ^ bits2, dtype)


@jit(static_argnums=(1, 2), inline=True)
def _threefry_random_bits_original(key, bit_width, shape):
    """The pre-partitionable bits (``jax_threefry_partitionable=False``): hash the
    counts 0, 1, ... as one flat stream of 32-bit words (in blocks of 2**32 - 1 words,
    each under its own split key, if that many are needed), then cut it into
    ``bit_width``-bit pieces. Each element depends on the array's total size, which is
    why a sharded program cannot compute its piece alone."""
    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    nblocks, rem = divmod(max_count, np.iinfo(np.uint32).max)
    if not nblocks:
        bits = threefry_2x32(key, lax.iota(np.uint32, rem))
    else:
        keys = threefry_split(key, (nblocks + 1,))
        blocks = vmap(threefry_2x32, in_axes=(0, None))(
            keys[:-1], lax.iota(np.uint32, np.iinfo(np.uint32).max))
        bits = lax.concatenate([blocks.ravel(), threefry_2x32(keys[-1],
                                                              lax.iota(np.uint32, rem))], 0)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        high, low = [lax.convert_element_type(x, dtype) for x in jnp.split(bits, 2)]
        bits = lax.shift_left(high, jnp.asarray(32, dtype=dtype)) | low
    elif bit_width in (8, 16):        # each word gives 32 // bit_width pieces, low first
        pieces = lax.bitwise_and(
            jnp.asarray(np.iinfo(dtype).max, dtype="uint32"),
            lax.shift_right_logical(
                lax.broadcast(bits, (1,)),
                lax.mul(np.uint32(bit_width),
                        lax.broadcasted_iota(np.uint32, (32 // bit_width, 1), 0))))
        pieces = lax.reshape(pieces, (max_count * 32 // bit_width,), (1, 0))
        bits = lax.convert_element_type(pieces, dtype)[:size]
    return lax.reshape(bits, shape)


threefry_prng_impl = PRNGImpl(key_shape=(2,), seed=threefry_seed, split=threefry_split,
                              random_bits=threefry_random_bits, fold_in=threefry_fold_in,
                              name="threefry2x32", tag="fry")
prngs[threefry_prng_impl.name] = threefry_prng_impl
_install_array_methods()


# ----------------------------------------------------------------------------------------
# rbg and unsafe_rbg: keys for XLA's RngBitGenerator
# ----------------------------------------------------------------------------------------
# A key is four uint32 words, the state of XLA's own generator (``lax.rng_bit_generator``),
# which makes the bits. Seeding, splitting and folding in stay threefry on each half-key,
# so they are as sound as threefry's; only the bits come from XLA, whose algorithm JAX does
# not promise to keep stable across backends or versions. ``unsafe_rbg`` also splits and
# folds in with the generator (cheaper, with no proof of independence).

def _rbg_seed(seed):
    halfkey = threefry_seed(seed)
    return jnp.concatenate([halfkey, halfkey])


def _rbg_split(key, shape):
    split = (_threefry_split_foldlike if config.jax_threefry_partitionable
             else _threefry_split_original)
    halfkeys = key.reshape(2, 2)
    return vmap(split, (0, None), len(shape))(halfkeys, shape).reshape(*shape, 4)


def _rbg_fold_in(key, data):
    return vmap(_threefry_fold_in, (0, None), 0)(key.reshape(2, 2), data).reshape(4)


def _rbg_random_bits(key, bit_width, shape):
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    _, bits = lax.rng_bit_generator(key, shape, dtype=UINT_DTYPES[bit_width])
    return bits


def _unsafe_rbg_split(key, shape):
    """Ten draws of the generator per new key, keeping every tenth: a cheap 'hash'."""
    num = math.prod(shape)
    _, keys = lax.rng_bit_generator(key, (10 * num, 4), dtype=np.uint32)
    return lax.slice_in_dim(keys, start_index=None, limit_index=None,
                            stride=10).reshape(*shape, 4)


def _unsafe_rbg_fold_in(key, data):
    _, bits = lax.rng_bit_generator(_rbg_seed(data), (10, 4), dtype=np.uint32)
    return key ^ bits[-1]


rbg_prng_impl = PRNGImpl(key_shape=(4,), seed=_rbg_seed, split=_rbg_split,
                         random_bits=_rbg_random_bits, fold_in=_rbg_fold_in, name="rbg",
                         tag="rbg")
unsafe_rbg_prng_impl = PRNGImpl(key_shape=(4,), seed=_rbg_seed, split=_unsafe_rbg_split,
                                random_bits=_rbg_random_bits, fold_in=_unsafe_rbg_fold_in,
                                name="unsafe_rbg", tag="urbg")
prngs[rbg_prng_impl.name] = rbg_prng_impl
prngs[unsafe_rbg_prng_impl.name] = unsafe_rbg_prng_impl
