"""``logaddexp`` and ``logaddexp2``: ``log(b**x1 + b**x2)`` computed without overflow, with
a custom JVP that stays finite at infinity.

They live in lax (not in ``numpy/``) because lax needs them too: the JVP of the
``cumlogsumexp`` reduction (lax/reductions.py) is a prefix scan of ``logaddexp``.
``jnp.logaddexp`` (numpy/ufuncs.py) promotes its arguments and calls these.
Read next: lax/reductions.py.
"""
from __future__ import annotations

import numpy as np

from glassjax import dtypes
from glassjax.custom_derivatives import custom_jvp
from glassjax.lax import elementwise as ew
from glassjax.lax.elementwise import _const
from glassjax.lax.structural import full_like


def _is(x, kind):
    return dtypes.issubdtype(dtypes.dtype(x), kind)


def _replace_inf(x):
    """+inf replaced by 0 (keeps ``exp(x - out)`` finite in the JVP)."""
    re_x = ew.real(x) if _is(x, np.complexfloating) else x
    return ew.select(ew.eq(re_x, _const(re_x, np.inf)), full_like(x, 0), x)


def _wrap_between(x, a):
    """``x`` wrapped into ``[-a, a]``."""
    two_a = _const(x, 2 * a)
    rem = ew.rem(ew.add(x, _const(x, a)), two_a)
    rem = ew.select(ew.lt(rem, _const(x, 0)), ew.add(rem, two_a), rem)
    return ew.sub(rem, _const(x, a))


def _logaddexp_base(name, exp_fn, log1p_scale):
    """``log(b**x1 + b**x2)`` for base ``b`` e (``exp``) or 2 (``exp2``), computed as
    ``max + log1p(b**-|x1 - x2|)`` so that large inputs do not overflow; its JVP (the
    softmax weights of the two inputs) is a custom rule that stays finite at infinity.
    Both arguments are arrays of one inexact dtype."""
    @custom_jvp
    def fn(x1, x2):
        amax = ew.max(x1, x2)
        if _is(x1, np.floating):
            delta = ew.sub(x1, x2)
            return ew.select(ew.ne(delta, delta), ew.add(x1, x2),
                             ew.add(amax, log1p_scale(amax, ew.log1p(
                                 exp_fn(ew.neg(ew.abs(delta)))))))
        if _is(x1, np.complexfloating):
            delta = ew.sub(ew.add(x1, x2), ew.mul(amax, _const(amax, 2)))
            out = ew.add(amax, log1p_scale(amax, ew.log1p(exp_fn(delta))))
            period = np.pi if exp_fn is ew.exp else np.pi / np.log(2)
            return ew.complex(ew.real(out), _wrap_between(ew.imag(out), period))
        raise ValueError(f"{name} requires floating-point or complex inputs; got "
                         f"{x1.dtype}")

    @fn.defjvp
    def fn_jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)
        weight = lambda x: exp_fn(ew.sub(_replace_inf(x), _replace_inf(out)))
        return out, ew.add(ew.mul(t1, weight(x1)), ew.mul(t2, weight(x2)))

    fn.__name__ = fn.fun.__name__ = name
    fn_jvp.__name__ = f"_{name}_jvp"
    return fn


logaddexp = _logaddexp_base("logaddexp", ew.exp, lambda amax, y: y)
logaddexp2 = _logaddexp_base("logaddexp2", ew.exp2,
                             lambda amax, y: ew.mul(_const(amax, 1 / np.log(2)), y))
