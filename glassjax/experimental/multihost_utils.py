"""``jax.experimental.multihost_utils``: converting between the arrays one process holds
and the global arrays of a multi-process run (see ``array_creation.py``)."""
from glassjax.array_creation import (global_array_to_host_local_array,
                                     host_local_array_to_global_array)

__all__ = ["global_array_to_host_local_array", "host_local_array_to_global_array"]
