"""Checking derivatives against finite differences (JAX's ``jax.test_util``).

``check_grads(f, args, order)`` compares forward mode (``jvp``) and reverse mode (``vjp``)
with central differences ``(f(x + eps*t) - f(x - eps*t)) / (2*eps)`` along one random
direction ``t``, and recursively the derivatives of the derivatives up to ``order``.
Reverse mode is checked through the identity ``<t, vjp(c)> == <jvp(t), c>`` for a
random cotangent ``c``, so no Jacobian is ever formed.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from glassjax import dtypes
from glassjax.tree_util import tree_map, tree_reduce

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4

# Tolerances per dtype: for values, and (looser) for derivatives.
_default_tolerance = {
    dtypes.float0: 0, np.dtype(np.bool_): 0,
    **{np.dtype(t): 0 for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64)},
    np.dtype(dtypes.bfloat16): 1e-2, np.dtype(np.float16): 1e-3,
    np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-15,
    np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}
default_gradient_tolerance = {
    np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def _dtype(x) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    if type(x) in dtypes.python_scalar_dtypes:
        return np.dtype(dtypes.python_scalar_dtypes[type(x)])
    return np.asarray(x).dtype


def _is_python_scalar(x) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def tolerance(dtype, tol=None):
    """``tol`` if a number, else the entry for ``dtype`` in ``tol`` or the defaults."""
    tol = {} if tol is None else tol
    if not isinstance(tol, dict):
        return tol
    tol = {np.dtype(k): v for k, v in tol.items()}
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _default_tolerance[dtype])


def _assert_close(a, b, atol=None, rtol=None, err_msg=""):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    atol = max(tolerance(a.dtype, atol), tolerance(b.dtype, atol)) * a.size
    rtol = max(tolerance(a.dtype, rtol), tolerance(b.dtype, rtol)) * b.size
    upcast = lambda x: x.astype(np.float32) if x.dtype == dtypes.bfloat16 else x
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(upcast(a), upcast(b), atol=atol or 0, rtol=rtol or 1e-7,
                                   err_msg=err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    assert_close = functools.partial(_assert_close, atol=atol, rtol=rtol, err_msg=err_msg)
    tree_map(assert_close, xs, ys)


def _check_dtypes_match(xs, ys):
    def check(x, y):
        assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y))
    tree_map(check, xs, ys)


# -- arithmetic on pytrees of NumPy values ---------------------------------------------

def _preserve_input_types(f):
    def wrapped(*args):
        result = np.array(f(*args), dtype=_dtype(args[0]))
        return result.item() if all(map(_is_python_scalar, args)) else result
    return wrapped


add = functools.partial(tree_map, _preserve_input_types(operator.add))
sub = functools.partial(tree_map, _preserve_input_types(operator.sub))
conj = functools.partial(tree_map, _preserve_input_types(np.conj))


def safe_sub(xs, ys):
    """``x - y`` with ``inf - inf == 0``."""
    def subtract(x, y):
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, _dtype(x)),
                            np.subtract(x, y, dtype=_dtype(x)))
    return tree_map(subtract, xs, ys)


def scalar_mul(xs, a):
    def mul(x):
        dtype = _dtype(x)
        result = np.multiply(x, np.array(a, dtype=dtype), dtype=dtype)
        return result.item() if _is_python_scalar(x) else result
    return tree_map(mul, xs)


def inner_prod(xs, ys):
    def contract(x, y):
        return np.real(np.dot(np.conj(x).reshape(-1), np.asarray(y).reshape(-1)))
    return tree_reduce(np.add, tree_map(contract, xs, ys))


def rand_like(rng, x):
    shape, dtype = np.shape(x), _dtype(x)
    randn = lambda: np.asarray(rng.randn(*shape), dtype=dtype)
    result = randn() + dtype.type(1j) * randn() if dtypes.issubdtype(
        dtype, np.complexfloating) else randn()
    return result.item() if _is_python_scalar(x) else result


def numerical_jvp(f, primals, tangents, eps=EPS):
    """Central finite difference of ``f`` at ``primals`` along ``tangents``."""
    delta = scalar_mul(tangents, eps)
    f_pos = f(*add(primals, delta))
    f_neg = f(*sub(primals, delta))
    return scalar_mul(safe_sub(f_pos, f_neg), 0.5 / eps)


def _merge_tolerance(tol, default):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    return {**default, **{np.dtype(k): v for k, v in tol.items()}}


# -- the checks ---------------------------------------------------------------------------

def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_jvp(args, tangents)`` (e.g. ``partial(jvp, f)``) against finite
    differences along a random direction."""
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    tangent = tree_map(functools.partial(rand_like, np.random.RandomState(0)), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected)
    t_out_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_out_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_vjp(*args)`` (e.g. ``partial(vjp, f)``) against finite differences:
    ``<t, vjp(c)>`` must equal ``<jvp(t), c>`` for random ``t`` and ``c``."""
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    random_like = functools.partial(rand_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    check_close(v_out, f(*args), atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(random_like, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(random_like, v_out)
    cotangent_out = conj(vjpfun(conj(cotangent)))
    check_close(inner_prod(tangent, cotangent_out), inner_prod(tangent_out, cotangent),
                atol=atol, rtol=rtol, err_msg=(f"{err_msg} cotangent projection"
                                               if err_msg else "cotangent projection"))


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check the derivatives of ``f`` at ``args`` up to ``order``, in forward mode
    (``"fwd"``), reverse mode (``"rev"``) and/or via ``linearize`` (``"lin"``).
    Raises AssertionError on a mismatch."""
    from glassjax.ad_api import jvp, linearize, vjp
    args = tuple(args)
    eps = eps or EPS
    _check_jvp = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    _check_vjp = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def jvp_from_linearize(f, primals, tangents):
        out, f_lin = linearize(f, *primals)
        return out, f_lin(*tangents)

    def check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            _check_jvp(f, functools.partial(jvp, f), args, err_msg=msg)
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            _check_vjp(f, functools.partial(vjp, f), args, err_msg=msg)
            if order > 1:
                def f_vjp(*args):
                    out, vjp_fun = vjp(f, *args)
                    return vjp_fun(out)
                check(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            _check_jvp(f, functools.partial(jvp_from_linearize, f), args, err_msg=msg)
            if order > 1:
                check(functools.partial(jvp_from_linearize, f), (args, args), order - 1,
                      msg)

    check(f, args, order)
