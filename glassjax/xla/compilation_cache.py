"""The persistent compilation cache: compiled programs kept on disk between processes.

XLA's compilation is the slowest stage of a first ``jit`` call (seconds for big
programs), and a notebook restarted or a test suite run again compiles the very same
programs again. With ``jax.config.update("jax_compilation_cache_dir", "/some/dir")`` each
compiled executable is also serialized into that directory, under a key that hashes
everything the result depends on: the StableHLO module, the compile options (devices,
replicas, partitions), the platform and the jaxlib version. A later compile with the same
key, in any process, deserializes the file instead of running XLA.

As in JAX: off by default; only programs that took at least
``jax_persistent_cache_min_compile_time_secs`` (1 s) to compile are written, and only
entries of at least ``jax_persistent_cache_min_entry_size_bytes``; programs with host
callbacks (``debug.print``...) are never cached, since a Python function cannot be
serialized. Read next: ``runtime.compile``, the one caller.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from typing import Callable

import jaxlib

from glassjax.config import config


def cache_dir() -> str | None:
    """The directory in use, or None when the cache is off."""
    if not config.jax_enable_compilation_cache:
        return None
    return config.jax_compilation_cache_dir


def cache_key(module_text: str, options, client) -> str:
    """A hex digest of everything the compiled program depends on."""
    digest = hashlib.sha256()
    for part in (module_text.encode(), options.SerializeAsString(),
                 client.platform.encode(), client.platform_version.encode(),
                 jaxlib.__version__.encode()):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _write_atomically(path: str, data: bytes) -> None:
    """Write to a temporary file and rename it, so a reader never sees half a file."""
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def compile_or_load(module_text: Callable[[], str], options, client, device_list,
                    compile_fn: Callable, *, cacheable: bool = True):
    """``compile_fn()``, or the executable a previous compile with the same key saved.
    ``module_text`` is called only when the cache is on (printing a module costs)."""
    folder = cache_dir()
    if folder is None or not cacheable:
        return compile_fn()
    key = cache_key(module_text(), options, client)
    path = os.path.join(folder, key)
    if os.path.exists(path):
        with open(path, "rb") as f:
            return client.deserialize_executable(f.read(), device_list, options)
    start = time.monotonic()
    executable = compile_fn()
    if time.monotonic() - start >= config.jax_persistent_cache_min_compile_time_secs:
        data = client.serialize_executable(executable)
        if len(data) >= config.jax_persistent_cache_min_entry_size_bytes:
            os.makedirs(folder, exist_ok=True)
            _write_atomically(path, data)
    return executable


def reset_cache() -> None:
    """``jax.experimental.compilation_cache.compilation_cache.reset_cache``. JAX opens
    its cache once, at the first compile, and keeps using (or not using) it until this
    is called; glassjax holds nothing between compiles (``cache_dir`` reads the options
    at every compile), so a changed directory already takes effect and there is
    nothing to reset."""


def set_cache_dir(path: str) -> None:
    """``jax.experimental.compilation_cache.compilation_cache.set_cache_dir``."""
    config.update("jax_compilation_cache_dir", path)
