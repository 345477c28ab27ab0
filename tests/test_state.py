"""glassjax.state: State objects, the recorder, and the transformations that carry states.

Jaxpr texts are compared with what brainstate 0.5.4 on JAX 0.10.2 prints for the same
programs (the seed 001 examples and more; produced by running each snippet under
brainstate). Values are checked against NumPy, gradients against finite differences,
and transformations against each other (jit vs eager, vmap vs a loop).
"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax, state
from glassjax.errors import UnexpectedTracerError


# ----------------------------------------------------------------------------------------
# The seed's examples (brainstate.transform.make_jaxpr), printed as brainstate prints them
# ----------------------------------------------------------------------------------------

def f(x):
    return jnp.sin(jnp.cos(x))


def test_seed_basic_usage():
    jaxpr, states = state.make_jaxpr(f)(3.0)
    assert isinstance(jaxpr, jax.core.ClosedJaxpr)
    assert str(jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }"
    assert states == ()


def test_seed_with_gradient():
    jaxpr, states = state.make_jaxpr(jax.grad(f))(3.0)
    assert str(jaxpr) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    _:f32[] = sin b
    d:f32[] = cos b
    e:f32[] = mul 1.0:f32[] d
    f:f32[] = neg e
    g:f32[] = mul f c
  in (g,) }"""
    assert states == ()


def test_seed_with_shape_information():
    jaxpr, states, shapes = state.make_jaxpr(f, return_shape=True)(3.0)
    assert str(jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = cos a; c:f32[] = sin b in (c,) }"
    assert states == ()
    assert repr(shapes) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"


def test_seed_with_stateful_function():
    st = state.State(jnp.array([1.0, 2.0]))

    def stateful_f(x):
        st.value += x
        return st.value

    jaxpr, states = state.make_jaxpr(stateful_f)(jnp.array([0.5, 0.5]))
    assert str(jaxpr) == "{ lambda ; a:f32[2] b:f32[2]. let c:f32[2] = add b a in (c, c) }"
    assert states == (st,)
    assert repr(states) == "(State(\n  value=ShapedArray(float32[2])\n),)"
    # tracing puts the value back
    np.testing.assert_array_equal(st.value, [1.0, 2.0])
    assert not isinstance(st.value, jax.core.Tracer)

    jaxpr, states, shapes = state.make_jaxpr(stateful_f, return_shape=True,
                                             return_only_write=True)(jnp.array([0.5, 0.5]))
    assert str(jaxpr) == "{ lambda ; a:f32[2] b:f32[2]. let c:f32[2] = add b a in (c, c) }"
    assert repr(shapes) == "ShapeDtypeStruct(shape=(2,), dtype=float32)"


def test_make_jaxpr_names_and_static_args():
    def g(x, n, *, scale):
        return x * n * scale
    maker = state.make_jaxpr(g, static_argnums=1, static_argnames="scale")
    assert maker.__name__ == "make_jaxpr(g)"
    jaxpr, _ = maker(jnp.ones(2), 3, scale=2.0)
    assert str(jaxpr) == """\
{ lambda ; a:f32[2]. let
    b:f32[2] = mul a 3.0:f32[]
    c:f32[2] = mul b 2.0:f32[]
  in (c,) }"""


def test_state_inputs_are_named_after_their_states():
    """The state inputs carry the states' names: in the jaxpr's debug info (the
    notebook's graphs label inputs with it) and in concretization errors."""
    w = state.ParamState({"a": jnp.ones(2)}, name="w")
    anon = state.State(jnp.ones(()))

    def g(x):
        return x * w.value["a"] * anon.value

    jaxpr, _ = state.make_jaxpr(g)(1.0)
    assert jaxpr.jaxpr.debug_info.arg_names == ("x", "ParamState 'w'['a']", "State")

    def h(x):
        if w.value["a"].sum() > x:
            return x
        return -x
    with pytest.raises(jax.errors.TracerBoolConversionError,
                       match=r"depends on the values of the arguments x and "
                             r"ParamState 'w'\['a'\]"):
        state.jit(h)(1.0)


def test_make_jaxpr_axis_env():
    jaxpr, _ = state.make_jaxpr(lambda x: lax.psum(x, "i"), axis_env=[("i", 4)])(1.0)
    assert str(jaxpr) == ("{ lambda ; a:f32[]. let\n    b:f32[] = psum[axes=('i',) "
                          "axis_index_groups=None] a\n  in (b,) }")


# ----------------------------------------------------------------------------------------
# More programs, printed as brainstate prints them
# ----------------------------------------------------------------------------------------

@pytest.fixture
def abc():
    a = state.State(jnp.array([1.0, 2.0]))
    b = state.ParamState(jnp.ones((2, 2)), name="b")
    c = state.ShortTermState(jnp.array(0), name="c")
    return a, b, c


