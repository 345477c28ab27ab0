"""Multi-process runs (``glassjax.distributed``) and global arrays built from pieces.

The multi-process tests start real processes on 127.0.0.1, each with 2 CPU devices,
which find each other through jaxlib's coordination service. This file is also the
program those processes run (``python test_distributed.py SCENARIO PID PORT``): each
process reports what it saw as one JSON line, and the test asserts on the reports. A run
is bounded in time, and when one process fails the others are killed, never waited for.
"""
from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
RUN_TIMEOUT = 50          # seconds for a whole multi-process run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_processes(scenario: str, num_processes: int = 2, timeout: float = RUN_TIMEOUT,
                  pids=None, devices: int = 2):
    """Start the processes of ``scenario`` (all of them, or the ids in ``pids``), each
    with ``devices`` CPU devices, wait for them, and return ``(reports, return codes,
    stderrs, seconds)``. As soon as one fails, the others are killed; at ``timeout``
    all are."""
    port = free_port()
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               TF_CPP_MIN_LOG_LEVEL="2")
    pids = range(num_processes) if pids is None else pids
    # Output goes to files, not pipes: a process blocked on a full pipe would hang.
    with tempfile.TemporaryDirectory() as tmp:
        logs = {pid: (open(f"{tmp}/{pid}.out", "w+"), open(f"{tmp}/{pid}.err", "w+"))
                for pid in pids}
        start = time.monotonic()
        procs = {pid: subprocess.Popen(
            [sys.executable, __file__, scenario, str(pid), str(port), str(num_processes)],
            cwd=REPO, env=env, stdout=logs[pid][0], stderr=logs[pid][1]) for pid in pids}
        try:
            while any(p.poll() is None for p in procs.values()):
                failed = any(p.poll() not in (None, 0) for p in procs.values())
                if failed or time.monotonic() - start > timeout:
                    break
                time.sleep(0.05)
        finally:
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
            for p in procs.values():
                p.wait()
        seconds = time.monotonic() - start
        outputs = {pid: [_read_and_close(f) for f in files] for pid, files in logs.items()}
    reports = {pid: json.loads(out.splitlines()[-1]) if out.strip() else None
               for pid, (out, _) in outputs.items()}
    return (reports, {pid: p.returncode for pid, p in procs.items()},
            {pid: err for pid, (_, err) in outputs.items()}, seconds)


def _read_and_close(f) -> str:
    f.seek(0)
    text = f.read()
    f.close()
    return text


# ----------------------------------------------------------------------------------------
# What the processes run
# ----------------------------------------------------------------------------------------

def _attempt(compute):
    try:
        return {"value": compute()}
    except Exception as err:       # reported, so that one missing feature hides no other
        return {"error": f"{type(err).__name__}: {err}"}


def _pieces(x):
    """A global array as this process sees it: its shape, and (device, value) pieces."""
    return [list(x.shape), [[s.device.id, np.asarray(s.data).tolist()]
                            for s in x.addressable_shards]]


def _global_mesh(jax):
    from glassjax.sharding import Mesh
    return Mesh(np.array(jax.devices()), ("i",))


