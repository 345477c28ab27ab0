"""jit: caching, static arguments, donation, inlining, the ahead-of-time stages, and
jit == eager == NumPy on random programs."""
import operator
import re
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax


# -- jit equals eager equals NumPy on random programs ------------------------------------

UNARY = {"sin": (lax.sin, np.sin), "cos": (lax.cos, np.cos), "exp": (lambda x: lax.exp(
    lax.mul(x, np.float32(0.1))), lambda x: np.exp(x * np.float32(0.1))),
         "neg": (lax.neg, np.negative), "tanh": (lax.tanh, np.tanh)}
BINARY = {"add": (lax.add, np.add), "sub": (lax.sub, np.subtract),
          "mul": (lax.mul, np.multiply), "max": (lax.max, np.maximum),
          "min": (lax.min, np.minimum)}


def build_program(ops):
    """A straight-line program over a growing list of values, described by ``ops``."""
    def run(x, y, lib):
        vals = [x, y]
        for kind, name, i, j in ops:
            a, b = vals[i % len(vals)], vals[j % len(vals)]
            if kind == "unary":
                vals.append(UNARY[name][lib](a))
            elif kind == "binary":
                vals.append(BINARY[name][lib](a, b))
            else:
                vals.append(lax.reduce_sum(a, (0,)) if lib == 0 else np.sum(a, axis=0))
                vals[-1] = (lax.broadcast_in_dim(vals[-1], (4,), ()) if lib == 0
                            else np.broadcast_to(vals[-1], (4,)))
        return vals[-1]
    return run


op_strategy = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), st.integers(0, 20),
              st.integers(0, 20)),
    st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY)), st.integers(0, 20),
              st.integers(0, 20)),
    st.tuples(st.just("reduce"), st.just(""), st.integers(0, 20), st.integers(0, 20)))


@settings(max_examples=25, deadline=None)
@given(st.lists(op_strategy, min_size=1, max_size=8),
       st.lists(st.floats(-2, 2, width=32), min_size=8, max_size=8))
def test_jit_equals_eager_equals_numpy(ops, data):
    x = np.array(data[:4], np.float32)
    y = np.array(data[4:], np.float32)
    program = build_program(ops)
    expected = program(x, y, 1)
    eager = program(x, y, 0)
    jitted = jax.jit(lambda a, b: program(a, b, 0))(x, y)
    np.testing.assert_allclose(np.asarray(eager), expected, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=2e-5, atol=1e-5)


# -- caching ------------------------------------------------------------------------------

def test_retraces_only_when_types_or_static_values_change():
    traces = []

    def f(x, k):
        traces.append((jnp.shape(x), k))
        return x * k

    g = jax.jit(f, static_argnums=1)
    g(1., 2)
    g(2., 2)                      # same types, same static value: cached
    g(np.float32(1), 2)           # float32 is not weak: a new trace
    g(3., 3)                      # new static value
    g(jnp.ones(3), 3)             # new shape
    assert len(traces) == 4


def test_weak_type_is_part_of_the_cache_key():
    f = jax.jit(lambda x: x * 2)
    assert repr(f(3.0)) == "Array(6., dtype=float32, weak_type=True)"
    assert repr(f(jnp.float32(3.0))) == "Array(6., dtype=float32)"


def test_globals_are_captured_at_trace_time():
    g = [0.]

    def impure(x):
        return x + g[0]

    assert float(jax.jit(impure)(4.)) == 4.
    g[0] = 10.
    assert float(jax.jit(impure)(5.)) == 5.          # cached trace: g was 0
    assert np.asarray(jax.jit(impure)(jnp.array([4.]))).tolist() == [14.]


def test_static_argnames_and_decorator_factory():
    @jax.jit(static_argnames=["n"])
    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    assert int(g(10, 20)) == 30
    assert int(g(10, n=5)) == 15


