"""What the distributions symmetric about ``loc`` (``norm``, ``cauchy``) share: the upper
tail at ``x`` is the lower tail at the point mirrored about ``loc``. Computing
``sf(x) = cdf(-x, -loc, scale)`` rather than ``1 - cdf(x)`` keeps the cdf's accuracy
where it is close to 1. Read next: norm.py and cauchy.py, which use it."""
from __future__ import annotations

from glassjax.numpy.util import promote_args_inexact


def mirrored_tails(name, cdf, logcdf):
    """The ``sf`` and ``logsf`` of the symmetric distribution ``name`` (for error
    messages) from its ``cdf`` and ``logcdf``."""
    def sf(x, loc=0, scale=1):
        """The survival function ``1 - cdf``, computed as the cdf of the mirrored point."""
        x, loc, scale = promote_args_inexact(f"{name}.sf", x, loc, scale)
        return cdf(-x, -loc, scale)

    def logsf(x, loc=0, scale=1):
        """The log of ``sf``, computed as the logcdf of the mirrored point."""
        x, loc, scale = promote_args_inexact(f"{name}.logsf", x, loc, scale)
        return logcdf(-x, -loc, scale)

    return sf, logsf
