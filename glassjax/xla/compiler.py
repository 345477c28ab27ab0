"""``jax._src.compiler``: the one call through which jaxlib compiles every program
glassjax runs. ``runtime.compile`` looks it up on this module at each compile, so code
that wraps it sees every compile, as in JAX (chex's ``restrict_backends`` swaps it for
a wrapper that refuses to compile for a forbidden platform)."""
from __future__ import annotations

from typing import Sequence

from jaxlib import xla_client as xc
from jaxlib.mlir import ir


def backend_compile_and_load(backend: xc.Client, module: ir.Module,
                             executable_devices, options: xc.CompileOptions,
                             host_callbacks: Sequence) -> xc.LoadedExecutable:
    """Compile ``module`` with the client ``backend`` and load it on
    ``executable_devices`` (a ``DeviceList``); ``host_callbacks`` are the Python functions
    its callback custom calls invoke."""
    return backend.compile_and_load(module, executable_devices, options,
                                    list(host_callbacks))