def _scenario_global(pid, port, n):
    """2 processes with 2 devices each: devices, a global array, computations on it."""
    import glassjax as jax
    import glassjax.numpy as jnp
    from glassjax.experimental import multihost_utils
    from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    jax.distributed.initialize(f"127.0.0.1:{port}", n, pid, initialization_timeout=30,
                               heartbeat_timeout_seconds=10, shutdown_timeout_seconds=10)
    report = {"initialized": jax.distributed.is_initialized(),
              "process_index": jax.process_index(), "process_count": jax.process_count(),
              "devices": [[d.id, d.process_index] for d in jax.devices()],
              "local_devices": [d.id for d in jax.local_devices()]}
    mesh = _global_mesh(jax)
    # Each process holds its half of arange(8).
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("i")),
                                               np.arange(4) + 4 * pid)
    report["array"] = {
        "shape": list(x.shape), "dtype": str(x.dtype),
        "fully_addressable": x.is_fully_addressable,
        "shards": [[s.device.id, s.index[0].start, s.index[0].stop,
                    np.asarray(s.data).tolist()] for s in x.addressable_shards]}
    # 2-D: rows split over the processes, columns over each process's two devices.
    grid = Mesh(np.array(jax.devices()).reshape(2, 2), ("p", "d"))
    rows = np.arange(16).reshape(4, 4)[2 * pid: 2 * pid + 2]
    report["array_2d"] = _attempt(lambda: _pieces(jax.make_array_from_process_local_data(
        NamedSharding(grid, P("p", "d")), rows)))
    # Replicated over the processes: every process passes the whole (same) array.
    report["array_replicated"] = _attempt(lambda: _pieces(
        jax.make_array_from_process_local_data(NamedSharding(grid, P(None, "d")),
                                               np.arange(8).reshape(2, 4))))
    report["repr"] = repr(x)
    report["read_global"] = _attempt(lambda: np.asarray(x).tolist())
    report["global_shards"] = [[s.device.id, s.data is None] for s in x.global_shards]
    report["sum"] = _attempt(lambda: jax.jit(jnp.sum)(x).item())
    report["doubled"] = _attempt(lambda: [np.asarray(s.data).tolist() for s in
                                          jax.jit(lambda v: v * 2)(x).addressable_shards])
    # One data-parallel step of least squares: one example per device, the gradient
    # averaged over all 4 devices (2 per process).
    xs, ys = np.arange(2.0) + 2 * pid, 3 * (np.arange(2.0) + 2 * pid)

    def step(w, x, y):
        g = jax.grad(lambda w: (w * x - y) ** 2)(w)
        return w - 0.1 * jax.lax.pmean(g, "i")

    report["pmap_step"] = _attempt(lambda: np.asarray(
        jax.pmap(step, axis_name="i", in_axes=(None, 0, 0))(1.0, xs, ys)).tolist())
    report["shard_map_step"] = _attempt(lambda: _shard_map_step(
        jax, mesh, multihost_utils, step, xs, ys))
    # Moving host values between the processes.
    mine = np.array([pid, 10 + pid])
    report["allgather"] = _attempt(lambda: multihost_utils.process_allgather(mine).tolist())
    report["allgather_tiled"] = _attempt(
        lambda: multihost_utils.process_allgather(mine, tiled=True).tolist())
    report["allgather_global"] = _attempt(
        lambda: multihost_utils.process_allgather(x, tiled=True).tolist())
    report["broadcast"] = _attempt(
        lambda: multihost_utils.broadcast_one_to_all({"a": np.float32(pid + 5)})["a"].item())
    report["sync"] = _attempt(lambda: multihost_utils.sync_global_devices("step 1"))
    report["assert_equal_differs"] = _attempt(
        lambda: multihost_utils.assert_equal(np.int32(pid), "pids differ"))
    jax.distributed.shutdown()
    report["after_shutdown"] = jax.distributed.is_initialized()
    return report


def _shard_map_step(jax, mesh, multihost_utils, step, xs, ys):
    """The step as JAX's pmap runs it on several processes: local inputs made global,
    jit of a shard_map over the global mesh, the results made local again."""
    from glassjax.sharding import PartitionSpec as P

    def body(x, y):
        return step(1.0, x[0], y[0])[None]
    spmd = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P("i"), P("i")),
                                 out_specs=P("i"), check_vma=False))
    gx, gy = multihost_utils.host_local_array_to_global_array((xs, ys), mesh, P("i"))
    out = multihost_utils.global_array_to_host_local_array(spmd(gx, gy), mesh, P("i"))
    return {"value": np.asarray(out).tolist(), "shape": list(out.shape),
            "local_devices": sorted(d.id for d in out.devices())}


def _scenario_seed(pid, port, n):
    """The pmap example of the seed documents: 2 processes with 4 devices each."""
    import glassjax as jax
    import glassjax.numpy as jnp
    from glassjax.experimental import multihost_utils
    from glassjax.sharding import PartitionSpec as P
    jax.distributed.initialize(f"127.0.0.1:{port}", n, pid, initialization_timeout=30)
    f = lambda x: x + jax.lax.psum(x, axis_name="i")
    data = jnp.arange(4) if jax.process_index() == 0 else jnp.arange(4, 8)
    report = {"pmap": _attempt(lambda: str(jax.pmap(f, axis_name="i")(data)))}
    mesh = _global_mesh(jax)
    spmd = jax.jit(jax.shard_map(lambda x: f(x[0])[None], mesh=mesh, in_specs=P("i"),
                                 out_specs=P("i"), check_vma=False))
    report["shard_map"] = _attempt(lambda: str(multihost_utils.global_array_to_host_local_array(
        spmd(multihost_utils.host_local_array_to_global_array(data, mesh, P("i"))),
        mesh, P("i"))))
    jax.distributed.shutdown()
    return report


