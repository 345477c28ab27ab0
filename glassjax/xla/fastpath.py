"""The C++ dispatch fast path: calling a compiled function without running Python.

Once ``jit(f)`` has compiled ``f`` for some argument types, every later call with the
same types does the same few things: flatten the arguments, check their types, put NumPy
inputs on the device, execute, wrap the results in Arrays. jaxlib has that loop in C++
(``jaxlib._jax.pjit``), and JAX's ``jit`` is that C++ object. So is ours:

1. C++ flattens the arguments with our pytree registry and computes a *signature*:
   static arguments, the pytree structure, each leaf's shape, dtype, weak type,
   sharding and commitment, and the value of every option created with
   ``include_in_jit_key`` (x64, the matmul precision, ... and "is a trace current?",
   see ``core.set_current_trace``).
2. On a hit it runs the executable it remembers for that signature: no Python at all.
3. On a miss it calls our ``cache_miss(*args, **kwargs)``, the ordinary Python path,
   which returns ``(outputs, FastpathData or None, False)``. ``None`` says "always ask
   Python for this signature": under a trace, with host callbacks, or results C++
   cannot build. In reference mode (``glassjax_reference_mode``, see
   ``glassjax/caches.py``) it is always ``None``: every call runs the Python path.

Eager primitives (``jnp.sin(x)`` outside jit) use the same machinery, one C++ callable
per primitive and parameters (see ``dispatch.apply_primitive``).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from jaxlib import _jax

from glassjax import caches, tree_util
from glassjax.config import config
from glassjax.xla import runtime


class FastpathData(NamedTuple):
    """What the C++ dispatcher needs to run an executable by itself (jaxlib reads these
    fields by name)."""
    xla_executable: Any                 # the jaxlib LoadedExecutable
    out_pytree_def: Any                 # how to rebuild the outputs from the flat list
    in_shardings: Sequence[Any]         # where each kept argument must live
    out_shardings: Sequence[Any]
    out_avals: Sequence[Any]            # ShapedArrays of the results
    out_committed: Sequence[bool]
    kept_var_bitvec: Sequence[bool]     # which flat arguments the executable takes
    in_device_local_layouts: Sequence[Any]   # None: the default layout
    const_args: Sequence[Any]           # leading arguments C++ adds itself (none here)


def fastpath_data(compiled, outs: Sequence, out_tree) -> FastpathData | None:
    """Describe a ``dispatch.Compiled`` that just produced ``outs`` for C++, or None if
    C++ cannot run it alone: host callbacks must be tracked by Python (effects_barrier),
    outputs are checked for NaNs by Python (jax_debug_nans), and results that are not
    device arrays (float0 tangents) are made by Python; and in reference mode."""
    if compiled.module_context.host_callbacks or caches.reference.on:
        return None
    if config.jax_debug_nans or config.jax_debug_infs:     # outputs checked in Python
        return None
    if not all(isinstance(o, runtime.ArrayImpl) for o in outs):
        return None
    n_kept = sum(compiled.kept_invars)
    return FastpathData(
        xla_executable=compiled.executable,
        out_pytree_def=out_tree,
        in_shardings=list(compiled.in_shardings),
        out_shardings=[o.sharding for o in outs],
        out_avals=[o.aval for o in outs],
        out_committed=[o._committed for o in outs],
        kept_var_bitvec=list(compiled.kept_invars),
        in_device_local_layouts=[None] * n_kept,
        const_args=())


def _shard_arg(x, sharding, layout):
    """C++ calls this for an argument it cannot place by itself (e.g. an Array that lives
    on other devices than the executable)."""
    del layout
    return runtime.device_put(x, sharding)


# One process-wide LRU cache of executables, keyed by (function, options) and then by
# call signature, as in JAX: two ``jit(f)`` of the same ``f`` share compilations.
_cache = _jax.PjitFunctionCache(capacity=8192)
caches.external("xla.fastpath.cpp_executables", bound=_cache.capacity(), shortcut=True,
                clear=_jax.PjitFunctionCache.clear_all, size=_cache.size)


def cpp_function(name: str, fun: Callable, cache_miss: Callable, *,
                 static_argnums: Sequence[int] = (), static_argnames: Sequence[str] = (),
                 options_key: Any = ()):
    """A C++ callable that runs ``cache_miss`` on the first call of each signature and
    the remembered executable afterwards. ``fun`` runs instead when jit is disabled;
    ``options_key`` must tell apart everything, besides the signature, that changes the
    compiled program (donation, device, ...)."""
    return _jax.pjit(name, fun, cache_miss, list(static_argnums), list(static_argnames),
                     options_key, tree_util.default_registry, _shard_arg, _cache)


def is_jitted(f) -> bool:
    """Whether ``f`` is a callable made by ``cpp_function`` (``jit(g)``)."""
    return type(f) is _jax.PjitFunction