def test_unhashable_static_argument_is_a_value_error():
    f = jax.jit(lambda x, k: x, static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        f(1., [1, 2])


def test_python_control_flow_on_traced_value_errors():
    def f(x):
        if x > 0:
            return x
        return 2 * x

    with pytest.raises(jax.errors.TracerBoolConversionError,
                       match="depends on the value of the argument x"):
        jax.jit(f)(10)
    assert int(jax.jit(f, static_argnums=0)(-10)) == -20


# -- donation -----------------------------------------------------------------------------

def test_donated_buffer_is_reused_and_use_after_donation_errors():
    x = jnp.ones(3)
    f = jax.jit(lambda v: v * 2, donate_argnums=0)
    assert "tf.aliasing_output = 0 : i32" in f.lower(x).as_text()
    y = f(x)
    assert np.asarray(y).tolist() == [2., 2., 2.]
    assert x.is_deleted()
    # As in JAX: the Python path names the deleted array; once the C++ dispatcher has
    # an executable for these types (here f's), XLA itself refuses the donated buffer.
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        jax.jit(lambda v: v + 1)(x)
    with pytest.raises(ValueError, match="Buffer has been deleted or donated"):
        f(x)


# -- tracers, inlining, disable_jit -------------------------------------------------------

def test_tracer_repr_inside_jit():
    seen = []

    @jax.jit
    def f(x):
        seen.append(repr(x))
        return x + 1

    assert np.asarray(f(jnp.arange(5))).tolist() == [1, 2, 3, 4, 5]
    assert seen == ["JitTracer(int32[5])"]


def test_inline_splices_the_body():
    inner = jax.jit(lambda y: y + 1, inline=True)
    text = str(jax.make_jaxpr(lambda x: inner(x) * 2)(1.))
    assert text == ("{ lambda ; a:f32[]. let\n    b:f32[] = add a 1.0:f32[]\n"
                    "    c:f32[] = mul b 2.0:f32[]\n  in (c,) }")


def test_nested_jit_is_a_call():
    inner = jax.jit(lambda y: jnp.sin(y))
    text = jax.jit(lambda x: inner(x) * 2).lower(1.).as_text()
    assert 'call @"<lambda>"(%arg0)' in text
    assert 'func.func private @"<lambda>"' in text


def test_disable_jit_runs_python():
    seen = []

    @jax.jit
    def f(x):
        seen.append(type(x).__name__)
        return x * 2

    with jax.disable_jit():
        f(jnp.arange(3))
    f(jnp.arange(3))
    assert seen == ["ArrayImpl", "DynamicJaxprTracer"]


# -- ahead of time ------------------------------------------------------------------------

def test_lower_as_text_is_jax_stablehlo():
    def f(x):
        return jnp.sin(jnp.cos(x))
    assert jax.jit(f).lower(3.).as_text() == (
        'module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : '
        'i32} {\n  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> '
        '{jax.result_info = "result"}) {\n    %0 = stablehlo.cosine %arg0 : tensor<f32>\n'
        '    %1 = stablehlo.sine %0 : tensor<f32>\n    return %1 : tensor<f32>\n  }\n}\n')


def test_each_literal_use_is_its_own_constant_of_its_exact_value():
    # Literals share their constant attribute when equal: 0.0 and -0.0 (equal as Python
    # floats) and NaN must stay distinct, and a repeated 2.5 is two constants, as in JAX.
    f = lambda x, b: (x + 0.0, x * -0.0, x + jnp.nan, b & True, b | False, x * 2.5,
                      x * 2.5)
    body = jax.jit(f).lower(1.0, True).as_text().split("\n")[2:-4]
    assert body == [
        '    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>',
        '    %0 = stablehlo.add %arg0, %cst : tensor<f32>',
        '    %cst_0 = stablehlo.constant dense<-0.000000e+00> : tensor<f32>',
        '    %1 = stablehlo.multiply %arg0, %cst_0 : tensor<f32>',
        '    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>',
        '    %2 = stablehlo.add %arg0, %cst_1 : tensor<f32>',
        '    %c = stablehlo.constant dense<true> : tensor<i1>',
        '    %3 = stablehlo.and %arg1, %c : tensor<i1>',
        '    %c_2 = stablehlo.constant dense<false> : tensor<i1>',
        '    %4 = stablehlo.or %arg1, %c_2 : tensor<i1>',
        '    %cst_3 = stablehlo.constant dense<2.500000e+00> : tensor<f32>',
        '    %5 = stablehlo.multiply %arg0, %cst_3 : tensor<f32>',
        '    %cst_4 = stablehlo.constant dense<2.500000e+00> : tensor<f32>',
        '    %6 = stablehlo.multiply %arg0, %cst_4 : tensor<f32>']


def test_lowering_prunes_dead_code_and_unused_inputs_unless_keep_unused():
    # As JAX 0.10.2 (text printed by it): the dead equations, their constant and the
    # unused input are left out; with keep_unused nothing is (XLA removes it later).
    table = np.arange(3.0, dtype=np.float32)

    def f(x, unused, y):
        dead = jnp.sin(x) * jnp.asarray(table)     # noqa: F841
        return x * y
    head = ('module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas '
            '= 1 : i32} {\n  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>')
    tail = ') -> (tensor<f32> {jax.result_info = "result"}) {\n'
    assert jax.jit(f).lower(1.0, 2.0, 3.0).as_text() == (
        head + tail + '    %0 = stablehlo.multiply %arg0, %arg1 : tensor<f32>\n'
        '    return %0 : tensor<f32>\n  }\n}\n')
    assert jax.jit(f, keep_unused=True).lower(1.0, 2.0, 3.0).as_text() == (
        head + ', %arg2: tensor<f32>' + tail +
        '    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> '
        ': tensor<3xf32>\n'
        '    %0 = stablehlo.sine %arg0 : tensor<f32>\n'
        '    %1 = stablehlo.convert %0 : tensor<f32>\n'
        '    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3xf32>\n'
        '    %3 = stablehlo.multiply %2, %cst : tensor<3xf32>\n'
        '    %4 = stablehlo.multiply %arg0, %arg2 : tensor<f32>\n'
        '    return %4 : tensor<f32>\n  }\n}\n')
    kept = jax.jit(f, keep_unused=True)
    assert float(jax.jit(f)(2.0, 5.0, 3.0)) == float(kept(2.0, 5.0, 3.0)) == 6.0


def test_result_info_names_pytree_outputs():
    f = lambda x, y: {"a": x + y, "b": (x * 2, jnp.sum(y))}
    text = jax.jit(f).lower(1., jnp.ones(3)).as_text()
    for name in ["result['a']", "result['b'][0]", "result['b'][1]"]:
        assert f'jax.result_info = "{name}"' in text


def test_compile_and_call():
    f = lambda x, y: x * 2 + y
    lowered = jax.jit(f).lower(jnp.arange(3.0), 1.0)
    compiled = lowered.compile()
    assert (type(lowered).__name__, type(compiled).__name__) == ("Lowered", "Compiled")
    assert np.asarray(compiled(jnp.arange(3.0), 1.0)).tolist() == [1., 3., 5.]
    assert "HloModule" in compiled.as_text()
    assert compiled.cost_analysis()["flops"] > 0
    with pytest.raises(TypeError):
        compiled(jnp.ones(4), 2.0)


def test_trace_stage_exposes_the_jaxpr():
    traced = jax.jit(lambda x: jnp.sin(x)).trace(1.)
    assert str(traced.jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"


def test_xla_computation_is_kept_working():
    def f(x):
        return jnp.sin(jnp.cos(x))
    text = jax.xla_computation(f)(3.).as_hlo_text()
    assert text.startswith("HloModule xla_computation_f")
    assert "cosine" in text and "sine" in text
    scalar = types.SimpleNamespace(shape=(), dtype=np.dtype(np.float32))
    assert jax.xla_computation(f)(scalar).as_hlo_text() == text


# -- eval_shape, named_call, device_put/get -----------------------------------------------

def test_eval_shape_on_duck_typed_arguments():
    class MyArgArray:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, jnp.dtype(dtype)

    out = jax.eval_shape(lambda A, x: jnp.tanh(jnp.dot(A, x)),
                         MyArgArray((2000, 3000), jnp.float32),
                         MyArgArray((3000, 1000), jnp.float32))
    assert str(out) == "ShapeDtypeStruct(shape=(2000, 1000), dtype=float32)"


def test_named_call_is_transparent():
    named = jax.named_call(lambda x: jnp.sin(x) * 2.0, name="my_g")
    assert str(jax.make_jaxpr(lambda x: named(x) + 1.0)(1.0)) == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = mul b 2.0:f32[]\n"
        "    d:f32[] = add c 1.0:f32[]\n  in (d,) }")


def test_device_put_and_get_with_pytrees():
    tree = {"a": np.arange(3.), "b": [1, 2.0]}
    on_device = jax.device_put(tree)
    assert repr(on_device["a"]) == "Array([0., 1., 2.], dtype=float32)"
    assert repr(on_device["b"][1]) == "Array(2., dtype=float32, weak_type=True)"
    back = jax.device_get(on_device)
    assert isinstance(back["a"], np.ndarray) and back["a"].tolist() == [0., 1., 2.]
    committed = jax.device_put(np.ones(2), jax.devices()[0])
    assert committed.committed and not on_device["a"].committed
    assert jax.block_until_ready(on_device) is on_device


# -- the C++ dispatch fast path ------------------------------------------------------------

def test_jit_returns_jaxlibs_cpp_dispatcher_with_the_functions_metadata():
    def scale(x):
        """Doubles."""
        return 2 * x

    f = jax.jit(scale)
    assert type(f).__name__ == "PjitFunction"
    assert repr(f).startswith("<PjitFunction of <function ")
    assert (f.__name__, f.__doc__, f.__wrapped__) == ("scale", "Doubles.", scale)
    assert callable(f.lower) and callable(f.trace) and callable(f.eval_shape)


def test_cached_calls_run_in_cpp_one_entry_per_signature():
    f = jax.jit(lambda x, y: x * y + 1.0)
    x = jnp.ones(4)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, x), np.full(4, 2.0, np.float32))
    assert f._cache_size() == 1
    f(np.ones(4, np.float32), np.ones(4, np.float32))    # host leaves: no sharding yet
    assert f._cache_size() == 2
    assert repr(f(x, 2.0)) == "Array([3., 3., 3., 3.], dtype=float32)"
    assert f._cache_size() == 3                           # a weak scalar: a new signature
    f.clear_cache()
    assert f._cache_size() == 0


