"""JAX's configuration: ``config.update("jax_enable_x64", True)`` and friends.

Every option's value lives in a jaxlib ``Config`` cell (glassjax/xla/cells.py), a small
C++ cell holding a process-wide value plus an optional thread-local override. We use
jaxlib's cell rather than a Python attribute because jaxlib's C++ code reads some options
directly: the jit fast path (glassjax/xla/fastpath.py) checks ``disable_jit`` and keys its
cache on the options created with ``include_in_jit_key``. Registering the very same cells
with ``jax_jit.set_*_state`` means Python and C++ can never disagree about a value.

Precedence, as in JAX: a context manager (thread-local) beats ``config.update`` (global),
which beats the ``JAX_<NAME>`` environment variable read at import, which beats the default.
"""
import contextlib
import logging
import os
import re

from glassjax.xla import cells as _cells


def _env_text(text, name):
    """Most options take the environment variable's text as their value."""
    return text


_NO_DEFAULT = object()


class Option:
    """One named option: its C++ cell, how to validate new values, who to notify.

    Like JAX's config ``State`` objects (``jax.log_compiles`` is one), an option is also a
    context manager factory: ``with jax.log_compiles(True): ...`` (a boolean option's
    value defaults to True there)."""

    def __init__(self, name, default, parse, *, from_env=_env_text, in_jit_key=False,
                 in_trace_context=False, global_hook=None, thread_local_hook=None):
        env = os.environ.get(name.upper())
        value = parse(default if env is None else from_env(env, name))
        self.name = name
        self.parse = parse
        self.default_context_value = True if isinstance(default, bool) else _NO_DEFAULT
        # Called with the new global / this thread's override value (None: no override),
        # for options that jaxlib's C++ reads from a state of its own.
        self.global_hook, self.thread_local_hook = global_hook, thread_local_hook
        self.cell = _cells.Config(name, value, include_in_jit_key=in_jit_key,
                                  include_in_trace_context=in_trace_context)
        self.subscribers = []

    @property
    def value(self):
        return self.cell.value

    def set_global(self, value):
        self.cell.set_global(self.parse(value))
        if self.global_hook is not None:
            self.global_hook(self.cell.get_global())
        self._notify()

    def override(self, value):
        """Give the option ``value`` in this thread for the duration of a ``with`` block
        (also usable as a decorator). The value is checked now, not on entry."""
        return self._override(self.parse(value))

    @contextlib.contextmanager
    def _override(self, value):
        previous = self.cell.swap_local(value)
        self._local_changed(value)
        try:
            yield
        finally:
            self.cell.set_local(previous)   # `previous` may be `unset`: back to the global
            self._local_changed(previous)

    def _local_changed(self, local):
        if self.thread_local_hook is not None:
            self.thread_local_hook(None if local is _cells.unset else local)
        self._notify()

    def __call__(self, new_val=_NO_DEFAULT):
        if new_val is _NO_DEFAULT:
            if self.default_context_value is _NO_DEFAULT:
                raise TypeError(f"Context manager for {self.name} config option requires "
                                "an argument representing the new value for the config "
                                "option.")
            new_val = self.default_context_value
        return self.override(new_val)

    def get_global(self):
        return self.cell.get_global()

    def _notify(self):
        for callback in self.subscribers:
            callback(self.value)


# -- validators (each returns the value to store, or raises ValueError like JAX) ---------

def _parse_bool(value):
    return bool(value)


def _bool_from_env(text, name):
    text = text.lower()
    if text in ("y", "yes", "t", "true", "on", "1"):
        return True
    if text in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {text!r} for environment {name.upper()!r}")


def _parse_int(value):
    if value is not None and not isinstance(value, int):
        raise ValueError("new int config value must be None or of type int, "
                         f"got {value} of type {type(value)}")
    return value


def _int_from_env(text, name):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f'Invalid value "{text}" for JAX flag {name}') from None


def _parse_optional_str(value):
    if value is not None and not isinstance(value, str):
        raise ValueError("new string config value must be None or of type str, "
                         f"got {value} of type {type(value)}.")
    return value


def _enum(choices, optional=False):
    """A validator accepting one of the strings ``choices`` (or None if ``optional``)."""
    def parse(value):
        if optional and value is None:
            return None
        if type(value) is not str or value not in choices:
            allowed = "None or in" if optional else "in"
            raise ValueError(f"new enum value must be {allowed} {choices}, "
                             f"got {value} of type {type(value)}.")
        return value
    return parse


