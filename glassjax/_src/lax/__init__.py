"""``jax._src.lax``: ``lax`` (the module JAX's primitives live in) is glassjax.lax."""
