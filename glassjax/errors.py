"""JAX's exception types, with JAX's messages (``glassjax.errors``).

Each error says what went wrong with a tracer in the words JAX uses, followed by where the
tracer came from (``Tracer._origin_msg``) and a link to JAX's error page, so that a learner
can look the error up exactly as they would for JAX.
"""

_ERROR_PAGE = "https://docs.jax.dev/en/latest/errors.html"


class _JAXErrorMixin:
    """Appends the documentation link JAX appends to each of its errors."""

    def __init__(self, message: str):
        name = type(self).__name__
        super().__init__(f"{message}\nSee {_ERROR_PAGE}#jax.errors.{name}")


class JAXTypeError(_JAXErrorMixin, TypeError):
    """A JAX-specific TypeError."""


class JAXIndexError(_JAXErrorMixin, IndexError):
    """A JAX-specific IndexError."""


def _error_repr(tracer):
    return f"traced array with shape {tracer.aval.str_short()}"


def _origin(tracer):
    origin = getattr(tracer, "_origin_msg", None)
    return origin() if origin else ""


class ConcretizationTypeError(JAXTypeError):
    """A tracer was used where a concrete (known while tracing) value is needed."""

    def __init__(self, tracer, context: str = ""):
        super().__init__("Abstract tracer value encountered where concrete value is "
                         f"expected: {_error_repr(tracer)}\n{context}{_origin(tracer)}\n")


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool(tracer)``: Python control flow on a traced value (use lax.cond instead)."""

    def __init__(self, tracer):
        JAXTypeError.__init__(self, f"Attempted boolean conversion of {_error_repr(tracer)}."
                                    f"{_origin(tracer)}")


class TracerIntegerConversionError(JAXTypeError):
    """``tracer.__index__()``: a traced value used as a Python index or size."""

    def __init__(self, tracer):
        super().__init__(f"The __index__() method was called on {_error_repr(tracer)}"
                         f"{_origin(tracer)}")


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(tracer)``: NumPy cannot run on a value that exists only in a trace."""

    def __init__(self, tracer):
        super().__init__("The numpy.ndarray conversion method __array__() was called on "
                         f"{_error_repr(tracer)}{_origin(tracer)}")


class NonConcreteBooleanIndexError(JAXIndexError):
    """Boolean masks give data-dependent shapes, which traced code cannot have."""

    def __init__(self, tracer):
        super().__init__(f"Array boolean indices must be concrete; got {tracer}\n")


class UnexpectedTracerError(JAXTypeError):
    """A tracer leaked out of the transformation that created it."""


class KeyReuseError(JAXTypeError):
    """A PRNG key was used twice (only checked when key-reuse checking is on)."""


# Raised in shape polymorphism (comparing a symbolic ``b`` with ``3``, ...); the
# subclass in glassjax/shape_poly.py adds JAX's help text.
class InconclusiveDimensionOperation(Exception):
    """Raised when we cannot conclusively compute with symbolic dimensions."""


class JaxprTypeError(TypeError):
    """A jaxpr is ill-typed: a variable used before it is bound, or an equation whose
    output types are not what its primitive computes (``core.check_jaxpr``)."""


# What XLA raises when a computation fails at run time (jaxlib's own class).
from glassjax.xla.errors import JaxRuntimeError  # noqa: E402
