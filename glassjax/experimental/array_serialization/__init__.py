"""``jax.experimental.array_serialization``: checkpointing arrays with tensorstore, which
glassjax does not implement (see ``serialization``)."""
