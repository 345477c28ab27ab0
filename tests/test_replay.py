"""Replaying what a jnp function staged (``interpreters/replay.py``).

A ufunc or matmul called again under a staging trace with arguments of the same types
appends the equations its first call staged, without running its Python. The jaxprs
must be exactly JAX 0.10.2's (texts below printed by JAX), however the calls mix
aliased operands, literals, constants, rank promotion and weak types; and a function
is run again whenever replaying could differ from running it.
"""
import warnings

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.interpreters import replay


def aliasing(x, y):
    return x * y, x * x, y * x, y * y, jnp.sin(x), jnp.sin(y)


def literals(x):
    return x + 1.0, x + -0.0, x + 0.0, x * 2, x * True, 2 * x, jnp.maximum(x, float("nan"))


def ranks(x, b):
    return x + b, b + x, jnp.tanh(x @ jnp.ones((3, 3)) + b), x + b


def products(m, v, t):
    return m @ v, v @ m, t @ m, m @ m, v @ v


C = np.arange(3.0, dtype=np.float32)


def constants(x):
    return jnp.sin(C) + x, jnp.sin(C) + x, jnp.cos(x) * C


D, E = jnp.arange(3.0), jnp.arange(3.0) * 2


def device_constants(x):
    return jnp.sin(D) + x, jnp.sin(E) + x, jnp.cos(x) * D, D @ x, jnp.maximum(E, x), x * D


def scans(wh, h0, xs):
    def cell(h, x):
        h = jnp.tanh(h @ wh + x)        # (wh: a value of the enclosing trace)
        return h, h.sum()
    h, s1 = jax.lax.scan(cell, h0, xs)
    h, s2 = jax.lax.scan(cell, h, xs)
    return h, s1 + s2


def chain(x):
    for _ in range(3):
        x = jnp.tanh(jnp.sin(x) * x + 1.0)
    return x


def weak(x):
    i = jnp.int32(3)
    return x + 1, x + 1.5, jnp.add(x, 1), jnp.add(x, 1.5), x + i


x23, y23, b3 = jnp.ones((2, 3)), jnp.full((2, 3), 2.0), jnp.arange(3.0)
PROGRAMS = {
    "aliasing": (aliasing, (x23, y23)),
    "literals": (literals, (x23,)),
    "ranks": (ranks, (x23, b3)),
    "products": (products, (jnp.ones((3, 3)), jnp.ones(3), jnp.ones((2, 3, 3)))),
    "constants": (constants, (jnp.ones(3),)),
    "device_constants": (device_constants, (jnp.ones(3),)),
    "scans": (scans, (jnp.ones((4, 4)), jnp.ones((2, 4)), jnp.ones((3, 2, 4)))),
    "chain": (chain, (1.0,)),
    "jit_chain": (jax.jit(chain), (1.0,)),
    "weak_int": (weak, (jnp.ones(3, jnp.int32),)),
    "weak_f16": (weak, (jnp.ones(3, jnp.float16),)),
}

