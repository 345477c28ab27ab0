"""``jax.extend.mlir``: jaxlib's MLIR Python bindings, which glassjax's lowering builds its
StableHLO modules with (``glassjax/xla/lowering.py``). Code written against JAX's name
(autodidax's own lowering, for one) builds the same objects here."""
