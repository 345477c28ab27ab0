"""``jax.export``: serialize a jitted function as StableHLO and call it back later."""
from glassjax.export.exported import (DisabledSafetyCheck, Exported, default_export_platform,
                                      deserialize, export,
                                      maximum_supported_calling_convention_version,
                                      minimum_supported_calling_convention_version)
from glassjax.export.pytree_serialization import (register_namedtuple_serialization,
                                                  register_pytree_node_serialization)
from glassjax.export.shape_poly import symbolic_args_specs
from glassjax.shape_poly import SymbolicScope, is_symbolic_dim, symbolic_shape

__all__ = ["DisabledSafetyCheck", "Exported", "SymbolicScope", "default_export_platform",
           "deserialize", "export", "is_symbolic_dim",
           "maximum_supported_calling_convention_version",
           "minimum_supported_calling_convention_version",
           "register_namedtuple_serialization", "register_pytree_node_serialization",
           "symbolic_args_specs", "symbolic_shape"]