def _scenario_alone(pid, port, n):
    """Process 0 of 2, whose partner never comes: connecting gives up in time."""
    import glassjax as jax
    jax.distributed.initialize(f"127.0.0.1:{port}", n, pid, initialization_timeout=1)
    return {"connected": True}


def _scenario_crash(pid, port, n):
    """Process 1 fails right after joining; process 0 goes on waiting for it."""
    import glassjax as jax
    jax.distributed.initialize(f"127.0.0.1:{port}", n, pid, initialization_timeout=30)
    if pid == 1:
        raise RuntimeError("process 1 fails")
    jax.distributed.global_state.client.wait_at_barrier("never", 600_000)
    return {}


# ----------------------------------------------------------------------------------------
# Multi-process tests
# ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def two_processes():
    reports, codes, errors, seconds = run_processes("global")
    assert codes == {0: 0, 1: 0}, errors
    print(f"2-process run: {seconds:.1f} s")
    return reports


def test_each_process_sees_every_device_and_owns_two(two_processes):
    for pid, report in two_processes.items():
        assert report["initialized"] is True
        assert report["after_shutdown"] is False
        assert report["process_index"] == pid
        assert report["process_count"] == 2
        # Remote devices are numbered from 2048 on, per process.
        assert report["devices"] == [[0, 0], [1, 0], [2048, 1], [2049, 1]]
        assert report["local_devices"] == [[0, 1], [2048, 2049]][pid]


def test_make_array_from_process_local_data_across_processes(two_processes):
    for pid, report in two_processes.items():
        array = report["array"]
        assert array["shape"] == [8] and array["dtype"] == "int32"
        assert array["fully_addressable"] is False
        # Each process holds its local data, split over its two devices, at its offset.
        device_ids = [[0, 1], [2048, 2049]][pid]
        expected = np.arange(8).reshape(4, 2)[2 * pid: 2 * pid + 2]
        assert array["shards"] == [[d, 4 * pid + 2 * i, 4 * pid + 2 * i + 2, list(block)]
                                   for i, (d, block) in enumerate(zip(device_ids,
                                                                      expected.tolist()))]


def test_process_local_data_in_two_dimensions(two_processes):
    for pid, report in two_processes.items():
        devices = [[0, 1], [2048, 2049]][pid]
        block = np.arange(16).reshape(4, 4)[2 * pid: 2 * pid + 2]
        assert report["array_2d"] == {"value": [[4, 4], [
            [devices[0], block[:, :2].tolist()], [devices[1], block[:, 2:].tolist()]]]}
        whole = np.arange(8).reshape(2, 4)
        assert report["array_replicated"] == {"value": [[2, 4], [
            [devices[0], whole[:, :2].tolist()], [devices[1], whole[:, 2:].tolist()]]]}


def test_jit_computes_across_processes(two_processes):
    for pid, report in two_processes.items():
        assert report["sum"] == {"value": 28}, report["sum"]
        # Each process gets its own part of the result.
        assert report["doubled"] == {"value": [[8 * pid, 8 * pid + 2],
                                               [8 * pid + 4, 8 * pid + 6]]}


def _expected_step():
    """The least-squares step on one process: gradient averaged over the 4 examples."""
    x = np.arange(4.0, dtype=np.float32)
    w = np.float32(1.0)
    g = 2 * (w * x - 3 * x) * x
    return float(w - np.float32(0.1) * g.mean())


def test_pmean_gradient_step_with_shard_map_across_processes(two_processes):
    for pid, report in two_processes.items():
        step = report["shard_map_step"]
        assert "error" not in step, step
        assert step["value"]["shape"] == [2]
        assert step["value"]["local_devices"] == [[0, 1], [2048, 2049]][pid]
        assert step["value"]["value"] == pytest.approx([_expected_step()] * 2, rel=1e-6)


