"""``jax.extend.source_info_util``: where staged equations come from (their traceback
and name stack), glassjax's own ``source_info`` under JAX's names; libraries use it to
attribute what they stage later to the user line that caused it."""
from glassjax.source_info import (NameStack, SourceInfo, current, current_name_stack,
                                  extend_name_stack, register_exclusion, summarize,
                                  transform_name_stack, user_context)

__all__ = ["NameStack", "SourceInfo", "current", "current_name_stack",
           "extend_name_stack", "new_name_stack", "new_source_info", "register_exclusion",
           "summarize", "transform_name_stack", "user_context"]


def new_name_stack(name: str = "") -> NameStack:
    return NameStack().extend(name) if name else NameStack()


def new_source_info() -> SourceInfo:
    return SourceInfo(None, NameStack())