_MATMUL_PRECISIONS = [
    "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64",
]


# -- the config object -------------------------------------------------------------------

class Config:
    """``jax.config``: read options as attributes, change them with ``update``."""

    def __init__(self):
        self._options = {}

    def define(self, name, default, parse, **kwargs):
        """Create an option and expose it as the read-only attribute ``config.<name>``."""
        if name in self._options:
            raise ValueError(f"Config option {name} already defined")
        option = self._options[name] = Option(name, default, parse, **kwargs)
        setattr(Config, name, property(lambda self: option.cell.value))
        return option

    def option(self, name):
        try:
            return self._options[name]
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    def update(self, name, value):
        self.option(name).set_global(value)

    def read(self, name):
        return self.option(name).value

    @property
    def values(self):
        return {name: option.value for name, option in self._options.items()}

    @property
    def x64_enabled(self):
        return self.jax_enable_x64

    def on_change(self, name, callback):
        """Call ``callback(new_value)`` whenever option ``name`` changes, globally or in a
        ``with`` block (e.g. to install a NaN-checking post hook for jax_debug_nans)."""
        self.option(name).subscribers.append(callback)

    @staticmethod
    def trace_context():
        """The values of every option that changes what tracing produces, as a hashable
        tuple: part of the key of each trace/compile cache. jaxlib collects it in C++ from
        all cells created with ``in_trace_context=True``."""
        return _cells.trace_context()

    @staticmethod
    def trace_context_names():
        """The names of the values of ``trace_context()``, in order."""
        return _cells.trace_context_names()


config = Config()

_enable_x64 = config.define(
    "jax_enable_x64", False, _parse_bool, from_env=_bool_from_env,
    in_jit_key=True, in_trace_context=True)
_disable_jit = config.define(
    "jax_disable_jit", False, _parse_bool, from_env=_bool_from_env, in_trace_context=True)
config.define("jax_platforms", None, _parse_optional_str)
config.define("jax_num_cpu_devices", -1, _parse_int, from_env=_int_from_env)
config.define("jax_numpy_rank_promotion", "allow", _enum(["allow", "warn", "raise"]),
              in_jit_key=True, in_trace_context=True)
config.define("jax_numpy_dtype_promotion", "standard", _enum(["standard", "strict"]),
              in_jit_key=True, in_trace_context=True)
config.define("jax_default_matmul_precision", None, _enum(_MATMUL_PRECISIONS, optional=True),
              in_jit_key=True, in_trace_context=True)
# NaN/inf checking changes what a call does (outputs are inspected, so C++ may not run
# it alone): part of the jit key.
_debug_nans = config.define("jax_debug_nans", False, _parse_bool, from_env=_bool_from_env,
                            in_jit_key=True)
_debug_infs = config.define("jax_debug_infs", False, _parse_bool, from_env=_bool_from_env,
                            in_jit_key=True)
# After each trace, check that no tracer of it is still referenced (a side effect leaked
# it); part of the trace context, so cached traces are not reused unchecked.
_check_tracer_leaks = config.define("jax_check_tracer_leaks", False, _parse_bool,
                                    from_env=_bool_from_env, in_trace_context=True)
# Bounds-check static integer indices (``x[5]`` on 3 elements raises instead of clamping).
config.define("jax_check_static_indices", False, _parse_bool, from_env=_bool_from_env,
              in_jit_key=True, in_trace_context=True)
# Where uncommitted values and computations go (None: the first local device).
# (A device, or a platform name such as "cpu".)
_default_device = config.define("jax_default_device", None, lambda d: d, in_jit_key=True,
                                in_trace_context=True)
# Reference mode (``glassjax/caches.py``): every shortcut that skips Python a reader reads
# is bypassed. Part of the jit key, so C++ dispatchers filled before it was switched on do
# not answer while it is on.
reference_mode = config.define("glassjax_reference_mode", False, _parse_bool,
                                from_env=_bool_from_env, in_jit_key=True)
# While set, staging runs operations on concrete values now instead of recording them
# (``ensure_compile_time_eval``).
# The persistent compilation cache (``xla/compilation_cache.py``): off until a directory
# is given; only programs that took at least this long to compile are written.
config.define("jax_compilation_cache_dir", None, _parse_optional_str)
config.define("jax_enable_compilation_cache", True, _parse_bool, from_env=_bool_from_env)
config.define("jax_persistent_cache_min_compile_time_secs", 1.0, float)
config.define("jax_persistent_cache_min_entry_size_bytes", 0, _parse_int,
              from_env=_int_from_env)
