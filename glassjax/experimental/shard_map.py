"""``jax.experimental.shard_map``: the old home of ``shard_map``, kept (deprecated, as in
JAX 0.10.2) with its old signature: mesh and specs positional, ``check_rep`` for what is
now ``check_vma``."""
import importlib
import warnings

from glassjax.shard_map import shard_map as _shard_map

# JAX exposes its shard_map implementation module here as ``jshmap``; this is glassjax's
# (looked up by module name: the package attribute ``glassjax.shard_map`` is the function).
jshmap = importlib.import_module("glassjax.shard_map")


def _legacy_shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """Please use `jax.shard_map`. `jax.experimental.shard_map.shard_map`
    has been deprecated."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      check_vma=check_rep)


_legacy_shard_map.__name__ = _legacy_shard_map.__qualname__ = "shard_map"


def __getattr__(name):
    if name == "shard_map":
        warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used "
                      "jax.shard_map instead.", DeprecationWarning, stacklevel=2)
        return _legacy_shard_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