EXPECTED = {
    "aliasing": """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[2,3] = mul a c
    e:f32[2,3] = mul a a
    f:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] b
    g:f32[2,3] = mul f a
    h:f32[2,3] = mul b b
    i:f32[2,3] = sin a
    j:f32[2,3] = sin b
  in (d, e, g, h, i, j) }""",
    "literals": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = add a 1.0:f32[]
    c:f32[2,3] = add a -0.0:f32[]
    d:f32[2,3] = add a 0.0:f32[]
    e:f32[2,3] = mul a 2.0:f32[]
    f:f32[2,3] = mul a 1.0:f32[]
    g:f32[2,3] = mul 2.0:f32[] a
    h:f32[2,3] = max a nan:f32[]
  in (b, c, d, e, f, g, h) }""",
    "ranks": """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[2,3] = add a c
    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    f:f32[2,3] = add e a
    g:f32[3,3] = broadcast_in_dim 1.0:f32[]
    h:f32[2,3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a g
    i:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    j:f32[2,3] = add h i
    k:f32[2,3] = tanh j
    l:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    m:f32[2,3] = add a l
  in (d, f, k, m) }""",
    "products": """\
{ lambda ; a:f32[3,3] b:f32[3] c:f32[2,3,3]. let
    d:f32[3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    e:f32[3] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] b a
    f:f32[2,3,3] = dot_general[
      dimension_numbers=(([2], [0]), ([], []))
      preferred_element_type=float32
    ] c a
    g:f32[3,3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a a
    h:f32[] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] b b
  in (d, e, f, g, h) }""",
    "constants": """\
{ lambda a:f32[3]; b:f32[3]. let
    c:f32[3] = sin a
    d:f32[3] = add c b
    e:f32[3] = sin a
    f:f32[3] = add e b
    g:f32[3] = cos b
    h:f32[3] = mul g a
  in (d, f, h) }""",
    "device_constants": """\
{ lambda a:f32[3] b:f32[3]; c:f32[3]. let
    d:f32[3] = sin a
    e:f32[3] = add d c
    f:f32[3] = sin b
    g:f32[3] = add f c
    h:f32[3] = cos c
    i:f32[3] = mul h a
    j:f32[] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] a c
    k:f32[3] = max b c
    l:f32[3] = mul c a
  in (e, g, i, j, k, l) }""",
    "scans": """\
