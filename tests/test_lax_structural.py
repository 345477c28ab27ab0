"""Structural and slicing lax primitives: values against NumPy, printed jaxprs, errors,
and the transpose (grad), batching (vmap) and JVP rules.

Expected jaxpr texts and error messages were printed by real JAX 0.10.2 for the same
programs (``jax.make_jaxpr``), so these tests pin glassjax to JAX's exact behaviour.
"""
import ml_dtypes
import numpy as np
import pytest

import glassjax as jax
from glassjax import lax

RNG = np.random.default_rng(0)
DTYPES = ["float32", "bfloat16", "int32", "uint8", "bool", "complex64"]


def rand(shape, dtype="float32"):
    """Random values of ``dtype`` (small integers, booleans, or floats in [-3, 3))."""
    dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return RNG.integers(0 if dtype.kind == "u" else -10, 10, shape).astype(dtype)
    values = RNG.uniform(-3, 3, shape)
    if dtype.kind == "c":
        values = values + 1j * RNG.uniform(-3, 3, shape)
    return values.astype(dtype)


def check(actual, expected):
    """Same dtype and shape, and equal values (these ops only move elements)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)
    np.testing.assert_array_equal(actual, expected)


def np_pad(x, value, config):
    """NumPy reference for lax.pad: interior padding, then low/high padding where a
    negative amount crops."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        shape = list(x.shape)
        shape[axis] = n + max(n - 1, 0) * interior
        dilated = np.full(shape, value, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, interior + 1)
        dilated[tuple(index)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(dilated, widths, constant_values=value)
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(index)]
    return x


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcasting_values(dtype):
    x = rand((3, 1), dtype)
    check(lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), np.broadcast_to(x, (2, 3, 4)))
    check(lax.broadcast_in_dim(x[:, 0], (3, 2), (0,)),
          np.broadcast_to(x[:, 0][:, None], (3, 2)))
    check(lax.broadcast(x, (2,)), np.broadcast_to(x, (2, 3, 1)))
    check(lax.broadcast_to_rank(x, 4), x[None, None])
    check(lax.expand_dims(x, (0, -1)), x[None, ..., None])


def test_scalar_broadcasts_and_fills():
    check(lax.broadcast(np.float32(2), (2, 3)), np.full((2, 3), 2, np.float32))
    check(lax.full((2, 3), 1.5), np.full((2, 3), 1.5, np.float32))
    check(lax.full((2,), 7, np.int8), np.full((2,), 7, np.int8))
    check(lax.full_like(np.zeros((2, 2), np.int32), 3), np.full((2, 2), 3, np.int32))
    check(lax.full_like(np.zeros((2, 2), np.int32), 3, np.float32, (4,)),
          np.full((4,), 3, np.float32))
    assert lax.full((2,), 1.5).weak_type and not lax.full((2,), 1.5, np.float32).weak_type


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshaping_values(dtype):
    x = rand((2, 3, 4), dtype)
    check(lax.reshape(x, (6, 4)), x.reshape(6, 4))
    check(lax.reshape(x, (4, 6), (2, 0, 1)), x.transpose(2, 0, 1).reshape(4, 6))
    check(lax.squeeze(x[:, :1], (1,)), x[:, 0])
    check(lax.squeeze(x[None, :, :1], (-2, 0)), x[:, 0])
    check(lax.collapse(x, 1), x.reshape(2, 12))
    check(lax.collapse(x, 0, 2), x.reshape(6, 4))
    check(lax.transpose(x, (1, 2, 0)), x.transpose(1, 2, 0))
    check(lax.rev(x, (0, 2)), x[::-1, :, ::-1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", [
    [(1, 2, 0), (0, 0, 0)], [(0, 0, 2), (1, 1, 1)], [(-1, 1, 0), (2, -2, 1)],
    [(-2, -1, 3), (0, -4, 2)]])
def test_pad_values(dtype, config):
    x = rand((3, 4), dtype)
    value = rand((), dtype)
    check(lax.pad(x, value, config), np_pad(x, value, config))


@pytest.mark.parametrize("dtype", DTYPES)
def test_joining_and_splitting_values(dtype):
    x, y = rand((2, 3), dtype), rand((2, 5), dtype)
    check(lax.concatenate([x, y, x], 1), np.concatenate([x, y, x], 1))
    check(lax.concatenate([x, x], 0), np.concatenate([x, x], 0))
    pieces = lax.split(y, (1, 0, 4), axis=1)
    for piece, expected in zip(pieces, np.split(y, [1, 1], axis=1)):
        check(piece, expected)
    check(lax.stack([x, y[:, :3]], 1), np.stack([x, y[:, :3]], 1))
    for piece, expected in zip(lax.unstack(y, axis=1), np.moveaxis(y, 1, 0)):
        check(piece, expected)
    check(lax.tile(x, (2, 3)), np.tile(x, (2, 3)))


