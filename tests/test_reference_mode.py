"""Reference mode (``glassjax/caches.py``): every shortcut that skips Python a reader reads
is off, and nothing else changes.

Each shortcut is shown to exist (a counter in the Python it skips fires once in the
default mode) and to be switched off (the counter fires on every call in reference mode).
Then a sample of the differential corpus runs in reference mode and must agree with the
JAX results recorded for it, exactly as ``test_differential`` checks the whole corpus.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from IPython.core.error import UsageError

import glassjax
import glassjax.numpy as jnp
from glassjax import caches, core, lax
from glassjax.config import config, reference_mode
from glassjax.interpreters import ad, batching, replay
from glassjax.lax import utils
from glassjax.xla import dispatch
from test_differential import CORPUS, KNOWN, _differs
from tools.differential import run

jit_module = sys.modules["glassjax.jit"]


@pytest.fixture(params=[False, True], ids=["default", "reference"])
def reference(request):
    """Run the test in both modes; its value says which."""
    with reference_mode(request.param):
        assert caches.reference.on is request.param
        yield request.param


def _counted(monkeypatch, module, name):
    """Count the calls of ``module.name`` (a function other code looks up by name)."""
    calls = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)
    monkeypatch.setattr(module, name, counting)
    return calls


def _twice(f, *args):
    return [f(*args) for _ in range(2)]


def _staged_afresh(f):
    """The jaxpr of ``f`` on f32[3], traced by a new function (none of its traces is
    cached yet)."""
    return str(glassjax.make_jaxpr(lambda x: f(x))(np.ones(3, np.float32)))


def test_a_replayed_jnp_function_runs_on_every_trace_in_reference_mode(reference):
    calls = []

    @replay.replayed
    def double_sin(x):
        calls.append(1)
        return lax.sin(x) * 2.0

    texts = _twice(_staged_afresh, double_sin)
    assert texts[0] == texts[1]
    assert len(calls) == (2 if reference else 1)


def test_an_abstract_eval_rule_runs_on_every_staging_in_reference_mode(reference):
    calls = []

    def shape_rule(x):
        calls.append(1)
        return x.shape
    prim = utils.standard_primitive(shape_rule, lambda x: x.dtype, "counted_shape")
    texts = _twice(_staged_afresh, prim.bind)
    assert texts[0] == texts[1] == (
        "{ lambda ; a:f32[3]. let b:f32[3] = counted_shape a in (b,) }")
    assert len(calls) == (2 if reference else 1)


def test_an_eager_primitive_enters_python_on_every_call_in_reference_mode(
        reference, monkeypatch):
    x = jnp.arange(3.0)
    lax.sin(x)                      # (compiled, and remembered by C++ in the default mode)
    calls = _counted(monkeypatch, dispatch, "_run_primitive")
    outs = _twice(lax.sin, x)
    np.testing.assert_allclose(outs[0], np.sin(np.arange(3.0)), rtol=1e-6)
    assert len(calls) == (2 if reference else 0)


def test_a_jit_call_enters_python_on_every_call_in_reference_mode(reference, monkeypatch):
    f = glassjax.jit(lambda x: x * 2.0 + 1.0)
    x = jnp.arange(3.0)
    f(x)
    calls = _counted(monkeypatch, jit_module, "_executable")
    outs = _twice(f, x)
    np.testing.assert_array_equal(outs[1], [1.0, 3.0, 5.0])
    assert len(calls) == (2 if reference else 0)


def test_an_eager_jnp_function_runs_its_python_on_every_call_in_reference_mode(
        reference, monkeypatch):
    from glassjax.numpy import ufuncs
    x = jnp.arange(1.0, 4.0)
    jnp.log2(x)
    calls = _counted(monkeypatch, ufuncs, "promote_args_inexact")
    outs = _twice(jnp.log2, x)
    np.testing.assert_allclose(outs[1], np.log2([1.0, 2.0, 3.0]), rtol=1e-6)
    assert len(calls) == (2 if reference else 0)


def test_jvp_batching_and_transpose_rules_run_on_every_call_in_both_modes(reference):
    """No shortcut skips these rules: each grad or vmap call runs them again."""
    fired = {"jvp": 0, "transpose": 0, "batch": 0}
    counters = [(ad.primitive_jvps, "jvp"), (ad.primitive_transposes, "transpose"),
                (batching.primitive_batchers, "batch")]
    saved = [(table, table[lax.mul_p]) for table, _ in counters]

    def counting(table, kind):
        rule = table[lax.mul_p]

        def rule_counted(*args, **params):
            fired[kind] += 1
            return rule(*args, **params)
        table[lax.mul_p] = rule_counted
    try:
        for table, kind in counters:
            counting(table, kind)
        f = lambda x: lax.mul(x, 3.0).sum()       # noqa: E731
        grads = _twice(glassjax.grad(f), jnp.arange(2.0))
        batched = _twice(glassjax.vmap(lambda x: lax.mul(x, 3.0)), jnp.arange(2.0))
    finally:
        for table, rule in saved:
            table[lax.mul_p] = rule
    np.testing.assert_array_equal(grads[1], [3.0, 3.0])
    np.testing.assert_array_equal(batched[1], [0.0, 3.0])
    assert fired == {"jvp": 2, "transpose": 2, "batch": 2}


def test_reference_mode_raises_the_sticky_flags():
    with reference_mode(True):
        assert core.placed_types.seen and core.AbstractRef.made
    assert set(caches.flags) == {"core.placed_types.seen", "core.AbstractRef.made",
                                 "ref.Ref.made"}


def test_the_environment_variable_switches_it_on_at_import():
    code = "import glassjax; from glassjax import caches; print(caches.reference.on)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "GLASSJAX_REFERENCE_MODE": "1"},
                         check=True).stdout
    assert out.strip() == "True"


def test_the_notebook_magic_switches_it():
    from test_notebook_magics import loaded_shell
    shell = loaded_shell("")
    try:
        shell.run_line_magic("glassjax", "reference on")
        assert caches.reference.on and config.glassjax_reference_mode
        shell.run_line_magic("glassjax", "reference off")
        assert not caches.reference.on
        with pytest.raises(UsageError, match="reference on|off"):
            shell.run_line_magic("glassjax", "reference maybe")
    finally:
        config.update("glassjax_reference_mode", False)


# Every 28th case of the differential corpus from the third (93 of 2,588, about 2 minutes):
# none of them is in the every-4th sample ``test_differential`` runs by default.
FIRST, SAMPLE = 2, 28


def test_a_sample_of_the_differential_corpus_agrees_with_jax_in_reference_mode(monkeypatch):
    recorded = json.loads(CORPUS.read_text())
    cases = recorded["cases"][FIRST::SAMPLE]
    expected = recorded["results"][FIRST::SAMPLE]
    known = json.loads(KNOWN.read_text()) if KNOWN.exists() else {}
    monkeypatch.setenv("GLASSJAX_REFERENCE_MODE", "1")
    got = run.execute(sys.executable, "glassjax", cases)
    assert not [r for r in got if (r.get("error") or "").startswith("crash")]
    new = [f"{c['id']}: {d}" for c, e, g in zip(cases, expected, got)
           if (d := _differs(c, e, g)) and c["id"] not in known]
    assert not new, "differences from JAX in reference mode:\n" + "\n".join(new[:30])
