"""jax.profiler through jaxlib's profiler: a trace written where TensorBoard and Perfetto
read it, holding our annotations and the compiled programs; device memory profiles."""
import gzip
import json

import pytest

import glassjax as jax
import glassjax.numpy as jnp


def test_trace_writes_annotations_and_programs(tmp_path):
    @jax.profiler.annotate_function
    def step(x):
        return jax.jit(lambda x: x @ x)(x).block_until_ready()

    with jax.profiler.trace(tmp_path, create_perfetto_trace=True):
        with jax.profiler.TraceAnnotation("my_region"):
            step(jnp.ones((32, 32)))
        with jax.profiler.StepTraceAnnotation("train", step_num=1):
            pass
        with pytest.raises(RuntimeError, match="Profile has already been started"):
            jax.profiler.start_trace(tmp_path)
    run, = (tmp_path / "plugins" / "profile").iterdir()
    assert sorted(p.suffix for p in run.iterdir()) == [".gz", ".gz", ".pb"]
    events = json.load(gzip.open(run / "perfetto_trace.json.gz"))
    assert "metadata" not in events
    names = {e.get("name") for e in events["traceEvents"]}
    assert {"my_region", "train"} <= names
    assert any("step" in (n or "") for n in names)
    assert any("jit__lambda" in (n or "") for n in names)
    with pytest.raises(RuntimeError, match="No profile started"):
        jax.profiler.stop_trace()


def test_device_memory_profile(tmp_path):
    keep = jnp.ones((256, 256))
    profile = jax.profiler.device_memory_profile()
    assert gzip.decompress(profile)          # a gzipped pprof protocol buffer
    path = tmp_path / "memory.prof"
    jax.profiler.save_device_memory_profile(path)
    assert path.stat().st_size > 0
    del keep


def test_profiler_server_is_single():
    with pytest.raises(ValueError, match="No active profiler server"):
        jax.profiler.stop_server()
