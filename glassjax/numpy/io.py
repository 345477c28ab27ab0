"""Arrays from files, buffers, strings and functions: ``load``, ``frombuffer``,
``fromstring``, ``fromfunction`` (and ``fromfile``/``fromiter``, which JAX refuses:
reading a file or consuming an iterator is a side effect a traced function must not
have). ``save``/``savez`` are NumPy's own, which accept arrays through
``__array__``."""
from __future__ import annotations

import numpy as np

from glassjax import dtypes
from glassjax.numpy.array_creation import arange, asarray
from glassjax.numpy.util import canonicalize_shape
from glassjax.vmap_api import vmap

save = np.save
savez = np.savez


def load(file, *args, **kwargs):
    """``np.load``, as a glassjax array (bfloat16 data, which NumPy saves as 2-byte
    voids, comes back as bfloat16)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, AssertionError):    # a dtype arrays cannot hold
            pass
    return out


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """The bytes of ``buffer`` read as a 1-D array of ``dtype``."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """The numbers in a text ``string`` separated by ``sep``."""
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name, what):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe "
            f"for use with JIT and other JAX transformations. Consider using "
            f"jnp.asarray(np.{name}(...)) instead, although care should be taken if "
            f"np.{name} is used within a jax transformations because of its potential "
            f"side-effect of consuming the {what}; for more information see "
            "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
            "#pure-functions")
    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not supported: ``np.{name}`` has a side effect (see the error)."
    return refuse


fromfile = _impure("fromfile", "file object")
fromiter = _impure("fromiter", "iterable object")


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*indices)`` over the index grid of ``shape``: ``function`` is vmapped
    once per axis, so it sees scalar indices (as NumPy's sees index arrays)."""
    shape = canonicalize_shape(shape, context="shape argument of jnp.fromfunction()")
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)
