"""Nothing a learner does crashes the process: uses of deleted and donated arrays.

jaxlib's C++ does not check every entry point for a freed buffer: moving a deleted array to
another device or exporting it through DLPack used to kill the process with a segmentation
fault. The uses run in a subprocess (with 8 host devices), so a crash fails the test instead
of killing pytest, and each must raise JAX 0.10.2's error, recorded below.
"""
import json
import os
import subprocess
import sys

import pytest

DELETED = "RuntimeError: Array has been deleted with shape=float32[3]."

# use -> the error JAX 0.10.2 raises for it ("type: first line"), for a deleted array.
USES = {
    # The three segfaults of issue 19.
    "device_put(x, devices()[1])": DELETED,
    "device_put(x, devices()[0])": DELETED,
    "np.from_dlpack(x)": DELETED,
    # Every other way in.
    "device_put(x, SingleDeviceSharding(devices()[2]))": DELETED,
    "x.__dlpack__()": DELETED,
    "np.asarray(x)": DELETED,
    "repr(x)": DELETED,
    "str(x)": DELETED,
    "f'{x}'": DELETED,
    "x + 1": DELETED,
    "jnp.sin(x)": DELETED,
    "x[0]": DELETED,
    "x.at[0].set(5.0)": DELETED,
    "jit(lambda a: a * 2)(x)": DELETED,
    "grad(lambda a: (a * a).sum())(x)": DELETED,
    "vmap(jnp.sin)(x)": DELETED,
    "x.copy()": DELETED,
    "x.tolist()": DELETED,
    "list(x)": DELETED,
    "x.addressable_shards": DELETED,
    "x.addressable_data(0)": DELETED,
    "x.devices()": DELETED,
    "x.device": DELETED,
    "x.copy_to_host_async()": DELETED,
    "pickle.dumps(x)": DELETED,
    "jnp.array(x)": DELETED,
    "device_get(x)": DELETED,
    # JAX's own jaxlib error here (a JaxRuntimeError, a subclass of RuntimeError).
    "x.block_until_ready()": "JaxRuntimeError: INVALID_ARGUMENT: BlockHostUntilReady() "
                             "called on deleted or donated buffer",
    # JAX itself crashes here; glassjax gives the error every other use gives.
    "x.is_ready()": DELETED,
    # Only metadata: no buffer is touched, so these work in JAX too.
    "x.shape": "OK",
    "device_put(x)": "OK",
    "make_jaxpr(lambda a: a + 1)(x)": "OK",
}

PROGRAM = r"""
import json, os, pickle, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import numpy as np
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import device_get, device_put, devices, grad, jit, make_jaxpr, vmap
from glassjax.sharding import SingleDeviceSharding

how, uses = sys.argv[1], json.loads(sys.argv[2])
for use in uses:
    x = jnp.arange(3.0)
    if how == "deleted":
        x.delete()
    else:
        jit(lambda a: a + 1, donate_argnums=0)(x)
    try:
        eval(use)
        result = "OK"
    except Exception as err:
        result = f"{type(err).__name__}: {str(err).splitlines()[0]}"
    print(json.dumps([use, result]), flush=True)
"""


