"""Operators (``x + y``, ``x[i]``, ``x @ y``, ...), methods (``x.sum()``,
``x.reshape(...)``, ...) and properties (``x.T``, ``x.at``, ...) of arrays and tracers.

Both ``glassjax.Array`` (the device array) and ``core.Tracer`` get the very same
functions, so code behaves alike whether it runs eagerly or under a transformation.
Every one of them is a ``jnp`` function: ``x + 1`` is ``jnp.add(x, 1)``.

Binary operators return ``NotImplemented`` for operand types they do not know, so Python
can try the other operand's reflected operator (``__radd__`` and friends).
"""
from __future__ import annotations

import numpy as np

from glassjax import core, dtypes, lax
from glassjax.lax import state
from glassjax.array import Array, ArrayImpl
from glassjax.numpy import (array_api_metadata, editing, indexing, lax_numpy, reductions,
                            setops, sorting, tensor_contractions, ufuncs)
from glassjax.numpy.array_creation import copy as _copy

# (Tracers first: ``isinstance(tracer, Array)`` is slow, see ``util.is_array``.)
_ACCEPTED_BINOP_TYPES = (core.Tracer, int, float, complex, np.generic, np.ndarray, Array)


def _binop(ufunc, reflected=False, reject=(), symbol=""):
    """An operator method calling ``ufunc``: ``ufunc(self, other)``, or
    ``ufunc(other, self)`` for the reflected form. Lists, tuples, ... (``reject``) are
    errors rather than ``NotImplemented``, as in JAX (``x + [1]`` must not concatenate)."""
    def op(self, other):
        method = getattr(other, "__jax_array__", None)
        if method is not None:
            other = method()
        if isinstance(other, _ACCEPTED_BINOP_TYPES):
            return ufunc(other, self) if reflected else ufunc(self, other)
        if type(other) in reject:
            names = (type(other).__name__, type(self).__name__) if reflected else \
                (type(self).__name__, type(other).__name__)
            raise TypeError(f"unsupported operand type(s) for {symbol}: {names[0]!r} and "
                            f"{names[1]!r}")
        return NotImplemented
    op.__name__ = ufunc.__name__
    return op


def _binops(ufunc, name, reject=(), symbol=""):
    """``__name__`` and ``__rname__``."""
    return {f"__{name}__": _binop(ufunc, False, reject, symbol),
            f"__r{name}__": _binop(ufunc, True, reject, symbol)}


def _getitem(self, item):
    if isinstance(self.aval, core.AbstractRef):       # a staged ref: a ``get`` equation
        return state.ref_get(self, item)
    return indexing.rewriting_take(self, item)


