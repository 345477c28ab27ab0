"""Tests for glassjax.config: options, context managers, environment variables and the
C++ state jaxlib's jit reads. Error messages are those JAX 0.10.2 prints."""
import os
import subprocess
import sys
import threading

import pytest
from jaxlib import _jax

from glassjax.config import config, cpu_device_count, disable_jit, enable_x64

DEFAULTS = {
    "jax_enable_x64": False, "jax_disable_jit": False, "jax_platforms": None,
    "jax_num_cpu_devices": -1, "jax_numpy_rank_promotion": "allow",
    "jax_numpy_dtype_promotion": "standard", "jax_default_matmul_precision": None,
    "jax_debug_nans": False, "jax_debug_infs": False, "jax_check_tracer_leaks": False,
    "jax_default_device": None, "jax_check_static_indices": False,
    "eager_constant_folding": False,
    "jax_compilation_cache_dir": None, "jax_enable_compilation_cache": True,
    "jax_persistent_cache_min_compile_time_secs": 1.0,
    "jax_persistent_cache_min_entry_size_bytes": 0,
    "jax_persistent_cache_enable_xla_caches": "xla_gpu_per_fusion_autotune_cache_dir",
    "jax_mock_gpu_topology": "", "jax_logging_level": "NOTSET",
    "jax_log_compiles": False, "jax_enable_checks": False, "jax_no_tracing": False,
    "jax_no_execution": False, "jax_transfer_guard": None,
    "jax_transfer_guard_host_to_device": None, "jax_transfer_guard_device_to_device": None,
    "jax_transfer_guard_device_to_host": None, "jax_softmax_custom_jvp": False,
    "jax_legacy_prng_key": "allow", "jax_enable_custom_prng": False,
    "jax_threefry_partitionable": True, "jax_explain_cache_misses": False,
    "jax_allow_f16_reductions": True, "jax_array_garbage_collection_guard": None,
    "jax_default_prng_impl": "threefry2x32", "jax_debug_key_reuse": False,
    "jax_auto_pcast": True, "jax_remove_size_one_mesh_axis_from_type": False,
    "jax2tf_associative_scan_reductions": False, "jax_thread_guard": False,
    "glassjax_reference_mode": False,
}


@pytest.fixture
def restore():
    """Put back every option a test changes with config.update."""
    saved = config.values
    yield
    for name, value in saved.items():
        config.update(name, value)


def test_defaults():
    assert set(config.values) == set(DEFAULTS)
    for name, value in DEFAULTS.items():
        if name.upper() not in os.environ:
            assert getattr(config, name) == value and config.read(name) == value
    assert config.x64_enabled is config.jax_enable_x64


def test_update_and_read(restore):
    config.update("jax_enable_x64", 1)
    assert config.jax_enable_x64 is True and config.read("jax_enable_x64") is True
    config.update("jax_numpy_rank_promotion", "raise")
    assert config.jax_numpy_rank_promotion == "raise"
    config.update("jax_default_matmul_precision", "highest")
    assert config.jax_default_matmul_precision == "highest"
    config.update("jax_num_cpu_devices", 8)
    assert config.jax_num_cpu_devices == 8


def test_logging_level_sets_every_glassjax_logger(restore):
    import logging
    logger = logging.getLogger("glassjax.xla.dispatch")
    config.update("jax_logging_level", "DEBUG")
    assert logger.getEffectiveLevel() == logging.DEBUG
    config.update("jax_logging_level", "WARNING")
    assert logger.getEffectiveLevel() == logging.WARNING
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        config.update("jax_logging_level", "LOUD")


def test_unknown_options():
    with pytest.raises(AttributeError, match="^'Config' object has no attribute 'jax_foo'$"):
        config.jax_foo
    with pytest.raises(AttributeError, match="^Unrecognized config option: jax_foo$"):
        config.update("jax_foo", 1)
    with pytest.raises(AttributeError, match="^Unrecognized config option: jax_foo$"):
        config.read("jax_foo")


@pytest.mark.parametrize("name, value, message", [
    ("jax_numpy_rank_promotion", "bad",
     "new enum value must be in ['allow', 'warn', 'raise'], got bad of type <class 'str'>."),
    ("jax_default_matmul_precision", 3,
     "new enum value must be None or in ['default', 'high', 'highest', 'bfloat16', "
     "'tensorfloat32', 'float32', 'ANY_F8_ANY_F8_F32', 'ANY_F8_ANY_F8_F32_FAST_ACCUM', "
     "'ANY_F8_ANY_F8_ANY', 'ANY_F8_ANY_F8_ANY_FAST_ACCUM', 'F16_F16_F16', 'F16_F16_F32', "
     "'BF16_BF16_BF16', 'BF16_BF16_F32', 'BF16_BF16_F32_X3', 'BF16_BF16_F32_X6', "
     "'BF16_BF16_F32_X9', 'TF32_TF32_F32', 'TF32_TF32_F32_X3', 'F32_F32_F32', "
     "'F64_F64_F64'], got 3 of type <class 'int'>."),
    ("jax_num_cpu_devices", "x",
     "new int config value must be None or of type int, got x of type <class 'str'>"),
    ("jax_platforms", 3,
     "new string config value must be None or of type str, got 3 of type <class 'int'>."),
])
def test_invalid_values_are_rejected(name, value, message):
    before = config.read(name)
    with pytest.raises(ValueError) as info:
        config.update(name, value)
    assert str(info.value) == message
    assert config.read(name) == before