def test_iota_values():
    check(lax.iota(np.int32, 5), np.arange(5, dtype=np.int32))
    check(lax.broadcasted_iota(np.float32, (2, 3), 1),
          np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)))
    check(lax.broadcasted_iota(np.uint8, (3, 2), 0),
          np.broadcast_to(np.arange(3, dtype=np.uint8)[:, None], (3, 2)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice_values(dtype):
    x = rand((5, 6), dtype)
    check(lax.slice(x, (1, 0), (4, 6)), x[1:4, 0:6])
    check(lax.slice(x, (0, 1), (5, 6), (2, 3)), x[0:5:2, 1:6:3])
    check(lax.slice_in_dim(x, -3, None, 2, axis=1), x[:, -3::2])
    check(lax.slice_in_dim(x, None, -1), x[:-1])
    check(lax.index_in_dim(x, -1, axis=1, keepdims=False), x[:, -1])
    check(lax.index_in_dim(x, 2), x[2:3])


@pytest.mark.parametrize("dtype", DTYPES)
def test_dynamic_slice_values(dtype):
    x = rand((4, 5), dtype)
    check(lax.dynamic_slice(x, (1, 2), (2, 2)), x[1:3, 2:4])
    check(lax.dynamic_slice(x, (3, 4), (2, 3)), x[2:4, 2:5])          # clamped
    check(lax.dynamic_slice(x, (-1, 0), (2, 2)), x[2:4, 0:2])         # -1 -> 3, clamped
    check(lax.dynamic_slice(x, (np.int32(1), np.int32(-2)), (1, 2)), x[1:2, 3:5])
    check(lax.dynamic_slice_in_dim(x, 1, 2, axis=1), x[:, 1:3])
    check(lax.dynamic_index_in_dim(x, 2, keepdims=False), x[2])
    u = rand((2, 2), dtype)
    expected = x.copy()
    expected[2:4, 3:5] = u                                            # clamped
    check(lax.dynamic_update_slice(x, u, (3, 4)), expected)
    row = rand((5,), dtype)
    expected = x.copy()
    expected[1] = row
    check(lax.dynamic_update_index_in_dim(x, row, 1, 0), expected)
    check(lax.dynamic_update_slice_in_dim(x, row[None], -3, axis=0), expected)


def test_dynamic_slice_with_traced_index():
    x = np.arange(10, dtype=np.int32)
    f = jax.jit(lambda i: lax.dynamic_slice(x, (i,), (3,)))
    check(f(8), np.array([7, 8, 9], np.int32))
    check(f(-2), np.array([7, 8, 9], np.int32))
    check(f(1), np.array([1, 2, 3], np.int32))


G = lax.GatherDimensionNumbers
S = lax.ScatterDimensionNumbers
ROWS = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
ROW_UPDATES = S(update_window_dims=(1,), inserted_window_dims=(0,),
                scatter_dims_to_operand_dims=(0,))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_values(dtype):
    x = rand((4, 3), dtype)
    idx = np.array([[2], [0], [2]], np.int32)
    check(lax.gather(x, idx, ROWS, (1, 3)), x[[2, 0, 2]])
    points = G(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))
    check(lax.gather(x, np.array([[1, 2], [3, 0]], np.int32), points, (1, 1)),
          x[[1, 3], [2, 0]])
    # Windows that do not fit are clamped, or filled in "fill" mode.
    oob = np.array([[5], [1]], np.int32)
    check(lax.gather(x, oob, ROWS, (1, 3), mode="clip"), x[[3, 1]])
    filled = np.asarray(lax.gather(x, oob, ROWS, (1, 3), mode="fill", fill_value=0))
    check(filled, np.stack([np.zeros(3, x.dtype), x[1]]))


def test_gather_default_fill_values():
    oob = np.array([[7]], np.int32)
    assert np.isnan(lax.gather(np.ones((2, 2), np.float32), oob, ROWS, (1, 2),
                               mode="fill")).all()
    check(lax.gather(np.ones((2, 2), np.int32), oob, ROWS, (1, 2), mode="fill"),
          np.full((1, 2), np.iinfo(np.int32).min, np.int32))
    check(lax.gather(np.ones((2, 2), np.uint8), oob, ROWS, (1, 2), mode="fill"),
          np.full((1, 2), 255, np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
def test_scatter_values(dtype):
    x = rand((4, 3), dtype)
    idx = np.array([[2], [0], [2]], np.int32)
    u = rand((3, 3), dtype)
    expected = x.copy()
    np.add.at(expected, [2, 0, 2], u)
    check(lax.scatter_add(x, idx, u, ROW_UPDATES), expected)
    expected = x.copy()
    np.subtract.at(expected, [2, 0, 2], u)
    check(lax.scatter_sub(x, idx, u, ROW_UPDATES), expected)
    expected = x.copy()
    np.multiply.at(expected, [2, 0, 2], u)
    np.testing.assert_allclose(np.asarray(lax.scatter_mul(x, idx, u, ROW_UPDATES),
                                          np.float32), expected.astype(np.float32),
                               rtol=2e-2)
    expected = x.copy()
    np.minimum.at(expected, [2, 0, 2], u)
    check(lax.scatter_min(x, idx, u, ROW_UPDATES), expected)
    expected = x.copy()
    np.maximum.at(expected, [2, 0, 2], u)
    check(lax.scatter_max(x, idx, u, ROW_UPDATES), expected)
    unique = np.array([[3], [1]], np.int32)
    expected = x.copy()
    expected[[3, 1]] = u[:2]
    check(lax.scatter(x, unique, u[:2], ROW_UPDATES, unique_indices=True), expected)


def test_scatter_apply():
    x = np.arange(5, dtype=np.float32)
    points = S(update_window_dims=(), inserted_window_dims=(0,),
               scatter_dims_to_operand_dims=(0,))
    out = lax.scatter_apply(x, np.array([[1], [3]], np.int32),
                            lambda v: lax.mul(v, np.float32(3)), points, update_shape=(2,))
    check(out, np.array([0, 3, 2, 9, 4], np.float32))


def test_scatter_modes():
    x = np.zeros((3, 2), np.float32)
    idx = np.array([[5], [1]], np.int32)
    u = np.ones((2, 2), np.float32)
    dropped = np.array([[0, 0], [1, 1], [0, 0]], np.float32)
    check(lax.scatter_add(x, idx, u, ROW_UPDATES), dropped)
    clipped = np.array([[0, 0], [1, 1], [1, 1]], np.float32)
    check(lax.scatter_add(x, idx, u, ROW_UPDATES, mode="clip"), clipped)


def test_index_take():
    x = rand((4, 5))
    check(lax.index_take(x, (np.array([1, 5]), np.array([0, -1])), (0, 1)),
          x[[1, 1], [0, 4]])


# ----------------------------------------------------------------------------------------
# Printed jaxprs (texts printed by JAX 0.10.2 for the same programs)
# ----------------------------------------------------------------------------------------

f32 = lambda *shape: np.ones(shape, np.float32)
i32 = lambda *shape: np.ones(shape, np.int32)
SDN = ROW_UPDATES

PROGRAMS = {
    "bid": (lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), [f32(3)]),
    "bcast": (lambda x: lax.broadcast(x, (2,)), [f32(3)]),
    "btr": (lambda x: lax.broadcast_to_rank(x, 3), [f32(3)]),
    "exp": (lambda x: lax.expand_dims(x, (0, -1)), [f32(3)]),
    "reshape": (lambda x: lax.reshape(x, (3, 2)), [f32(2, 3)]),
    "reshape_dims": (lambda x: lax.reshape(x, (6,), (1, 0)), [f32(2, 3)]),
    "squeeze": (lambda x: lax.squeeze(x, (-1,)), [f32(2, 1)]),
    "transpose": (lambda x: lax.transpose(x, (1, 0)), [f32(2, 3)]),
    "rev": (lambda x: lax.rev(x, (0, 1)), [f32(2, 3)]),
    "pad": (lambda x: lax.pad(x, 0., [(1, -1, 2), (0, 0, 0)]), [f32(2, 3)]),
    "concat": (lambda x: lax.concatenate([x, x, x], 1), [f32(2, 3)]),
    "split": (lambda x: lax.split(x, (1, 2), axis=1), [f32(2, 3)]),
    "stack": (lambda x: lax.stack([x, x], axis=1), [f32(2, 3)]),
    "unstack": (lambda x: lax.unstack(x, axis=1), [f32(2, 3)]),
    "tile": (lambda x: lax.tile(x, (2, 2)), [f32(2, 3)]),
    "iota": (lambda x: lax.iota(np.int32, 4), [f32(2, 3)]),
    "biota": (lambda x: lax.broadcasted_iota(np.float32, (2, 3), 1), [f32(2, 3)]),
    "full": (lambda x: lax.full((2, 3), 1.), [f32(2, 3)]),
    "full_i": (lambda x: lax.full((2, 3), 1, np.int32), [f32(2, 3)]),
    "full_like": (lambda x: lax.full_like(x, 2), [f32(2, 3)]),
    "collapse": (lambda x: lax.collapse(x, 0, 2), [f32(2, 3, 4)]),
    "slice": (lambda x: lax.slice(x, (1, 0), (3, 4), (1, 2)), [f32(4, 5)]),
    "slice_nostride": (lambda x: lax.slice(x, (1, 0), (3, 4)), [f32(4, 5)]),
    "slice_in_dim": (lambda x: lax.slice_in_dim(x, -3, None, 2, 1), [f32(4, 5)]),
    "index_in_dim": (lambda x: lax.index_in_dim(x, -1, 0, False), [f32(4, 5)]),
    "ds": (lambda x, i: lax.dynamic_slice(x, (i, 2), (2, 2)), [f32(4, 5), np.int32(1)]),
    "ds_static": (lambda x: lax.dynamic_slice(x, (-1, 2), (2, 2)), [f32(4, 5)]),
    "dus": (lambda x, u, i: lax.dynamic_update_slice(x, u, (i, -1)),
            [f32(4, 5), f32(2, 2), np.int32(1)]),
    "dsid": (lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, 1), [f32(4, 5), np.int32(1)]),
    "diid": (lambda x, i: lax.dynamic_index_in_dim(x, i, keepdims=False),
             [f32(4, 5), np.int32(1)]),
    "dusid": (lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 0),
              [f32(4, 5), f32(2, 5), np.int32(1)]),
    "duiid": (lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0),
              [f32(4, 5), f32(5), np.int32(1)]),
    "gather": (lambda x, i: lax.gather(x, i, ROWS, (1, 5)), [f32(4, 5), i32(2, 1)]),
    "gather_fill": (lambda x, i: lax.gather(x, i, ROWS, (1, 5), mode="fill"),
                    [f32(4, 5), i32(2, 1)]),
    "gather_clip": (lambda x, i: lax.gather(x, i, ROWS, (1, 5), mode="clip"),
                    [f32(4, 5), i32(2, 1)]),
    "scatter": (lambda x, i, u: lax.scatter(x, i, u, SDN), [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "scatter_add": (lambda x, i, u: lax.scatter_add(x, i, u, SDN),
                    [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "scatter_mul": (lambda x, i, u: lax.scatter_mul(x, i, u, SDN, mode="clip"),
                    [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "scatter_min": (lambda x, i, u: lax.scatter_min(x, i, u, SDN),
                    [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "scatter_max": (lambda x, i, u: lax.scatter_max(x, i, u, SDN, unique_indices=True),
                    [f32(4, 5), i32(2, 1), f32(2, 5)]),
}

JAXPRS = {
    "bid": """\
{ lambda ; a:f32[3]. let
    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) }""",
    "bcast": """\
{ lambda ; a:f32[3]. let
    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) }""",
    "btr": """\
{ lambda ; a:f32[3]. let
    b:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] a
  in (b,) }""",
    "exp": """\
{ lambda ; a:f32[3]. let
    b:f32[1,3,1] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) }""",
    "reshape": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2) sharding=None] a
  in (b,) }""",
    "reshape_dims": """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] a
  in (b,) }""",
    "squeeze": """\
{ lambda ; a:f32[2,1]. let b:f32[2] = squeeze[dimensions=(1,)] a in (b,) }""",
    "transpose": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
  in (b,) }""",
    "rev": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = rev[dimensions=(0, 1)] a in (b,) }""",
    "pad": """\
{ lambda ; a:f32[2,3]. let
    b:f32[4,3] = pad[padding_config=((1, -1, 2), (0, 0, 0))] a 0.0:f32[]
  in (b,) }""",
    "concat": """\
{ lambda ; a:f32[2,3]. let b:f32[2,9] = concatenate[dimension=1] a a a in (b,) }""",
    "split": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,1] c:f32[2,2] = split[axis=1 sizes=(1, 2)] a
  in (b, c) }""",
    "stack": """\
{ lambda ; a:f32[2,3]. let b:f32[2,2,3] = stack[axis=1] a a in (b,) }""",
    "unstack": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2] c:f32[2] d:f32[2] = unstack[axis=1] a
  in (b, c, d) }""",
    "tile": """\
{ lambda ; a:f32[2,3]. let b:f32[4,6] = tile[reps=(2, 2)] a in (b,) }""",
    "iota": """\
{ lambda ; a:f32[2,3]. let
    b:i32[4] = iota[dimension=0 dtype=int32 shape=(4,) sharding=None] 
  in (b,) }""",
    "biota": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = iota[dimension=1 dtype=float32 shape=(2, 3) sharding=None] 
  in (b,) }""",
    "full": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = broadcast_in_dim 1.0:f32[] in (b,) }""",
    "full_i": """\
{ lambda ; a:f32[2,3]. let b:i32[2,3] = broadcast_in_dim 1:i32[] in (b,) }""",
    "full_like": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = broadcast_in_dim 2.0:f32[] in (b,) }""",
    "collapse": """\
{ lambda ; a:f32[2,3,4]. let
    b:f32[6,4] = reshape[dimensions=None new_sizes=(6, 4) sharding=None] a
  in (b,) }""",
    "slice": """\
{ lambda ; a:f32[4,5]. let
    b:f32[2,2] = slice[limit_indices=(3, 4) start_indices=(1, 0) strides=(1, 2)] a
  in (b,) }""",
    "slice_nostride": """\
{ lambda ; a:f32[4,5]. let
    b:f32[2,4] = slice[limit_indices=(3, 4) start_indices=(1, 0) strides=None] a
  in (b,) }""",
    "slice_in_dim": """\
{ lambda ; a:f32[4,5]. let
    b:f32[4,2] = slice[limit_indices=(4, 5) start_indices=(0, 2) strides=(1, 2)] a
  in (b,) }""",
    "index_in_dim": """\
{ lambda ; a:f32[4,5]. let
    b:f32[1,5] = slice[limit_indices=(4, 5) start_indices=(3, 0) strides=(1, 1)] a
    c:f32[5] = squeeze[dimensions=(0,)] b
  in (c,) }""",
    "ds": """\
{ lambda ; a:f32[4,5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 4:i32[]
    e:i32[] = select_n c b d
    f:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] a e 2:i32[]
  in (f,) }""",
    "ds_static": """\
{ lambda ; a:f32[4,5]. let
    b:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] a 3:i32[] 2:i32[]
  in (b,) }""",
    "dus": """\
{ lambda ; a:f32[4,5] b:f32[2,2] c:i32[]. let
    d:bool[] = lt c 0:i32[]
    e:i32[] = add c 4:i32[]
    f:i32[] = select_n d c e
    g:f32[4,5] = dynamic_update_slice a b f 4:i32[]
  in (g,) }""",
    "dsid": """\
{ lambda ; a:f32[4,5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 5:i32[]
    e:i32[] = select_n c b d
    f:f32[4,2] = dynamic_slice[slice_sizes=(4, 2)] a 0:i32[] e
  in (f,) }""",
    "diid": """\
{ lambda ; a:f32[4,5] b:i32[]. let
    c:f32[5] = jit[
      name=dynamic_index_in_dim
      jaxpr={ lambda ; a:f32[4,5] b:i32[]. let
          d:bool[] = lt b 0:i32[]
          e:i32[] = add b 4:i32[]
          f:i32[] = select_n d b e
          g:f32[1,5] = dynamic_slice[slice_sizes=(1, 5)] a f 0:i32[]
          c:f32[5] = squeeze[dimensions=(0,)] g
        in (c,) }
    ] a b
  in (c,) }""",
    "dusid": """\
{ lambda ; a:f32[4,5] b:f32[2,5] c:i32[]. let
    d:bool[] = lt c 0:i32[]
    e:i32[] = add c 4:i32[]
    f:i32[] = select_n d c e
    g:f32[4,5] = dynamic_update_slice a b f 0:i32[]
  in (g,) }""",
    "duiid": """\
{ lambda ; a:f32[4,5] b:f32[5] c:i32[]. let
    d:f32[4,5] = jit[
      name=dynamic_update_index_in_dim
      jaxpr={ lambda ; a:f32[4,5] b:f32[5] c:i32[]. let
          e:f32[1,5] = broadcast_in_dim[broadcast_dimensions=(1,)] b
          f:bool[] = lt c 0:i32[]
          g:i32[] = add c 4:i32[]
          h:i32[] = select_n f c g
          d:f32[4,5] = dynamic_update_slice a e h 0:i32[]
        in (d,) }
    ] a b c
  in (d,) }""",
    "gather": """\
{ lambda ; a:f32[4,5] b:i32[2,1]. let
    c:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 5)
      unique_indices=False
    ] a b
  in (c,) }""",
    "gather_fill": """\
{ lambda ; a:f32[4,5] b:i32[2,1]. let
    c:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=nan
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 5)
      unique_indices=False
    ] a b
  in (c,) }""",
    "gather_clip": """\
{ lambda ; a:f32[4,5] b:i32[2,1]. let
    c:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 5)
      unique_indices=False
    ] a b
  in (c,) }""",
    "scatter": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr=None
    ] a b c
  in (d,) }""",
    "scatter_add": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }
    ] a b c
  in (d,) }""",
    "scatter_mul": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-mul[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = mul e f in (g,) }
    ] a b c
  in (d,) }""",
    "scatter_min": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-min[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = min e f in (g,) }
    ] a b c
  in (d,) }""",
    "scatter_max": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-max[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = max e f in (g,) }
    ] a b c
  in (d,) }""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_printed_jaxpr(name):
    f, args = PROGRAMS[name]
    assert str(jax.make_jaxpr(f)(*args)) == JAXPRS[name]


