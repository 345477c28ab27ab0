"""``glassjax.numpy``: NumPy's API on glassjax arrays (JAX's ``jax.numpy``).

Every function here is written in terms of ``glassjax.lax``: it promotes its arguments
the way JAX does (``util``), then binds lax primitives, so it works eagerly and under
every transformation alike. Importing this package also installs the array operators and
methods (``x + y``, ``x.sum()``, ``x[i]``, ``x.at[i].set(v)``) on arrays and tracers.
"""
import sys as _sys

import numpy as _np

from glassjax import dtypes as _dtypes
from glassjax.array import Array as ndarray
from glassjax.numpy import array_methods as _array_methods
from glassjax.numpy.array_creation import (arange, array, asarray, copy, empty, empty_like,
                                           eye, from_dlpack, full, full_like, geomspace,
                                           identity, indices, linspace, logspace, meshgrid, ones,
                                           ones_like, tri, tril, triu, zeros, zeros_like)
from glassjax.numpy.bits import packbits, unpackbits
from glassjax.numpy.convolve import convolve, correlate
from glassjax.numpy.editing import (block, choose, compress, delete, diagflat, extract,
                                    fill_diagonal, insert, piecewise, place, put, resize,
                                    rollaxis, trim_zeros)
from glassjax.numpy.histograms import (histogram, histogram2d, histogram_bin_edges,
                                       histogramdd)
from glassjax.numpy.index_tricks import (c_, index_exp, ix_, mask_indices, mgrid, ogrid, r_,
                                         ravel_multi_index, s_, unravel_index)
from glassjax.numpy.io import (frombuffer, fromfile, fromfunction, fromiter, fromstring, load,
                               save, savez)
from glassjax.numpy.numerical import (corrcoef, cov, ediff1d, gradient, trapezoid, unwrap,
                                      vander)
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
                                      matrix_transpose, moveaxis, nan_to_num, nonzero,
                                      permute_dims, ravel, repeat, reshape, result_type,
                                      roll, rot90, round, select, split, squeeze, stack,
                                      swapaxes, tile, trace, transpose, tril_indices,
                                      tril_indices_from, triu_indices, triu_indices_from,
                                      trunc, unstack, vsplit,
                                      vstack, where)
from glassjax.numpy.padding import pad
from glassjax.numpy.polynomial import (poly, polyadd, polyder, polydiv, polyfit, polyint,
                                      polymul, polysub, polyval, roots)
from glassjax.numpy.reductions import (all, amax, amin, any, argmax, argmin, average,
                                       count_nonzero, cumprod, cumsum, cumulative_prod,
                                       cumulative_sum, max, mean, min,
                                       nanargmax, nanargmin, nancumprod, nancumsum, nanmax,
                                       nanmean, nanmin, nanprod, nanstd, nansum, nanvar, prod,
                                       ptp, std, sum, var)
from glassjax.numpy.scalar_types import (bfloat16, bool_, cdouble, complex64, complex128,
                                         complex_, csingle, double, float16, float32,
                                         float4_e2m1fn, float6_e2m3fn, float6_e3m2fn,
                                         float8_e3m4, float8_e4m3, float8_e4m3b11fnuz,
                                         float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
                                         float8_e5m2fnuz, float8_e8m0fnu, float64, float_,
                                         int1, int2, int4, int8, int16, int32, int64, int_, isdtype,
                                         single, uint, uint1, uint2, uint4, uint8, uint16, uint32,
                                         uint64)
from glassjax.numpy.sorting import (argpartition, argsort, lexsort, median, nanmedian,
                                    nanpercentile, nanquantile, partition, percentile,
                                    quantile, sort, sort_complex)
from glassjax.numpy.setops import (digitize, interp, intersect1d, isin, searchsorted,
                                   setdiff1d, setxor1d, union1d, unique, unique_all,
                                   unique_counts, unique_inverse, unique_values)
from glassjax.numpy.einsum_path import einsum_path
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
                                   sin, sinc, sinh, sqrt, square, tan, tanh, true_divide,
                                   bitwise_count, frexp, gcd, i0, lcm, ldexp, spacing)
from glassjax.numpy.ufunc_api import (add, bitwise_and, bitwise_or, bitwise_xor, logaddexp,
                                      logaddexp2, logical_and, logical_or, logical_xor,
                                      maximum, minimum, multiply, negative, subtract, ufunc,
                                      frompyfunc)
from glassjax.numpy.util import ndim, shape, size
from glassjax.numpy.window_functions import bartlett, blackman, hamming, hanning, kaiser

bool = bool_  # noqa: A001 - the array API's name for bool_

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
# NumPy's own, as in JAX: they print or test host values.
array_repr, array_str, iterable, object_ = (_np.array_repr, _np.array_str, _np.iterable,
                                            _np.object_)
ComplexWarning = _np.exceptions.ComplexWarning

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
from glassjax.numpy.array_api_metadata import (__array_api_version__,
                                               __array_namespace_info__)
_array_methods.array_api_metadata.namespace = _sys.modules[__name__]
from glassjax.numpy.vectorize import apply_along_axis, apply_over_axes, vectorize
from glassjax.numpy import fft, linalg
