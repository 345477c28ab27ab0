"""``glassjax.typing``: the type annotations JAX code uses (``ArrayLike``, ``DTypeLike``).

Only for annotations and ``isinstance``-free documentation: they are unions of the types
glassjax functions accept."""
from __future__ import annotations

from typing import Any, Union

import numpy as np

from glassjax.array import Array

# Anything a glassjax function takes as an array argument.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
# Anything that names a dtype: a NumPy dtype or scalar type, a string, a Python type.
DTypeLike = Union[str, type, np.dtype, Any]
Shape = tuple
