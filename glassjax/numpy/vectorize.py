"""``jnp.vectorize``: NumPy's ``vectorize`` (and generalized ufuncs) as nested ``vmap``s;
``apply_along_axis`` too.

``vectorize(f)`` calls ``f`` on scalars; ``vectorize(f, signature='(n),(n)->()')`` calls
it on arrays with the *core dimensions* the signature names. All other (leading) axes
are *loop dimensions*: they broadcast against each other as in NumPy, and each becomes
one ``vmap`` -- no Python loop, and no broadcast copies either: an argument whose loop
axis has size 1 is squeezed and simply left unmapped (``in_axes=None``) by that vmap.
"""
from __future__ import annotations

import functools
import re
import warnings

import numpy as np

from glassjax import config
from glassjax.numpy import lax_numpy
from glassjax.numpy.array_creation import asarray
from glassjax.numpy.util import canonicalize_axis, check_arraylike, ensure_arraylike
from glassjax.vmap_api import vmap

_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = "(?:{0}(?:,{0})*)?".format(_DIMENSION_NAME)
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = "{0}(?:,{0})*".format(_ARGUMENT)
_SIGNATURE = "^{0}->{0}$".format(_ARGUMENT_LIST)


def _parse_signature(signature: str):
    """``'(m,n),(n)->(m)'`` -> ``([('m', 'n'), ('n',)], [('m',)])``."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_DIMENSION_NAME, arg))
                  for arg in re.findall(_ARGUMENT, side)]
                 for side in signature.split("->"))


def _update_dim_sizes(dim_sizes, shape, core_dims, error_context, *, is_input):
    """Check ``shape``'s core dimensions (its trailing axes) against the sizes seen so
    far, recording new ones in ``dim_sizes``."""
    if is_input and len(shape) < len(core_dims):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for "
                         f"all core dimensions {core_dims!r} {error_context}")
    if not is_input and len(shape) != len(core_dims):
        raise ValueError(f"output shape {shape!r} does not match core dimensions "
                         f"{core_dims!r} {error_context}")
    core_shape = shape[len(shape) - len(core_dims):]
    for dim, size in zip(core_dims, core_shape):
        if dim_sizes.setdefault(dim, size) != size:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs "
                             f"{dim_sizes[dim]!r} {error_context}")


def _check_output_dims(func, dim_sizes, output_core_dims, error_context):
    """``func``, checking that each call returns outputs with the signature's core
    dimensions (sized consistently with the inputs')."""
    def checked(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else [out]
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError("output must be a tuple when multiple outputs are expected, "
                            f"got: {out!r}\n{error_context}")
        if len(outs) != len(output_core_dims):
            raise TypeError(f"wrong number of output arguments: expected "
                            f"{len(output_core_dims)!r}, got {len(outs)!r} {error_context}")
        sizes = dict(dim_sizes)
        for x, core_dims in zip(outs, output_core_dims):
            _update_dim_sizes(sizes, np.shape(x), core_dims, error_context,
                              is_input=False)
        return out
    return checked


def _apply_excluded(func, excluded, args, kwargs):
    """Bind the excluded arguments (positions or keyword names) into ``func``; returns
    it with the remaining arguments."""
    if not excluded:
        return func, args, kwargs
    static_args = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
                   if i < len(args)]
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}

    def partial_func(*args, **kwargs):
        args = list(args)
        for i, arg in static_args:
            args.insert(i, arg)
        return func(*args, **kwargs, **static_kwargs)

    return (partial_func, [a for i, a in enumerate(args) if i not in excluded],
            {k: v for k, v in kwargs.items() if k not in excluded})


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """``pyfunc`` applied elementwise (or, with a gufunc ``signature`` such as
    ``'(n,m),(m)->(n)'``, over core sub-arrays), broadcasting over all leading axes.

    ``excluded``: positions or keyword names of arguments passed to ``pyfunc``
    unchanged."""
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        error_context = (f"on vectorized function with excluded={excluded!r} and "
                         f"signature={signature!r}")
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            input_core_dims, output_core_dims = _parse_signature(signature)
        else:
            input_core_dims, output_core_dims = [()] * len(args), None
        none_args = {i for i, arg in enumerate(args) if arg is None}
        if none_args:   # None is passed through, like an excluded argument
            if any(input_core_dims[i] != () for i in none_args):
                raise ValueError(f"Cannot pass None at locations {none_args} with "
                                 f"signature={signature!r}")
            func, args, _ = _apply_excluded(func, none_args, args, {})
            input_core_dims = [d for i, d in enumerate(input_core_dims)
                               if i not in none_args]
        args = tuple(map(asarray, args))
        if len(args) != len(input_core_dims):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(input_core_dims)!r}, got {len(args)!r} {error_context}")
        dim_sizes: dict = {}
        for arg, core_dims in zip(args, input_core_dims):
            _update_dim_sizes(dim_sizes, arg.shape, core_dims, error_context, is_input=True)
        loop_shapes = [arg.shape[:arg.ndim - len(core)]
                       for arg, core in zip(args, input_core_dims)]
        broadcast_shape = lax_numpy.broadcast_shapes(*loop_shapes)
        if output_core_dims is not None:
            func = _check_output_dims(func, dim_sizes, output_core_dims, error_context)
        _check_rank_promotion(args, loop_shapes, signature)
        return _vmap_over_loop_dims(func, args, loop_shapes, broadcast_shape)

    return wrapped


