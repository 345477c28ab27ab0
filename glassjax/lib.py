"""``jax.lib``: which jaxlib glassjax runs on (``jax.lib.__version__``). In JAX 0.10.2
that is all the module offers; jaxlib's own modules (``jaxlib.xla_client``, ...) are
imported from ``jaxlib`` directly."""
from jaxlib.version import __version__  # noqa: F401
