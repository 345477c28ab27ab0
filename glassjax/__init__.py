"""glassjax: a glass-box JAX.

A complete tracing / transformation / XLA-compile engine with JAX's public API, written
to be read. ``import glassjax as jax`` behaves like JAX 0.10.2.
"""
from types import SimpleNamespace as _SimpleNamespace

from glassjax.config import (allow_f16_reductions, array_garbage_collection_guard,
                             auto_pcast, check_tracer_leaks, checking_leaks, config,
                             debug_infs, debug_key_reuse, debug_nans, default_device,
                             default_matmul_precision, default_prng_impl, disable_jit,
                             enable_checks, enable_custom_prng, enable_x64,
                             ensure_compile_time_eval, explain_cache_misses,
                             jax2tf_associative_scan_reductions, legacy_prng_key,
                             log_compiles, make_user_context, no_execution, no_tracing,
                             numpy_dtype_promotion, numpy_rank_promotion,
                             remove_size_one_mesh_axis_from_type, softmax_custom_jvp,
                             thread_guard, threefry_partitionable, transfer_guard,
                             transfer_guard_device_to_device, transfer_guard_device_to_host,
                             transfer_guard_host_to_device)
from glassjax import errors, tree, tree_util, dtypes, core
from glassjax.array import Array
from glassjax.core import ShapeDtypeStruct
from glassjax.dtypes import float0
from glassjax.api import (block_until_ready, clear_caches, copy_to_host_async, device_get,
                          device_put, device_put_replicated, device_put_sharded, typeof)
from glassjax.jit import (eval_shape, jit, make_jaxpr, named_call, named_scope,
                          xla_computation)
from glassjax.ad_api import (fwd_and_bwd, grad, hessian, jacfwd, jacobian, jacrev, jvp,
                             linear_transpose, linearize, value_and_grad, vjp)
from glassjax.vmap_api import vmap
from glassjax import ad_api as _ad_api
from glassjax.custom_derivatives import (closure_convert, custom_gradient, custom_jvp,
                                         custom_vjp)
from glassjax.ad_checkpoint import checkpoint, checkpoint_policies, remat
from glassjax.xla.runtime import (Device, default_backend, device_count, devices, host_count,
                                  host_id, host_ids, live_arrays, local_device_count,
                                  local_devices, print_environment_info, process_count,
                                  process_index, process_indices)
from glassjax.array import Shard
from glassjax.mesh import P, make_mesh, set_mesh
from glassjax.named_sharding import NamedSharding
from glassjax.shard_map import shard_map, smap
from glassjax.lax.sharding_constraint import reshard
from glassjax import shard_map_eager as _shard_map_eager  # noqa: F401 (registers)
from glassjax import call as _call  # noqa: F401 (call_p, closed_call_p and their rules)
from glassjax.pmap import pmap
from glassjax.describe import describe, primitives
from glassjax.callbacks import pure_callback
from glassjax.array_creation import (make_array_from_callback,
                                     make_array_from_process_local_data,
                                     make_array_from_single_device_arrays)
from glassjax.xla.dispatch import effects_barrier
from glassjax.ref import Ref, ds, empty_ref, free_ref, freeze, new_ref
from glassjax import ref  # noqa: E402  (jax.ref: get, set, swap, addupdate, ...)
from glassjax import (ad_checkpoint, custom_batching, debug, distributed, dlpack, experimental,
                      export, ffi, flatten_util, image, lax, lib, monitoring, nn, numpy,
                      ops, profiler, random, scipy, sharding, stages, state, test_util, typing)

import glassjax.nn.initializers  # noqa: E402  (see glassjax/nn/__init__.py)
from glassjax import key_reuse as _key_reuse  # noqa: E402,F401  (registers the checker)
from glassjax import _src  # noqa: E402,F401  (jax._src.xla_bridge, jax._src.compiler)
from glassjax.version import __version__  # noqa: E402
from glassjax import as_jax  # noqa: E402  (``glassjax.as_jax()``: ``import jax`` is glassjax)

# ``jax.ad``: what ``jax.vjp(...)[1].with_refs`` is told, and answers, per cotangent.
ad = _SimpleNamespace(DontWant=_ad_api.DontWant, DidntWant=_ad_api.DidntWant,
                      GradRef=_ad_api.GradRef, GradValue=_ad_api.GradValue)

# ``jax.memory.Space``: the memories of a device a value may live in (``device_put`` to
# one, and the type says it: ``f32<host>[3]``).
memory = _SimpleNamespace(Space=core.MemorySpace)


def load_ipython_extension(ip):
    """``%load_ext glassjax``: the notebook layer (imported only now, never by
    ``import glassjax``)."""
    from glassjax.notebook import magics
    magics.load(ip)


def unload_ipython_extension(ip):
    from glassjax.notebook import magics
    magics.unload(ip)