def test_multihost_utils_move_host_values_between_processes(two_processes):
    for pid, report in two_processes.items():
        assert report["allgather"] == {"value": [[0, 10], [1, 11]]}
        assert report["allgather_tiled"] == {"value": [0, 10, 1, 11]}
        assert report["allgather_global"] == {"value": list(range(8))}
        assert report["broadcast"] == {"value": 5.0}        # process 0's value
        assert report["sync"] == {"value": None}
        assert report["assert_equal_differs"] == {
            "error": "AssertionError: pids differ. Expected: [0 1]; got: " + str(pid) + "."}


def test_pmean_gradient_step_with_pmap_across_processes(two_processes):
    for report in two_processes.values():
        assert report["pmap_step"]["value"] == pytest.approx([_expected_step()] * 2,
                                                             rel=1e-6)


@pytest.fixture(scope="module")
def seed_run():
    reports, codes, errors, seconds = run_processes("seed", devices=4)
    assert codes == {0: 0, 1: 0}, errors
    return reports


def test_global_arrays_print_and_refuse_to_be_read_as_jax(two_processes):
    for pid, report in two_processes.items():
        assert report["repr"] == "Array(shape=(8,), dtype=int32)"
        assert report["read_global"]["error"].startswith(
            "RuntimeError: Fetching value for `jax.Array` that spans non-addressable")
        assert report["global_shards"] == [[d, (d >= 2048) != (pid == 1)]
                                           for d in (0, 1, 2048, 2049)]


def test_seed_psum_across_processes_with_shard_map(seed_run):
    assert seed_run[0]["shard_map"] == {"value": "[28 29 30 31]"}
    assert seed_run[1]["shard_map"] == {"value": "[32 33 34 35]"}


def test_seed_pmap_psum_across_processes(seed_run):
    # The seed's example, printed as it documents: [28 29 30 31] on process 0, ...
    assert seed_run[0]["pmap"] == {"value": "[28 29 30 31]"}
    assert seed_run[1]["pmap"] == {"value": "[32 33 34 35]"}


def test_initialize_gives_up_when_a_process_never_comes():
    # As in JAX, jaxlib's client ends the process (abort) once initialization_timeout
    # has passed without all processes registered, rather than raising.
    reports, codes, errors, _ = run_processes("alone", pids=[0])
    assert reports[0] is None, "initialize returned without its partner"
    assert codes[0] != 0
    assert "DEADLINE_EXCEEDED" in errors[0] and "RegisterTask" in errors[0], errors[0]


def test_a_failing_process_ends_the_run_without_hanging():
    # (process 1 ending by itself, code 1, shows nothing hung: a hung one is killed at the
    # run's timeout, code -9)
    reports, codes, errors, _ = run_processes("crash")
    assert codes[1] == 1 and "RuntimeError: process 1 fails" in errors[1], errors[1]
    assert codes[0] != 0            # killed (or brought down by the coordination service)


# ----------------------------------------------------------------------------------------
# One process, 8 devices: the three constructors and initialize's errors
# ----------------------------------------------------------------------------------------

def run_child(code: str, devices: int = 8) -> str:
    """Run ``code`` in a fresh interpreter with ``devices`` CPU devices; its stdout."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


SINGLE_PROCESS = """
import json
import numpy as np
import glassjax as jax
from glassjax.experimental import multihost_utils
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P
from glassjax.xla import runtime

out = {}
def attempt(name, compute):
    try:
        out[name] = compute()
    except Exception as err:
        out[name] = {"error": type(err).__name__, "message": str(err)}

# Bad arguments, checked before anything connects (and before the backend exists).
attempt("no_address", lambda: jax.distributed.initialize(None, 2, 0))
attempt("no_count", lambda: jax.distributed.initialize("127.0.0.1:1", None, 0))
attempt("id_not_int", lambda: jax.distributed.initialize("127.0.0.1:1", 2, "0"))
attempt("id_too_large", lambda: jax.distributed.initialize("127.0.0.1:1", 2, 2))

devices = jax.devices()
mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
tiles = NamedSharding(mesh, P("x", "y"))
data = np.arange(64.0).reshape(8, 8)
calls = []
def callback(index):
    calls.append(index)
    return data[index]
def describe(x):
    return {"shape": list(x.shape), "dtype": str(x.dtype), "value": np.asarray(x).tolist(),
            "sharding_equal": x.sharding == tiles, "committed": x.committed,
            "shards": [[s.device.id, [[i.start, i.stop] for i in s.index],
                        np.asarray(s.data).tolist()] for s in x.addressable_shards]}