let jaxpr = { lambda ; a:f32[4,4] b:f32[2,4] c:f32[2,4]. let
    d:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] b a
    e:f32[2,4] = add d c
    f:f32[2,4] = tanh e
    g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
  in (f, g) } in
{ lambda ; h:f32[4,4] i:f32[2,4] j:f32[3,2,4]. let
    k:f32[2,4] l:f32[3] = scan[
      jaxpr=jaxpr
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] h i j
    m:f32[2,4] n:f32[3] = scan[
      jaxpr=jaxpr
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] h k j
    o:f32[3] = add l n
  in (m, o) }""",
    "chain": """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = mul b a
    d:f32[] = add c 1.0:f32[]
    e:f32[] = tanh d
    f:f32[] = sin e
    g:f32[] = mul f e
    h:f32[] = add g 1.0:f32[]
    i:f32[] = tanh h
    j:f32[] = sin i
    k:f32[] = mul j i
    l:f32[] = add k 1.0:f32[]
    m:f32[] = tanh l
  in (m,) }""",
    "weak_int": """\
{ lambda ; a:i32[3]. let
    b:i32[3] = add a 1:i32[]
    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] a
    d:f32[3] = add c 1.5:f32[]
    e:i32[3] = add a 1:i32[]
    f:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] a
    g:f32[3] = add f 1.5:f32[]
    h:i32[3] = add a 3:i32[]
  in (b, d, e, g, h) }""",
    "weak_f16": """\
{ lambda ; a:f16[3]. let
    b:f16[3] = add a 1.0:f16[]
    c:f16[3] = add a 1.5:f16[]
    d:f16[3] = add a 1.0:f16[]
    e:f16[3] = add a 1.5:f16[]
    f:f16[3] = add a 3.0:f16[]
  in (b, c, d, e, f) }""",}

# (the jitted chain's body is the chain's jaxpr)
EXPECTED["jit_chain"] = ("let chain = " + EXPECTED["chain"] + " in\n{ lambda ; n:f32[]. "
                         "let o:f32[] = jit[name=chain jaxpr=chain] n in (o,) }")


@pytest.mark.parametrize("name", PROGRAMS)
def test_jaxpr_is_jaxs_on_the_first_trace_and_on_replays(name):
    fun, args = PROGRAMS[name]
    first = str(jax.make_jaxpr(fun)(*args))     # (recipes may exist from other tests)
    again = str(jax.make_jaxpr(fun)(*args))     # every call now has a recipe
    assert first == EXPECTED[name]
    assert again == EXPECTED[name]


@pytest.mark.parametrize("name", ["aliasing", "literals", "ranks", "products", "weak_f16"])
def test_values_of_replayed_jits_agree_with_eager(name):
    fun, args = PROGRAMS[name]
    eager = fun(*args)
    for _ in range(2):                           # (the second jit replays every call)
        got = jax.jit(lambda *a: fun(*a))(*args)
        for g, e in zip(got, eager):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def _counted():
    """A replayed function that counts how often its Python runs."""
    runs = []

    @replay.replayed
    def scaled_sin(x, y):
        runs.append(1)
        return jax.lax.mul(jnp.sin(x), y)
    return scaled_sin, runs


def test_a_call_with_known_types_is_replayed_not_run():
    f, runs = _counted()
    closed = jax.make_jaxpr(lambda a, b: [f(a, b), f(b, a), f(a, b)])(x23, x23)
    assert len(runs) == 1
    assert str(closed) == """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2,3] = sin a
    d:f32[2,3] = mul c b
    e:f32[2,3] = sin b
    f:f32[2,3] = mul e a
    g:f32[2,3] = sin a
    h:f32[2,3] = mul g b
  in (d, f, h) }"""


def test_new_types_aliased_operands_and_constants_run_the_function():
    f, runs = _counted()
    jax.make_jaxpr(lambda a, b: [f(a, a), f(a, b), f(a, a)])(x23, x23)
    assert len(runs) == 2        # x * x is not recorded; x * y is, and serves x * x
    jax.make_jaxpr(lambda a: f(a, a))(b3)
    assert len(runs) == 3        # another shape
    jax.make_jaxpr(lambda a: [f(a, D), f(D, a), f(a, E)])(b3)
    assert len(runs) == 5        # device arrays: constants, by their types
    jax.make_jaxpr(lambda a: [f(a, C), f(a, C)])(b3)
    assert len(runs) == 7        # NumPy arrays: canonicalized on the host first
    jax.make_jaxpr(lambda a: [f(a, a + D), f(a + D, a)])(b3)
    assert len(runs) == 8        # two variables: recorded once, then replayed
    jax.make_jaxpr(lambda a: [f(a, np.float32(2)), f(a, np.float32(2))])(jnp.float32(1))
    assert len(runs) == 10       # a constant scalar: folding might use its value


def test_warnings_are_given_by_every_call():
    f, runs = _counted()
    with jax.numpy_rank_promotion("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            jax.make_jaxpr(lambda a, b: [a + b, a + b])(x23, b3)
    assert [type(w.message) for w in caught] == [UserWarning, UserWarning]
    assert all("rank promotion" in str(w.message) for w in caught)


def test_errors_are_raised_by_every_call():
    def overflow(a):
        return jnp.add(a, 2 ** 40)
    for _ in range(2):
        with pytest.raises(OverflowError):
            jax.make_jaxpr(overflow)(jnp.ones(3, jnp.int32))
    for _ in range(2):
        with pytest.raises(TypeError, match="contracting dimensions"):
            jax.make_jaxpr(lambda a: a @ a)(jnp.ones((2, 3)))


def test_values_placed_elsewhere_are_typed_by_their_rules_not_replayed():
    """Once a value lives in host memory, calls on it run (their types depend on the
    placement) while calls on device values are still replayed."""
    f, runs = _counted()
    host = jax.device_put(jnp.ones(3), jax.memory.Space.Host)
    closed = jax.make_jaxpr(lambda h, d: [f(d, d + 1.0), f(d, d + 1.0), f(h, h * 2.0),
                                          f(h, h * 2.0)])(host, jnp.ones(3))
    assert len(runs) == 3
    assert "f32<host>[3] = sin" in str(closed)


def test_constants_enter_the_jaxpr_in_the_order_the_function_uses_them():
    def second_first(a, b):
        return jnp.sin(b) + a
    replayed = replay.replayed(second_first)
    d2, e2 = jnp.arange(3.0) + 5, jnp.arange(3.0) + 7
    jax.make_jaxpr(lambda x: replayed(D, E) + x)(b3)              # records
    got = str(jax.make_jaxpr(lambda x: replayed(d2, e2) + x)(b3))  # replays
    assert got == str(jax.make_jaxpr(lambda x: second_first(d2, e2) + x)(b3))
    assert got.splitlines()[1] == "    d:f32[3] = sin a"
