"""Window functions for spectral analysis: ``bartlett``, ``blackman``, ``hamming``,
``hanning``, ``kaiser``: closed formulas over ``n = 0 .. M-1`` in the default float
dtype (a length of 0 or 1 gives ``ones(M)``)."""
from __future__ import annotations

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.numpy import ufuncs


def _window(name, formula):
    def window(M):
        M = core.concrete_or_error(int, M, f"M argument of jnp.{name}")
        dtype = dtypes.default_float_dtype()
        if M <= 1:
            return lax.full((M,), 1, dtype)
        return formula(lax.iota(dtype, M), M)
    window.__name__ = window.__qualname__ = name
    return window


bartlett = _window("bartlett", lambda n, M: 1 - ufuncs.abs(2 * n + 1 - M) / (M - 1))
bartlett.__doc__ = "The triangular window ``1 - |2n - (M-1)| / (M-1)``."
blackman = _window("blackman", lambda n, M: 0.42 - 0.5 * ufuncs.cos(2 * np.pi * n / (M - 1))
                   + 0.08 * ufuncs.cos(4 * np.pi * n / (M - 1)))
blackman.__doc__ = "The Blackman window (three cosine terms)."
hamming = _window("hamming", lambda n, M: 0.54 - 0.46 * ufuncs.cos(2 * np.pi * n / (M - 1)))
hamming.__doc__ = "The Hamming window ``0.54 - 0.46 cos(2 pi n / (M-1))``."
hanning = _window("hanning", lambda n, M: 0.5 * (1 - ufuncs.cos(2 * np.pi * n / (M - 1))))
hanning.__doc__ = "The Hann window ``0.5 (1 - cos(2 pi n / (M-1)))``."


def kaiser(M, beta):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - alpha)/alpha)^2)) / I0(beta)`` with
    ``alpha = (M-1)/2``."""
    def formula(n, M):
        alpha = 0.5 * (M - 1)
        return ufuncs.i0(beta * ufuncs.sqrt(1 - ((n - alpha) / alpha) ** 2)) / ufuncs.i0(beta)
    return _window("kaiser", formula)(M)