attempt("callback", lambda: describe(jax.make_array_from_callback((8, 8), tiles, callback)))
out["calls"] = len(calls)
replicated = runtime.replicated_sharding(devices)
calls.clear()
attempt("replicated", lambda: np.asarray(
    jax.make_array_from_callback((8, 8), replicated, callback)).tolist())
out["replicated_calls"] = len(calls)
attempt("scalar_pieces", lambda: str(jax.make_array_from_callback(
    (), replicated, lambda index: 2.5).dtype))
attempt("bad_sharding", lambda: jax.make_array_from_callback((8,), "x", callback))
attempt("bad_shape", lambda: jax.make_array_from_callback(
    (8, 8), tiles, lambda index: np.zeros((3, 3), np.float32)))
pieces = {d: jax.device_put(data[i].astype(np.float32), d)
          for d, i in tiles.devices_indices_map((8, 8)).items()}
attempt("single", lambda: describe(jax.make_array_from_single_device_arrays(
    (8, 8), tiles, list(pieces.values())[::-1])))
attempt("single_too_few", lambda: jax.make_array_from_single_device_arrays(
    (8, 8), tiles, list(pieces.values())[:3]))
attempt("single_dtype", lambda: jax.make_array_from_single_device_arrays(
    (8, 8), tiles, list(pieces.values()), dtype=np.int32))
attempt("single_not_a_list", lambda: jax.make_array_from_single_device_arrays(
    (8, 8), tiles, iter(pieces.values())))
attempt("local", lambda: describe(jax.make_array_from_process_local_data(tiles, data)))
attempt("local_tree", lambda: [np.asarray(x).tolist() for x in
    jax.make_array_from_process_local_data(tiles, [data[:4, :4], data])])
attempt("local_bad_shape", lambda: jax.make_array_from_process_local_data(
    tiles, data, (16, 8)))
attempt("local_spec_no_mesh", lambda: jax.make_array_from_process_local_data(
    P("x", "y"), data))
with jax.set_mesh(mesh):
    attempt("local_spec", lambda: describe(jax.make_array_from_process_local_data(
        P("x", "y"), data)))
split = runtime.split_sharding(devices, 1)      # a GSPMDSharding
attempt("gspmd_callback", lambda: [np.asarray(s.data).tolist() for s in
    jax.make_array_from_callback((8,), split, lambda i: np.arange(8)[i]).addressable_shards])
# One process: the host-local array is the global one.
def round_trip():
    g = multihost_utils.host_local_array_to_global_array(data, mesh, P("x", "y"))
    back = multihost_utils.global_array_to_host_local_array(g, mesh, P("x", "y"))
    return [describe(g), np.asarray(back).tolist(), str(back.sharding.spec)]
attempt("round_trip", round_trip)
attempt("none_spec", lambda: multihost_utils.host_local_array_to_global_array(
    data, mesh, None))
attempt("initialize_late", lambda: jax.distributed.initialize("127.0.0.1:1", 2, 0))
attempt("shutdown_unstarted", lambda: jax.distributed.shutdown())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def single_process():
    return json.loads(run_child(SINGLE_PROCESS).splitlines()[-1])


