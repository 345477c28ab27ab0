"""jaxlib's canonical form of ``PartitionSpec`` entries: the door through which mesh.py
reaches it. jaxlib's C++ ``NamedSharding`` compares specs in this form, so the Python
``PartitionSpec`` stores and compares its entries the same way."""
from jaxlib import _jax

canonicalize = _jax.canonicalize_partition        # one entry: 'x' / ('x',) -> ('x',)
canonicalize_all = _jax.canonicalize_partitions   # a whole spec's entries
set_unconstrained = _jax.set_pspec_unconstrained  # which object means "unconstrained"
