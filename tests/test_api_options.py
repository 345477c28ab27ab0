"""Option context managers and small API functions: debug_nans/debug_infs,
ensure_compile_time_eval, default_device, default_matmul_precision,
numpy_dtype_promotion, typeof, custom_gradient, clear_caches.

Expected texts are what JAX 0.10.2 prints for the same programs.
"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from test_runtime import run_child

DEOPT = ("Invalid nan value encountered in the output of a jax.jit function. Calling the "
         "de-optimized version.\n")


def test_debug_nans_names_the_primitive(capsys):
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered "
                                                     r"in log"):
            jnp.log(-1.0)
        with pytest.raises(FloatingPointError, match=r"encountered in sqrt"):
            jax.jit(lambda x: jnp.sqrt(x) + 1.0)(-1.0)
        assert jax.jit(lambda x: x * 2)(3.0) == 6.0      # no NaN: no error
    # The jnp function is a jit, which re-runs op by op, as in JAX.
    assert capsys.readouterr().out == DEOPT * 3
    assert np.isnan(jnp.log(-1.0))                        # off again


def test_debug_nans_is_checked_on_cached_calls_too():
    f = jax.jit(lambda x: jnp.log(x))
    f(-1.0), f(-1.0)                     # cached by the C++ dispatcher without checks
    with jax.debug_nans(True), pytest.raises(FloatingPointError):
        f(-1.0)
    assert np.isnan(f(-1.0))


def test_debug_nans_when_the_deoptimized_function_is_fine():
    with jax.debug_nans(True), pytest.raises(FloatingPointError) as err:
        jax.jit(lambda x: x * jnp.nan)(1.0)
    assert str(err.value).startswith("('jit(<lambda>)', 'nan'). Because jax_config.debug_"
                                     "nans.value and/or config.jax_debug_infs is set")


def test_debug_infs(capsys):
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered "
                                                     r"in log"):
            jnp.log(0.0)
        assert jnp.exp(1.0) == np.float32(np.e)
    assert capsys.readouterr().out == DEOPT


def test_typeof():
    assert [str(jax.typeof(x)) for x in (jnp.arange(3), np.float64(1), True, 3)] == \
        ["int32[3]", "float32[]", "bool[]", "~int32[]"]
    with pytest.raises(TypeError, match=r"Argument '\(1.0,\)' of type '<class 'tuple'>' "
                                        r"is not a valid JAX type"):
        jax.typeof((1.0,))


def test_ensure_compile_time_eval_computes_while_staging():
    def f(x):
        with jax.ensure_compile_time_eval():
            z = (jnp.arange(4.0) * 2).sum()
        return x * z
    assert str(jax.make_jaxpr(f)(1.0)) == """\
{ lambda a:f32[]; b:f32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[] = mul c a
  in (d,) }"""
    assert jax.jit(f)(2.0) == 24.0


def test_custom_gradient():
    @jax.custom_gradient
    def clip_grad(x, y):
        def rule(g):
            return jnp.clip(g, -1, 1) * y, g * x
        return x * y, rule
    assert clip_grad(2.0, 3.0) == 6.0
    gx, gy = jax.grad(clip_grad, argnums=(0, 1))(2.0, 3.0)
    assert (gx, gy) == (3.0, 2.0)
    assert jax.grad(lambda x: clip_grad(x, 10.0))(2.0) == 10.0

    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)
    assert str(jax.make_jaxpr(jax.grad(f))(3.0)) == """\
{ lambda ; a:f32[]. let
    _:f32[] = integer_pow[y=2] a
    b:f32[] = mul 1.0:f32[] a
  in (b,) }"""


def test_default_matmul_precision():
    with jax.default_matmul_precision("float32"):
        text = str(jax.make_jaxpr(lambda a: a @ a)(jnp.ones((2, 2))))
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in text
    assert "precision" not in str(jax.make_jaxpr(lambda a: a @ a)(jnp.ones((2, 2))))


def test_numpy_dtype_promotion_strict():
    with jax.numpy_dtype_promotion("strict"), pytest.raises(
            jax.dtypes.TypePromotionError, match="no available implicit dtype promotion"):
        jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)
    assert (jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)).dtype == jnp.float32


def test_clear_caches_retraces():
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x + 1
    f(1.0), f(1.0)
    jax.clear_caches()
    assert f(1.0) == 2.0 and len(traces) == 2


def test_fresh_functions_keep_the_caches_bounded_and_clear_caches_empties_them(monkeypatch):
    """A long-running kernel jits function after function: the trace cache keeps only the
    newest functions' traces (older ones are retraced if called again), and
    ``clear_caches`` leaves every trace, executable and derived-jaxpr cache empty."""
    import importlib
    from glassjax.interpreters import ad, batching, partial_eval
    from glassjax.lax.control_flow import common
    from glassjax.xla import dispatch
    jit_module = importlib.import_module("glassjax.jit")
    monkeypatch.setattr(jit_module, "TRACE_CACHE_FUNCTIONS", 100)
    functions = [eval(f"lambda x: x * {i}.0 + 1.0") for i in range(500)]   # all alive
    for i, f in enumerate(functions):
        assert jax.jit(f)(2.0) == 2.0 * i + 1.0
        if i % 50 == 0:
            jax.grad(jax.jit(f))(2.0)           # derived (jvp/linearize/transpose) jaxprs too
    assert len(jit_module._trace_cache) <= 100
    assert jax.jit(functions[0])(2.0) == 1.0    # evicted long ago: traced again, same value
    jax.clear_caches()
    caches = (jit_module._executables, jit_module._trace_cache, common._cache,
              batching._batch_jaxpr_cache, dispatch._primitive_cache,
              dispatch._primitive_callables, ad._jvp_jaxpr_cache, ad._linearize_jaxpr_cache,
              ad._transpose_jaxpr_cache, partial_eval._nounits_cache,
              jit_module._pruned_cache, jit_module._split_cache)
    assert [len(c) for c in caches] == [0] * len(caches)
    assert jax.jit(functions[-1])(2.0) == 2.0 * 499 + 1.0


def test_default_device_places_values_and_computations():
    out = run_child("""
        import glassjax as jax, glassjax.numpy as jnp
        f = jax.jit(lambda v: v * 2)
        f(1.0), f(1.0)                         # cached for device 0
        d = jax.devices()[1]
        with jax.default_device(d):
            x = jnp.ones(3)
            print(x.devices() == {d}, (x + 1).devices() == {d}, f(x).devices() == {d},
                  f(1.0).devices() == {d})
        print(jnp.ones(3).devices() == {jax.devices()[0]}, f(1.0).devices())
    """, devices=2)
    assert out == "True True True True\nTrue {CpuDevice(id=0)}\n"


def test_process_and_environment_functions():
    assert jax.process_indices() == [0]
    assert isinstance(jax.devices()[0], jax.Device)
    x = jnp.arange(3.0)
    assert any(a is x for a in jax.live_arrays())
    with pytest.warns(UserWarning, match="jax.process_count has been renamed to "
                                         "jax.process_count"):
        assert jax.host_count() == 1
    with pytest.warns(UserWarning, match="jax.process_indexs has been renamed"):
        assert jax.host_ids() == [0]
    info = jax.print_environment_info(return_string=True)
    assert info.splitlines()[1].startswith("jaxlib: 0.10")
    assert "device info: cpu-" in info
    assert issubclass(jax.errors.JaxRuntimeError, RuntimeError)
    assert "numpy.ndarray" in str(jax.typing.ArrayLike)


def test_eager_caches_stay_bounded(monkeypatch):
    """A long-running kernel compiling many distinct eager operations keeps a bounded
    number of them (the caches are emptied when full, and rebuilt on demand)."""
    from glassjax.xla import dispatch
    monkeypatch.setattr(dispatch, "_PRIMITIVE_CACHE_SIZE", 5)
    for n in range(1, 13):
        x = jnp.ones(n)
        np.testing.assert_allclose(dispatch._run_primitive(
            jax.lax.sin_p, {"accuracy": None}, [x])[1], np.sin(np.ones(n)), rtol=1e-6)
        assert len(dispatch._primitive_cache) <= 5
