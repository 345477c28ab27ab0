"""The persistent compilation cache: a second process loads what the first compiled."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import glassjax
from glassjax.config import config
from glassjax.xla import compilation_cache

PROGRAM = textwrap.dedent("""
    import sys, time
    import glassjax as jax, glassjax.numpy as jnp
    from glassjax.experimental.compilation_cache import compilation_cache as cc
    cc.set_cache_dir(sys.argv[1])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)

    def f(x):
        for _ in range(50):
            x = jnp.sin(x) @ x
        return x
    print(jax.jit(f)(jnp.eye(8) * 0.5).sum())
""")


def _run(cache):
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(cache)], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def test_second_process_reads_the_cache(tmp_path):
    first = _run(tmp_path)          # the jit and the eager ops around it are cached
    entries = sorted(os.listdir(tmp_path))
    assert entries and all(len(e) == 64 for e in entries)       # sha256-named files
    mtimes = [os.path.getmtime(tmp_path / e) for e in entries]
    assert _run(tmp_path) == first                               # same result...
    assert sorted(os.listdir(tmp_path)) == entries               # ...from the same entries,
    assert [os.path.getmtime(tmp_path / e) for e in entries] == mtimes   # none rewritten


def test_off_by_default_and_threshold(tmp_path):
    assert config.jax_compilation_cache_dir is None
    with config.option("jax_compilation_cache_dir").override(str(tmp_path)):
        glassjax.jit(lambda x: x * 3.0)(np.ones(2, np.float32))     # compiles in < 1 s
    assert os.listdir(tmp_path) == []


def test_key_depends_on_module_and_options():
    from glassjax.xla import runtime
    from jaxlib import xla_client as xc
    client = runtime.get_backend()
    one, two = xc.CompileOptions(), xc.CompileOptions()
    two.num_replicas = 2
    keys = {compilation_cache.cache_key(text, opts, client)
            for text in ("module a", "module b") for opts in (one, two)}
    assert len(keys) == 4


def test_jit_compiles_with_jaxs_options(monkeypatch):
    """The options a jit hands XLA are JAX 0.10.2's (``compiler.get_compile_options``):
    the SPMD partitioner (Shardy) on even for one device, XLA's O2 memory fitting, no
    feedback-directed profile looked for (-1), one replica and one partition. (Printed
    by JAX 0.10.2 for ``jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(3))``.)"""
    seen = []
    original = compilation_cache.compile_or_load

    def spy(module_text, options, *args, **kwargs):
        seen.append(options)
        return original(module_text, options, *args, **kwargs)
    monkeypatch.setattr(compilation_cache, "compile_or_load", spy)
    glassjax.jit(lambda x: glassjax.numpy.sin(x) * 2)(np.ones(3, np.float32) + 0.5)
    build = seen[-1].executable_build_options
    assert (build.use_spmd_partitioning, build.use_shardy_partitioner,
            build.memory_fitting_level, build.optimization_level,
            seen[-1].profile_version, seen[-1].num_replicas,
            seen[-1].num_partitions) == (True, True, 29, 0, -1, 1, 1)


def test_a_directory_set_after_compiling_is_used_after_reset_cache(tmp_path):
    """JAX's recipe for turning the cache on mid-session (its benchmark does this):
    set the options, then ``reset_cache()``; the next compile writes an entry."""
    from glassjax.experimental.compilation_cache import compilation_cache as cc
    glassjax.jit(lambda x: x + 1.0)(np.ones(2, np.float32))         # a compile first
    with config.option("jax_compilation_cache_dir").override(str(tmp_path)), \
            config.option("jax_persistent_cache_min_compile_time_secs").override(0):
        cc.reset_cache()
        glassjax.jit(lambda x: x * 5.0)(np.ones(2, np.float32))
    assert len(os.listdir(tmp_path)) == 1