def _setitem(self, i, x):
    if isinstance(getattr(self, "aval", None), core.AbstractRef):   # a ``swap``
        state.ref_swap(self, i, x)
        return
    raise TypeError(
        "JAX arrays are immutable and do not support in-place item assignment. Instead of "
        "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _round(number, ndigits=None):
    """``round(x)`` gives an integer array, ``round(x, n)`` a rounded one."""
    out = lax_numpy.round(number, decimals=ndigits or 0)
    return out.astype(int) if ndigits is None else out


def _contains(self, other):
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    from glassjax.numpy.util import ensure_arraylike
    query = ensure_arraylike("Array.__contains__", other)
    if self.ndim != 1:
        raise ValueError("Array.__contains__: search array must be one-dimensional, got "
                         f"arr.shape={self.shape}.")
    if query.ndim != 0:
        raise ValueError("Array.__contains__: query value must be a scalar, got "
                         f"query.shape={query.shape!r}")
    return reductions.any(self == query)


_OPERATORS = {
    "__copy__": _copy,
    "__deepcopy__": lambda self, memo: _copy(self),
    "__getitem__": _getitem,
    "__setitem__": _setitem,
    "__contains__": _contains,
    "__neg__": ufuncs.negative,
    "__pos__": ufuncs.positive,
    "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.invert,
    "__round__": _round,
    "__eq__": _binop(ufuncs.equal, reject=(dict, list, set, tuple), symbol="=="),
    "__ne__": _binop(ufuncs.not_equal, reject=(dict, list, set, tuple), symbol="=="),
    "__lt__": _binop(ufuncs.less),
    "__le__": _binop(ufuncs.less_equal),
    "__gt__": _binop(ufuncs.greater),
    "__ge__": _binop(ufuncs.greater_equal),
    **_binops(ufuncs.add, "add", reject=(tuple, list), symbol="+"),
    **_binops(ufuncs.subtract, "sub"),
    **_binops(ufuncs.multiply, "mul", reject=(tuple, list), symbol="*"),
    **_binops(ufuncs.true_divide, "truediv"),
    **_binops(ufuncs.floor_divide, "floordiv"),
    **_binops(ufuncs.divmod, "divmod"),
    **_binops(ufuncs.remainder, "mod"),
    **_binops(ufuncs.power, "pow"),
    **_binops(tensor_contractions.matmul, "matmul"),
    **_binops(ufuncs.bitwise_and, "and"),
    **_binops(ufuncs.bitwise_or, "or"),
    **_binops(ufuncs.bitwise_xor, "xor"),
    **_binops(ufuncs.left_shift, "lshift"),
    **_binops(ufuncs.right_shift, "rshift"),
}


def _reshape(self, *args, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    return lax_numpy.reshape(self, args[0] if len(args) == 1 else args, order=order)


def _transpose(self, *args):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    axes = None if not args or args == (None,) else (
        args[0] if len(args) == 1 else args)
    return lax_numpy.transpose(self, axes)


def _item(self, *args):
    value = core.concrete_or_error(np.asarray, self,
                                   "This occurred in the item() method of jax.Array")
    return value.item(*args)


def _view(self, dtype=None, type=None):
    """The same bits seen as ``dtype`` (``lax.bitcast_convert_type``). A wider or
    narrower dtype changes the size of the last axis; booleans count as 8 bits and
    complex numbers as (real, imaginary) pairs."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "view")
    bits_in, bits_out = self.dtype.itemsize * 8, dtype.itemsize * 8
    if self.ndim == 0:
        if bits_in != bits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is "
                             "unchanged.")
        return _view(lax.expand_dims(self, (0,)), dtype).squeeze()
    if (self.shape[-1] * bits_in) % bits_out != 0:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                         "the total size in bytes of the last axis of the array.")
    if self.dtype == dtype:
        return self
    if self.dtype == np.bool_:
        return _view(self.astype(np.uint8), dtype)
    if np.issubdtype(self.dtype, np.complexfloating):    # interleave real, imaginary
        parts = lax_numpy.stack([ufuncs.real(self), ufuncs.imag(self)], axis=-1)
        return _view(parts.reshape(*self.shape[:-1], 2 * self.shape[-1]), dtype)
    if dtype == np.bool_:
        return _view(self, np.uint8).astype(np.bool_)
    if np.issubdtype(dtype, np.complexfloating):
        parts = _view(self, np.finfo(dtype).dtype)
        return lax.complex(parts[..., 0::2], parts[..., 1::2])
    if bits_in < bits_out:        # group the last axis, then fuse each group
        factor = bits_out // bits_in
        grouped = self.reshape(*self.shape[:-1], self.shape[-1] // factor, factor)
        return lax.bitcast_convert_type(grouped, dtype)
    if bits_in > bits_out:        # each element splits along a new last axis
        out = lax.bitcast_convert_type(self, dtype)
        return out.reshape(*self.shape[:-1], -1)
    return lax.bitcast_convert_type(self, dtype)


def _to_device(self, device, *, stream=None):
    """The array on ``device`` (committed there), as ``jax.device_put`` puts it."""
    del stream
    from glassjax.xla import runtime
    return runtime.device_put(self, device, committed=True)


def _byteswap(self):
    """The array with the bytes of each element reversed (little- to big-endian)."""
    if dtypes.issubdtype(self.dtype, np.complexfloating):
        return lax.complex(_byteswap(self.real), _byteswap(self.imag))
    if self.dtype.itemsize == 1:
        return _copy(self)
    as_bytes = lax.bitcast_convert_type(self, np.dtype("uint8"))
    return lax.bitcast_convert_type(lax.rev(as_bytes, [self.ndim]), self.dtype)


def _notimplemented_flat(self):
    raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


_METHODS = {
    "__array_namespace__": array_api_metadata.__array_namespace__,
    "all": reductions.all,
    "any": reductions.any,
    "argmax": reductions.argmax,
    "argmin": reductions.argmin,
    "argsort": sorting.argsort,
    "astype": lambda self, dtype, copy=False, device=None: lax_numpy.astype(
        self, dtype, copy=copy, device=device),
    "byteswap": _byteswap,
    "choose": lambda self, choices, out=None, mode="raise": editing.choose(
        self, choices, out=out, mode=mode),
    "clip": lambda self, min=None, max=None: lax_numpy.clip(self, min=min, max=max),
    "compress": lambda self, condition, axis=None, *, out=None, size=None, fill_value=0:
        editing.compress(condition, self, axis=axis, out=out, size=size,
                         fill_value=fill_value),
    "conj": ufuncs.conj,
    "conjugate": ufuncs.conjugate,
    "copy": _copy,
    "cumprod": reductions.cumprod,
    "cumsum": reductions.cumsum,
    "diagonal": lax_numpy.diagonal,
    "dot": tensor_contractions.dot,
    "flatten": lax_numpy.ravel,
    "item": _item,
    "max": reductions.max,
    "mean": reductions.mean,
    "min": reductions.min,
    "nonzero": lax_numpy.nonzero,
    "prod": reductions.prod,
    "ptp": reductions.ptp,
    "ravel": lax_numpy.ravel,
    "repeat": lax_numpy.repeat,
    "reshape": _reshape,
    "round": lax_numpy.round,
    "searchsorted": setops.searchsorted,
    "sort": sorting.sort,
    "squeeze": lax_numpy.squeeze,
    "std": reductions.std,
    "sum": reductions.sum,
    "swapaxes": lax_numpy.swapaxes,
    "take": indexing.take,
    "trace": lax_numpy.trace,
    "to_device": _to_device,
    "tobytes": lambda self, order="C": np.asarray(self).tobytes(order),
    "transpose": _transpose,
    "var": reductions.var,
    "view": _view,
}

_PROPERTIES = {
    "T": lax_numpy.transpose,
    "mT": lax_numpy.matrix_transpose,
    "real": ufuncs.real,
    "imag": ufuncs.imag,
    "nbytes": lambda self: np.size(self) * self.dtype.itemsize,
    "itemsize": lambda self: self.dtype.itemsize,
    "at": lambda self: (state.RefAt(self) if isinstance(self.aval, core.AbstractRef)
                        else indexing._IndexUpdateHelper(self)),
    "flat": _notimplemented_flat,
}

# ArrayImpl (glassjax/array.py) already defines these from its device buffers.
_ARRAY_IMPL_OWN = {"copy", "item"}


def _install(cls, exclude=frozenset()):
    for name, fun in {**_OPERATORS, **_METHODS}.items():
        if name not in exclude:
            setattr(cls, name, fun)
    for name, fun in _PROPERTIES.items():
        setattr(cls, name, property(fun))


def register_array_methods():
    """Give tracers and device arrays their operators, methods and properties."""
    _install(core.Tracer)
    _install(ArrayImpl, exclude=_ARRAY_IMPL_OWN)