def test_lowering_matches_jax():
    """The StableHLO of a strided slice and a dynamic_update_slice, as JAX emits it."""
    text = jax.jit(lambda x: lax.slice(x, (1, 0), (3, 4), (1, 2))).lower(f32(4, 5)).as_text()
    assert ("stablehlo.slice %arg0 [1:3, 0:4:2] : (tensor<4x5xf32>) -> tensor<2x2xf32>"
            in text)
    text = jax.jit(lambda x: lax.pad(x, 0., [(1, -1, 2)])).lower(f32(3)).as_text()
    assert ("stablehlo.pad %arg0, %cst, low = [1], high = [-1], interior = [2] : "
            "(tensor<3xf32>, tensor<f32>) -> tensor<7xf32>") in text


# ----------------------------------------------------------------------------------------
# Errors (types and messages as JAX raises them)
# ----------------------------------------------------------------------------------------

x = f32(2, 3)
ERRORS = [
    ('lax.reshape(x, (-1, 6))', TypeError, 'reshape new_sizes must all be positive, got (-1, 6).'),
    ('lax.reshape(x, (6,), (0, 0))', TypeError, 'reshape dimensions must be a permutation of operand dimensions, got dimensions (0, 0) for shape (2, 3).'),
    ('lax.broadcast_in_dim(x, (2, 3), (0,))', TypeError, 'broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got broadcast_dimensions (0,) for operand ndim 2.'),
    ('lax.broadcast_in_dim(x, (3,), (0, 1))', TypeError, 'broadcast_in_dim target broadcast shape must have equal or higher rank to the operand shape; got operand ndim 2 and target broadcast ndim 1.'),
    ('lax.broadcast_in_dim(x, (2, 3, 4), (0, 3))', TypeError, 'broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got (0, 3) for operand ndim 2 and shape (2, 3, 4).'),
    ('lax.broadcast_in_dim(x, (2, 4), (0, 1))', TypeError, 'broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding dimensions in the target broadcast shape; got operand of shape (2, 3), target broadcast shape (2, 4), broadcast_dimensions (0, 1) '),
    ('lax.broadcast_in_dim(x, (2, -3), (0, 1))', TypeError, 'broadcast_in_dim shape must have every element be nonnegative, got (2, -3).'),
    ('lax.transpose(x, (0,))', TypeError, "transpose permutation isn't a permutation of operand dimensions, got permutation (0,) for operand shape (2, 3)."),
    ('lax.squeeze(x, (0,))', ValueError, 'cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and dimensions=(0,)'),
    ('lax.squeeze(x, (0, 0))', ValueError, 'dimensions are not unique: (0, 0)'),
    ('lax.squeeze(x, (5,))', ValueError, 'axis 5 is out of bounds for array of dimension 2'),
    ('lax.expand_dims(x, (0, 0))', ValueError, 'repeated axis in lax.expand_dims: (0, 0)'),
    ('lax.expand_dims(x, (0, -4))', ValueError, 'repeated axis in lax.expand_dims: [0, 0]'),
    ('lax.rev(x, (0, 0))', TypeError, 'rev dimensions must be unique, got (0, 0).'),
    ('lax.rev(x, (2,))', TypeError, 'rev dimensions must all be less than operand ndim, got dimensions (2,) for operand ndim 2.'),
    ('lax.pad(x, 0., [(1, 1, 0)])', ValueError, 'length of padding_config must equal the number of axes of operand, got padding_config ((1, 1, 0),) for operand shape (2, 3)'),
    ('lax.pad(x, 0., [(1, 1, -1), (0, 0, 0)])', ValueError, 'interior padding in padding_config must be nonnegative, got padding_config ((1, 1, -1), (0, 0, 0))'),
    ('lax.pad(x, np.int32(0), [(1, 1, 0), (0, 0, 0)])', TypeError, 'pad operand and padding_value must be same dtype: got float32 and int32.'),
    ('lax.pad(x, f32(2), [(1, 1, 0), (0, 0, 0)])', ValueError, 'padding_value must be a scalar; got np.shape(padding_value)=(2,)'),
    ('lax.pad(x, 0., [(-3, 0, 0), (0, 0, 0)])', ValueError, 'Dimension size after padding is not at least 0, got result shape (-1, 3), for padding_config ((-3, 0, 0), (0, 0, 0)) and operand shape (2, 3)'),
    ('lax.concatenate([x, f32(3)], 0)', TypeError, 'Cannot concatenate arrays with different numbers of dimensions: got (2, 3), (3,).'),
    ('lax.concatenate([x, f32(3, 3)], 1)', TypeError, 'Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension 1 for shapes (2, 3), (3, 3).'),
    ('lax.concatenate([x, x], 2)', TypeError, 'concatenate dimension out of bounds: dimension 2 for shapes (2, 3), (2, 3).'),
    ('lax.concatenate([x, i32(2, 3)], 0)', TypeError, 'lax.concatenate requires arguments to have the same dtypes, got float32, int32. (Tip: jnp.concatenate is a similar function that does automatic type promotion on inputs).'),
    ('lax.concatenate([], 0)', ValueError, 'concatenate requires a non-empty sequences of arrays'),
    ('lax.tile(x, (2,))', TypeError, 'reps length must be equal to the ndim of x, got len(reps)=1 and x.ndim=2.'),
    ('lax.iota(np.float32, -1)', TypeError, 'iota shape must have every element be nonnegative, got (-1,).'),
    ('lax.broadcasted_iota(np.float32, (2, 3), 2)', ValueError, 'iota dimension must be between 0 and len(shape), got dimension=2 for shape=(2, 3)'),
    ('lax.broadcasted_iota(np.bool_, (2, 3), 1)', TypeError, 'iota does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating.'),
    ('lax.full((2,), f32(2))', TypeError, 'full must be called with scalar fill_value, got fill_value.shape (2,).'),
    ('lax.full((-2,), 1.)', TypeError, 'broadcast_in_dim shape must have every element be nonnegative, got (-2,).'),
    ('lax.stack([x, f32(3)])', ValueError, 'Cannot stack arrays with different numbers of dimensions: got (2, 3), (3,).'),
    ('lax.stack([x, f32(3, 2)])', ValueError, 'All input arrays must have the same shape. Got (2, 3), (3, 2).'),
    ('lax.split(x, [1, 1], 1)', ValueError, 'Sum of sizes 2 must be equal to dimension 1 of the operand shape [2, 3]'),
    ('lax.split(x, [-1, 4], 1)', ValueError, 'Sizes passed to split must be nonnegative, got [-1, 4]'),
    ('lax.unstack(np.float32(1))', ValueError, 'axis 0 is out of bounds for array of dimension 0'),
    ('lax.collapse(x, 1, 0)', ValueError, 'Invalid dimension range passed to collapse: (2, 3)[1:0]'),
    ('lax.full((2.5,), 1.)', TypeError, 'Shapes must be 1D sequences of concrete values of integer type, got (2.5,).'),
    ('lax.slice(x, (0,), (1,))', TypeError, 'slice start_indices must have length equal to the number of dimensions of the operand, got indices (0,) for operand shape (2, 3).'),
    ('lax.slice(x, (0, 0), (1,))', TypeError, 'slice limit_indices must have the same length as start_indices, got start_indices (0, 0) and limit_indices (1,).'),
    ('lax.slice(x, (0, 0), (3, 3))', TypeError, 'slice limit_indices must be less than or equal to operand shape, got limit_indices (3, 3) for operand shape (2, 3).'),
    ('lax.slice(x, (-1, 0), (1, 3))', TypeError, 'slice start_indices must have every element be nonnegative, got (-1, 0).'),
    ('lax.slice(x, (1, 2), (1, 1))', TypeError, 'slice limit_indices must be greater than or equal to start_indices, got start_indices (1, 2) and limit_indices (1, 1).'),
    ('lax.slice(x, (0, 0), (2, 3), (1,))', TypeError, 'slice strides must have length equal to the number of dimensions of the operand, got strides (1,) for operand shape (2, 3).'),
    ('lax.slice(x, (0, 0), (2, 3), (0, 1))', ZeroDivisionError, 'integer division or modulo by zero'),
    ('lax.index_in_dim(x, 5, 1)', IndexError, 'index 5 is out of bounds for axis 1 with size 3'),
    ('lax.dynamic_slice(x, (0,), (1, 1))', ValueError, 'Length of slice indices must match number of operand dimensions (1 vs (2, 3))'),
    ('lax.dynamic_slice(x, (0, 0), (3, 1))', TypeError, 'slice slice_sizes must be less than or equal to operand shape, got slice_sizes (3, 1) for operand shape (2, 3).'),
    ('lax.dynamic_slice(x, (np.int32(0), np.int16(0)), (1, 1))', TypeError, 'index arguments to dynamic_slice must be integers of the same type, got: int32, int16'),
    ('lax.dynamic_slice(x, (0., 0), (1, 1))', TypeError, 'index arguments to dynamic_slice must be integers of the same type, got: float32, int32'),
    ('lax.dynamic_slice(x, (-1, 0), (1, 1), allow_negative_indices=False)', ValueError, 'Index -1 is out of bounds for dimension 2 if allow_negative_indices=False'),
    ('lax.dynamic_update_slice(x, f32(2), (0, 0))', TypeError, 'dynamic_update_slice update must have the same rank as operand, got update shape (2,) for operand shape (2, 3).'),
    ('lax.dynamic_update_slice(x, f32(3, 3), (0, 0))', TypeError, 'dynamic_update_slice update shape must be smaller than operand shape, got update shape (3, 3) for operand shape (2, 3).'),
    ('lax.dynamic_update_slice(x, i32(1, 1), (0, 0))', TypeError, 'lax.dynamic_update_slice requires arguments to have the same dtypes, got float32, int32.'),
    ('lax.gather(x, f32(2, 1), G((1,), (0,), (0,)), (1, 3))', ValueError, 'indices must have an integer type'),
    ('lax.gather(x, i32(2, 2), G((1,), (0,), (0,)), (1, 3))', TypeError, 'Gather op has 1 elements in start_index_map and the bound of dimension index_vector_dim=1 of indices is 2. These two numbers must be equal.'),
    ('lax.gather(x, i32(2, 1), G((1,), (0,), (0,)), (2, 3))', TypeError, 'Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 at position 0.'),
    ('lax.gather(x, i32(2, 1), G((1,), (0,), (0,)), (1,))', TypeError, 'Gather op must have one slice size for every input dimension; got: len(slice_sizes)=1, input_shape.rank=2'),
    ('lax.gather(x, i32(2, 1), G((3,), (0,), (0,)), (1, 3))', TypeError, 'Offset dimension 0 in gather op is out of bounds; got 3, but should have been in [0, 2)'),
    ('lax.gather(x, i32(2, 1), G((1,), (0,), (0,)), (1, 3), mode="bad")', ValueError, 'Unknown gather mode "bad"'),
    ('lax.scatter_add(x, i32(2, 1), f32(2), S((1,), (0,), (0,)))', TypeError, 'Updates tensor must be of rank 2; got 1.'),
    ('lax.scatter_add(x, i32(2, 1), i32(2, 3), S((1,), (0,), (0,)))', TypeError, 'lax.scatter requires arguments to have the same dtypes, got float32, int32.'),
    ('lax.scatter(x, i32(2, 1), f32(2, 3), S((1,), (), (0,)))', TypeError, "Scatter op has window of size 1; doesn't match operand of rank 2."),
    ('lax.scatter(x, i32(2, 1), f32(2, 4), S((1,), (0,), (0,)))', TypeError, 'Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension 1, updates bound is 4, operand bound is 3.'),
    ('lax.scatter(x, i32(3, 1), f32(2, 3), S((1,), (0,), (0,)))', TypeError, 'Bounds of the scatter dimensions of updates must be the same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 2, indices bound is 3.'),
]


