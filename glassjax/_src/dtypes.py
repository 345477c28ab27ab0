"""``jax._src.dtypes``: JAX's dtype rules (promotion, canonical dtypes), which are
glassjax's ``dtypes`` module, plus the few names libraries import from here."""
import numpy as np

from glassjax.dtypes import *  # noqa: F401,F403
from glassjax.dtypes import ExtendedDType, TypePromotionError, extended, finfo  # noqa: F401

DType = np.dtype


def supports_inf(dtype) -> bool:
    """Whether ``dtype`` has an infinity (the float8 formats without one do not)."""
    return bool(np.issubdtype(dtype, np.inexact)
                and np.isinf(np.array(np.inf).astype(dtype)))
