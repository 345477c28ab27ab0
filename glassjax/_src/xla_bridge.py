"""``jax._src.xla_bridge``: the jaxlib clients (backends) programs compile and run on.
``_backends`` (``{platform: client}``, None before the first is made) is read live from
the runtime: libraries look at it to tell whether the backends exist yet (chex's
``set_n_cpu_devices`` refuses to change the device count after)."""
from glassjax.xla import runtime
from glassjax.xla.runtime import backends, get_backend  # noqa: F401


def __getattr__(name):
    if name == "_backends":
        return runtime._backends
    raise AttributeError(f"module 'jax._src.xla_bridge' has no attribute '{name}'")
