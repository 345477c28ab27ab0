"""``glassjax.scipy.special``: special functions as ``jax.scipy.special``.

Most are one lax primitive after dtype promotion (``erf``, ``gammaln``, ``digamma``...), the
XLA/CHLO kernels doing the numerics. The rest are compositions written the way JAX writes
them -- a ``custom_jvp`` where the naive derivative would be NaN or inaccurate (``xlogy`` at
0, ``logit``, ``log_ndtr`` in the far tail), rational approximations from Cephes for the
normal quantile (``ndtri``) -- so values and jaxprs match JAX's. They live in
``special_functions.py`` and ``special_integrals.py``; this module gathers them.
"""
from glassjax.nn.special import logsumexp  # noqa: F401
from glassjax.scipy.special_functions import (  # noqa: F401
    bernoulli, bessel_jn, beta, betainc, betaln, boxcox, boxcox1p, comb, digamma, entr,
    erf, erfc, erfinv, expit, factorial, gamma, gammainc, gammaincc, gammaln, gammasgn,
    hyp1f1, i0, i0e, i1, i1e, kl_div, log_ndtr, log_softmax, loggamma, logit,
    multigammaln, ndtr, ndtri, owens_t, poch, polygamma, rel_entr, softmax, spence,
    xlog1py, xlogy, zeta)
from glassjax.scipy.special_integrals import (  # noqa: F401
    dawsn, erfcx, exp1, expi, expn, fresnel, hyp2f1, sici, sph_harm_y, wofz)

__all__ = ["bernoulli", "bessel_jn", "beta", "betainc", "betaln", "boxcox", "boxcox1p",
           "comb", "dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1",
           "expi", "expit", "expn", "factorial", "fresnel", "gamma", "gammainc", "gammaincc",
           "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "kl_div",
           "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln",
           "ndtr", "ndtri", "owens_t", "poch", "polygamma", "rel_entr", "sici", "softmax",
           "sph_harm_y", "spence", "wofz", "xlog1py", "xlogy", "zeta"]
