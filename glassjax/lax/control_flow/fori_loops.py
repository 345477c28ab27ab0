"""``lax.fori_loop``: a counted loop, as a ``scan`` when the trip count is known while
tracing (so reverse mode works) and as a ``while`` otherwise."""
from __future__ import annotations

import weakref

import numpy as np

from glassjax import config, dtypes
from glassjax.lax import elementwise
from glassjax.lax.control_flow import common
from glassjax.lax.control_flow.scans import scan
from glassjax.lax.control_flow.while_loops import while_loop
from glassjax.lax.elementwise import _const


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_dtype = dtypes.dtype(lower)
    upper_dtype = dtypes.dtype(upper)
    dtype = lower_dtype if lower_dtype == upper_dtype else _bounds_dtype(lower, upper)
    if common.is_concrete(lower) and common.is_concrete(upper):
        try:
            trip = (int(lower), int(upper))
        except TypeError:
            trip = None
    else:
        trip = None
    if trip is not None:
        lower_, upper_ = trip
        length = max(upper_ - lower_, 0)
        if config.jax_disable_jit and length == 0:
            return init_val
        (_, result), _ = scan(_scan_body(body_fun), (lower_, init_val), None,
                              length=length, unroll=False if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if lower_dtype != dtype:
        lower = elementwise.convert_element_type(lower, dtype)
    if upper_dtype != dtype:
        upper = elementwise.convert_element_type(upper, dtype)
    _, _, result = while_loop(_while_cond, _while_body(body_fun), (lower, upper, init_val))
    return result


def _bounds_dtype(lower, upper):
    """Bounds of different integer types are allowed when one is weakly typed (a Python
    int): it takes the other's type."""
    lower_dtype, upper_dtype = dtypes.dtype(lower), dtypes.dtype(upper)
    if (dtypes.issubdtype(lower_dtype, np.signedinteger) and
            dtypes.issubdtype(upper_dtype, np.signedinteger)):
        lower_weak, upper_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
        if lower_weak and not upper_weak:
            return upper_dtype
        if upper_weak and not lower_weak:
            return lower_dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lower_dtype.name} and {upper_dtype.name}")


def _while_cond(state):
    i, upper, _ = state
    return elementwise.lt(i, upper)


def _scan_body(body_fun):
    """The scan body for ``body_fun``, made once per ``body_fun`` so that its traces are
    cached like those of ``body_fun`` itself."""
    def build():
        body = _weak(body_fun)

        def scanned(loop_carry, _):       # (JAX's names, which its errors quote)
            i, x = loop_carry
            return (i + 1, body()(i, x)), None
        return scanned
    return common.memoize(body_fun, "fori_scan_body", build)


def _while_body(body_fun):
    def build():
        body = _weak(body_fun)

        def while_body(loop_carry):
            i, upper, x = loop_carry
            return elementwise.add(i, _const(i, 1)), upper, body()(i, x)
        return while_body
    return common.memoize(body_fun, "fori_while_body", build)


def _weak(fun):
    """A reference to ``fun`` that does not keep it alive (the wrappers above are cached
    for as long as ``fun`` lives), where ``fun`` allows one."""
    try:
        return weakref.ref(fun)
    except TypeError:
        return lambda: fun
