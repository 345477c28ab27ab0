"""Config options exposed as JAX exposes them (``jax.log_compiles`` and friends are
context managers with a ``value``), each with its behaviour: logging compiles, refusing to
trace or execute, type-checking traced jaxprs."""
import logging

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import core


def test_options_are_context_managers_with_values():
    for name in ("check_tracer_leaks", "log_compiles", "enable_checks", "no_tracing",
                 "no_execution"):
        option = getattr(jax, name)
        assert option.name == "jax_" + name and option.value is False
        with option(True):
            assert option.value is True and getattr(jax.config, "jax_" + name) is True
        with option():                  # (a boolean option defaults to True here)
            assert option.value is True
        assert option.value is False


def test_log_compiles_logs_each_trace_lowering_and_compilation(caplog):
    f = jax.jit(lambda x, y: x * y)
    with caplog.at_level(logging.DEBUG, logger="glassjax.xla.dispatch"):
        with jax.log_compiles(True):
            f(1.0, 2)
            f(1.0, 2)                   # cached: nothing new
        jax.jit(lambda x: x - 1)(1.0)   # (outside the block: DEBUG)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 4
    assert warnings[0].startswith("Finished tracing <lambda> for jit in ")
    assert warnings[1] == (
        "Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[], "
        "weak_type=True), ShapedArray(int32[], weak_type=True)). Argument mapping: "
        "(UnspecifiedValue, UnspecifiedValue).")
    assert warnings[2].startswith("Finished jaxpr to MLIR module conversion jit(<lambda>)")
    assert warnings[3].startswith("Finished XLA compilation of jit(<lambda>) in ")
    assert any(r.levelno == logging.DEBUG and r.getMessage().startswith("Compiling")
               for r in caplog.records)


def test_no_tracing_and_no_execution():
    f = jax.jit(lambda x, y: x * y)
    assert f(1.0, 2) == 2.0
    g = lambda x: x + 1
    with jax.no_tracing(True):
        with pytest.raises(RuntimeError, match=r"re-tracing function <lambda> at .*"
                                               r"test_api_flags.py:\d+ for `jit`, but "
                                               r"'no_tracing' is set"):
            jax.jit(g)(1.0)
        assert f(1.0, 2) == 2.0          # compiled already: runs
    with jax.no_execution(True):
        with pytest.raises(RuntimeError, match=r"JAX tried to execute function "
                                               r"jit\(<lambda>\), but the no_execution"):
            f(1.0, 2)
        with pytest.raises(RuntimeError, match=r"execute function jit\(sin\)"):
            jnp.sin(1.0)
    assert f(1.0, 2) == 2.0


def test_enable_checks_type_checks_traced_jaxprs():
    calls = []
    flaky = core.Primitive("flaky")     # its type rule contradicts itself on re-check

    def abstract_eval(x):
        calls.append(1)
        return x if len(calls) % 2 else core.ShapedArray((7,), np.float32)
    flaky.def_abstract_eval(abstract_eval)
    fun = lambda x: flaky.bind(x)
    jax.make_jaxpr(fun)(np.ones(2, np.float32))        # not checked
    with jax.enable_checks(True):
        with pytest.raises(jax.errors.JaxprTypeError,
                           match=r"equation flaky produces \['float32\[[27]\]'\] but its "
                                 r"rule says \['float32\[[27]\]'\]"):
            jax.make_jaxpr(lambda x: flaky.bind(x) * 1)(np.ones(2, np.float32))
    assert issubclass(jax.errors.JaxprTypeError, TypeError)


def test_copy_to_host_async():
    x = {"a": jnp.arange(3.0), "b": [jnp.ones(2)]}
    assert jax.copy_to_host_async(x) is x
    np.testing.assert_array_equal(x["a"], [0., 1., 2.])


