"""``glassjax.numpy`` against JAX 0.10.2 and NumPy.

* type promotion: the dtype and weak type of ``jnp.add`` for every pair of dtypes and
  Python scalars, as real JAX computes them (``*`` marks a weakly typed result);
* errors: the exception type and first line of the message JAX raises;
* values: results computed on the device against NumPy, for many shapes and dtypes.
"""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp

F = np.float32

# -- type promotion (recorded with JAX 0.10.2: jax.eval_shape(jnp.add, a, b)) ------------

PROMOTION_NAMES = ['bool', 'uint8', 'uint16', 'uint32', 'int8', 'int16', 'int32', 'float16',
                   'bfloat16', 'float32', 'complex64', 'int', 'float', 'complex']
PROMOTION_TABLE = [
    ['bool', 'uint8', 'uint16', 'uint32', 'int8', 'int16', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'int32*', 'float32*', 'complex64*'],
    ['uint8', 'uint8', 'uint16', 'uint32', 'int16', 'int16', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'uint8', 'float32*', 'complex64*'],
    ['uint16', 'uint16', 'uint16', 'uint32', 'int32', 'int32', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'uint16', 'float32*', 'complex64*'],
    ['uint32', 'uint32', 'uint32', 'uint32', 'int32', 'int32', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'uint32', 'float32*', 'complex64*'],
    ['int8', 'int16', 'int32', 'int32', 'int8', 'int16', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'int8', 'float32*', 'complex64*'],
    ['int16', 'int16', 'int32', 'int32', 'int16', 'int16', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'int16', 'float32*', 'complex64*'],
    ['int32', 'int32', 'int32', 'int32', 'int32', 'int32', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'int32', 'float32*', 'complex64*'],
    ['float16', 'float16', 'float16', 'float16', 'float16', 'float16', 'float16', 'float16', 'float32', 'float32', 'complex64', 'float16', 'float16', 'complex64'],
    ['bfloat16', 'bfloat16', 'bfloat16', 'bfloat16', 'bfloat16', 'bfloat16', 'bfloat16', 'float32', 'bfloat16', 'float32', 'complex64', 'bfloat16', 'bfloat16', 'complex64'],
    ['float32', 'float32', 'float32', 'float32', 'float32', 'float32', 'float32', 'float32', 'float32', 'float32', 'complex64', 'float32', 'float32', 'complex64'],
    ['complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64'],
    ['int32*', 'uint8', 'uint16', 'uint32', 'int8', 'int16', 'int32', 'float16', 'bfloat16', 'float32', 'complex64', 'int32*', 'float32*', 'complex64*'],
    ['float32*', 'float32*', 'float32*', 'float32*', 'float32*', 'float32*', 'float32*', 'float16', 'bfloat16', 'float32', 'complex64', 'float32*', 'float32*', 'complex64*'],
    ['complex64*', 'complex64*', 'complex64*', 'complex64*', 'complex64*', 'complex64*', 'complex64*', 'complex64', 'complex64', 'complex64', 'complex64', 'complex64*', 'complex64*', 'complex64*'],
]


def _promotion_arg(name):
    if name in ("int", "float", "complex"):
        return {"int": 1, "float": 1.0, "complex": 1j}[name]
    return glassjax.ShapeDtypeStruct((2,), jnp.dtype(name))


@pytest.mark.parametrize("a", PROMOTION_NAMES)
def test_promotion_table_matches_jax(a):
    row = []
    for b in PROMOTION_NAMES:
        out = glassjax.eval_shape(jnp.add, _promotion_arg(a), _promotion_arg(b))
        row.append(out.dtype.name + ("*" if out.weak_type else ""))
    assert row == PROMOTION_TABLE[PROMOTION_NAMES.index(a)]


# -- errors (recorded with JAX 0.10.2 under make_jaxpr) ----------------------------------

