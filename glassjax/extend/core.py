"""``jax.extend.core``: glassjax's IR and primitive classes under JAX's names. They are
the very objects glassjax's tracer builds (``glassjax/core.py``), so an interpreter
written against them walks glassjax's jaxprs."""
from glassjax.core import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, JaxprTypeError, Literal,
                           Primitive, Var, check_jaxpr, concrete_or_error, jaxpr_as_fun,
                           jaxprs_in_params, new_jaxpr_eqn)

__all__ = ["ClosedJaxpr", "DropVar", "Jaxpr", "JaxprEqn", "JaxprTypeError", "Literal",
           "Primitive", "Var", "check_jaxpr", "concrete_or_error", "jaxpr_as_fun",
           "jaxprs_in_params", "new_jaxpr_eqn"]
