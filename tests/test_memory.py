"""What a jaxpr costs in Python memory, and the sharing that keeps it small (issue 21).

Equations staged from one line of a loop share their source info and params, and equal
constants share one literal; none of it may change what a jaxpr means or prints.
"""
import gc
import tracemalloc

import glassjax
import glassjax.numpy as jnp


def _chain(n_eqns):
    def chain(x, y):
        for _ in range(n_eqns // 4):
            x = jnp.sin(x) * y + 1.0
            y = jnp.cos(y)
        return x, y
    return chain


def _retained_per_eqn(n_eqns):
    """Bytes the finished jaxpr keeps, per equation (tracemalloc, after collection)."""
    x = jnp.ones(3)
    glassjax.make_jaxpr(_chain(40))(x, x)              # fill the per-primitive caches
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        closed = glassjax.make_jaxpr(_chain(n_eqns))(x, x)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    return kept / len(closed.jaxpr.eqns)


def test_a_jaxpr_keeps_few_bytes_per_equation():
    # An equation is its object, two lists and an output variable (about 270 bytes);
    # per-equation tracebacks, params dicts and literal arrays would add over 500. JAX
    # 0.10.2 keeps about 600 bytes per equation of this program.
    assert _retained_per_eqn(4000) < 350


def test_equal_constants_share_a_literal_but_keep_their_sign_and_type():
    # Text printed by JAX 0.10.2: 0.0 and -0.0 (equal as floats) stay apart, as do 1
    # and True (equal as ints; both are the int32 literal 1 here).
    def f(x, i):
        y = (x + 0.0) * (x + -0.0) + (x + 0.0)
        return y * 2, i + 1, i + True, jnp.float32(1.5) * y
    closed = glassjax.make_jaxpr(f)(jnp.ones(3), 1)
    assert str(closed) == """{ lambda ; a:f32[3] b:i32[]. let
    c:f32[3] = add a 0.0:f32[]
    d:f32[3] = add a -0.0:f32[]
    e:f32[3] = mul c d
    f:f32[3] = add a 0.0:f32[]
    g:f32[3] = add e f
    h:f32[3] = mul g 2.0:f32[]
    i:i32[] = add b 1:i32[]
    j:i32[] = add b 1:i32[]
    k:f32[3] = mul 1.5:f32[] g
  in (h, i, j, k) }"""
    eqns = closed.jaxpr.eqns
    assert eqns[0].invars[1] is eqns[3].invars[1]          # the two ``+ 0.0``
    assert eqns[0].invars[1] is not eqns[1].invars[1]      # not ``+ -0.0``


def test_shared_source_info_and_params_print_each_equation_alike():
    closed = glassjax.make_jaxpr(_chain(12))(jnp.ones(3), jnp.ones(3))
    sins = [e for e in closed.jaxpr.eqns if e.primitive.name == "sin"]
    assert sins[0].source_info is sins[1].source_info     # one line of the loop
    assert sins[0].params is sins[1].params
    lines = closed.pretty_print(source_info=True).splitlines()
    sin_lines = [line.split("#")[1] for line in lines if " sin " in line]
    assert len(set(sin_lines)) == 1 and "test_memory.py" in sin_lines[0]


def test_params_with_nested_tuples_are_shared_unless_types_differ():
    """Dimension numbers (tuples of tuples) are shared like flat params; equal ones of
    other types (``True`` where ``1`` was) are not, as they print apart."""
    from glassjax import core
    w = jnp.ones((3, 3))
    closed = glassjax.make_jaxpr(lambda x: (x @ w) @ w)(jnp.ones((2, 3)))
    dots = [e for e in closed.jaxpr.eqns if e.primitive.name == "dot_general"]
    assert len(dots) == 2 and dots[0].params is dots[1].params
    ints = core.shared_params({"dims": (((1,), (0,)), ((), ()))})
    bools = core.shared_params({"dims": (((True,), (0,)), ((), ()))})
    assert ints == bools and ints is not bools
    assert core.shared_params({"dims": (((True,), (0,)), ((), ()))}) is bools