@pytest.fixture(scope="module", params=["deleted", "donated"])
def outcomes(request):
    proc = subprocess.run([sys.executable, "-c", PROGRAM, request.param, json.dumps(list(USES))],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    results = dict(json.loads(line) for line in proc.stdout.splitlines())
    return proc, results


@pytest.mark.parametrize("use", list(USES))
def test_deleted_and_donated_arrays_raise_jax_error(outcomes, use):
    proc, results = outcomes
    assert use in results, (f"the process died before or at {use!r} "
                            f"(exit code {proc.returncode}): {proc.stderr[-2000:]}")
    assert results[use] == USES[use]


def test_the_process_survives_every_use(outcomes):
    proc, results = outcomes
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert list(results) == list(USES)


# ----------------------------------------------------------------------------------------
# The %jaxpr magic: non-array arguments are static, hostile input leaves the shell alive
# ----------------------------------------------------------------------------------------

MAGIC_SETUP = """
import sys
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
key = jax.random.key(0)
x = jnp.arange(3.0)
def f(x, y):
    return jnp.sin(x) * y + 1.0
def flip(x, flag):
    return x if flag else -x
def interrupted(x):
    raise KeyboardInterrupt
def exits(x):
    sys.exit(3)
def recurse(x):
    return recurse(x)
deleted = jnp.ones(3)
deleted.delete()
class Weird:
    def __repr__(self):
        raise RuntimeError('bad repr')
    def __hash__(self):
        raise RuntimeError('bad hash')
"""


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext glassjax", store_history=False).raise_error()
    ip.run_cell(MAGIC_SETUP).raise_error()
    return ip


def run_cell(shell, cell):
    """(error or None, printed text without colours, published text/plain outputs)."""
    import re
    from IPython.utils.capture import capture_output
    with capture_output() as captured:
        result = shell.run_cell(cell)
    printed = re.sub(r"\x1b\[[0-9;]*m", "", captured.stdout + captured.stderr)
    return (result.error_before_exec or result.error_in_exec, printed,
            [o.data.get("text/plain", "") for o in captured.outputs])


def shown_text(shell, cell) -> str:
    error, printed, outputs = run_cell(shell, cell)
    assert error is None, printed
    return outputs[0]


@pytest.mark.parametrize("cell, expected", [
    ("jax.random.uniform(key, (3,))",
     lambda jax: jax.make_jaxpr(jax.random.uniform, static_argnums=1)(jax.random.key(0), (3,))),
    ("jax.random.uniform(key, shape=(3,), dtype=jnp.float16)",
     lambda jax: jax.make_jaxpr(lambda k: jax.random.uniform(k, shape=(3,),
                                                              dtype=jax.numpy.float16))(
                                                                  jax.random.key(0))),
    ("jnp.reshape(x, (3, 1))",
     lambda jax: jax.make_jaxpr(lambda a: a.reshape(3, 1))(jax.numpy.arange(3.0))),
    ("f(x, 2.0)",        # Python numbers are traced, as jit traces them
     lambda jax: jax.make_jaxpr(lambda a, b: jax.numpy.sin(a) * b + 1.0)(
         jax.numpy.arange(3.0), 2.0)),
])
def test_magic_non_array_arguments_are_static_by_default(shell, cell, expected):
    import glassjax
    text = shown_text(shell, f"%jaxpr --view text --no-run {cell}")
    assert text == str(expected(glassjax))


def test_magic_axis_env_with_an_axis_name_argument(shell):
    text = shown_text(shell, "%jaxpr --view text --axis-env i=4 lax.psum(x, 'i')")
    assert text == ("{ lambda ; a:f32[3]. let\n"
                    "    b:f32[3] = psum[axes=('i',) axis_index_groups=None] a\n"
                    "  in (b,) }")


def test_magic_concretization_error_suggests_static(shell):
    error, printed, _ = run_cell(shell, "%jaxpr flip(1.0, True)")
    assert type(error).__name__ == "TracerBoolConversionError"
    assert ("%jaxpr traced the arguments at positions 0, 1" in printed and
            "make it static, e.g.: %jaxpr --static 1 ..." in printed)
    # the hint comes before the traceback, not after it
    assert printed.index("Hint: %jaxpr traced") < printed.index("TracerBoolConversionError")
    text = shown_text(shell, "%jaxpr --view text --static 1 flip(1.0, True)")
    assert text.startswith("{ lambda ; a:f32[]. let  in (a,) }")


# cell -> the exception the shell reports (None: the cell succeeds)
HOSTILE = {
    "%jaxpr --": "UsageError",
    "%jaxpr --view": "UsageError",
    "%jaxpr --static": "UsageError",
    "%jaxpr --static 99 f(1.0, 2.0)": "ValueError",
    "%jaxpr --depth 10000000000 f(1.0, 2.0)": None,
    "%jaxpr --axis-env = f(1.0, 2.0)": "UsageError",
    "%jaxpr --axis-env i=0 lax.psum(1.0, 'i')": None,
    "%jaxpr --save /nonexistent/dir/g.svg f(1.0, 2.0)": "UsageError",
    "%jaxpr --v\u00efew text f(1.0, 2.0)": "UsageError",
    "%jaxpr --view text f(1.0, 2.0) extra": "UsageError",
    "%jaxpr \x00": "UsageError",
    "%jaxpr f(x": "UsageError",
    "%jaxpr import os": "UsageError",
    "%jaxpr lambda: 1": "UsageError",
    "%%jaxpr\n\n\n": "UsageError",
    "%jaxpr (lambda: 1 / 0)()": "ZeroDivisionError",
    "%jaxpr interrupted(1.0)": "KeyboardInterrupt",
    "%jaxpr exits(1.0)": "SystemExit",
    "%jaxpr recurse(1.0)": "RecursionError",
    "%jaxpr jnp.ones((2**40, 2**40))": None,      # traced; the run's error is shown
    "%jaxpr jnp.sin(deleted)": None,               # traced; the run's error is shown
    "%jaxpr f(Weird(), 1.0)": "RuntimeError",
    "%jaxpr --static 0 f(Weird(), 1.0)": "RuntimeError",
    "%jaxpr --static 0 f(jnp.ones(3), 1.0)": "ValueError",
    "%jaxpr jax.jit(f, static_argnums=0, donate_argnums=0)(1.0, 2.0)": "ValueError",
    "%jaxpr print('x')": None,
    "%jaxpr f()()": "TypeError",
}


@pytest.mark.parametrize("cell", list(HOSTILE))
def test_magic_survives_hostile_input(shell, cell):
    error, printed, _ = run_cell(shell, cell)
    assert (type(error).__name__ if error else None) == HOSTILE[cell], printed
    if error is not None and not isinstance(error, SystemExit):
        assert "notebook/magics.py" not in printed and "notebook/stages.py" not in printed
    # the shell and the extension still work
    text = shown_text(shell, "%jaxpr --view text --no-run f(1.0, 2.0)")
    assert "sin" in text
