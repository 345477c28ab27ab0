"""``jax.experimental.array_serialization.serialization``: JAX's tensorstore checkpoints
of (multi-process) arrays, which flax.training.checkpoints names. glassjax does not build
them (they need the ``tensorstore`` package and JAX's sharded-array internals); each name
raises NotImplementedError when used, so that flax's checkpoints module imports and its
other paths (msgpack checkpoints of arrays on this host) work."""

_UNSUPPORTED = ("glassjax does not implement JAX's tensorstore array checkpoints "
                "(jax.experimental.array_serialization)")


class GlobalAsyncCheckpointManager:
    """Saves and restores arrays asynchronously with tensorstore: not implemented."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"GlobalAsyncCheckpointManager: {_UNSUPPORTED}")


def get_tensorstore_spec(ckpt_path, ocdbt=True, process_idx=None, arr=None, driver=None):
    """The tensorstore spec of a checkpoint path: not implemented."""
    raise NotImplementedError(f"get_tensorstore_spec: {_UNSUPPORTED}")