def _check_rank_promotion(args, loop_shapes, signature):
    if config.jax_numpy_rank_promotion == "allow":
        return
    if len({len(s) for s, arg in zip(loop_shapes, args) if arg.ndim}) > 1:
        msg = (f"operands with shapes {[arg.shape for arg in args]} require rank "
               f"promotion for jnp.vectorize function with signature {signature}. Set the "
               "jax_numpy_rank_promotion config option to 'allow' to disable this "
               "message; for more information, see "
               "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
        if config.jax_numpy_rank_promotion == "warn":
            warnings.warn(msg)
        else:
            raise ValueError(msg)


def _vmap_over_loop_dims(func, args, loop_shapes, broadcast_shape):
    """One vmap per loop dimension, innermost (last) first. Size-1 loop axes are squeezed
    out and left unmapped; a loop dimension no argument maps is a size-1 axis, put back
    into the result at the end."""
    ndim = len(broadcast_shape)
    squeezed = [lax_numpy.squeeze(arg, tuple(i for i, d in enumerate(shape) if d == 1))
                for arg, shape in zip(args, loop_shapes)]
    # Each argument's loop shape, left-padded with 1s to the broadcast rank, reversed.
    padded = [((1,) * (ndim - len(shape)) + shape)[::-1] for shape in loop_shapes]
    dims_to_expand = []
    for negdim, sizes in enumerate(zip(*padded)):
        in_axes = tuple(None if size == 1 else 0 for size in sizes)
        if all(axis is None for axis in in_axes):
            dims_to_expand.append(ndim - 1 - negdim)
        else:
            func = vmap(func, in_axes)
    result = func(*squeezed)
    if not dims_to_expand:
        return result
    if isinstance(result, tuple):
        return tuple(lax_numpy.expand_dims(r, dims_to_expand) for r in result)
    return lax_numpy.expand_dims(result, dims_to_expand)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``: one ``vmap`` per
    other axis (those after ``axis`` map their slices' results to the end, as NumPy
    places them; those before it stay in front)."""
    check_arraylike("apply_along_axis", arr)
    num_dims = np.ndim(arr)
    axis = canonicalize_axis(axis, num_dims)
    func = lambda arr: func1d(arr, *args, **kwargs)
    for i in range(1, num_dims - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each axis in turn, the result fed to the next call; a
    result that lost ``axis`` gets it back with size 1 (as with ``keepdims``)."""
    a_arr = ensure_arraylike("apply_over_axes", a)
    for axis in axes:
        b = func(a_arr, axis)
        if b.ndim == a_arr.ndim:
            a_arr = b
        elif b.ndim == a_arr.ndim - 1:
            a_arr = lax_numpy.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a_arr
