"""XLA's stateless random-number instructions as primitives: ``rng_bit_generator``
(random bits from a key, returning the advanced key) and ``rng_uniform``.

Unlike ``jax.random`` (threefry, computed with lax operations), the bits come from the
backend's own generator, so they are fast but may differ between backends.
"""
from __future__ import annotations

import enum

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes
from glassjax.interpreters import batching
from glassjax.lax.utils import compiled_primitive
from glassjax.xla import lowering


class RandomAlgorithm(enum.IntEnum):
    """Which generator ``rng_bit_generator`` uses."""
    RNG_DEFAULT = 0      # the platform's default
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
                    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                    RandomAlgorithm.RNG_PHILOX: "PHILOX"}
_BIT_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)}


def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    return [core.ShapedArray(key.shape, key.dtype, weak_type=key.weak_type),
            core.ShapedArray(tuple(shape), dtype)]


def _rng_bit_generator_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding):
    """The key is held as u32[4] (so that it works without x64); XLA wants u64[2]."""
    u32, u64 = ir.IntegerType.get_unsigned(32), ir.IntegerType.get_unsigned(64)
    key_is_u32 = ctx.avals_in[0].dtype == np.uint32
    if key_is_u32:
        key = hlo.bitcast_convert(ir.RankedTensorType.get([2], u64),
                                  hlo.reshape(ir.RankedTensorType.get([2, 2], u32), key))
    out_key, out_vals = hlo.RngBitGeneratorOp(
        key.type, ir.RankedTensorType.get(shape, lowering.dtype_to_ir_type(np.dtype(dtype))),
        hlo.RngAlgorithmAttr.get(_ALGORITHM_NAMES[RandomAlgorithm(algorithm)]), key).results
    if key_is_u32:
        out_key = hlo.reshape(ir.RankedTensorType.get([4], u32), hlo.bitcast_convert(
            ir.RankedTensorType.get([2, 2], u32), out_key))
    return [out_key, out_vals]


def _rng_bit_generator_batching(args, dims, *, shape, dtype, algorithm, out_sharding):
    """A batch of keys: draw all the bits from the first key (one call, a leading
    batch axis on the output) and advance only that key, as JAX does."""
    from glassjax.lax.slicing import dynamic_update_index_in_dim
    keys, = args
    bd, = dims
    if bd is batching.not_mapped:
        return rng_bit_generator_p.bind(keys, shape=shape, dtype=dtype, algorithm=algorithm,
                                        out_sharding=out_sharding), (None, None)
    keys = batching.moveaxis(keys, bd, 0)
    new_key, bits = rng_bit_generator_p.bind(keys[0], shape=(keys.shape[0], *shape),
                                             dtype=dtype, algorithm=algorithm,
                                             out_sharding=None)
    return (dynamic_update_index_in_dim(keys, new_key, 0, axis=0), bits), (0, 0)


rng_bit_generator_p = compiled_primitive("rng_bit_generator", multiple_results=True)
rng_bit_generator_p.def_abstract_eval(_rng_bit_generator_abstract_eval)
lowering.register_lowering(rng_bit_generator_p, _rng_bit_generator_lowering)
batching.primitive_batchers[rng_bit_generator_p] = _rng_bit_generator_batching


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT,
                      *, out_sharding=None):
    """``(new_key, bits)``: an array of random unsigned integers of ``shape`` from
    ``key`` (a u32[4] or u64[2] array), and the key to use next."""
    from glassjax.lax.utils import canonicalize_shape
    shape = canonicalize_shape(shape)
    dtype = dtypes.canonicalize_dtype(dtype)
    if np.dtype(dtype) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    key_aval = core.get_aval(key)
    if not ((key_aval.shape == (4,) and key_aval.dtype == np.uint32) or
            (key_aval.shape == (2,) and key_aval.dtype == np.uint64)):
        raise TypeError("rng_bit_generator: the key must be a u32[4] or u64[2] array, got "
                        f"{key_aval.dtype}{list(key_aval.shape)}")
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=np.dtype(dtype),
                                          algorithm=algorithm, out_sharding=out_sharding))


def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError("Arguments to rng_uniform must have identical dtypes, got "
                         f"{a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError("Arguments to rng_uniform must be scalars; got shapes "
                         f"{a.shape} and {b.shape}.")
    return core.ShapedArray(shape, a.dtype, weak_type=a.weak_type and b.weak_type)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    shape_value = lowering.ir_constant(np.array(ctx.avals_out[0].shape, np.int64))
    return hlo.rng(a, b, shape_value, hlo.RngDistributionAttr.get("UNIFORM"))


rng_uniform_p = compiled_primitive("rng_uniform")
rng_uniform_p.def_abstract_eval(_rng_uniform_abstract_eval)
lowering.register_lowering(rng_uniform_p, _rng_uniform_lowering)


def rng_uniform(a, b, shape):
    """Uniform samples in ``[a, b)`` from the backend's stateful generator (not
    reproducible: prefer ``jax.random``)."""
    return rng_uniform_p.bind(a, b, shape=tuple(shape))
