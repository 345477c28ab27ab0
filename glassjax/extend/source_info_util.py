"""``jax.extend.source_info_util``: where equations come from (the user's line and the
name stack), glassjax's ``source_info`` under JAX's names."""
from glassjax.source_info import (NameStack, SourceInfo, current, current_name_stack,
                                  extend_name_stack, register_exclusion, summarize,
                                  transform_name_stack)

__all__ = ["NameStack", "SourceInfo", "current", "current_name_stack",
           "extend_name_stack", "register_exclusion", "summarize", "transform_name_stack"]