def _expected_tiles(data):
    """Device i of the (2, 4) tiling holds block (i // 4, i % 4) of 4x2 elements."""
    return [[i, [[4 * (i // 4), 4 * (i // 4) + 4], [2 * (i % 4), 2 * (i % 4) + 2]],
             data[4 * (i // 4): 4 * (i // 4) + 4, 2 * (i % 4): 2 * (i % 4) + 2].tolist()]
            for i in range(8)]


def test_make_array_from_callback(single_process):
    data = np.arange(64.0).reshape(8, 8)
    result = single_process["callback"]
    assert result == {"shape": [8, 8], "dtype": "float32", "value": data.tolist(),
                      "sharding_equal": True, "committed": True,
                      "shards": _expected_tiles(data)}
    assert single_process["calls"] == 8                    # one per device
    assert single_process["replicated"] == data.tolist()
    assert single_process["replicated_calls"] == 1         # replicated: fetched once
    assert single_process["scalar_pieces"] == "float32"    # Python float: canonical dtype


def test_make_array_from_callback_errors(single_process):
    assert single_process["bad_sharding"]["error"] == "TypeError"
    assert "sharding should be an instance of `jax.sharding`" in \
        single_process["bad_sharding"]["message"]
    assert single_process["bad_shape"]["error"] == "ValueError"
    assert single_process["bad_shape"]["message"].startswith(
        "Expected shard shape (4, 2) doesn't match the single device array shape (3, 3).")


def test_make_array_from_single_device_arrays(single_process):
    data = np.arange(64.0).reshape(8, 8)
    # Given in reverse device order, the pieces are still put where they belong.
    assert single_process["single"] == {
        "shape": [8, 8], "dtype": "float32", "value": data.tolist(),
        "sharding_equal": True, "committed": True, "shards": _expected_tiles(data)}
    assert single_process["single_too_few"] == {
        "error": "ValueError", "message": "Expected 8 per-device arrays (this is how many "
        "devices are addressable by the sharding), but got 3"}
    assert single_process["single_dtype"]["error"] == "ValueError"
    assert "must match the dtype of the addressable shards. Got dtype=int32 and shard " \
        "dtype=float32" in single_process["single_dtype"]["message"]
    assert single_process["single_not_a_list"]["error"] == "TypeError"


def test_make_array_from_process_local_data_on_one_process(single_process):
    data = np.arange(64.0).reshape(8, 8)
    assert single_process["local"]["value"] == data.tolist()
    assert single_process["local"]["shards"] == _expected_tiles(data)
    assert single_process["local_tree"] == [data[:4, :4].tolist(), data.tolist()]
    assert single_process["local_bad_shape"]["error"] == "ValueError"
    assert "global_shape should be None or equal to local_data.shape" in \
        single_process["local_bad_shape"]["message"]


def test_a_partition_spec_means_the_current_mesh(single_process):
    data = np.arange(64.0).reshape(8, 8)
    assert single_process["local_spec_no_mesh"] == {
        "error": "ValueError", "message": "Please set a mesh via `jax.set_mesh` if a "
        "PartitionSpec is passed to make_array_from_process_local_data"}
    assert single_process["local_spec"] == {
        "shape": [8, 8], "dtype": "float32", "value": data.tolist(),
        "sharding_equal": True, "committed": True, "shards": _expected_tiles(data)}


def test_make_array_from_callback_with_a_gspmd_sharding(single_process):
    assert single_process["gspmd_callback"] == [[i] for i in range(8)]


def test_host_local_and_global_arrays_on_one_process(single_process):
    data = np.arange(64.0).reshape(8, 8)
    global_array, back, spec = single_process["round_trip"]
    assert global_array["shards"] == _expected_tiles(data)
    assert back == data.tolist() and spec == "P('x', 'y')"
    assert single_process["none_spec"]["error"] == "ValueError"
    assert single_process["none_spec"]["message"].startswith(
        "`None` is not a valid input to the pspecs argument.")


def test_initialize_after_the_backend_exists_is_an_error(single_process):
    assert single_process["initialize_late"] == {
        "error": "RuntimeError",
        "message": "jax.distributed.initialize() must be called before any JAX calls that "
                   "might initialise the XLA backend. This includes any computation, but "
                   "also calls to jax.devices, jax.device_put, and others."}
    assert single_process["shutdown_unstarted"] is None


def test_initialize_argument_errors(single_process):
    assert single_process["no_address"] == {
        "error": "ValueError", "message": "coordinator_address should be defined."}
    assert single_process["no_count"] == {
        "error": "ValueError", "message": "Number of processes must be defined."}
    assert single_process["id_not_int"] == {
        "error": "TypeError", "message": "process_id must be a nonnegative int. Got "
        "process_id=0 of type <class 'str'>."}
    assert single_process["id_too_large"] == {
        "error": "ValueError", "message": "process_id and num_processes must be "
        "nonnegative, with process_id < num_processes. Got process_id=2, num_processes=2."}


SCENARIOS = {"global": _scenario_global, "seed": _scenario_seed, "alone": _scenario_alone,
             "crash": _scenario_crash}

if __name__ == "__main__":
    scenario, pid, port, n = sys.argv[1], *map(int, sys.argv[2:5])
    try:
        print(json.dumps(SCENARIOS[scenario](pid, port, n)), flush=True)
    except BaseException:
        # Fail at once: a normal exit would first wait (shutdown at exit) for the other
        # processes to shut down too, which they may never do.
        import traceback
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