# Which of XLA's own caches (GPU autotuning results) to enable next to the persistent cache;
# no CPU compilation has such a cache, so nothing reads it here. Kept as a real option so
# that code setting it runs.
config.define("jax_persistent_cache_enable_xla_caches",
              "xla_gpu_per_fusion_autotune_cache_dir", _parse_optional_str)
# A GPU topology ("4x8x1") to pretend to have when compiling for GPUs without them; only
# GPU backends read it (the CPU backend has its own device count). Kept like the above.
config.define("jax_mock_gpu_topology", "", _parse_optional_str)


def _set_logging_level(level):
    if level is not None:
        logging.getLogger("glassjax").setLevel(level)


# The level of every glassjax logger ("DEBUG", ..., or None to leave them be).
config.define("jax_logging_level", "NOTSET",
              _enum(["NOTSET", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
                    optional=True), global_hook=_set_logging_level)
# Log (at WARNING instead of DEBUG) each trace, lowering and compilation of a jit.
log_compiles = config.define("jax_log_compiles", False, _parse_bool, from_env=_bool_from_env)
# Type-check every jaxpr a jit traces (``core.check_jaxpr``): slower, catches rule bugs.
enable_checks = config.define("jax_enable_checks", False, _parse_bool,
                              from_env=_bool_from_env, in_trace_context=True)
# What jax.random does with raw uint32 keys (``PRNGKey``'s): "allow", "warn" or "error";
# with ``jax_enable_custom_prng`` it returns typed keys where it was given raw ones.
legacy_prng_key = config.define("jax_legacy_prng_key", "allow",
                                _enum(["allow", "warn", "error"]))
enable_custom_prng = config.define("jax_enable_custom_prng", False, _parse_bool,
                                   from_env=_bool_from_env)

# Threefry random bits as a function of each element's own counter (JAX's default), so
# a sharded program can compute its piece alone; off: the older scheme, one counter
# stream over the whole array (different numbers).
threefry_partitionable = config.define("jax_threefry_partitionable", True, _parse_bool,
                                       from_env=_bool_from_env, in_jit_key=True,
                                       in_trace_context=True)

# jax.nn.softmax differentiated by its own rule (a custom_jvp) instead of through its
# operations; JAX 0.10.2's default is off.
softmax_custom_jvp = config.define("jax_softmax_custom_jvp", False, _parse_bool,
                                   from_env=_bool_from_env, in_jit_key=True,
                                   in_trace_context=True)

# Which PRNG ``jax.random.key(seed)`` / ``PRNGKey(seed)`` use when no ``impl=`` is given
# (``prng.py`` and ``random.py`` read it). JAX 0.10.2 accepts six names; glassjax
# implements threefry2x32, rbg and unsafe_rbg (asking for another one is an error there).
default_prng_impl = config.define(
    "jax_default_prng_impl", "threefry2x32",
    _enum(["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32",
           "philox4x32"]))

# Track typed PRNG keys and raise ``KeyReuseError`` when a consumed key is used again
# (``random.py``'s key-reuse checker). It changes what tracing checks: part of the keys.
debug_key_reuse = config.define("jax_debug_key_reuse", False, _parse_bool,
                                from_env=_bool_from_env, in_jit_key=True,
                                in_trace_context=True)

# Inside ``shard_map(check_vma=True)``, an operation whose operands vary over different
# manual axes first casts the less-varying ones with ``pvary`` (``staging._vary_alike``);
# off, such an operation is a type error, as in JAX.
auto_pcast = config.define("jax_auto_pcast", True, _parse_bool, from_env=_bool_from_env,
                           in_jit_key=True, in_trace_context=True)

# Leave mesh axes of size 1 out of the types: a value does not "vary" over an axis with one
# device (the vma of ``shard_map`` inputs, ``pvary``), and collectives skip such axes.
remove_size_one_mesh_axis_from_type = config.define(
    "jax_remove_size_one_mesh_axis_from_type", False, _parse_bool, from_env=_bool_from_env,
    in_jit_key=True, in_trace_context=True)

# Only read by jax2tf (JAX's TensorFlow exporter, which glassjax does not have): whether
# cumulative reductions are exported as associative scans instead of reduce_window. On CPU
# jit lowers them as associative scans either way. Kept as a real option so that code
# setting it runs.
jax2tf_associative_scan_reductions = config.define(
    "jax2tf_associative_scan_reductions", False, _parse_bool, from_env=_bool_from_env)

# Raise when a multi-process operation is called from a thread other than the one that
# turned the guard on (threads would schedule collectives in different orders in different
# processes). jaxlib's C++ checks it; ``with thread_guard(True):`` switches its state.
thread_guard = config.define(
    "jax_thread_guard", False, _parse_bool, from_env=_bool_from_env,
    thread_local_hook=lambda value: _cells.set_thread_guard(
        bool(value)))

# Transfer guards: what happens when data moves implicitly (an argument NumPy array put on
# the device by a computation, ...): "allow", "log", "disallow", or "log_explicit" /
# "disallow_explicit" (explicit ``device_put``/``device_get`` too). jaxlib checks them in
# C++ where the transfers happen, reading its own guard state, which these options set.
_TRANSFER_LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]


