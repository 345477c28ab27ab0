"""``jax.extend.core``: glassjax's IR and primitive classes under JAX's names. They are
the very objects glassjax's tracer builds (``glassjax/core.py``), so an interpreter
written against them walks glassjax's jaxprs."""
from glassjax.core import (AbstractToken, ClosedJaxpr, DropVar, Effect, Jaxpr, JaxprEqn,
                           JaxprTypeError, Literal, Primitive, Token, Var, check_jaxpr,
                           concrete_or_error, find_top_trace, get_opaque_trace_state,
                           jaxpr_as_fun, jaxprs_in_params, new_jaxpr_eqn,
                           nonempty_axis_env, set_current_trace, unsafe_get_axis_names,
                           valid_jaxtype)
from glassjax.interpreters import batching


def mapped_aval(size, axis, aval):
    """The type of one element of ``size`` values stacked at ``axis`` (None: unmapped)."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"axis {axis} of {aval} does not have size {size}")
    return batching.mapped_aval(aval, axis)


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """The type of ``size`` values of type ``aval`` stacked at ``axis``."""
    if explicit_mesh_axis is not None:
        raise NotImplementedError("glassjax's vmap has no explicit mesh axis "
                                  "(spmd_axis_name over an Explicit mesh)")
    return batching.unmapped_aval(aval, size, axis)


__all__ = ["AbstractToken", "ClosedJaxpr", "DropVar", "Effect", "Jaxpr", "JaxprEqn",
           "JaxprTypeError", "Literal", "Primitive", "Token", "Var", "check_jaxpr",
           "concrete_or_error", "find_top_trace", "get_opaque_trace_state", "jaxpr_as_fun",
           "jaxprs_in_params", "mapped_aval", "new_jaxpr_eqn", "nonempty_axis_env",
           "set_current_trace", "unmapped_aval", "unsafe_get_axis_names", "valid_jaxtype"]