def test_read_only_state_is_an_input_and_an_output(abc):
    a, _, _ = abc
    p1 = lambda x: x * a.value
    jaxpr, states = state.make_jaxpr(p1)(jnp.ones(2))
    assert str(jaxpr) == "{ lambda ; a:f32[2] b:f32[2]. let c:f32[2] = mul a b in (c, b) }"
    assert states == (a,)
    jaxpr, states = state.make_jaxpr(p1, return_only_write=True)(jnp.ones(2))
    assert str(jaxpr) == "{ lambda ; a:f32[2] b:f32[2]. let c:f32[2] = mul a b in (c,) }"
    assert states == (a,)


P2_BODY = """\
{ lambda ; a:f32[2] b:i32[] c:f32[2,2] d:f32[2]. let
    e:i32[] = add b 1:i32[]
    f:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] c a
    g:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
  in (g, e, OUTS) }"""


def test_states_in_first_touch_order(abc):
    a, b, c = abc

    def p2(x):
        c.value = c.value + 1
        a.value = b.value @ x       # a is written before it is read: still an input
        return a.value.sum()

    jaxpr, states = state.make_jaxpr(p2)(jnp.ones(2))
    assert str(jaxpr) == P2_BODY.replace("OUTS", "c, f")
    assert states == (c, b, a)
    jaxpr, states = state.make_jaxpr(p2, return_only_write=True)(jnp.ones(2))
    assert str(jaxpr) == P2_BODY.replace("OUTS", "f")
    assert states == (c, b, a)


def test_jit_inside_make_jaxpr(abc):
    """A state.jit call takes the states' values first and returns the written ones
    first, as brainstate's (which names the call ``jaxpr_call``; glassjax keeps the
    function's name)."""
    a, b, c = abc

    def p2(x):
        c.value = c.value + 1
        a.value = b.value @ x
        return a.value.sum()

    jitted = state.jit(p2)
    jaxpr, states = state.make_jaxpr(lambda x: jitted(x))(jnp.ones(2))
    assert str(jaxpr) == """\
{ lambda ; a:f32[2] b:i32[] c:f32[2,2] d:f32[2]. let
    e:i32[] f:f32[2] g:f32[] = jit[
      name=p2
      jaxpr={ lambda ; b:i32[] c:f32[2,2] d:f32[2] a:f32[2]. let
          e:i32[] = add b 1:i32[]
          f:f32[2] = dot_general[
            dimension_numbers=(([1], [0]), ([], []))
            preferred_element_type=float32
          ] c a
          g:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
        in (e, f, g) }
    ] b c d a
  in (g, e, c, f) }"""
    assert [type(s).__name__ for s in states] == ["ShortTermState", "ParamState", "State"]


def test_scan_carries_written_states(abc):
    a, _, _ = abc

    def p3(x):
        def body(carry, xi):
            a.value = a.value + xi
            return carry + 1, a.value.sum()
        return state.scan(body, 0, x)

    jaxpr, states = state.make_jaxpr(p3)(jnp.ones((3, 2)))
    assert str(jaxpr) == """\
{ lambda ; a:f32[3,2] b:f32[2]. let
    c:f32[2] d:i32[] e:f32[3] = scan[
      jaxpr={ lambda ; f:f32[2] g:i32[] h:f32[2]. let
          i:f32[2] = add f h
          j:i32[] = add g 1:i32[]
          k:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
        in (i, j, k) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] b 0:i32[] a
  in (d, e, c) }"""
    assert states == (a,)


def test_cond_branches_write_states(abc):
    a, _, _ = abc

    def p4(x):
        def t():
            a.value = a.value * 2

        def f():
            a.value = a.value - 1
        state.cond(x > 0, t, f)
        return a.value

    jaxpr, states = state.make_jaxpr(p4)(1.0)
    assert str(jaxpr) == """\
{ lambda ; a:f32[] b:f32[2]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[2] = cond[
      branches=(
        { lambda ; f:f32[2]. let g:f32[2] = sub f 1.0:f32[] in (g,) }
        { lambda ; h:f32[2]. let i:f32[2] = mul h 2.0:f32[] in (i,) }
      )
    ] d b
  in (e, e) }"""


def test_while_loop_carries_written_states(abc):
    _, _, c = abc

    def p5(x):
        def body(v):
            c.value = c.value + 1
            return v * 2
        return state.while_loop(lambda v: v < 10., body, x)

    jaxpr, states = state.make_jaxpr(p5)(1.0)
    assert str(jaxpr) == """\
{ lambda ; a:f32[] b:i32[]. let
    c:i32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:i32[] f:f32[]. let
          g:i32[] = add e 1:i32[]
          h:f32[] = mul f 2.0:f32[]
        in (g, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:i32[] j:f32[]. let
          k:bool[] = lt j 10.0:f32[]
        in (k,) }
      cond_nconsts=0
    ] b a
  in (d, c) }"""
    assert states == (c,)


def test_grad_with_respect_to_a_state(abc):
    _, b, _ = abc
    p7 = lambda x: state.grad(lambda x: (b.value @ x).sum(), grad_states=b)(x)
    jaxpr, states = state.make_jaxpr(p7)(jnp.ones(2))
    assert str(jaxpr) == """\
{ lambda ; a:f32[2] b:f32[2,2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] b a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c
    d:f32[2] = broadcast_in_dim 1.0:f32[]
    e:f32[2,2] = dot_general[
      dimension_numbers=(([], []), ([], []))
      preferred_element_type=float32
    ] d a
  in (e, b) }"""
    assert states == (b,)