def _guard_hook(key, state, levels=_cells.TransferGuardLevel):
    def hook(value):
        setattr(state(), key, None if value is None else getattr(levels, value.upper()))
    return hook


_transfer_guards = [
    config.define(f"jax_transfer_guard_{key}", None, _enum(_TRANSFER_LEVELS, optional=True),
                  global_hook=_guard_hook(key, _cells.global_guard_state),
                  thread_local_hook=_guard_hook(key, _cells.thread_local_guard_state))
    for key in ("host_to_device", "device_to_device", "device_to_host")]
transfer_guard_host_to_device, transfer_guard_device_to_device, \
    transfer_guard_device_to_host = _transfer_guards
_transfer_guard_all = config.define(
    "jax_transfer_guard", None, _enum(_TRANSFER_LEVELS, optional=True),
    global_hook=lambda value: [o.set_global(value) for o in _transfer_guards])


@contextlib.contextmanager
def transfer_guard(new_val: str):
    """Guard all three kinds of transfers at level ``new_val`` in this block."""
    with contextlib.ExitStack() as stack:
        for option in (*_transfer_guards, _transfer_guard_all):
            stack.enter_context(option(new_val))
        yield


# What happens when a jax.Array is freed by Python's garbage collector (it was in a
# reference cycle, so its device memory was held until a collection): "allow", "log" (an
# error message) or "fatal". jaxlib's array destructor reads the level.
array_garbage_collection_guard = config.define(
    "jax_array_garbage_collection_guard", None, _enum(["allow", "log", "fatal"], True),
    global_hook=_guard_hook("garbage_collect_array", _cells.global_guard_state,
                            _cells.GarbageCollectionGuardLevel),
    thread_local_hook=_guard_hook("garbage_collect_array", _cells.thread_local_guard_state,
                                  _cells.GarbageCollectionGuardLevel))


@contextlib.contextmanager
def explicit_transfers(kind: str):
    """Mark the transfers in this block as asked for (``kind``: "device_put" or
    "device_get"), so that only the ``*_explicit`` guard levels stop them."""
    state = _cells.thread_local_guard_state()
    attribute = f"explicit_{kind}"
    previous = getattr(state, attribute)
    setattr(state, attribute, True)
    try:
        yield
    finally:
        setattr(state, attribute, previous)


# Refuse reduce_sum over float16/bfloat16 values (lax/reductions.py).
allow_f16_reductions = config.define("jax_allow_f16_reductions", True, _parse_bool,
                                     from_env=_bool_from_env, in_jit_key=True,
                                     in_trace_context=True)
# Log why each jit trace happened (the cache key that missed, ``cache_misses.py``).
explain_cache_misses = config.define("jax_explain_cache_misses", False, _parse_bool,
                                     from_env=_bool_from_env)
# Refuse to trace for jit (every call must hit a compiled cache entry), or to execute.
# Refusing to execute must also stop the C++ fast path: part of the jit key.
no_tracing = config.define("jax_no_tracing", False, _parse_bool, from_env=_bool_from_env)
no_execution = config.define("jax_no_execution", False, _parse_bool,
                             from_env=_bool_from_env, in_jit_key=True)
_eager_constant_folding = config.define("eager_constant_folding", False, _parse_bool,
                                        from_env=_bool_from_env, in_trace_context=True)