@pytest.mark.parametrize("expr, exc_type, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(expr, exc_type, message):
    with pytest.raises(exc_type) as info:
        jax.make_jaxpr(lambda: eval(expr))()
    assert str(info.value) == message


def test_identity_operations_return_their_operand():
    """Like JAX, no equation is recorded for operations that would change nothing."""
    assert str(jax.make_jaxpr(lambda x: (lax.reshape(x, (2, 3)), lax.transpose(x, (0, 1)),
                                         lax.expand_dims(x, ()), lax.squeeze(x, ()),
                                         lax.concatenate([x], 0)))(x)) == (
        "{ lambda ; a:f32[2,3]. let  in (a, a, a, a, a) }")


# ----------------------------------------------------------------------------------------
# Transformations: transpose (grad), batching (vmap) rules
# ----------------------------------------------------------------------------------------

def total(y):
    return lax.reduce_sum(y, tuple(range(np.ndim(y))))


def grad_of(f, argnums=0):
    return jax.grad(lambda *args: total(f(*args)), argnums=argnums)


TRANSFORMED_PROGRAMS = {
    "g_bid": (lambda: grad_of(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2))),
              [f32(2, 1)]),
    "g_reshape": (lambda: grad_of(lambda x: lax.reshape(x, (3, 2), (1, 0))), [f32(2, 3)]),
    "g_squeeze": (lambda: grad_of(lambda x: lax.squeeze(x, (1,))), [f32(2, 1)]),
    "g_transpose": (lambda: grad_of(lambda x: lax.transpose(x, (1, 0))), [f32(2, 3)]),
    "g_rev": (lambda: grad_of(lambda x: lax.rev(x, (1,))), [f32(2, 3)]),
    "g_pad": (lambda: grad_of(lambda x, p: lax.pad(x, p, [(1, -1, 1), (0, 2, 0)]), (0, 1)),
              [f32(2, 3), np.float32(0)]),
    "g_concat": (lambda: grad_of(lambda x, y: lax.concatenate([x, y], 1), (0, 1)),
                 [f32(2, 3), f32(2, 1)]),
    "g_split": (lambda: grad_of(lambda x: lax.split(x, (1, 2), 1)[1]), [f32(2, 3)]),
    "g_stack": (lambda: grad_of(lambda x: lax.stack([x, x], 1)), [f32(2, 3)]),
    "g_unstack": (lambda: grad_of(lambda x: lax.unstack(x, 1)[2]), [f32(2, 3)]),
    "g_tile": (lambda: grad_of(lambda x: lax.tile(x, (2, 1))), [f32(2, 3)]),
    "g_slice": (lambda: grad_of(lambda x: lax.slice(x, (1, 0), (3, 4), (1, 2))), [f32(4, 5)]),
    "g_ds": (lambda: grad_of(lambda x, i: lax.dynamic_slice(x, (i, 2), (2, 2))),
             [f32(4, 5), np.int32(1)]),
    "g_dus": (lambda: grad_of(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 2)), (0, 1)),
              [f32(4, 5), f32(2, 2), np.int32(1)]),
    "g_gather": (lambda: grad_of(lambda x, i: lax.gather(x, i, ROWS, (1, 5))),
                 [f32(4, 5), i32(2, 1)]),
    "g_scatter_add": (lambda: grad_of(lambda x, i, u: lax.scatter_add(x, i, u, SDN), (0, 2)),
                      [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "g_scatter_mul": (lambda: grad_of(lambda x, i, u: lax.scatter_mul(
        x, i, u, SDN, unique_indices=True), (0, 2)), [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "g_scatter": (lambda: grad_of(lambda x, i, u: lax.scatter(
        x, i, u, SDN, unique_indices=True), (0, 2)), [f32(4, 5), i32(2, 1), f32(2, 5)]),
    "v_bid": (lambda: jax.vmap(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), in_axes=1),
              [f32(3, 5)]),
    "v_reshape": (lambda: jax.vmap(lambda x: lax.reshape(x, (3, 2), (1, 0))), [f32(4, 2, 3)]),
    "v_squeeze": (lambda: jax.vmap(lambda x: lax.squeeze(x, (1,)), in_axes=1),
                  [f32(2, 4, 1)]),
    "v_rev": (lambda: jax.vmap(lambda x: lax.rev(x, (0,)), in_axes=1), [f32(3, 5)]),
    "v_pad": (lambda: jax.vmap(lambda x, p: lax.pad(x, p, [(1, 1, 1)])), [f32(4, 3), f32(4)]),
    "v_pad_x": (lambda: jax.vmap(lambda x, p: lax.pad(x, p, [(1, 1, 1)]), in_axes=(1, None)),
                [f32(3, 4), np.float32(0)]),
    "v_concat": (lambda: jax.vmap(lambda x, y: lax.concatenate([x, y], 0),
                                  in_axes=(0, None)), [f32(4, 3), f32(2)]),
    "v_split": (lambda: jax.vmap(lambda x: lax.split(x, (1, 2), 0), in_axes=1), [f32(3, 4)]),
    "v_stack": (lambda: jax.vmap(lambda x, y: lax.stack([x, y], 0), in_axes=(1, None)),
                [f32(3, 4), f32(3)]),
    "v_tile": (lambda: jax.vmap(lambda x: lax.tile(x, (2,)), in_axes=1), [f32(3, 4)]),
    "v_slice": (lambda: jax.vmap(lambda x: lax.slice(x, (1,), (3,)), in_axes=1), [f32(4, 5)]),
    "v_ds": (lambda: jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,))),
             [f32(3, 5), i32(3)]),
    "v_ds_x": (lambda: jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)),
                                in_axes=(0, None)), [f32(3, 5), np.int32(1)]),
    "v_dus": (lambda: jax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))),
              [f32(3, 5), f32(3, 2), i32(3)]),
    "v_gather": (lambda: jax.vmap(lambda x, i: lax.gather(x, i, ROWS, (1, 5)),
                                  in_axes=(None, 0)), [f32(4, 5), i32(3, 2, 1)]),
    "v_gather_both": (lambda: jax.vmap(lambda x, i: lax.gather(x, i, ROWS, (1, 5))),
                      [f32(3, 4, 5), i32(3, 2, 1)]),
    "v_scatter_add": (lambda: jax.vmap(lambda x, i, u: lax.scatter_add(x, i, u, SDN),
                                       in_axes=(0, None, 0)),
                      [f32(3, 4, 5), i32(2, 1), f32(3, 2, 5)]),
    "v_scatter_both": (lambda: jax.vmap(lambda x, i, u: lax.scatter_add(x, i, u, SDN)),
                       [f32(3, 4, 5), i32(3, 2, 1), f32(3, 2, 5)]),
}