def test_remat_returns_written_states_first(abc):
    a, _, _ = abc

    def q1(x):
        def g(x):
            a.value = a.value * x
            return jnp.sin(a.value).sum()
        return state.remat(g)(x)

    jaxpr, states = state.make_jaxpr(q1)(2.0)
    assert str(jaxpr) == """\
{ lambda ; a:f32[] b:f32[2]. let
    c:f32[2] d:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; e:f32[2] f:f32[]. let
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          h:f32[2] = mul e g
          i:f32[2] = sin h
          j:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
        in (h, j) }
      policy=None
      prevent_cse=True
    ] b a
  in (d, c) }"""


# ----------------------------------------------------------------------------------------
# State values and their checks
# ----------------------------------------------------------------------------------------

def test_state_types_and_repr():
    p = state.ParamState({"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}, name="lin")
    assert isinstance(p, state.LongTermState) and isinstance(p, state.State)
    assert isinstance(state.ShortTermState(1.0), state.State)
    assert repr(p) == """\
ParamState(
  value={
    'b': ShapedArray(float32[3]),
    'w': ShapedArray(float32[2,3])
  },
  name=lin
)"""
    assert repr(state.ShortTermState(1.0)) == \
        "ShortTermState(\n  value=ShapedArray(float32[], weak_type=True)\n)"
    assert p.numel() == 9
    assert state.State(p).value is p.value


def test_pytree_value_read_write():
    s = state.State({"a": jnp.zeros(2), "b": (jnp.ones(3), jnp.int32(4))})
    s.value = {"a": jnp.array([1., 2.]), "b": (jnp.zeros(3), jnp.int32(7))}
    np.testing.assert_array_equal(s.value["a"], [1., 2.])
    assert int(s.value["b"][1]) == 7


@pytest.mark.parametrize("new, exc, words", [
    (jnp.zeros(4), ValueError, ["'w'", "float32[3]", "float32[4]"]),
    (jnp.zeros((3,), jnp.int32), TypeError, ["'w'", "float32[3]", "int32[3]"]),
    ({"a": jnp.zeros(3)}, ValueError, ["'w'", "PyTreeDef(*)", "PyTreeDef({'a': *})"]),
    ("text", TypeError, ["'w'", "float32[3]", "str"]),
    (1.5, ValueError, ["'w'", "float32[3]", "float32[]"]),
])
def test_bad_write_raises_and_keeps_value(new, exc, words):
    w = state.ParamState(jnp.array([1., 2., 3.]), name="w")
    before = w.value
    with pytest.raises(exc) as info:
        w.value = new
    for word in words:
        assert word in str(info.value)
    assert w.value is before


def test_writing_a_state_into_a_state_is_refused():
    s = state.State(jnp.zeros(2))
    with pytest.raises(TypeError, match="cannot store a State in a State"):
        s.value = state.State(jnp.ones(2))


def test_unnamed_state_is_named_by_where_it_was_made():
    s = state.State(jnp.zeros(2))
    with pytest.raises(ValueError, match=r"State created at test_state.py:\d+ holds"):
        s.value = jnp.zeros(3)


def test_python_scalar_write_takes_the_state_dtype():
    s = state.State(jnp.float32(0))
    s.value = 2          # a weak int promotes to float32: accepted, stored as float32
    assert s.value.dtype == np.float32 and float(s.value) == 2.0
    weak = state.State(0.0)
    weak.value = 1
    assert jax.typeof(weak.value).weak_type
    i = state.State(jnp.int32(0))
    with pytest.raises(TypeError, match="int32"):
        i.value = 1.5    # a float would not fit


def test_failed_multi_write_changes_nothing():
    """A StatefulFunction writes all its states or none."""
    a = state.State(jnp.zeros(2), name="a")
    b = state.State(jnp.zeros(2), name="b")
    with pytest.raises(ValueError, match="'b'"):
        state.states.write_values([a, b], [jnp.ones(2), jnp.ones(5)])
    np.testing.assert_array_equal(a.value, [0., 0.])


# ----------------------------------------------------------------------------------------
# The recorder
# ----------------------------------------------------------------------------------------

def test_recorder_notes_reads_and_writes_in_order():
    a, b = state.State(jnp.ones(2), name="a"), state.State(jnp.ones(2), name="b")
    with state.StateTraceStack() as outer:
        _ = a.value
        with state.StateTraceStack() as inner:
            b.value = a.value * 2
        a.value = b.value
    assert outer.events == [("read", a), ("read", a), ("write", b), ("read", b),
                            ("write", a)]
    assert inner.events == [("read", a), ("write", b)]
    assert outer.states == [a, b] and outer.been_written == [True, True]
    assert inner.get_read_states() == (a,) and inner.get_write_states() == (b,)
    np.testing.assert_array_equal(outer.original_state_values[0], [1., 1.])
    np.testing.assert_array_equal(a.value, [2., 2.])     # eager: the writes happened


def test_recorder_sees_through_nested_traces():
    """Reads and writes made inside a jit, a scan body and a vmap reach an enclosing
    recorder too; the states hold concrete values afterwards."""
    a, b = state.State(jnp.ones(2), name="a"), state.State(jnp.zeros(2), name="b")

    def body(c, x):
        b.value = b.value + x * a.value
        return c, None

    run = state.jit(lambda xs: state.scan(body, 0., xs)[0])
    with state.StateTraceStack() as rec:
        run(jnp.ones((3, 2)))
    assert rec.get_read_states() == (a,) and rec.get_write_states() == (b,)
    assert rec.events[:3] == [("read", b), ("read", a), ("write", b)]
    np.testing.assert_array_equal(b.value, [3., 3.])
    with state.StateTraceStack() as rec:
        state.vmap(lambda x: setattr(b, "value", b.value + x * a.value.sum()), in_states=b)(
            jnp.ones((2,)))
    assert rec.states == [b, a] and rec.been_written == [True, False]


def test_recorder_restores_values():
    a = state.State(jnp.ones(2))
    with state.StateTraceStack() as rec:
        a.value = a.value + 1
    rec.restore_original_values()
    np.testing.assert_array_equal(a.value, [1., 1.])


def test_states_made_inside_a_recorder_are_local_to_it():
    """A state created while a function is traced is not an input of that jaxpr."""
    outer = state.State(jnp.ones(2))

    def g(x):
        local = state.State(x * 2)
        local.value = local.value + outer.value
        return local.value

    jaxpr, states = state.make_jaxpr(g)(jnp.ones(2))
    assert states == (outer,)
    assert str(jaxpr) == ("{ lambda ; a:f32[2] b:f32[2]. let\n    c:f32[2] = mul a "
                          "2.0:f32[]\n    d:f32[2] = add c b\n  in (d, b) }")


# ----------------------------------------------------------------------------------------
# StatefulFunction and jit
# ----------------------------------------------------------------------------------------

def test_stateful_function_traces_once_per_signature():
    traces = []
    acc = state.State(jnp.zeros(3), name="acc")

    def add(x):
        traces.append(x.shape)
        acc.value = acc.value + x
        return acc.value.sum()

    sf = state.StatefulFunction(add)
    assert float(sf(jnp.ones(3))) == 3.0
    assert float(sf(jnp.ones(3))) == 6.0
    assert len(traces) == 1
    np.testing.assert_array_equal(acc.value, [2., 2., 2.])
    assert sf.get_states(jnp.ones(3)) == (acc,)
    assert sf.get_write_states(jnp.ones(3)) == (acc,)
    assert sf.get_read_states(jnp.ones(3)) == ()
    assert sf.get_out_shapes(jnp.ones(3)) == jax.ShapeDtypeStruct((), np.float32)
    # another signature is traced again; here its write would change the state's shape:
    # the compiled call runs, the write-back is refused, and no state changes
    with pytest.raises(ValueError, match="'acc' holds float32\\[3\\]; cannot write "
                                         "float32\\[2,3\\]"):
        sf(jnp.ones((2, 3)))
    assert len(traces) == 2
    np.testing.assert_array_equal(acc.value, [2., 2., 2.])
    assert sf.get_jaxpr(jnp.ones(3)).in_avals[1].shape == (3,)


def test_stateful_function_retraces_when_a_state_changes_type():
    s = state.State(jnp.zeros(2))
    traces = []

    def g():
        traces.append(1)
        return s.value * 2

    sf = state.StatefulFunction(g)
    sf()
    s._value = jnp.zeros(5)        # (bypassing the checks, as a re-initialisation would)
    np.testing.assert_array_equal(sf(), np.zeros(5))
    assert len(traces) == 2


def _counter_program():
    count = state.ShortTermState(jnp.int32(0), name="count")
    mem = state.State(jnp.zeros(4), name="mem")
    scale = state.State(jnp.float32(0.5), name="scale")

    def step(x, *, decay=0.9):
        count.value += 1
        mem.value = decay * mem.value + scale.value * x
        return jnp.tanh(mem.value).sum()
    return (count, mem, scale), step


def test_jit_matches_eager_and_numpy():
    (count, mem, scale), step = _counter_program()
    (count2, mem2, _), step2 = _counter_program()
    jitted = state.jit(step, static_argnames="decay")
    np_mem = np.zeros(4, np.float32)
    xs = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    for x in xs:
        out = jitted(x, decay=0.8)
        eager = step2(x, decay=0.8)
        np_mem = np.float32(0.8) * np_mem + np.float32(0.5) * x
        np.testing.assert_allclose(out, np.tanh(np_mem).sum(), rtol=1e-6)
        np.testing.assert_allclose(out, eager, rtol=1e-6)
    assert int(count.value) == 5 and int(count2.value) == 5
    np.testing.assert_allclose(mem.value, np_mem, rtol=1e-6)
    assert isinstance(mem.value, jax.Array)


def test_jit_decorator_forms():
    s = state.State(jnp.zeros(()))

    @state.jit(static_argnums=1)
    def bump(x, times):
        for _ in range(times):
            s.value = s.value + x
        return s.value

    assert float(bump(1.0, 3)) == 3.0
    assert float(bump(1.0, 2)) == 5.0
    assert bump.__name__ == "bump"


def test_nested_jit_in_jit():
    s = state.State(jnp.ones(2), name="s")
    inner = state.jit(lambda x: setattr(s, "value", s.value * x))

    @state.jit
    def outer(x):
        inner(x)
        inner(x)
        return s.value.sum()

    assert float(outer(3.0)) == 18.0
    np.testing.assert_array_equal(s.value, [9., 9.])


# ----------------------------------------------------------------------------------------
# grad
# ----------------------------------------------------------------------------------------

def _finite_difference(fun, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (fun(x + d) - fun(x - d)) / (2 * eps)
    return g


def _mlp():
    rng = np.random.RandomState(1)
    params = {"w": state.ParamState(jnp.asarray(rng.randn(3, 2), jnp.float32), name="w"),
              "b": state.ParamState(jnp.asarray(rng.randn(2), jnp.float32), name="b")}
    x = rng.randn(5, 3).astype(np.float32)

    def loss(x):
        return jnp.sum(jnp.tanh(x @ params["w"].value + params["b"].value) ** 2)

    def np_loss(w, b, x=x):
        return np.sum(np.tanh(x @ w + b) ** 2)
    return params, x, loss, np_loss


def test_grad_keyed_like_the_states_matches_finite_differences():
    params, x, loss, np_loss = _mlp()
    w0, b0 = np.asarray(params["w"].value), np.asarray(params["b"].value)
    grads = state.grad(loss, grad_states=params)(x)
    assert set(grads) == {"w", "b"}
    np.testing.assert_allclose(grads["w"], _finite_difference(lambda w: np_loss(w, b0), w0),
                               rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(grads["b"], _finite_difference(lambda b: np_loss(w0, b), b0),
                               rtol=2e-3, atol=2e-3)
    # a list of states gives a list, one state its own gradient
    g_list = state.grad(loss, grad_states=[params["b"], params["w"]])(x)
    np.testing.assert_allclose(g_list[1], grads["w"], rtol=1e-6)
    g_one = state.grad(loss, grad_states=params["b"])(x)
    np.testing.assert_allclose(g_one, grads["b"], rtol=1e-6)


def test_grad_states_and_argnums_value_and_aux():
    params, x, loss, np_loss = _mlp()
    w0, b0 = np.asarray(params["w"].value), np.asarray(params["b"].value)
    steps = state.ShortTermState(jnp.int32(0))

    def loss_aux(x):
        steps.value += 1
        return loss(x), {"n": steps.value}

    (g_states, g_x), value, aux = state.grad(loss_aux, grad_states=params, argnums=0,
                                             has_aux=True, return_value=True)(x)
    np.testing.assert_allclose(value, np_loss(w0, b0), rtol=1e-5)
    np.testing.assert_allclose(g_x, _finite_difference(lambda xx: np_loss(w0, b0, xx), x),
                               rtol=2e-3, atol=2e-3)
    assert set(g_states) == {"w", "b"}
    assert int(aux["n"]) == 1 and int(steps.value) == 1     # written back
    # argnums only: plain jax.grad
    g_only = state.grad(loss)(x)
    np.testing.assert_allclose(g_only, g_x, rtol=1e-6)
    g_neg = state.grad(lambda a, x: loss(x) * a, argnums=(-1,))(2.0, x)
    np.testing.assert_allclose(g_neg[0], 2 * g_x, rtol=1e-6)
    assert not isinstance(params["w"].value, jax.core.Tracer)


def test_grad_inside_jit_matches_eager():
    params, x, loss, _ = _mlp()
    eager = state.grad(loss, grad_states=params)(x)
    jitted = state.jit(state.grad(loss, grad_states=params))(x)
    for k in eager:
        np.testing.assert_allclose(jitted[k], eager[k], rtol=1e-5)


def test_remat_gives_the_same_gradients():
    params, x, loss, _ = _mlp()
    calls = state.ShortTermState(jnp.int32(0))

    @state.remat
    def layer(x):
        calls.value += 1
        return jnp.tanh(x @ params["w"].value + params["b"].value)

    g_remat = state.grad(lambda x: jnp.sum(layer(x) ** 2), grad_states=params)(x)
    g_plain = state.grad(loss, grad_states=params)(x)
    for k in g_plain:
        np.testing.assert_allclose(g_remat[k], g_plain[k], rtol=1e-6)
    assert int(calls.value) == 1
    jaxpr, _ = state.make_jaxpr(state.grad(lambda x: jnp.sum(layer(x) ** 2),
                                           grad_states=params))(x)
    assert "remat2" in str(jaxpr) or "checkpoint" in str(jaxpr)
    assert state.checkpoint is state.remat


# ----------------------------------------------------------------------------------------
# vmap
# ----------------------------------------------------------------------------------------

def test_vmap_batched_state_matches_a_loop():
    h = state.State(jnp.zeros((4, 3)), name="h")       # one row per example
    w = state.State(jnp.arange(3.), name="w")          # shared: broadcast

    def cell(x):
        h.value = jnp.tanh(h.value * 0.5 + x * w.value)
        return h.value.sum()

    xs = np.random.RandomState(2).randn(4, 3).astype(np.float32)
    out = state.vmap(cell, in_states=h)(xs)
    h_np = np.tanh(0.0 * 0.5 + xs * np.arange(3.))
    np.testing.assert_allclose(h.value, h_np, rtol=1e-6)
    np.testing.assert_allclose(out, h_np.sum(1), rtol=1e-6)
    # the same with {axis: states}, batched along axis 1
    g = state.State(jnp.zeros((3, 4)))

    def cell_t(x):
        g.value = g.value + x * w.value
        return g.value

    out_t = state.vmap(cell_t, in_states={1: g}, out_axes=1)(xs)
    np.testing.assert_allclose(g.value, (xs * np.arange(3.)).T, rtol=1e-6)
    np.testing.assert_allclose(out_t, (xs * np.arange(3.)).T, rtol=1e-6)


def test_vmap_matches_running_each_example_on_its_own_states():
    """vmap over batched states == the same stateful function run once per example,
    each with a state holding that example's row."""
    rng = np.random.RandomState(3)
    h0, xs = rng.randn(5, 3).astype(np.float32), rng.randn(5, 3).astype(np.float32)
    w = state.ParamState(jnp.asarray(rng.randn(3, 3), jnp.float32), name="w")

    def cell_of(h):
        def cell(x):
            h.value = jnp.tanh(h.value @ w.value + x)
            return (h.value ** 2).sum()
        return cell

    h = state.State(jnp.asarray(h0))
    out = state.vmap(cell_of(h), in_states=h)(xs)
    for i in range(5):
        h_i = state.State(jnp.asarray(h0[i]))
        out_i = cell_of(h_i)(xs[i])
        np.testing.assert_allclose(out[i], out_i, rtol=1e-5)
        np.testing.assert_allclose(h.value[i], h_i.value, rtol=1e-5)


def test_vmap_out_states_and_unbatched_writes():
    total = state.State(jnp.zeros(()), name="total")   # written with a shared value
    last = state.State(jnp.zeros(2), name="last")      # comes out batched

    def g(x, y):
        total.value = total.value + y                  # y is not mapped
        last.value = x
        return x * 2

    xs = jnp.arange(6.).reshape(3, 2)
    out = state.vmap(g, in_axes=(0, None), out_states=last)(xs, 5.0)
    np.testing.assert_array_equal(out, np.arange(6.).reshape(3, 2) * 2)
    assert float(total.value) == 5.0
    np.testing.assert_array_equal(last.value, np.arange(6.).reshape(3, 2))


def test_vmap_of_jit_and_jit_of_vmap_agree():
    def make():
        h = state.State(jnp.ones((4, 2)))

        def step(x):
            h.value = h.value * x + 1
            return h.value.sum()
        return h, step

    h1, s1 = make()
    h2, s2 = make()
    xs = jnp.arange(8.).reshape(4, 2)
    o1 = state.vmap(state.jit(s1), in_states=h1)(xs)
    o2 = state.jit(state.vmap(s2, in_states=h2))(xs)
    np.testing.assert_allclose(o1, o2)
    np.testing.assert_allclose(h1.value, h2.value)
    np.testing.assert_allclose(h1.value, np.arange(8.).reshape(4, 2) + 1)


# ----------------------------------------------------------------------------------------
# Control flow
# ----------------------------------------------------------------------------------------

def test_control_flow_values_match_numpy():
    h = state.State(jnp.zeros(3), name="h")

    def body(i, c):
        h.value = h.value + i
        return c + h.value.sum()

    out = state.fori_loop(0, 4, body, 0.0)
    h_np, c_np = np.zeros(3), 0.0
    for i in range(4):
        h_np = h_np + i
        c_np += h_np.sum()
    assert float(out) == c_np
    np.testing.assert_array_equal(h.value, h_np)

    def sbody(c, x):
        h.value = h.value * 0.5 + x
        return c + 1, h.value.sum()

    xs = np.arange(9.).reshape(3, 3).astype(np.float32)
    carry, ys = state.scan(sbody, 0, xs)
    ys_np = []
    for x in xs:
        h_np = h_np * 0.5 + x
        ys_np.append(h_np.sum())
    assert int(carry) == 3
    np.testing.assert_allclose(ys, ys_np)
    np.testing.assert_allclose(h.value, h_np)

    n = state.State(jnp.int32(0))

    def wbody(v):
        n.value += 1
        return v * 3
    assert float(state.while_loop(lambda v: v < 100., wbody, 1.0)) == 243.0
    assert int(n.value) == 5

    branches = [lambda x: setattr(n, "value", n.value * 0), lambda x: None,
                lambda x: setattr(n, "value", n.value + x)]
    state.switch(2, branches, 10)
    assert int(n.value) == 15
    state.cond(False, branches[0], branches[1], 1)
    assert int(n.value) == 15
    state.cond(True, branches[0], branches[1], 1)
    assert int(n.value) == 0


def test_control_flow_under_jit_and_fori_with_traced_bounds():
    acc = state.State(jnp.zeros(2))

    @state.jit
    def run(n, xs):
        state.fori_loop(0, n, lambda i, c: setattr(acc, "value", acc.value + i) or c, 0)
        return state.scan(lambda c, x: (c + x, None), jnp.zeros(2), xs)[0]

    out = run(jnp.int32(3), jnp.ones((5, 2)))
    np.testing.assert_array_equal(out, [5., 5.])
    np.testing.assert_array_equal(acc.value, [3., 3.])


def test_grad_through_scan_over_a_param_state():
    w = state.ParamState(jnp.float32(0.9), name="w")

    def loss(x0):
        def step(h, _):
            return w.value * h + 1.0, None
        return state.scan(step, x0, None, length=4)[0]

    g = state.grad(loss, grad_states=w)(2.0)
    fd = _finite_difference(lambda v: _np_rollout(v, 2.0), np.float64(0.9))
    np.testing.assert_allclose(g, fd, rtol=1e-3)


def _np_rollout(w, h):
    for _ in range(4):
        h = w * h + 1.0
    return h


def test_pytree_state_carried_through_scan_under_jit():
    p = state.ParamState({"w": jnp.ones((2, 2)), "b": (jnp.zeros(2), jnp.int32(0))})

    @state.jit
    def run(xs):
        def body(c, x):
            v = p.value
            p.value = {"w": v["w"] + x, "b": (v["b"][0] + 1, v["b"][1] + 1)}
            return c, None
        state.scan(body, 0., xs)
        return p.value["w"].sum()

    assert float(run(jnp.ones((3, 2)))) == 16.0
    np.testing.assert_array_equal(p.value["b"][0], [3., 3.])
    assert int(p.value["b"][1]) == 3


def test_loops_and_switch_inside_vmap_and_jit():
    c = state.State(jnp.zeros(3))

    def count_up(x):
        def body(v):
            c.value = c.value + 1
            return v + 1
        return state.while_loop(lambda v: v < x, body, 0.)

    out = state.vmap(count_up, in_states=c)(jnp.array([1., 2., 3.]))
    np.testing.assert_array_equal(out, [1., 2., 3.])
    np.testing.assert_array_equal(c.value, [1., 2., 3.])     # each example its own count

    m = state.State(jnp.float32(1))
    sw = state.jit(lambda i: state.switch(i, [lambda: setattr(m, "value", m.value * 2),
                                              lambda: setattr(m, "value", m.value + 10)]))
    sw(1)
    sw(0)
    assert float(m.value) == 22.0


def test_nested_vmap_and_named_axis():
    h = state.State(jnp.zeros((2, 3, 4)))

    def cell(x):
        h.value = h.value + x
        return h.value.sum()

    out = state.vmap(state.vmap(cell, in_states=h), in_states=h)(
        jnp.arange(24.).reshape(2, 3, 4))
    np.testing.assert_array_equal(out, np.arange(24.).reshape(2, 3, 4).sum(-1))
    np.testing.assert_array_equal(h.value, np.arange(24.).reshape(2, 3, 4))
    s = state.State(jnp.zeros(4))

    def g(x):
        s.value = s.value + lax.psum(x, "i")
        return x
    state.vmap(g, in_states=s, axis_name="i")(jnp.arange(4.))
    np.testing.assert_array_equal(s.value, [6.] * 4)


def test_while_cond_must_not_write():
    s = state.State(jnp.int32(0), name="s")

    def cond_fun(v):
        s.value += 1
        return v < 3
    with pytest.raises(ValueError, match="cond_fun must not write states.*'s'"):
        state.while_loop(cond_fun, lambda v: v + 1, 0)
    assert int(s.value) == 0


# ----------------------------------------------------------------------------------------
# A training loop: stateful (ParamState + state.jit/grad) vs functional (jit/grad)
# ----------------------------------------------------------------------------------------

def _data(seed, n=32):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype(np.float32)
    y = (x @ np.array([1.5, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    return x, y


def _functional_train(x, y, w, b, steps=100, lr=0.1):
    def loss(params, x, y):
        w, b = params
        return jnp.mean((x @ w + b - y) ** 2)

    @jax.jit
    def sgd(params, x, y):
        g = jax.grad(loss)(params, x, y)
        return jax.tree.map(lambda p, d: p - lr * d, params, g)

    params = (w, b)
    for _ in range(steps):
        params = sgd(params, x, y)
    return params


def _stateful_step(w, b, lr=0.1):
    def loss(x, y):
        return jnp.mean((x @ w.value + b.value - y) ** 2)

    def sgd(x, y):
        grads = state.grad(loss, grad_states={"w": w, "b": b})(x, y)
        w.value = w.value - lr * grads["w"]
        b.value = b.value - lr * grads["b"]
    return sgd


def test_training_loop_matches_functional():
    x, y = _data(0)
    w = state.ParamState(jnp.zeros(3), name="w")
    b = state.ParamState(jnp.zeros(()), name="b")
    step = state.jit(_stateful_step(w, b))
    for _ in range(100):
        step(x, y)
    fw, fb = _functional_train(jnp.asarray(x), jnp.asarray(y), jnp.zeros(3), jnp.zeros(()))
    np.testing.assert_allclose(w.value, fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.value, fb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.value, [1.5, -2.0, 0.5], atol=0.05)    # it learned
    assert len(step._cache) == 1                                         # traced once


def test_training_loop_under_vmap_over_four_seeds():
    data = [_data(seed) for seed in range(4)]
    xs = jnp.asarray(np.stack([d[0] for d in data]))
    ys = jnp.asarray(np.stack([d[1] for d in data]))
    init = np.random.RandomState(9).randn(4, 3).astype(np.float32) * 0.1
    w = state.ParamState(jnp.asarray(init), name="w")        # one model per seed
    b = state.ParamState(jnp.zeros(4), name="b")
    step = state.jit(state.vmap(_stateful_step(w, b), in_states=[w, b]))
    for _ in range(100):
        step(xs, ys)
    fw, fb = jax.vmap(_functional_train)(xs, ys, jnp.asarray(init), jnp.zeros(4))
    np.testing.assert_allclose(w.value, fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.value, fb, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------
# Errors: leaked tracers, non-State arguments, failing traced calls
# ----------------------------------------------------------------------------------------

@pytest.fixture
def w():
    return state.ParamState(jnp.array([1., 2., 3.]), name="w")


def _writes(w):
    def g(x):
        w.value = w.value * x
        return x
    return g


@pytest.mark.parametrize("transform, tracer", [
    (lambda g: jax.jit(g)(2.0), "JitTracer"),
    (lambda g: jax.vmap(g)(jnp.ones(2)), "VmapTracer"),
    (lambda g: jax.grad(g)(2.0), "GradTracer"),
    (lambda g: state.jit(lambda p: lax.cond(p, lambda: g(2.0), lambda: 1.0))(True),
     "JitTracer"),
    (lambda g: state.jit(lambda: lax.scan(lambda c, x: (g(x), None), 0., jnp.ones(2)))(),
     "JitTracer"),
])
def test_leaked_tracer_names_the_state(w, transform, tracer):
    with pytest.raises(UnexpectedTracerError) as info:
        transform(_writes(w))
    assert "ParamState 'w'" in str(info.value) and tracer in str(info.value)
    np.testing.assert_array_equal(w.value, [1., 2., 3.])
    assert not isinstance(w.value, jax.core.Tracer)


@pytest.mark.parametrize("make", [
    lambda w: state.grad(lambda: w.value.sum(), grad_states=[w, 3]),
    lambda w: state.grad(lambda: w.value.sum(), grad_states={"w": w, "x": jnp.ones(3)}),
    lambda w: state.vmap(lambda: w.value, in_states=[w, "w"]),
    lambda w: state.vmap(lambda: w.value, out_states={0: [np.zeros(3)]}),
])
def test_non_state_in_states_argument(w, make):
    with pytest.raises(TypeError, match="must contain only State objects"):
        make(w)


def test_batched_write_to_a_broadcast_state(w):
    with pytest.raises(ValueError, match="ParamState 'w' was written with a value that "
                                         "varies along the vmapped axis"):
        state.vmap(_writes(w))(jnp.ones(2))
    np.testing.assert_array_equal(w.value, [1., 2., 3.])


def _fails(w):
    def g(x):
        w.value = w.value + x
        raise RuntimeError("boom")
    return g


@pytest.mark.parametrize("run", [
    lambda g: state.jit(g)(1.0),
    lambda g: state.make_jaxpr(g)(1.0),
    lambda g: state.grad(g, grad_states=[])(1.0),
    lambda g: state.vmap(g)(jnp.ones(3)),
    lambda g: state.remat(g)(1.0),
    lambda g: state.scan(lambda c, x: (g(x), None), 0., jnp.ones(3)),
    lambda g: state.cond(True, g, g, 1.0),
])
def test_exception_in_traced_function_leaves_states_unchanged(w, run):
    with pytest.raises(RuntimeError, match="boom"):
        run(_fails(w))
    np.testing.assert_array_equal(w.value, [1., 2., 3.])
    assert not isinstance(w.value, jax.core.Tracer)


def test_returning_a_state_is_refused(w):
    with pytest.raises(TypeError, match="State"):
        state.make_jaxpr(lambda: w)()


def test_state_made_inside_a_plain_jit_and_kept_names_itself():
    kept = []

    @jax.jit
    def g(x):
        kept.append(state.State(x * 2, name="tmp"))
        return x

    g(1.0)
    with pytest.raises(UnexpectedTracerError, match="State 'tmp' holds JitTracer"):
        kept[0].value
