"""jax.debug.breakpoint (driven through its stdin/stdout), jax.debug.log and the debug
effect classes, compared with what JAX 0.10.2 prints."""
import io
import logging

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp

COMMANDS = "p y\np x + 1\nl\nw\nu\nbogus_name\nc\n"


def _f(out, commands=COMMANDS):
    def f(x):
        y = jnp.sin(x)
        jax.debug.breakpoint(stdin=io.StringIO(commands), stdout=out)
        return y * 2
    return f


def test_breakpoint_eagerly_shows_values_frames_and_source():
    out = io.StringIO()
    assert _f(out)(1.0) == np.float32(np.sin(1.0) * 2)
    text = out.getvalue()
    lines = text.split("\n")
    assert lines[:2] == ["Entering jdb:",
                         "(jdb) Array(0.84147096, dtype=float32, weak_type=True)"]
    assert lines[2] == "(jdb) 2.0"
    assert lines[3].startswith("(jdb) > ") and lines[3].endswith("test_api_debug.py(18)")
    assert lines[4:8] == ["        def f(x):", "            y = jnp.sin(x)",
                          "->          jax.debug.breakpoint(stdin=io.StringIO(commands), "
                          "stdout=out)", "            return y * 2"]
    assert "(jdb) Traceback:" in text and "*** NameError: name 'bogus_name' is not defined" \
        in text


def test_breakpoint_under_jit_sees_the_runtime_values():
    out = io.StringIO()
    f = jax.jit(_f(out, "p y\np x + 1\nc\n"))
    np.testing.assert_allclose(f(jnp.arange(3.0)), np.sin(np.arange(3.0)) * 2, rtol=1e-6)
    assert out.getvalue() == ("Entering jdb:\n"
                              "(jdb) Array([0.        , 0.84147096, 0.9092974 ], "
                              "dtype=float32)\n"
                              "(jdb) Array([1., 2., 3.], dtype=float32)\n(jdb) ")
    text = str(jax.make_jaxpr(_f(out))(1.0))
    assert "debug_callback[\n      callback=<function debug_callback.<locals>." \
           "_debug_callback.<locals>._flat_callback at 0x" in text
    assert "      effect=Debug\n      partitioned=False\n    ] a b" in text


def test_breakpoint_at_end_of_input_quits_as_jax_does():
    """End of input is ``quit``: the program exits (eagerly SystemExit; under jit the
    exit surfaces as the callback's runtime error)."""
    out = io.StringIO()
    with pytest.raises(SystemExit):
        _f(out, "")(2.0)
    assert out.getvalue() == "Entering jdb:\n(jdb) "
    with pytest.raises(jax.errors.JaxRuntimeError, match="CpuCallback error"):
        jax.jit(_f(io.StringIO(), ""))(2.0)


def test_breakpoint_with_token_and_options():
    out = io.StringIO()

    def g(x):
        y = x * 3
        y = jax.debug.breakpoint(token=y, stdin=io.StringIO("p y\nc\n"), stdout=out)
        return y + 1
    np.testing.assert_allclose(jax.jit(g)(jnp.ones(2)), [4., 4.])
    assert "(jdb) Array([3., 3.], dtype=float32)" in out.getvalue()
    with pytest.raises(ValueError, match="`ordered` and `token` are mutually exclusive"):
        jax.debug.breakpoint(token=1.0, ordered=True)
    text = str(jax.make_jaxpr(lambda x: jax.debug.breakpoint(ordered=True))(1.0))
    assert "effect=OrderedDebug" in text


def test_log_goes_to_the_logger_with_the_callers_line(caplog):
    def f(x):
        jax.debug.log("x = {}", x)
        return x * 2
    with caplog.at_level(logging.INFO, logger="glassjax.callbacks"):
        f(1.0)
        jax.jit(f)(2.0)
    records = [r for r in caplog.records if r.name == "glassjax.callbacks"]
    assert [r.getMessage() for r in records] == ["x = 1.0", "x = 2.0"]
    assert all(r.filename == "test_api_debug.py" and r.levelno == logging.INFO
               for r in records)
    assert records[0].lineno == records[1].lineno == f.__code__.co_firstlineno + 1


def test_effect_classes():
    assert str(jax.debug.DebugEffect()) == "Debug"
    assert str(jax.debug.OrderedDebugEffect()) == "OrderedDebug"
    closed = jax.make_jaxpr(lambda x: jax.debug.print("{}", x, ordered=True))(1.0)
    assert any(isinstance(e, jax.debug.OrderedDebugEffect) for e in closed.effects)
