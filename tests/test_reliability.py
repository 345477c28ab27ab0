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
