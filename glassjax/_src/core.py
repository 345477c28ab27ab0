"""``jax._src.core``: JAX's core (``Primitive``, ``ShapedArray``, ``Tracer``, ...), which
the export guide imports to define a primitive; glassjax's core holds the same names, and
``jax.extend.core`` the rest of JAX's that libraries import from here (brainstate:
``trace_ctx``, ``DebugInfo``, ...)."""
from glassjax.core import *  # noqa: F401,F403
from glassjax.extend.core import *  # noqa: F401,F403
from glassjax.shape_poly import is_constant_dim  # noqa: F401
from glassjax.call import call_p, closed_call_p  # noqa: F401
from glassjax import core as _core, dtypes as _dtypes


def physical_aval(aval):
    """The type of the values that hold ``aval``: a key array's words (an extended
    dtype says what holds it); any other type holds itself."""
    if isinstance(aval.dtype, _dtypes.ExtendedDType):
        return aval.dtype.physical_aval(aval)
    return aval


def trace_state_clean() -> bool:
    """No transformation is running: the eval trace is current and no axis is named
    (numpyro caches its compiled functions only then)."""
    return _core.trace_ctx.trace is _core.eval_trace and not _core.nonempty_axis_env()
