"""Every test process sees 8 CPU devices, as the notebooks and the conformance suite do,
so that the many-device tests (pmap, shard_map, sharded jit) run in-process. Tests
that need another count start a child process with their own XLA_FLAGS."""
import os

os.environ["XLA_FLAGS"] = " ".join(
    [f for f in os.environ.get("XLA_FLAGS", "").split()
     if not f.startswith("--xla_force_host_platform_device_count")] +
    ["--xla_force_host_platform_device_count=8"])