TRANSFORMED = {
    "g_bid": """\
{ lambda ; a:f32[2,1]. let
    b:f32[2,3,4] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] b
    c:f32[2,3,4] = broadcast_in_dim 1.0:f32[]
    d:f32[2] = reduce_sum[axes=(1, 2) out_sharding=None] c
    e:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d
  in (e,) }""",
    "g_reshape": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = reshape[dimensions=(1, 0) new_sizes=(3, 2) sharding=None] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[3,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = transpose[permutation=(1, 0)] c
  in (d,) }""",
    "g_squeeze": """\
{ lambda ; a:f32[2,1]. let
    b:f32[2] = squeeze[dimensions=(1,)] a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    c:f32[2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
  in (d,) }""",
    "g_transpose": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[3,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = transpose[permutation=(1, 0)] c
  in (d,) }""",
    "g_rev": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = rev[dimensions=(1,)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,3] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] = rev[dimensions=(1,)] c
  in (d,) }""",
    "g_pad": """\
{ lambda ; a:f32[2,3] b:f32[]. let
    c:f32[3,5] = pad[padding_config=((1, -1, 1), (0, 2, 0))] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[3,5] = broadcast_in_dim 1.0:f32[]
    e:f32[3,3] = pad[
      padding_config=((np.int64(-1), np.int64(1), np.int64(0)), (np.int64(0), np.int64(-2), np.int64(0)))
    ] d 0.0:f32[]
    f:f32[2,3] = slice[
      limit_indices=(3, 3)
      start_indices=(np.int64(0), np.int64(0))
      strides=(np.int64(2), np.int64(1))
    ] e
    g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    h:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
    i:f32[] = sub g h
  in (f, i) }""",
    "g_concat": """\
{ lambda ; a:f32[2,3] b:f32[2,1]. let
    c:f32[2,4] = concatenate[dimension=1] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,4] = broadcast_in_dim 1.0:f32[]
    e:f32[2,3] f:f32[2,1] = split[axis=1 sizes=(3, 1)] d
  in (e, f) }""",
    "g_split": """\
{ lambda ; a:f32[2,3]. let
    _:f32[2,1] b:f32[2,2] = split[axis=1 sizes=(1, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[2,1] = broadcast_in_dim 0.0:f32[]
    e:f32[2,3] = concatenate[dimension=1] d c
  in (e,) }""",
    "g_stack": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2,3] = stack[axis=1] a a
    _:f32[] = reduce_sum[axes=(0, 1, 2) out_sharding=None] b
    c:f32[2,2,3] = broadcast_in_dim 1.0:f32[]
    d:f32[2,3] e:f32[2,3] = unstack[axis=1] c
    f:f32[2,3] = add_any d e
  in (f,) }""",
    "g_unstack": """\
{ lambda ; a:f32[2,3]. let
    _:f32[2] _:f32[2] b:f32[2] = unstack[axis=1] a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    c:f32[2] = broadcast_in_dim 1.0:f32[]
    d:f32[2] = broadcast_in_dim 0.0:f32[]
    e:f32[2] = broadcast_in_dim 0.0:f32[]
    f:f32[2,3] = stack[axis=1] d e c
  in (f,) }""",
    "g_tile": """\
{ lambda ; a:f32[2,3]. let
    b:f32[4,3] = tile[reps=(2, 1)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[4,3] = broadcast_in_dim 1.0:f32[]
    d:f32[2,2,1,3] = reshape[
      dimensions=None
      new_sizes=(2, 2, 1, 3)
      sharding=None
    ] c
    e:f32[2,3] = reduce_sum[axes=(0, 2) out_sharding=None] d
  in (e,) }""",
    "g_slice": """\
{ lambda ; a:f32[4,5]. let
    b:f32[2,2] = slice[limit_indices=(3, 4) start_indices=(1, 0) strides=(1, 2)] a
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    c:f32[2,2] = broadcast_in_dim 1.0:f32[]
    d:f32[4,5] = pad[
      padding_config=((1, np.int64(1), np.int64(0)), (0, np.int64(2), np.int64(1)))
    ] c 0.0:f32[]
  in (d,) }""",
    "g_ds": """\
{ lambda ; a:f32[4,5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 4:i32[]
    e:i32[] = select_n c b d
    f:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] a e 2:i32[]
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
    g:f32[2,2] = broadcast_in_dim 1.0:f32[]
    h:f32[4,5] = broadcast_in_dim 0.0:f32[]
    i:f32[4,5] = dynamic_update_slice h g e 2:i32[]
  in (i,) }""",
    "g_dus": """\
{ lambda ; a:f32[4,5] b:f32[2,2] c:i32[]. let
    d:bool[] = lt c 0:i32[]
    e:i32[] = add c 4:i32[]
    f:i32[] = select_n d c e
    g:f32[4,5] = dynamic_update_slice a b f 2:i32[]
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g
    h:f32[4,5] = broadcast_in_dim 1.0:f32[]
    i:f32[2,2] = broadcast_in_dim 0.0:f32[]
    j:f32[4,5] = dynamic_update_slice h i f 2:i32[]
    k:f32[2,2] = dynamic_slice[slice_sizes=(2, 2)] h f 2:i32[]
  in (j, k) }""",
    "g_gather": """\
{ lambda ; a:f32[4,5] b:i32[2,1]. let
    c:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 5)
      unique_indices=False
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,5] = broadcast_in_dim 1.0:f32[]
    e:f32[4,5] = broadcast_in_dim 0.0:f32[]
    f:f32[4,5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; g:f32[] h:f32[]. let i:f32[] = add g h in (i,) }
    ] e b d
  in (f,) }""",
    "g_scatter_add": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }
    ] a b c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    h:f32[4,5] = broadcast_in_dim 1.0:f32[]
    i:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=0
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 5)
      unique_indices=False
    ] h b
  in (h, i) }""",
    "g_scatter_mul": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter-mul[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = mul e f in (g,) }
    ] a b c
    _:f32[4,5] = broadcast_in_dim 0.0:f32[]
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    h:f32[4,5] = broadcast_in_dim 1.0:f32[]
    i:f32[4,5] = mul a h
    j:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=0
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 5)
      unique_indices=False
    ] i b
    k:f32[4,5] = scatter-mul[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; l:f32[] m:f32[]. let n:f32[] = mul l m in (n,) }
    ] h b c
  in (k, j) }""",
    "g_scatter": """\
{ lambda ; a:f32[4,5] b:i32[2,1] c:f32[2,5]. let
    d:f32[4,5] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] a b c
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] d
    e:f32[4,5] = broadcast_in_dim 1.0:f32[]
    f:f32[2,5] = broadcast_in_dim 0.0:f32[]
    g:f32[4,5] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] e b f
    h:f32[2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=0
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      slice_sizes=(1, 5)
      unique_indices=False
    ] e b
  in (g, h) }""",
    "v_bid": """\
{ lambda ; a:f32[3,5]. let
    b:f32[5,3] = transpose[permutation=(1, 0)] a
    c:f32[5,2,3] = broadcast_in_dim[broadcast_dimensions=(0, np.int64(2))] b
  in (c,) }""",
    "v_reshape": """\
{ lambda ; a:f32[4,2,3]. let
    b:f32[4,3,2] = reshape[
      dimensions=(0, 2, 1)
      new_sizes=(4, 3, 2)
      sharding=None
    ] a
  in (b,) }""",
    "v_squeeze": """\
{ lambda ; a:f32[2,4,1]. let
    b:f32[4,2,1] = transpose[permutation=(1, 0, 2)] a
    c:f32[4,2] = squeeze[dimensions=(2,)] b
  in (c,) }""",
    "v_rev": """\
{ lambda ; a:f32[3,5]. let
    b:f32[3,5] = rev[dimensions=(0,)] a
    c:f32[5,3] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "v_pad": """\
{ lambda ; a:f32[4,3] b:f32[4]. let
    c:f32[4,7] = pad[padding_config=((0, 0, 0), (1, 1, 1))] a 0.0:f32[]
    d:bool[4,3] = broadcast_in_dim True:bool[]
    e:bool[4,7] = pad[padding_config=((0, 0, 0), (1, 1, 1))] d False:bool[]
    f:f32[4,7] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    g:f32[4,7] = select_n e f c
  in (g,) }""",
    "v_pad_x": """\
{ lambda ; a:f32[3,4] b:f32[]. let
    c:f32[7,4] = pad[padding_config=((1, 1, 1), (0, 0, 0))] a b
    d:f32[4,7] = transpose[permutation=(1, 0)] c
  in (d,) }""",
    "v_concat": """\
{ lambda ; a:f32[4,3] b:f32[2]. let
    c:f32[4,2] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[4,5] = concatenate[dimension=1] a c
  in (d,) }""",
    "v_split": """\
{ lambda ; a:f32[3,4]. let
    b:f32[1,4] c:f32[2,4] = split[axis=0 sizes=(1, 2)] a
    d:f32[4,1] = transpose[permutation=(1, 0)] b
    e:f32[4,2] = transpose[permutation=(1, 0)] c
  in (d, e) }""",
    "v_stack": """\
{ lambda ; a:f32[3,4] b:f32[3]. let
    c:f32[4,3] = transpose[permutation=(1, 0)] a
    d:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    e:f32[4,2,3] = stack[axis=1] c d
  in (e,) }""",
    "v_tile": """\
{ lambda ; a:f32[3,4]. let
    b:f32[6,4] = tile[reps=(2, 1)] a
    c:f32[4,6] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "v_slice": """\
{ lambda ; a:f32[4,5]. let
    b:f32[2,5] = slice[limit_indices=(3, 5) start_indices=(1, 0) strides=None] a
    c:f32[5,2] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "v_ds": """\
{ lambda ; a:f32[3,5] b:i32[3]. let
    c:bool[3] = lt b 0:i32[]
    d:i32[3] = add b 5:i32[]
    e:i32[3] = select_n c b d
    f:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:f32[3,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(np.int64(1),), collapsed_slice_dims=(), start_index_map=(np.int64(1),), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
      fill_value=None
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 2)
      unique_indices=True
    ] a f
  in (g,) }""",
    "v_ds_x": """\
{ lambda ; a:f32[3,5] b:i32[]. let
    c:bool[] = lt b 0:i32[]
    d:i32[] = add b 5:i32[]
    e:i32[] = select_n c b d
    f:i32[1] = broadcast_in_dim e
    g:f32[3,2] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(0, np.int64(1)), collapsed_slice_dims=(), start_index_map=(np.int64(1),), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      slice_sizes=(3, 2)
      unique_indices=True
    ] a f
  in (g,) }""",
    "v_dus": """\
{ lambda ; a:f32[3,5] b:f32[3,2] c:i32[3]. let
    d:bool[3] = lt c 0:i32[]
    e:i32[3] = add c 5:i32[]
    f:i32[3] = select_n d c e
    g:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f
    h:f32[3,5] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(np.int64(1),), inserted_window_dims=(), scatter_dims_to_operand_dims=(np.int64(1),), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] a g b
  in (h,) }""",
    "v_gather": """\
{ lambda ; a:f32[4,5] b:i32[3,2,1]. let
    c:f32[3,2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 5)
      unique_indices=False
    ] a b
  in (c,) }""",
    "v_gather_both": """\
{ lambda ; a:f32[3,4,5] b:i32[3,2,1]. let
    c:f32[3,2,5] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(np.int64(2),), collapsed_slice_dims=(np.int64(1),), start_index_map=(np.int64(1),), operand_batching_dims=(0,), start_indices_batching_dims=(0,))
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 1, 5)
      unique_indices=False
    ] a b
  in (c,) }""",
    "v_scatter_add": """\
{ lambda ; a:f32[3,4,5] b:i32[2,1] c:f32[3,2,5]. let
    d:f32[3,4,5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0, np.int64(2)), inserted_window_dims=(np.int64(1),), scatter_dims_to_operand_dims=(np.int64(1),), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }
    ] a b c
  in (d,) }""",
    "v_scatter_both": """\
{ lambda ; a:f32[3,4,5] b:i32[3,2,1] c:f32[3,2,5]. let
    d:f32[3,4,5] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(np.int64(2),), inserted_window_dims=(np.int64(1),), scatter_dims_to_operand_dims=(np.int64(1),), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }
    ] a b c
  in (d,) }""",
}


# (g_scatter_mul: JAX caches a scatter's ``update_jaxpr`` per trace context and runs its
# backward pass in a context of its own, so the forward and the transposed scatter-mul
# hold two distinct, equal jaxprs, both printed inline rather than hoisted.)
@pytest.mark.parametrize("name", sorted(TRANSFORMED_PROGRAMS))
def test_transformed_jaxpr(name):
    make, args = TRANSFORMED_PROGRAMS[name]
    assert str(jax.make_jaxpr(make())(*args)) == TRANSFORMED[name]


def numerical_grad(f, x, eps=1e-3):
    """Central differences of a scalar function of a float32 array, in float64."""
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (float(f((x + step).astype(np.float32))) -
                   float(f((x - step).astype(np.float32)))) / (2 * eps)
    return grad


@pytest.mark.parametrize("f", [
    lambda x: lax.pad(x, np.float32(0.5), [(1, -1, 1), (-1, 2, 2)]),
    lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)),
    lambda x: lax.dynamic_slice(x, (np.int32(2), np.int32(-2)), (2, 2)),
    lambda x: lax.dynamic_update_slice(x, lax.mul(x[:1], x[:1]), (np.int32(1), np.int32(0))),
    lambda x: lax.gather(x, np.array([[2], [0], [2]], np.int32), ROWS, (1, 4)),
    lambda x: lax.scatter_add(x, np.array([[2], [2]], np.int32), lax.mul(x[:2], x[1:3]),
                              ROW_UPDATES),
    lambda x: lax.concatenate([lax.rev(x, (0,)), lax.transpose(x, (1, 0))[:3]], 1),
    lambda x: lax.tile(lax.reshape(x, (4, 3), (1, 0)), (1, 2)),
])
def test_grad_matches_finite_differences(f):
    x = rand((3, 4))
    weights = rand(np.shape(f(x)))
    loss = lambda x: total(lax.mul(f(x), weights))
    np.testing.assert_allclose(np.asarray(jax.grad(loss)(x)),
                               numerical_grad(jax.jit(loss), x),
                               rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("f, in_axes, shapes", [
    (lambda x, i: lax.dynamic_slice(x, (i, np.int32(1)), (2, 2)), (0, 0), [(5, 4, 3), (5,)]),
    (lambda x, i: lax.dynamic_update_slice(x, lax.full((1, 2), 9.), (i, i)), (1, 0),
     [(4, 5, 3), (5,)]),
    (lambda x, i: lax.gather(x, lax.broadcast(i, (2, 1)), ROWS, (1, 4)), (None, 0),
     [(3, 4), (5,)]),
    (lambda x, i: lax.pad(x, lax.convert_element_type(i, np.float32),
                          [(1, 0, 1), (0, 1, 0)]), (2, 0), [(3, 4, 5), (5,)]),
    (lambda x, i: lax.concatenate([x, lax.rev(x, (1,))], 0), (1, None), [(3, 4, 5), (5,)]),
])
def test_vmap_matches_a_loop(f, in_axes, shapes):
    x = rand(shapes[0])
    i = RNG.integers(-4, 6, shapes[1]).astype(np.int32)
    size = shapes[0][in_axes[0]] if in_axes[0] is not None else shapes[1][0]
    out = np.asarray(jax.vmap(f, in_axes=in_axes)(x, i))
    for b in range(size):
        pieces = [a if ax is None else np.take(a, b, axis=ax)
                  for a, ax in zip((x, i), in_axes)]
        np.testing.assert_allclose(out[b], np.asarray(f(*pieces)), rtol=1e-6)