def test_a_compiled_function_is_still_traced_under_a_trace():
    """The trace is part of the C++ key: a call at top level must not let later calls
    under make_jaxpr/grad/vmap run the executable instead of tracing."""
    f = jax.jit(lambda x: x * 2.0)
    c = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(c), [2.0, 2.0])
    text = str(jax.make_jaxpr(lambda: f(c))())
    assert "jit[" in text and "mul a 2.0:f32[]" in text
    np.testing.assert_array_equal(jax.grad(lambda x: f(x).sum())(c), [2.0, 2.0])
    np.testing.assert_array_equal(jax.vmap(f)(np.ones((3, 2), np.float32)),
                                  np.full((3, 2), 2.0))


def test_static_and_keyword_arguments_on_the_fast_path():
    f = jax.jit(lambda x, n, *, scale: x * n * scale, static_argnums=1,
                static_argnames="scale")
    assert float(f(1.0, 3, scale=2)) == 6.0
    assert float(f(1.0, 3, scale=2)) == 6.0
    assert float(f(1.0, 4, scale=2)) == 8.0
    assert f._cache_size() == 2
    g = jax.jit(lambda d: d["a"] - d["b"])
    for _ in range(2):      # dict leaves in key order, in C++ as in Python
        assert float(g({"b": 1.0, "a": np.float32(3.0)})) == 2.0


