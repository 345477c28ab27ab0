"""``jax.extend.core``: glassjax's IR and primitive classes under JAX's names. They are
the very objects glassjax's tracer builds (``glassjax/core.py``), so an interpreter
written against them walks glassjax's jaxprs, and a library that stages into the current
trace (brainstate's ``trace.new_arg``) stages into glassjax's."""
from __future__ import annotations

from glassjax.config import config
from glassjax.core import (AbstractToken, CallPrimitive, ClosedJaxpr, DebugInfo, DropVar,
                           Effect, Effects, Jaxpr, JaxprEqn, JaxprTypeError, Literal,
                           Primitive, Token, Var, check_jaxpr, concrete_or_error,
                           find_top_trace, gensym, get_opaque_trace_state, jaxpr_as_fun,
                           jaxprs_in_params, new_jaxpr_eqn, no_effects, nonempty_axis_env,
                           set_current_trace, take_current_trace, unsafe_get_axis_names,
                           valid_jaxtype)
from glassjax.errors import InconclusiveDimensionOperation
from glassjax.extend.core import primitives
from glassjax.interpreters import batching

__all__ = ["AbstractToken", "CallPrimitive", "ClosedJaxpr", "DebugInfo", "DropVar",
           "Effect", "Effects", "InconclusiveDimensionOperation", "Jaxpr", "JaxprEqn",
           "JaxprEqnContext", "JaxprTypeError", "Literal", "Primitive", "Token", "Var",
           "check_jaxpr", "concrete_or_error", "find_top_trace", "gensym",
           "get_opaque_trace_state", "jaxpr_as_fun", "jaxprs_in_params", "mapped_aval",
           "new_jaxpr_eqn", "no_effects", "nonempty_axis_env", "primitives",
           "set_current_trace", "take_current_trace", "TraceTag", "unmapped_aval",
           "unsafe_get_axis_names", "valid_jaxtype"]


class TraceTag:
    """What identifies one run of a transformation, for traces of a library's own (haiku's
    ``to_dot``): a new object equal only to itself."""
    __slots__ = ()


def mapped_aval(size, axis, aval):
    """The type of one element of ``size`` values stacked at ``axis`` (None: unmapped)."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"axis {axis} of {aval} does not have size {size}")
    return batching.mapped_aval(aval, axis)


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """The type of ``size`` values of type ``aval`` stacked at ``axis``."""
    if axis is None:
        return aval
    if explicit_mesh_axis is not None:
        raise NotImplementedError("glassjax's vmap has no explicit mesh axis "
                                  "(spmd_axis_name over an Explicit mesh)")
    return batching.unmapped_aval(aval, size, axis)


class JaxprEqnContext:
    """JAX's record of the config an equation was staged under, which code written for
    JAX passes when it builds equations; glassjax's equations do not keep one (see
    ``JaxprEqn``), so this holds the config values of the moment only to be read."""
    __slots__ = ("compute_type", "threefry_partitionable", "xla_metadata")

    def __init__(self, compute_type=None, threefry_partitionable=None, xla_metadata=None):
        self.compute_type = compute_type
        self.threefry_partitionable = (config.jax_threefry_partitionable
                                       if threefry_partitionable is None
                                       else threefry_partitionable)
        self.xla_metadata = xla_metadata
