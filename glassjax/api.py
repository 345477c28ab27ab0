"""The transformations users call (``glassjax.make_jaxpr``, ``jit``, ``grad``, ``vmap``, ...).

Each is a thin wrapper: it flattens the arguments (``api_util``), hands the flat function
to an interpreter (``interpreters/``) and rebuilds the output pytree.
"""
from __future__ import annotations

import functools
import importlib

import numpy as np

from glassjax import api_util, core, dtypes, tree_util
from glassjax.interpreters import staging


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False,
               abstracted_axes=None, static_argnames=()):
    """A function that returns the ``ClosedJaxpr`` of ``fun`` for example arguments.

    The example arguments may be arrays, scalars or anything with ``shape`` and ``dtype``
    (e.g. ``ShapeDtypeStruct``). Non-scalar constants the function closes over become
    constvars; scalars are printed inline as literals. ``axis_env`` names the mapped axes
    that collectives like ``psum`` may refer to, as pmap would."""
    if abstracted_axes is not None:
        raise NotImplementedError("abstracted_axes (dynamic shapes) is not supported; JAX "
                                  "0.10 removed it too")
    static_argnums, static_argnames = api_util.infer_argnums_and_argnames(
        fun, static_argnums, static_argnames)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        flat = api_util.flatten_call(fun, args, kwargs, static_argnums, static_argnames)
        in_avals = api_util.abstractify_leaves(fun, args, kwargs, flat, static_argnums,
                                               static_argnames)
        debug = staging.debug_info("jit", fun, args, kwargs, static_argnums,
                                   static_argnames)
        with core.extend_axis_env(axis_env or []):
            jaxpr, consts = api_util.trace_flat_call(flat, in_avals, debug)
        closed = core.ClosedJaxpr(jaxpr, consts)
        if return_shape:
            out_shapes = [core.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                          for a in jaxpr.out_avals]
            return closed, tree_util.tree_unflatten(flat.out_tree[0], out_shapes)
        return closed

    make_jaxpr_f.__module__ = "glassjax"
    return make_jaxpr_f


# ----------------------------------------------------------------------------------------
# Moving data between host and devices
# ----------------------------------------------------------------------------------------

def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put every leaf of ``x`` on ``device`` (committing it there), or on the default
    device uncommitted when ``device`` is None."""
    del src, donate, may_alias
    from glassjax.xla import runtime

    def put(leaf):
        if dtypes.dtype(leaf) == dtypes.float0:    # no data: host zeros, as in JAX
            return core.float0_zeros(np.shape(leaf))
        return runtime.device_put(leaf, device, committed=device is not None)
    return tree_util.tree_map(put, x)


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

typeof = core.typeof


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