def test_eager_primitives_share_the_fast_path_and_respect_disable_jit():
    x = jnp.arange(3.0)
    first, second = jnp.sin(x), jnp.sin(x)
    np.testing.assert_allclose(first, np.sin(np.arange(3.0)), rtol=1e-6)
    np.testing.assert_array_equal(first, second)
    with jax.disable_jit():
        np.testing.assert_allclose(jnp.cos(x), np.cos(np.arange(3.0)), rtol=1e-6)
        assert float(jax.jit(lambda v: v.sum())(x)) == 3.0


# -- argument errors, as JAX words them ------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: jax.jit(lambda x: x, static_argnames="y"),
     "Jitted function has invalid argnames {'y'} in static_argnames. Function does not "
     "take these args."),
    (lambda: jax.jit(lambda x, *, y: x, static_argnums=1),
     "Jitted function has static_argnums=(1,), but only accepts 1 positional arguments."),
    (lambda: jax.jit(lambda x: x, static_argnums=-2),
     "Jitted function has static_argnums=(-2,), but only accepts 1 positional arguments."),
    (lambda: jax.jit(lambda x: x, donate_argnums=2),
     "Jitted function has donate_argnums=(2,), but only accepts 1 positional arguments."),
])
def test_bad_argnums_fail_when_jit_is_called(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message


@pytest.mark.parametrize("call, path", [
    (lambda f: jax.jit(f)(1.0, "a"), "y"),
    (lambda f: jax.jit(f)(1.0, y={"k": "a"}), "y['k']"),
    (lambda f: jax.make_jaxpr(f)("a", 1.0), "x"),
])
def test_a_leaf_that_is_not_an_array_is_named_by_its_path(call, path):
    def f(x, y):
        return x

    with pytest.raises(TypeError) as info:
        call(f)
    assert str(info.value) == (
        f"Error interpreting argument to {f} as an abstract array. The problematic value "
        f"is of type <class 'str'> and was passed to the function at path {path}.\n"
        "This typically means that a jit-wrapped function was called with a non-array "
        "argument, and this argument was not marked as static using the static_argnums "
        "or static_argnames parameters of jax.jit.")


@pytest.mark.parametrize("convert, error, message", [
    (bool, ValueError, "The truth value of an array with more than one element"),
    (int, TypeError, "Only scalar arrays can be converted to Python scalars; got arr.ndim=1"),
    (operator.index, TypeError, "Only integer scalar arrays can be converted"),
])
def test_non_scalar_conversions_fail_alike_with_and_without_jit(convert, error, message):
    for f in (convert, jax.jit(convert)):
        with pytest.raises(error, match=re.escape(message)):
            f(jnp.ones(2))


def test_eager_elementwise_jnp_functions_dispatch_like_jaxs_jitted_ones():
    """Outside a trace jnp.sin & co. run as an inlined jit (one C++ call once compiled);
    bad arguments are reported as JAX reports them for its jitted jnp functions."""
    x = jnp.arange(3.0)
    np.testing.assert_allclose(jnp.sin(x), np.sin(np.arange(3.0)), rtol=1e-6)
    assert repr(jnp.add(1, 2.0)) == "Array(3., dtype=float32, weak_type=True)"
    assert repr(x ** 2) == "Array([0., 1., 4.], dtype=float32)"
    with pytest.raises(TypeError, match="sin requires ndarray or scalar arguments, got "
                                        "<class 'list'> at position 0."):
        jnp.sin([1.0])
    with pytest.raises(TypeError, match=r"Error interpreting argument to <function sin at "):
        jnp.sin("a")
    text = str(jax.make_jaxpr(lambda v: jnp.sin(v) + 1.0)(x))   # inlined: no jit equation
    assert "jit" not in text and "sin a" in text


def test_stage_descriptions_and_errors_as_jax():
    f = jax.jit(lambda x, y: x * y + 1.0)
    lowered = f.lower(1.0, 2.0)
    assert repr(lowered.args_info) == (
        "((ArgInfo(_aval=ShapedArray(float32[], weak_type=True), donated=False), "
        "ArgInfo(_aval=ShapedArray(float32[], weak_type=True), donated=False)), {})")
    assert repr(lowered.out_info) == "ShapeDtypeStruct(shape=(), dtype=float32)"
    compiled = lowered.compile()
    assert str(compiled.in_tree) == "PyTreeDef(((*, *), {}))"
    assert lowered.as_text(dialect="hlo").startswith(
        "HloModule jit__lambda, entry_computation_layout={(f32[], f32[])->f32[]}")
    with pytest.raises(TypeError) as err:
        compiled(jnp.ones(2), 4.0)
    assert str(err.value).endswith(
        "Perhaps you are calling the compiled executable with a different enable_x64 mode "
        "than when it was AOT compiled? The mismatches are:\nArgument 'x' compiled with "
        "float32[] and called with float32[2]")


def test_device_and_backend_arguments_are_deprecated():
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit is "
                                                "deprecated"):
        g = jax.jit(lambda x: x, backend="cpu")
    assert g(1.0) == 1.0


def test_a_callable_without_weak_references_is_refused_not_crashed():
    """jaxlib's C++ dispatcher keys its caches on weak references to the function; an
    object that has none gets JAX's TypeError (it once crashed the interpreter)."""
    class NoWeakRefs:
        __slots__ = ()

        def __call__(self, x):
            return x + 1
    for _ in range(2):
        with pytest.raises(TypeError, match="cannot create weak reference to 'NoWeakRefs'"):
            jax.jit(NoWeakRefs())


def test_array_methods_of_traced_values_are_not_hidden_by_tracer_fields():
    """``x.var()`` is the variance under ``jit`` too (a staged value's jaxpr variable
    is kept under another name)."""
    x = np.arange(5., dtype=np.float32)
    np.testing.assert_allclose(jax.jit(lambda x: x.var())(x), np.var(x), rtol=1e-6)
