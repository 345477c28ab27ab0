"""jaxlib's C++ configuration cells and guard states: the door through which config.py
reaches them.

An option's value lives in a ``Config`` cell (a process-wide value plus a thread-local
override) because jaxlib's C++ reads some options itself: the jit fast path checks
``disable_jit`` and keys its cache on cells made with ``include_in_jit_key``; transfer
guards are checked where transfers happen. Like every private jaxlib name, these are
reached only from glassjax/xla/; this module sits in the base layer
(tests/test_layers.py) because config.py does.
"""
from jaxlib._jax import config as _config
from jaxlib._jax import guard_lib as _guards
from jaxlib._jax import jax_jit as _jax_jit

Config = _config.Config
unset = _config.unset               # a thread-local value that was never set
trace_context = _config.trace_context
trace_context_names = _config.trace_context_names

TransferGuardLevel = _guards.TransferGuardLevel
GarbageCollectionGuardLevel = _guards.GarbageCollectionGuardLevel
global_guard_state = _guards.global_state
thread_local_guard_state = _guards.thread_local_state
set_thread_guard = _guards.update_thread_guard_global_state


def share_with_jit(enable_x64, disable_jit, post_hook):
    """Hand the C++ jit the very cells Python reads, so the two never disagree."""
    _jax_jit.set_enable_x64_state(enable_x64)
    _jax_jit.set_disable_jit_state(disable_jit)
    _jax_jit.set_post_hook_state(post_hook)