def test_monitoring_reports_trace_lowering_and_compile_durations():
    events = []
    listener = lambda event, duration, **kw: events.append((event, duration, kw))
    plain = lambda event, **kw: events.append((event, kw))
    jax.monitoring.register_event_duration_secs_listener(listener)
    jax.monitoring.register_event_listener(plain)
    try:
        jax.jit(lambda x: x + 1)(1.0)
        jax.monitoring.record_event("/my/event", step=3)
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
        jax.monitoring.unregister_event_listener(plain)
    assert [(e[0], e[2]) for e in events[:3]] == [
        ("/jax/core/compile/jaxpr_trace_duration", {"fun_name": "<lambda>"}),
        ("/jax/core/compile/jaxpr_to_mlir_module_duration", {"fun_name": "jit(<lambda>)"}),
        ("/jax/core/compile/backend_compile_duration", {"fun_name": "jit(<lambda>)"})]
    assert all(e[1] > 0 for e in events[:3])
    assert events[3] == ("/my/event", {"step": 3})
    jax.jit(lambda x: x * 5)(1.0)
    assert len(events) == 4             # unregistered: told nothing more


def _transfer_outcomes():
    x, f = jnp.arange(3.), jax.jit(lambda a: a + 1)
    cases = {"jnp on numpy": lambda: jnp.add(np.ones(3), 1),
             "jit on numpy": lambda: f(np.ones(3)),
             "jit on a Python scalar": lambda: f(1.0),
             "jnp.array": lambda: jnp.array([1, 2]),
             "device_put": lambda: jax.device_put(np.ones(3)),
             "device_get": lambda: jax.device_get(x),
             "on device": lambda: f(x)}
    out = {}
    for name, case in cases.items():
        try:
            case()
            out[name] = "ok"
        except jax.errors.JaxRuntimeError as err:
            assert "Disallowed host-to-device transfer: aval=ShapedArray(" in str(err)
            out[name] = "disallowed"
    return out


IMPLICIT = {"jnp on numpy", "jit on numpy", "jit on a Python scalar", "jnp.array"}


def test_transfer_guards_stop_implicit_transfers_as_in_jax():
    assert set(_transfer_outcomes().values()) == {"ok"}
    with jax.transfer_guard("disallow"):
        got = _transfer_outcomes()
        assert {k for k, v in got.items() if v == "disallowed"} == IMPLICIT
        assert jax.config.jax_transfer_guard_host_to_device == "disallow"
    with jax.transfer_guard_host_to_device("disallow_explicit"):
        got = _transfer_outcomes()
        assert {k for k, v in got.items() if v == "disallowed"} == IMPLICIT | {"device_put"}
    assert set(_transfer_outcomes().values()) == {"ok"}
    jax.config.update("jax_transfer_guard", "disallow")
    try:
        assert _transfer_outcomes()["jnp on numpy"] == "disallowed"
    finally:
        jax.config.update("jax_transfer_guard", None)
        jax.config.update("jax_transfer_guard_host_to_device", None)
    assert set(_transfer_outcomes().values()) == {"ok"}
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        jax.transfer_guard_device_to_host("sometimes")


def test_user_context_is_part_of_the_jit_cache_key():
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x * 2
    ctx = jax.make_user_context(default_value=None)
    assert ctx.value is None
    f(1.)
    f(1.)
    with ctx(1):
        assert ctx.value == 1
        f(1.)
        f(1.)
    with ctx(2):
        f(1.)
    with ctx(1):
        f(1.)                    # (seen before)
    assert len(traces) == 3 and ctx.value is None