def internal_cell(name, default, *, in_jit_key=False, in_trace_context=False):
    """A value kept in a jaxlib cell that is no user option: one the C++ jit keys its
    cache on (``in_jit_key``) or that every tracing cache depends on
    (``in_trace_context``), such as core's tracing flag or ``set_xla_metadata``'s
    attributes."""
    return _cells.Config(name, default, include_in_jit_key=in_jit_key,
                         include_in_trace_context=in_trace_context)


# JAX records with each equation the abstract mesh in effect and re-enters it to transpose
# the equation; at top level none is. glassjax has no meshes, but the difference is part
# of the trace context (the key of every tracing cache), so that, as in JAX, jaxprs traced
# while transposing are not the ones traced before. It shows in printed jaxprs: a jaxpr
# used twice is hoisted (``let jaxpr = ... in``).
# (An internal cell, not a user option.)
_transposing = internal_cell("transposing", False, in_trace_context=True)


@contextlib.contextmanager
def transposing():
    previous = _transposing.swap_local(True)
    try:
        yield
    finally:
        _transposing.set_local(previous)


class UserContext:
    """A value of the user's own that jit caches depend on (``make_user_context``)."""

    def __init__(self, default_value):
        self._cell = internal_cell("user_context", default_value, in_jit_key=True,
                                   in_trace_context=True)

    @property
    def value(self):
        return self._cell.value

    def get_global(self):
        return self._cell.get_global()

    def set_global(self, new_value):
        self._cell.set_global(new_value)

    @contextlib.contextmanager
    def __call__(self, new_value):
        previous = self._cell.swap_local(new_value)
        try:
            yield
        finally:
            self._cell.set_local(previous)


def make_user_context(default_value=None) -> UserContext:
    """A context (``with ctx(value): ...``) whose value is part of every jit cache key:
    when it changes, jitted functions are traced and compiled again, as for
    ``enable_x64``. (The value must be hashable.)"""
    return UserContext(default_value)


# A function the C++ jit calls on every fast-path result (JAX uses it for debug_nans).
post_hook = internal_cell("post_hook", None)

_cells.share_with_jit(_enable_x64.cell, _disable_jit.cell, post_hook)


def enable_x64(new_val=True):
    """Context manager (or decorator) turning 64-bit types on or off in this thread."""
    return _enable_x64.override(new_val)


def disable_jit(disable=True):
    """Context manager (or decorator) running jitted functions as plain Python, op by op."""
    return _disable_jit.override(disable)


# Context managers for single options, named as JAX names them (``with
# jax.numpy_dtype_promotion("strict"): ...``).

def debug_nans(new_val=True):
    """Raise FloatingPointError when a computation produces a NaN."""
    return _debug_nans.override(new_val)


def debug_infs(new_val=True):
    """Raise FloatingPointError when a computation produces an infinity."""
    return _debug_infs.override(new_val)


check_tracer_leaks = _check_tracer_leaks


def checking_leaks():
    """Raise when a traced function leaks one of its tracers (e.g. to a global list)."""
    return _check_tracer_leaks.override(True)


def default_device(device):
    """Put uncommitted values and computations on ``device`` in this block."""
    return _default_device.override(device)


def numpy_dtype_promotion(value):
    """``"standard"`` or ``"strict"`` (no implicit promotion between types)."""
    return config.option("jax_numpy_dtype_promotion").override(value)


def numpy_rank_promotion(value):
    """``"allow"``, ``"warn"`` or ``"raise"`` on implicit rank promotion."""
    return config.option("jax_numpy_rank_promotion").override(value)


def default_matmul_precision(value):
    """The precision of matrix products whose ``precision`` is None."""
    return config.option("jax_default_matmul_precision").override(value)


def ensure_compile_time_eval():
    """Compute operations on concrete values now, even while staging a function: their
    results become constants of the jaxpr instead of equations."""
    return _eager_constant_folding.override(True)


def cpu_device_count():
    """How many CPU devices to create: ``jax_num_cpu_devices`` when set (>= 0), else XLA's
    own ``--xla_force_host_platform_device_count`` from $XLA_FLAGS, else 1."""
    if config.jax_num_cpu_devices >= 0:
        return config.jax_num_cpu_devices
    match = re.search(r"--xla_force_host_platform_device_count=(\d+)",
                      os.environ.get("XLA_FLAGS", ""))
    return int(match.group(1)) if match else 1
