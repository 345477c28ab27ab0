"""``glassjax.numpy``: NumPy's API on glassjax arrays (JAX's ``jax.numpy``).

Every function here is written in terms of ``glassjax.lax``: it promotes its arguments
the way JAX does (``util``), then binds lax primitives, so it works eagerly and under
every transformation alike. Importing this package also installs the array operators and
methods (``x + y``, ``x.sum()``, ``x[i]``, ``x.at[i].set(v)``) on arrays and tracers.
"""
import numpy as _np

from glassjax import dtypes as _dtypes
from glassjax.array import Array as ndarray
from glassjax.numpy import array_methods as _array_methods
from glassjax.numpy.array_creation import (arange, array, asarray, copy, empty, empty_like,
                                           eye, full, full_like, geomspace, identity,
                                           indices, linspace, logspace, meshgrid, ones,
                                           ones_like, tri, tril, triu, zeros, zeros_like)
from glassjax.numpy.convolve import convolve, correlate
from glassjax.numpy.indexing import put_along_axis, take, take_along_axis
from glassjax.numpy.lax_numpy import (allclose, angle, append, argwhere, around,
                                      array_equal, array_equiv, array_split, astype,
                                      atleast_1d, atleast_2d, atleast_3d, bincount,
                                      broadcast_arrays, broadcast_shapes, broadcast_to,
                                      clip, column_stack, concat, concatenate, cross,
                                      diag, diag_indices, diag_indices_from, diagonal,
                                      diff, dsplit, dstack, expand_dims,
                                      flatnonzero, flip, fliplr, flipud, fmax, fmin,
                                      hsplit, hstack, isclose, iscomplex, iscomplexobj,
                                      isreal, isrealobj, isscalar, kron,
                                      matrix_transpose, moveaxis, nan_to_num, nonzero, pad,
                                      permute_dims, ravel, repeat, reshape, result_type,
                                      roll, rot90, round, select, split, squeeze, stack,
                                      swapaxes, tile, trace, transpose, tril_indices,
                                      tril_indices_from, triu_indices, triu_indices_from,
                                      trunc, unstack, vsplit,
                                      vstack, where)
from glassjax.numpy.reductions import (all, amax, amin, any, argmax, argmin, average,
                                       count_nonzero, cumprod, cumsum, cumulative_prod,
                                       cumulative_sum, max, mean, min,
                                       nanmax, nanmean, nanmin, nanprod, nansum, prod, ptp,
                                       std, sum, var)
from glassjax.numpy.scalar_types import bool_ as bool  # noqa: A004 - NumPy 2's name
from glassjax.numpy.scalar_types import (bfloat16, bool_, cdouble, complex64, complex128,
                                         complex_, csingle, double, float16, float32,
                                         float64, float_, int8, int16, int32, int64, int_,
                                         single, uint, uint8, uint16, uint32, uint64)
from glassjax.numpy.sorting import argsort, lexsort, median, percentile, quantile, sort
from glassjax.numpy.setops import (digitize, interp, intersect1d, isin, searchsorted,
                                   setdiff1d, setxor1d, union1d, unique, unique_all,
                                   unique_counts, unique_inverse, unique_values)
from glassjax.numpy.tensor_contractions import (dot, einsum, inner, matmul, matvec,
                                                outer, tensordot, vdot, vecdot, vecmat)
from glassjax.numpy.ufuncs import (abs, absolute, acos, acosh, arccos, arccosh, arcsin,
                                   arcsinh, arctan, arctan2, arctanh, asin, asinh, atan,
                                   atan2, atanh, bitwise_invert, bitwise_left_shift,
                                   bitwise_not, bitwise_right_shift, cbrt, ceil, conj,
                                   conjugate, copysign, cos, cosh, deg2rad, degrees, divide,
                                   divmod, equal, exp, exp2, expm1, fabs, float_power,
                                   floor, floor_divide, fmod, greater, greater_equal,
                                   heaviside, hypot, imag, invert, isfinite, isinf, isnan,
                                   isneginf, isposinf, left_shift, less, less_equal, log,
                                   log1p, log2, log10, logical_not, mod, modf, nextafter,
                                   not_equal, positive, pow, power, rad2deg, radians, real,
                                   reciprocal, remainder, right_shift, rint, sign, signbit,
                                   sin, sinc, sinh, sqrt, square, tan, tanh, true_divide)
from glassjax.numpy.ufunc_api import (add, bitwise_and, bitwise_or, bitwise_xor, logaddexp,
                                      logaddexp2, logical_and, logical_or, logical_xor,
                                      maximum, minimum, multiply, negative, subtract, ufunc)
from glassjax.numpy.util import ndim, shape, size

dtype = _np.dtype
generic, number, integer, signedinteger, unsignedinteger, inexact, floating, \
    complexfloating, character, flexible = (
        _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger,
        _np.inexact, _np.floating, _np.complexfloating, _np.character, _np.flexible)
iinfo = _dtypes.iinfo
finfo = _dtypes.finfo
issubdtype = _dtypes.issubdtype
promote_types = _dtypes.promote_types
can_cast = _np.can_cast            # (JAX's is NumPy's too)

e = _np.e
pi = _np.pi
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None

# Arrays are printed by NumPy, so NumPy's print options are jnp's.
get_printoptions, printoptions, set_printoptions = (
    _np.get_printoptions, _np.printoptions, _np.set_printoptions)

_array_methods.register_array_methods()
from glassjax.numpy.vectorize import apply_along_axis, apply_over_axes, vectorize
from glassjax.numpy import fft, linalg
