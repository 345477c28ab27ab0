"""Threads: what is current while tracing (the trace, the name stack) is per thread, as
JAX's ``trace_ctx`` is. The threads here are interleaved on purpose with events: one
thread stops in the middle of tracing while the other runs, then carries on.

The expected texts are what JAX 0.10.2 prints for the same programs.
"""
import threading

import numpy as np

import glassjax as jax
import glassjax.numpy as jnp


def _interleaved(first, second):
    """Run ``first(pause)`` in this thread and ``second()`` in another one, where
    ``pause()`` (called by ``first`` mid-way) lets ``second`` run to its end."""
    paused, resumed = threading.Event(), threading.Event()
    result, errors = {}, []

    def pause():
        paused.set()
        assert resumed.wait(10)

    def run_second():
        try:
            assert paused.wait(10)
            result["second"] = second()
        except BaseException as e:      # re-raised in the main thread
            errors.append(e)
        finally:
            resumed.set()

    thread = threading.Thread(target=run_second)
    thread.start()
    try:
        result["first"] = first(pause)
    finally:
        resumed.set()
        thread.join()
    if errors:
        raise errors[0]
    return result["first"], result["second"]


def test_eager_op_in_another_thread_while_tracing_is_eager():
    def f(x, pause):
        y = jnp.sin(x)
        pause()
        return jnp.cos(y)

    jaxpr, eager = _interleaved(lambda pause: jax.make_jaxpr(lambda x: f(x, pause))(1.0),
                                lambda: jnp.sin(1.0))
    assert str(jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos b in (c,) }"
    assert isinstance(eager, jax.Array)
    np.testing.assert_allclose(np.asarray(eager), np.sin(np.float32(1.0)), rtol=1e-6)


def test_two_threads_tracing_at_once_get_their_own_jaxprs_and_name_stacks():
    def f(x, pause):
        with jax.named_scope("outer"):
            y = jnp.sin(x)
            pause()
            return jnp.cos(y)

    def g(y):
        with jax.named_scope("inner"):
            return jax.grad(lambda z: z * z)(y) * 2

    first, second = _interleaved(
        lambda pause: jax.make_jaxpr(lambda x: f(x, pause))(1.0),
        lambda: jax.make_jaxpr(g)(1.0))
    assert str(first) == "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = cos b in (c,) }"
    assert str(second) == """\
{ lambda ; a:f32[]. let
    _:f32[] = mul a a
    b:f32[] = mul a 1.0:f32[]
    c:f32[] = mul 1.0:f32[] a
    d:f32[] = add_any b c
    e:f32[] = mul d 2.0:f32[]
  in (e,) }"""
    assert [str(e.source_info.name_stack) for e in first.jaxpr.eqns] == ["outer"] * 2
    assert str(second.jaxpr.eqns[-1].source_info.name_stack) == "inner"


def test_transformation_in_another_thread_while_tracing():
    """A vmap in the second thread, while the first is inside a grad of a jit."""
    def f(x, pause):
        y = jnp.sin(x)
        pause()
        return y * x

    first, second = _interleaved(
        lambda pause: jax.make_jaxpr(jax.grad(jax.jit(lambda x: f(x, pause))))(2.0),
        lambda: jax.vmap(lambda v: v + 1)(jnp.arange(3.0)))
    assert str(first) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] c:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = sin a
          b:f32[] = cos a
          _:f32[] = mul c a
        in (_, b, c) }
    ] a
    d:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; b:f32[] a:f32[] c:f32[] e:f32[]. let
          f:f32[] = mul c e
          g:f32[] = mul e a
          h:f32[] = mul g b
          d:f32[] = add_any f h
        in (d,) }
    ] b a c 1.0:f32[]
  in (d,) }"""
    np.testing.assert_array_equal(np.asarray(second), [1.0, 2.0, 3.0])
