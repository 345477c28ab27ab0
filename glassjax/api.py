"""Small public API functions that are not transformations: moving data between host
and devices, ``typeof`` and ``clear_caches``. (The transformations live in ``jit.py``,
``ad_api.py`` and ``vmap_api.py``.)"""
from __future__ import annotations

import importlib

from glassjax import core, tree_util


# ----------------------------------------------------------------------------------------
# Moving data between host and devices
# ----------------------------------------------------------------------------------------

def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put every leaf of ``x`` on ``device`` (committing it there), or on the default
    device uncommitted when ``device`` is None."""
    del src, donate, may_alias
    from glassjax.xla import runtime
    return tree_util.tree_map(
        lambda leaf: runtime.device_put(leaf, device, committed=device is not None), x)


def device_get(x):
    """Copy every device array leaf of ``x`` to a NumPy array; other leaves pass."""
    from glassjax.xla import runtime
    return tree_util.tree_map(
        lambda leaf: runtime.to_numpy(leaf) if isinstance(leaf, runtime.ArrayImpl) else leaf,
        x)


def block_until_ready(x):
    """Wait until every device array in ``x`` has been computed; returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


# ----------------------------------------------------------------------------------------
# Types and caches
# ----------------------------------------------------------------------------------------

def typeof(x) -> core.ShapedArray:
    """The JAX type (abstract value) of ``x``: ``float32[3]``, ``~float32[]`` (weak)."""
    try:
        return core.get_aval(x)
    except TypeError:
        quoted = "{}" if isinstance(x, str) else "'{}'"
        raise TypeError(f"Argument '{x}' of type {quoted.format(type(x))} is not a valid "
                        "JAX type") from None


def clear_caches():
    """Forget every cached trace and compiled executable: the next call of any jitted
    function (or eager operation) traces and compiles again."""
    from glassjax.interpreters import batching
    from glassjax.lax.control_flow import common
    from glassjax.xla import dispatch, fastpath
    jit_module = importlib.import_module("glassjax.jit")   # (glassjax.jit is the function)
    for cache in (jit_module._executables, jit_module._trace_cache, common._cache,
                  batching._batch_jaxpr_cache, dispatch._primitive_cache,
                  dispatch._primitive_callables):
        cache.clear()
    fastpath.clear_cpp_caches()