ERRORS = [
    ('list_argument', 'lambda: jnp.sum([1, 2])', [],
     ('TypeError', "sum requires ndarray or scalar arguments, got <class 'list'> at position 0.")),
    ('incompatible_shapes', 'lambda a, b: a + b', [((3,), F), ((4,), F)],
     ('TypeError', 'add got incompatible shapes for broadcasting: (3,), (4,).')),
    ('incompatible_rank_promotion', 'lambda a, b: a + b', [((2, 3), F), ((4,), F)],
     ('ValueError', 'Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]')),
    ('broadcast_to_bad', 'lambda a: jnp.broadcast_to(a, (2, 4))', [((3,), F)],
     ('ValueError', 'Incompatible types for broadcasting: input type=float32[3] and requested type=float32[2,4]')),
    ('reshape_bad_size', 'lambda a: a.reshape(4, 2)', [((2, 3), F)],
     ('TypeError', 'cannot reshape array of shape (2, 3) (size 6) into shape (4, 2) (size 8)')),
    ('reshape_two_unknown', 'lambda a: a.reshape(-1, -1)', [((2, 3), F)],
     ('TypeError', 'can only specify one unknown axis size with a `-1` value, got (-1, -1)')),
    ('matmul_scalar', 'lambda a: jnp.matmul(a, 2.)', [((2, 3), F)],
     ('ValueError', 'matmul input operand 1 must have ndim at least 1, but it has ndim 0')),
    ('matmul_mismatch', 'lambda a: a @ a', [((2, 3), F)],
     ('TypeError', 'dot_general requires contracting dimensions to have the same shape, got (3,) and (2,).')),
    ('axis_out_of_bounds', 'lambda a: jnp.sum(a, axis=2)', [((2, 3), F)],
     ('ValueError', 'axis 2 is out of bounds for array of dimension 2')),
    ('duplicate_axis', 'lambda a: jnp.sum(a, axis=(0, 0))', [((2, 3), F)],
     ('ValueError', "duplicate value in 'axis': (0, 0)")),
    ('max_of_empty', 'lambda a: jnp.max(a, axis=0)', [((0, 3), F)],
     ('ValueError', 'zero-size array to reduction operation max which has no identity')),
    ('too_many_indices', 'lambda a: a[0, 0, 0]', [((2, 3), F)],
     ('IndexError', 'Too many indices: array is 2-dimensional, but 3 were indexed')),
    ('two_ellipses', 'lambda a: a[..., ...]', [((2, 3), F)],
     ('IndexError', "an index can only have a single ellipsis ('...')")),
    ('float_index', 'lambda a: a[1.5]', [((2, 3), F)],
     ('TypeError', 'Indexer must have integer or boolean type, got indexer with type float64')),
    ('list_of_slices_index', 'lambda a: a[[slice(None), 0]]', [((2, 3), F)],
     ('TypeError', 'Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[tuple(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.')),
    ('traced_bool_mask', 'lambda a: a[a > 0]', [((2, 3), F)],
     ('NonConcreteBooleanIndexError', 'Array boolean indices must be concrete; got bool[2,3]')),
    ('setitem', 'lambda a: a.__setitem__(0, 1.)', [((2, 3), F)],
     ('TypeError', 'JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html')),
    ('where_one_branch', 'lambda a: jnp.where(a > 0, a)', [((2, 3), F)],
     ('TypeError', "where requires ndarray or scalar arguments, got <class 'NoneType'> at position 2.")),
    ('concatenate_scalars', 'lambda a: jnp.concatenate([a, a])', [((), F)],
     ('ValueError', 'Zero-dimensional arrays cannot be concatenated.')),
    ('split_unequal', 'lambda a: jnp.split(a, 2, axis=1)', [((2, 3), F)],
     ('ValueError', 'array split does not result in an equal division: rest is 1')),
    ('clip_complex', 'lambda a: jnp.clip(a, 0)', [((3,), np.complex64)],
     ('ValueError', 'Clip received a complex value either through the input or the min/max keywords. Complex values have no ordering and cannot be clipped. Please convert to a real value or array by taking the real or imaginary components via jax.numpy.real/imag respectively.')),
    ('fabs_complex', 'lambda a: jnp.fabs(a)', [((3,), np.complex64)],
     ('TypeError', "ufunc 'fabs' does not support complex dtypes")),
    ('floor_divide_complex', 'lambda a: a // a', [((3,), np.complex64)],
     ('TypeError', 'floor_divide does not support complex-valued inputs')),
    ('traced_arange', 'lambda n: jnp.arange(n)', [((), np.int32)],
     ('ConcretizationTypeError', 'Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]')),
    ('zeros_forgot_tuple', 'lambda: jnp.zeros(2, 3)', [],
     ('TypeError', "Cannot interpret '3' as a data type.")),
    ('sub_bools', 'lambda a: a - a', [((3,), np.bool_)],
     ('TypeError', 'sub does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of integer, floating, complexfloating.')),
    ('tensordot_too_many_axes', 'lambda a: jnp.tensordot(a, a, 3)', [((2, 3), F)],
     ('TypeError', 'Number of tensordot axes (axes 3) exceeds input ranks ((2, 3) and (2, 3))')),
    ('squeeze_non_unit', 'lambda a: jnp.squeeze(a, axis=1)', [((1, 3, 1), F)],
     ('ValueError', 'cannot select an axis to squeeze out which has size not equal to one, got shape=(1, 3, 1) and dimensions=(1,)')),
    ('moveaxis_mismatch', 'lambda a: jnp.moveaxis(a, (0, 1), 0)', [((2, 3), F)],
     ('ValueError', 'Inconsistent number of elements: 2 vs 1')),
    ('string_index', "lambda a: a['x']", [((2, 3), F)],
     ('TypeError', "JAX does not support string indexing; got idx='x'")),
]


@pytest.mark.parametrize("name,src,args,expected", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_matches_jax(name, src, args, expected):
    fun = eval(src, {"jnp": jnp, "np": np})
    specs = [glassjax.ShapeDtypeStruct(shape, np.dtype(dtype)) for shape, dtype in args]
    with pytest.raises(Exception) as info:
        glassjax.make_jaxpr(fun)(*specs)
    assert (type(info.value).__name__, str(info.value).split("\n")[0]) == expected
