"""Small public API functions that are not transformations: moving data between host
and devices, ``typeof`` and ``clear_caches``. (The transformations live in ``jit.py``,
``ad_api.py`` and ``vmap_api.py``.)"""
from __future__ import annotations

import numpy as np

from glassjax import caches, core, dtypes, tree_util
from glassjax.config import explicit_transfers


# ----------------------------------------------------------------------------------------
# Moving data between host and devices
# ----------------------------------------------------------------------------------------

def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put every leaf of ``x`` on ``device`` (committing it there), or on the default
    device uncommitted when ``device`` is None. ``device`` may also be a memory space
    (``jax.memory.Space.Host``: the same devices, in their host memory) or a sharding
    with a ``memory_kind``. ``may_alias=False`` (or ``donate=True``) makes the result a
    copy even where ``x`` is already in place."""
    del src
    from glassjax.lax.device_put import Copy
    from glassjax.named_sharding import spec_to_sharding
    from glassjax.xla import runtime
    if may_alias and donate:
        raise ValueError("may_alias and donate cannot be True at the same time.")
    semantics = (Copy.DONATE_INPUT if donate else Copy.ALWAYS_COPY if may_alias is False
                 else Copy.REUSE_INPUT)
    device = tree_util.tree_map(lambda t: spec_to_sharding(t, "device_put"), device)
    for target in tree_util.tree_leaves(device):
        if not isinstance(target, (runtime.Device, runtime.Sharding, core.MemorySpace)):
            raise ValueError("`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
                             "`jax.Device`, `Format`, `jax.memory.Space` or a pytree of "
                             f"these values. Received invalid value: {target}")

    leaves = tree_util.tree_leaves(x)
    if any(isinstance(leaf, core.Tracer) for leaf in leaves):
        return _staged_device_put(x, device, semantics)

    def put(leaf, target):
        if dtypes.dtype(leaf) == dtypes.float0:    # no data: host zeros, as in JAX
            return core.float0_zeros(np.shape(leaf))
        if semantics != Copy.REUSE_INPUT and isinstance(leaf, runtime.ArrayImpl):
            leaf = runtime.copy_array(leaf)
        with explicit_transfers("device_put"):   # (only *_explicit transfer guards stop it)
            return runtime.device_put(leaf, target, committed=target is not None)
    if device is None or isinstance(device, (runtime.Device, runtime.Sharding,
                                             core.MemorySpace)):
        return tree_util.tree_map(lambda leaf: put(leaf, device), x)
    # a pytree of devices / shardings: a prefix of x's structure
    leaves, tree = tree_util.tree_flatten(x)
    targets = tree_util.broadcast_prefix(device, x, is_leaf=lambda t: t is None)
    return tree.unflatten([put(leaf, t) for leaf, t in zip(leaves, targets)])


def _staged_device_put(x, device, semantics):
    """``device_put`` of traced values: one ``device_put`` equation for all leaves."""
    from glassjax.lax.device_put import device_put_p
    from glassjax.named_sharding import NamedSharding
    from glassjax.xla import runtime
    leaves, tree = tree_util.tree_flatten(x)
    targets = tree_util.broadcast_prefix(device, x, is_leaf=lambda t: t is None)
    for t in targets:
        if (isinstance(t, runtime.Sharding) and len(t.device_set) > 1 and
                not isinstance(t, NamedSharding)):
            raise NotImplementedError("glassjax's device_put inside a traced function takes "
                                      "a device, a NamedSharding or a single-device sharding")
    n = len(leaves)
    outs = device_put_p.bind(*leaves, devices=tuple(targets), srcs=(None,) * n,
                             copy_semantics=(semantics,) * n)
    return tree.unflatten(outs)


def device_put_sharded(shards, devices):
    """Stack ``shards`` (a list of equally structured pytrees, one per device) along a
    new leading axis, the i-th slice stored on ``devices[i]``: the layout pmap gives its
    inputs. (JAX 0.10 removed this seed API; glassjax keeps it.)"""
    from glassjax import numpy as jnp
    from glassjax.xla import runtime
    if not isinstance(shards, (list, tuple)):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got "
                        f"{type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = "
                         f"{len(devices)}.")

    def stack_and_split(*leaves):
        stacked = jnp.stack([jnp.asarray(leaf) for leaf in leaves])
        return runtime.device_put(stacked, runtime.split_sharding(devices, stacked.ndim),
                                  committed=True)
    return tree_util.tree_map(stack_and_split, *shards)


def device_put_replicated(x, devices):
    """Every leaf of ``x`` broadcast along a new leading axis of ``len(devices)``, the
    i-th copy stored on ``devices[i]``. (Removed in JAX 0.10; glassjax keeps it.)"""
    if not isinstance(devices, (list, tuple)) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a "
                         "non-empty sequence.")
    return device_put_sharded([x] * len(devices), devices)


def device_get(x):
    """Copy every device array leaf of ``x`` to a NumPy array; other leaves pass."""
    from glassjax.xla import runtime
    with explicit_transfers("device_get"):
        return tree_util.tree_map(lambda leaf: runtime.to_numpy(leaf)
                                  if isinstance(leaf, runtime.ArrayImpl) else leaf, x)


def block_until_ready(x):
    """Wait until every device array in ``x`` has been computed; returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


def copy_to_host_async(x):
    """Start copying every device array in ``x`` to the host now (so a later read does
    not wait for the transfer); returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "copy_to_host_async"):
            leaf.copy_to_host_async()
    return x


# ----------------------------------------------------------------------------------------
# Types and caches
# ----------------------------------------------------------------------------------------

typeof = core.typeof


def clear_caches():
    """Forget every cached trace and compiled executable: the next call of any jitted
    function (or eager operation) traces and compiles again. Every cache glassjax keeps
    is registered in ``glassjax.caches.registry``, and all are emptied."""
    caches.clear_all()