def test_dce_sink_keeps_a_computation():
    from glassjax import lax

    def f(x):
        lax.dce_sink(jnp.sin(x))
        return x * 2
    assert str(jax.make_jaxpr(f)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    dce_sink[prevent_mlir_dce=False] b
    c:f32[] = mul a 2.0:f32[]
  in (c,) }"""
    assert jax.jit(f)(1.0) == 2.0 and jax.grad(f)(1.0) == 2.0
    np.testing.assert_array_equal(jax.vmap(f)(jnp.ones(2)), [2., 2.])
    kept = jax.jit(lambda x: lax.dce_sink(jnp.sin(x), prevent_mlir_dce=True))
    text = kept.lower(1.0).as_text()
    assert ('stablehlo.custom_call @dce_sink(%0) {backend_config = "", has_side_effect = '
            'true, mhlo.backend_config = {}, operand_layouts = [dense<> : '
            'tensor<0xindex>], result_layouts = []} : (tensor<f32>) -> ()') in text
    assert kept(1.0) is None


def test_softmax_custom_jvp():
    x = jnp.array([1., 2., 3.])
    default = jax.grad(lambda x: jax.nn.softmax(x)[0])(x)
    assert "custom_jvp_call" not in str(jax.make_jaxpr(jax.nn.softmax)(x))
    with jax.softmax_custom_jvp(True):
        assert str(jax.make_jaxpr(jax.nn.softmax)(x)) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = custom_jvp_call[
      name=_softmax
      call_jaxpr={ lambda ; c:f32[3] d:f32[]. let
          e:f32[] = reduce_max[axes=(0,)] c
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = max f e
          h:f32[1] = broadcast_in_dim g
          i:f32[3] = sub c h
          j:f32[3] = exp i
          k:f32[] = reduce_sum[axes=(0,) out_sharding=None] j
          l:f32[1] = broadcast_in_dim k
          m:f32[3] = div j l
        in (m,) }
      jvp=_softmax_jvp
      symbolic_zeros=False
    ] a -inf:f32[]
  in (b,) }"""
        custom = jax.grad(lambda x: jax.nn.softmax(x)[0])(x)
        y = np.exp(x) / np.exp(x).sum()
        np.testing.assert_allclose(custom, y[0] * (np.eye(3)[0] - y), rtol=1e-6)
        masked = jax.nn.softmax(x, where=x > 1)
        np.testing.assert_allclose(masked, [0, *(np.exp([2, 3]) / np.exp([2, 3]).sum())],
                                   rtol=1e-6)
    np.testing.assert_allclose(custom, default, rtol=1e-6)


LEGACY = ('Legacy uint32 key array passed as key to jax.random function. Please create '
          'keys using jax.random.key(). If use of a raw key array was intended, set '
          'jax_legacy_prng_key="allow".')


