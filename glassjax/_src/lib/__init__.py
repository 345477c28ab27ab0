"""``jax._src.lib``: JAX's view of jaxlib."""
