"""``jax.experimental.random``: a NumPy-style generator whose key updates itself.

``stateful_rng(seed)`` pairs a typed PRNG key with a counter held in a ``Ref``; each draw
folds the counter into the key and increments it, so repeated calls give new numbers
without the caller threading keys (under ``jit`` too: the counter is ref state). It is a
convenience over the stateless ``jax.random``, which it calls for every draw.
"""
from __future__ import annotations

import dataclasses
import operator
from typing import Sequence

import numpy as np

from glassjax import core, dtypes, random, tree_util
from glassjax import numpy as jnp
from glassjax.ref import Ref, new_ref


def _canonicalize_size(size, *args) -> tuple[int, ...]:
    """NumPy's ``size``: None (the arguments' broadcast shape), an int or a shape."""
    if size is None:
        return np.broadcast_shapes(*(np.shape(arg) for arg in args))
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),)
    return tuple(map(operator.index, size))


@tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class StatefulPRNG:
    """A generator: a typed PRNG key and a ``Ref`` counting the keys drawn from it (make
    one with ``stateful_rng``). A pytree, so ``vmap`` maps a ``split`` generator."""
    _base_key: jnp.ndarray
    _counter: Ref

    def __post_init__(self):
        # (pytree functions also rebuild it from other leaves, e.g. vmap's axes: only
        # arrays are checked)
        key, counter = self._base_key, self._counter
        if isinstance(key, (jnp.ndarray, core.Tracer, np.ndarray)) and not \
                dtypes.issubdtype(key.dtype, dtypes.prng_key):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {key}")
        if isinstance(counter, (jnp.ndarray, core.Tracer, np.ndarray)):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {counter}")

    def key(self, shape: int | Sequence[int] = ()):
        """A new key (or an array of ``shape`` keys); the counter moves on by one."""
        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = random.fold_in(self._base_key, self._counter[...])
        self._counter.addupdate(1, ...)
        shape = _canonicalize_size(shape)
        return random.split(key, shape) if shape else key

    def random(self, size=None, dtype=float):
        """Floats uniform in [0, 1)."""
        return random.uniform(self.key(), shape=_canonicalize_size(size), dtype=dtype)

    def uniform(self, low=0, high=1, size=None, *, dtype=float):
        """Floats uniform in [low, high)."""
        return random.uniform(self.key(), _canonicalize_size(size, low, high),
                              minval=low, maxval=high, dtype=dtype)

    def normal(self, loc=0, scale=1, size=None, *, dtype=float):
        """Normally distributed floats of mean ``loc`` and deviation ``scale``."""
        norm = random.normal(self.key(), _canonicalize_size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * norm).astype(dtype)

    def integers(self, low, high=None, size=None, *, dtype=int):
        """Integers in [low, high) (in [0, low) if ``high`` is not given)."""
        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _canonicalize_size(size, low, high),
                              minval=low, maxval=high, dtype=dtype)

    def split(self, num: int | Sequence[int]) -> StatefulPRNG:
        """One generator holding ``num`` independent ones, to be mapped by ``vmap``."""
        return StatefulPRNG(self.key(num), new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list[StatefulPRNG]:
        """A list of ``n_children`` independent generators."""
        return [StatefulPRNG(key, new_ref(0)) for key in self.key(n_children)]


def stateful_rng(seed=None, *, impl=None) -> StatefulPRNG:
    """A generator seeded with ``seed`` (from NumPy's entropy if None, outside
    transformations only)."""
    if seed is None:
        if not isinstance(core.trace_ctx.trace, core.EvalTrace):
            raise TypeError(
                "When used within transformed code, jax.experimental.random.stateful_rng()"
                " requires an explicit seed to be set.")
        seed = np.int64(np.random.SeedSequence().entropy & np.iinfo(np.int64).max)
    return StatefulPRNG(random.key(seed, impl=impl), new_ref(0))
