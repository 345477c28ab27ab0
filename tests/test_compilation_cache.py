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
