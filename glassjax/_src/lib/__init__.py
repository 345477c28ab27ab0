"""``jax._src.lib``: JAX's view of jaxlib; ``xla_client`` is jaxlib's Python face of XLA
(compile options, shardings, ``batched_device_put``)."""
from jaxlib import xla_client  # noqa: F401