def test_legacy_prng_key_and_enable_custom_prng():
    import warnings
    raw = jnp.zeros(2, jnp.uint32)
    with jax.legacy_prng_key("warn"):
        with pytest.warns(UserWarning, match="Legacy uint32 key array"):
            jax.random.uniform(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jax.random.uniform(jax.random.key(0))       # typed keys: fine
            jax.random.PRNGKey(0)                       # making one: fine
    with jax.legacy_prng_key("error"):
        for use in (jax.random.uniform, jax.random.split, jax.random.key_data):
            with pytest.raises(ValueError) as err:
                use(raw)
            assert str(err.value) == LEGACY
    with jax.enable_custom_prng(True):
        assert jax.random.PRNGKey(0).dtype == jax.random.key(0).dtype
        with pytest.warns(FutureWarning, match="Raw arrays as random keys"):
            keys = jax.random.split(raw)
        assert keys.shape == (2,) and jax.dtypes.issubdtype(keys.dtype,
                                                            jax.dtypes.prng_key)
    assert jax.random.split(raw).dtype == np.uint32


def test_threefry_partitionable_off_gives_jaxs_older_numbers():
    # (values printed by JAX 0.10.2 under jax.threefry_partitionable(False))
    k = jax.random.key(42)
    jax.random.split(k, 3), jax.random.bits(k, (5,))   # eager executables made with the
    with jax.threefry_partitionable(False):            # flag on must not serve it off
        np.testing.assert_array_equal(jax.random.key_data(jax.random.split(k, 3)), [
            [3134548294, 3733159049], [3746501087, 894150801], [801545058, 2363201431]])
        np.testing.assert_array_equal(jax.random.bits(k, (5,)), [
            3134548294, 3733159049, 843694964, 894150801, 801545058])
        np.testing.assert_array_equal(jax.random.bits(k, (3,), jnp.uint8), [143, 4, 62])
        np.testing.assert_array_equal(jax.random.bits(k, (3,), jnp.uint16),
                                      [45869, 983, 33780])
        np.testing.assert_array_equal(jax.random.randint(k, (5,), 0, 100),
                                      [12, 43, 7, 29, 84])
        np.testing.assert_allclose(jax.random.normal(jax.random.PRNGKey(0), (4,)),
                                   [1.8160863, -0.75488514, 0.33988908, -0.53483534],
                                   rtol=1e-6)
        with jax.enable_x64(True):
            np.testing.assert_array_equal(jax.random.bits(k, (3,), jnp.uint64), np.array(
                [13462782411356743825, 16033796027023006562, 16091099645456652183],
                np.uint64))
        old = jax.random.uniform(k, (2, 3))
    np.testing.assert_allclose(old, [[0.7298188, 0.8691938, 0.87230015],
                                     [0.20818567, 0.18662417, 0.5502256]], rtol=1e-6)
    np.testing.assert_allclose(jax.random.uniform(k, (2, 3)),
                               [[0.48870957, 0.6797972, 0.6162715],
                                [0.5610161, 0.4506446, 0.58586586]], rtol=1e-6)


def test_explain_cache_misses(caplog):
    def g(x, n):
        return x * n
    f = jax.jit(g, static_argnums=1)
    line = g.__code__.co_firstlineno
    with caplog.at_level(logging.WARNING, logger="glassjax.cache_misses"):
        with jax.explain_cache_misses(True):
            f(1.0, 2)
            f(jnp.ones(3), 2)
            f(jnp.ones(3, jnp.int32), 2)
            f(jnp.ones(3, jnp.int32), 3)
            with jax.numpy_rank_promotion("raise"):
                f(jnp.ones(3, jnp.int32), 3)
            f(jnp.ones(3, jnp.int32), 3)           # cached: nothing to explain
            jnp.sin(2.0)                           # glassjax's own functions: not explained
    messages = [r.getMessage() for r in caplog.records if r.name == "glassjax.cache_misses"]
    assert len(messages) == 5
    head = f"  for g defined at {__file__}:{line}\n  all previously seen cache keys " \
           "differ. For the closest previous key:\n"
    assert messages[0].startswith("TRACING CACHE MISS at ")
    assert messages[0].endswith(f"  never seen function:\n    g id={id(g)} defined at "
                                f"{__file__}:{line}")
    assert messages[1].split(":\n", 1)[1] == head + (
        "  different input types:\n  * at x, now f32[3]({}){weak_type=False} and before "
        "f32[]({}){weak_type=True}https://docs.jax.dev/en/latest/type_promotion.html"
        "#weak-types")
    assert messages[2].split(":\n", 1)[1] == head + (
        "  different input types:\n  * at x, now i32[3] and before f32[3]")
    assert messages[3].split(":\n", 1)[1] == head + (
        "  different input pytree:\n  * at input path [0][1], now <class "
        "'glassjax.api_util.StaticArg'> with pytree metadata StaticArg(val=3) and before "
        "<class 'glassjax.api_util.StaticArg'> with pytree metadata StaticArg(val=2), so "
        "the pytree node metadata does not match")
    assert messages[4].split(":\n", 1)[1] == head + (
        "  Tracing context doesn't match, e.g. due to config or context manager.\n"
        "  * jax_numpy_rank_promotion differs: now raise and before allow")


def test_allow_f16_reductions():
    x = jnp.ones(4, jnp.float16)
    with jax.allow_f16_reductions(False):
        with pytest.raises(ValueError, match=r"^reduce_sum on operand f16\[4\] is not "
                                             r"allowed when jax_allow_f16_reductions=False"):
            jax.lax.reduce_sum(x, (0,))
        assert jnp.sum(x) == 4                  # (jnp.sum accumulates in float32)
        np.testing.assert_array_equal(jax.lax.reduce_sum(jnp.ones((1, 2), jnp.float16),
                                                         (0,)), [1, 1])   # size-1 axes
    assert jax.lax.reduce_sum(x, (0,)) == 4


def test_array_garbage_collection_guard(capfd):
    import gc

    class Holder:
        pass
    with jax.array_garbage_collection_guard("log"):
        h = Holder()
        h.me, h.arr = h, jnp.ones(3) + 1       # a cycle: only the collector frees it
        del h
        gc.collect()
    assert "`jax.Array` was deleted by the Python garbage collector instead of reference " \
           "counting" in capfd.readouterr().err
