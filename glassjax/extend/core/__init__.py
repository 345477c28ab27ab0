"""``jax.extend.core``: glassjax's IR and primitive classes under JAX's names. They are
the very objects glassjax's tracer builds (``glassjax/core.py``), so an interpreter
written against them walks glassjax's jaxprs, and a library that stages into the current
trace (brainstate's ``trace.new_arg``) stages into glassjax's."""
from __future__ import annotations

import weakref
from typing import AbstractSet

from glassjax.callbacks import Effect
from glassjax.config import config
from glassjax.core import (AbstractToken, ClosedJaxpr, DropVar, Jaxpr, JaxprEqn,
                           JaxprTypeError, Literal, Primitive, Token, Var, check_jaxpr,
                           concrete_or_error, jaxpr_as_fun, jaxprs_in_params,
                           new_jaxpr_eqn, set_current_trace, trace_ctx, valid_jaxtype)
from glassjax.errors import InconclusiveDimensionOperation
from glassjax.extend.core import primitives
from glassjax.interpreters import batching
from glassjax.interpreters.staging import DebugInfo

__all__ = ["AbstractToken", "CallPrimitive", "ClosedJaxpr", "DebugInfo", "DropVar",
           "Effect", "Effects", "InconclusiveDimensionOperation", "Jaxpr", "JaxprEqn",
           "JaxprEqnContext", "JaxprTypeError", "Literal", "Primitive", "Token", "Var",
           "check_jaxpr", "concrete_or_error", "find_top_trace", "gensym",
           "get_opaque_trace_state", "jaxpr_as_fun", "jaxprs_in_params", "mapped_aval",
           "new_jaxpr_eqn", "no_effects", "primitives", "set_current_trace",
           "unmapped_aval", "valid_jaxtype"]

Effects = AbstractSet[Effect]
no_effects: frozenset = frozenset()


def mapped_aval(size: int, axis: int | None, aval):
    """The type of one element of a batch of ``aval``s stacked along ``axis`` (None:
    not batched)."""
    del size
    return aval if axis is None else batching.mapped_aval(aval, axis)


def unmapped_aval(size: int, axis: int | None, aval):
    """The type of ``size`` ``aval``s stacked along ``axis``."""
    return aval if axis is None else batching.unmapped_aval(aval, size, axis)


def gensym(suffix: str = ""):
    """A maker of fresh variables (``gensym()(aval)``); glassjax names them when
    printing, so ``suffix`` is not used."""
    del suffix
    return Var


def find_top_trace(_):
    """The trace current now, which is the one every operation goes to (JAX's traces
    nest through ``parent_trace`` rather than by level)."""
    return trace_ctx.trace


class OpaqueTraceState:
    """Which trace was current when it was made, comparable with ``==`` without holding
    the trace alive (libraries check that an object is used under the trace that made
    it)."""

    def __init__(self, trace):
        self._trace_ref = weakref.ref(trace)

    def __eq__(self, other):
        return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
    del convention
    return OpaqueTraceState(trace_ctx.trace)


class CallPrimitive(Primitive):
    """JAX's primitive for calling a traced function (its ``call_p``). glassjax stages a
    call as a ``jit`` equation instead and has no such primitive: one can be named (a
    library defines its own at import) but not bound."""
    multiple_results = True
    call_primitive = True

    def bind(self, *args, **params):
        raise NotImplementedError(
            f"call primitive {self.name!r}: glassjax does not implement JAX's "
            "CallPrimitive (a call is staged as a jit equation); use jax.jit or "
            "jax.named_call instead")


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