def test_enable_x64_context_manager_restores():
    assert not config.jax_enable_x64
    with enable_x64():
        assert config.jax_enable_x64
        with enable_x64(False):
            assert not config.jax_enable_x64
        assert config.jax_enable_x64
    assert not config.jax_enable_x64
    with pytest.raises(ZeroDivisionError):
        with enable_x64(True):
            1 / 0
    assert not config.jax_enable_x64


def test_context_manager_beats_global_update(restore):
    config.update("jax_enable_x64", True)
    with enable_x64(False):
        assert not config.jax_enable_x64
        config.update("jax_enable_x64", True)    # the global changes; the override stays
        assert not config.jax_enable_x64
    assert config.jax_enable_x64


def test_context_managers_as_decorators():
    @enable_x64()
    def x64_inside():
        return config.jax_enable_x64

    @disable_jit()
    def disabled_inside():
        return config.jax_disable_jit

    assert x64_inside() and x64_inside()    # reusable
    assert disabled_inside()
    assert not config.jax_enable_x64 and not config.jax_disable_jit


def test_overrides_are_thread_local():
    seen = []
    with enable_x64():
        thread = threading.Thread(target=lambda: seen.append(config.jax_enable_x64))
        thread.start()
        thread.join()
    assert seen == [False]


def test_disable_jit():
    with disable_jit():
        assert config.jax_disable_jit
        with disable_jit(False):
            assert not config.jax_disable_jit
    assert not config.jax_disable_jit


def test_trace_context_tracks_tracing_options(restore):
    base = config.trace_context()
    hash(base)
    with enable_x64():
        x64 = config.trace_context()
    config.update("jax_default_matmul_precision", "highest")
    precision = config.trace_context()
    assert len({base, x64, precision}) == 3
    config.update("jax_default_matmul_precision", None)
    assert config.trace_context() == base
    config.update("jax_debug_nans", True)          # does not change what tracing produces
    assert config.trace_context() == base


def test_cpp_side_reads_the_same_state(restore):
    """jaxlib's C++ reads the registered cells: its trace_context() sees our x64 value,
    and its jit (``_jax.pjit``) calls the Python function directly under disable_jit."""
    names = _jax.config.trace_context_names()
    x64_index = names.index("jax_enable_x64")
    assert _jax.config.trace_context()[x64_index] is False
    with enable_x64():
        assert _jax.config.trace_context()[x64_index] is True
    config.update("jax_enable_x64", True)
    assert _jax.config.trace_context()[x64_index] is True

    jitted = _jax.pjit("f", lambda x: ("python", x), lambda x: (("compiled", x), None, False),
                       [], [], "test_key", _jax.pytree.default_registry(), lambda *a: None)
    assert jitted(1) == ("compiled", 1)
    with disable_jit():
        assert jitted(1) == ("python", 1)
    config.update("jax_disable_jit", True)
    assert jitted(1) == ("python", 1)


def test_on_change(restore):
    seen = []
    config.on_change("jax_debug_nans", seen.append)
    config.update("jax_debug_nans", True)
    config.update("jax_debug_nans", False)
    assert seen == [True, False]
    config.option("jax_debug_nans").subscribers.remove(seen.append)


def test_cpu_device_count(restore, monkeypatch):
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    assert cpu_device_count() == 1
    monkeypatch.setenv("XLA_FLAGS", "--foo --xla_force_host_platform_device_count=4")
    assert cpu_device_count() == 4
    config.update("jax_num_cpu_devices", 2)
    assert cpu_device_count() == 2


def _config_in_subprocess(env):
    code = "from glassjax.config import config; print(sorted(config.values.items()))"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**clean, **env}, cwd=os.path.dirname(__file__))


def test_environment_variables_set_initial_values():
    result = _config_in_subprocess({
        "JAX_ENABLE_X64": "True", "JAX_DISABLE_JIT": "1", "JAX_PLATFORMS": "cpu",
        "JAX_NUM_CPU_DEVICES": "4", "JAX_NUMPY_RANK_PROMOTION": "warn"})
    assert result.returncode == 0, result.stderr
    assert dict(eval(result.stdout)) == {
        **DEFAULTS, "jax_enable_x64": True, "jax_disable_jit": True, "jax_platforms": "cpu",
        "jax_num_cpu_devices": 4, "jax_numpy_rank_promotion": "warn"}


def test_invalid_environment_variable():
    result = _config_in_subprocess({"JAX_ENABLE_X64": "maybe"})
    assert result.returncode != 0
    assert ("ValueError: invalid truth value 'maybe' for environment 'JAX_ENABLE_X64'"
            in result.stderr)
