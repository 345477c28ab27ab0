"""``jax.experimental.shard_map``: the old home of ``shard_map`` (same function)."""
from glassjax.shard_map import shard_map

__all__ = ["shard_map"]
