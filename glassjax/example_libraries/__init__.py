"""``jax.example_libraries``: the two small libraries JAX ships as examples of building on
it, an optimizer library (``optimizers``) and a neural-network one (``stax``), written
here in glassjax's own words (numpyro's ``optim`` and ``nn`` are built on them)."""
