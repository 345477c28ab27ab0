"""Tests of the runtime layer: devices, device arrays (glassjax.Array), compile, execute.

Expected strings were printed by real JAX 0.10.2. Tests needing several devices, or a
pristine interpreter, run in a child process with XLA_FLAGS asking for 4 CPU devices.
"""
import gc
import os
import pathlib
import pickle
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import glassjax
from glassjax import array, core, dtypes
from glassjax.config import enable_x64
from glassjax.core import ShapedArray
from glassjax.xla import runtime

REPO = pathlib.Path(__file__).resolve().parent.parent
bf16 = ml_dtypes.bfloat16


def run_child(code: str, devices: int = 4, **env) -> str:
    """Run ``code`` in a fresh interpreter with ``devices`` CPU devices; its stdout."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               **env)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


SINE = """
module @m {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.sine %a : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}"""

# Replica style: each of the 2 replicas holds a 1x3 block; all_reduce sums the blocks.
ALL_REDUCE = """
module @m {
  func.func public @main(%a: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<ui32>) {
    %0 = "stablehlo.all_reduce"(%a) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1x3xf32>) -> tensor<1x3xf32>
    %r = stablehlo.replica_id : tensor<ui32>
    return %0, %r : tensor<1x3xf32>, tensor<ui32>
  }
}"""


# ----------------------------------------------------------------------------------------
# Devices and backends
# ----------------------------------------------------------------------------------------

def test_device_queries_with_forced_host_device_count():
    out = run_child("""
        from glassjax.xla import runtime as rt
        print(rt.default_backend())
        print(rt.device_count(), rt.local_device_count(), rt.process_count(), rt.process_index())
        print(rt.devices())
        print(rt.devices("cpu")[:2])
        d = rt.local_devices()[0]
        print(d, d.id, d.platform)
        d = rt.devices()[3]
        print(repr(d), d.process_index, rt.local_devices(process_index=0) == rt.devices())
        print(rt.default_device())
    """)
    assert out.splitlines() == [          # what JAX prints for the same queries
        "cpu",
        "4 4 1 0",
        "[CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2), CpuDevice(id=3)]",
        "[CpuDevice(id=0), CpuDevice(id=1)]",
        "cpu:0 0 cpu",
        "CpuDevice(id=3) 0 True",
        "cpu:0",
    ]


def test_num_cpu_devices_config_sets_the_device_count():
    out = run_child("from glassjax.xla import runtime as rt; print(rt.device_count())",
                    devices=1, JAX_NUM_CPU_DEVICES="3")
    assert out.strip() == "3"


def test_jax_platforms_config_selects_backends():
    out = run_child("""
        from glassjax.xla import runtime as rt
        try:
            rt.devices()
        except RuntimeError as e:
            print(e)
    """, JAX_PLATFORMS="foo")
    assert out.strip() == ("Unable to initialize backend 'foo': Backend 'foo' is not in the "
                           "list of known backends: ['cpu']. (set JAX_PLATFORMS='' to "
                           "automatically choose an available backend)")
    out = run_child("from glassjax.xla import runtime as rt; print(rt.devices())",
                    devices=2, JAX_PLATFORMS="cpu")
    assert out.strip() == "[CpuDevice(id=0), CpuDevice(id=1)]"


def test_unknown_backends_and_process_indices():
    with pytest.raises(RuntimeError, match="^Unknown backend: 'gpu' requested, but no "
                       "platforms that are instances of gpu are present. Platforms present "
                       "are: cpu$"):
        runtime.devices("gpu")
    with pytest.raises(RuntimeError, match=r"^Unknown backend foo. Available backends are "
                       r"\['cpu'\]$"):
        runtime.devices("foo")
    with pytest.raises(ValueError, match="^Unknown process_index 1$"):
        runtime.local_devices(process_index=1)
    assert runtime.get_backend("cpu") is runtime.get_backend()
    assert runtime.get_backend(runtime.get_backend()) is runtime.get_backend()


# ----------------------------------------------------------------------------------------
# device_put
# ----------------------------------------------------------------------------------------

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              np.uint32, np.uint64, np.float16, bf16, np.float32, np.float64, np.complex64,
              np.complex128, ml_dtypes.int4, ml_dtypes.float8_e4m3fn]
SHAPES = [(), (3,), (2, 3), (2, 0), (0,)]


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_device_put_round_trip(dtype, shape, x64):
    rng = np.random.default_rng(0)
    value = (rng.integers(-3, 4, size=shape) * 1.5).astype(dtype)
    if np.dtype(dtype).kind == "c":
        value = value + 2j
    with enable_x64(x64):
        x = runtime.device_put(value)
        expected_dtype = dtypes.canonicalize_dtype(dtype)
        back = np.asarray(x)
    assert type(x) is runtime.ArrayImpl and isinstance(x, glassjax.array.Array)
    assert x.aval == ShapedArray(shape, expected_dtype)
    assert (x.shape, x.dtype, x.ndim, x.size, x.weak_type) == (
        shape, expected_dtype, len(shape), value.size, False)
    assert back.dtype == expected_dtype and back.shape == shape
    np.testing.assert_array_equal(back, value.astype(expected_dtype))
    assert not back.flags.writeable                   # like JAX: a read-only view


@pytest.mark.parametrize("value, expected", [
    (2.0, "Array(2., dtype=float32, weak_type=True)"),
    (3, "Array(3, dtype=int32, weak_type=True)"),
    (1j, "Array(0.+1.j, dtype=complex64, weak_type=True)"),
    (True, "Array(True, dtype=bool)"),
    (np.float32(2), "Array(2., dtype=float32)"),
    (np.float64(2), "Array(2., dtype=float32)"),
    (np.int64(5), "Array(5, dtype=int32)"),
    (np.uint64(3), "Array(3, dtype=uint32)"),
    (np.arange(3), "Array([0, 1, 2], dtype=int32)"),
])
def test_device_put_scalars_and_weak_types(value, expected):
    assert repr(runtime.device_put(value)) == expected


def test_device_put_with_x64_keeps_64_bit_types():
    with enable_x64():
        assert repr(runtime.device_put(2.0)) == "Array(2., dtype=float64, weak_type=True)"
        assert repr(runtime.device_put(3)) == "Array(3, dtype=int64, weak_type=True)"
        assert repr(runtime.device_put(np.array([1., 2.]))) == \
            "Array([1., 2.], dtype=float64)"
        assert repr(runtime.device_put(np.array([1, 2], np.uint64))) == \
            "Array([1, 2], dtype=uint64)"
        with pytest.raises(OverflowError, match="^Python int 9223372036854775808 too "
                           "large to convert to int64$"):
            runtime.device_put(2 ** 63)


def test_device_put_errors():
    with pytest.raises(OverflowError, match="^Python int 2147483648 too large to convert "
                       "to int32$"):
        runtime.device_put(2 ** 31)
    with pytest.raises(TypeError, match="^Argument 'a' of type <class 'str'> is not a "
                       "valid JAX type$"):
        runtime.device_put("a")
    with pytest.raises(TypeError, match="^Dtype <U1 is not a valid JAX array type. Only "
                       "arrays of numeric types are supported by JAX.$"):
        runtime.device_put(np.array(["a"]))


def test_device_put_explicit_aval_and_array_inputs():
    x = runtime.device_put(np.array([1., 2.], np.float32),
                           aval=ShapedArray((2,), np.float32, weak_type=True))
    assert repr(x) == "Array([1., 2.], dtype=float32, weak_type=True)"
    device = runtime.default_device()
    assert runtime.device_put(x) is x                  # no device: stays where it is
    assert runtime.device_put(x, device) is x          # already there, commitment kept
    assert not x.committed
    c = runtime.device_put(x, device, committed=True)
    assert c is not x and c.committed and c.weak_type
    np.testing.assert_array_equal(c, x)
    assert runtime.device_put(c, device) is c


# ----------------------------------------------------------------------------------------
# repr and str, compared with what JAX 0.10.2 prints
# ----------------------------------------------------------------------------------------

# (value, weak_type, repr in JAX, str in JAX)
REPR_CASES = [
    ('np.array([1., 2.], np.float32)', False, 'Array([1., 2.], dtype=float32)', '[1. 2.]'),
    ('np.array([1., 2.], np.float32)', True, 'Array([1., 2.], dtype=float32, weak_type=True)', '[1. 2.]'),
    ('np.array(2., np.float32)', False, 'Array(2., dtype=float32)', '2.0'),
    ('np.array(2., np.float32)', True, 'Array(2., dtype=float32, weak_type=True)', '2.0'),
    ('np.array(3, np.int32)', True, 'Array(3, dtype=int32, weak_type=True)', '3'),
    ('np.array([1, 2, 3], np.int32)', False, 'Array([1, 2, 3], dtype=int32)', '[1 2 3]'),
    ('np.array([True, False])', False, 'Array([ True, False], dtype=bool)', '[ True False]'),
    ('np.array(True)', False, 'Array(True, dtype=bool)', 'True'),
    ('np.array([1.5, -2.25, 3.], bf16)', False, 'Array([1.5, -2.25, 3], dtype=bfloat16)', '[1.5 -2.25 3]'),
    ('np.array(0.1, bf16)', False, 'Array(0.100098, dtype=bfloat16)', '0.100098'),
    ('np.ones((3, 3, 3), bf16)', False, 'Array([[[1, 1, 1],\n        [1, 1, 1],\n        [1, 1, 1]],\n\n       [[1, 1, 1],\n        [1, 1, 1],\n        [1, 1, 1]],\n\n       [[1, 1, 1],\n        [1, 1, 1],\n        [1, 1, 1]]], dtype=bfloat16)', '[[[1 1 1]\n  [1 1 1]\n  [1 1 1]]\n\n [[1 1 1]\n  [1 1 1]\n  [1 1 1]]\n\n [[1 1 1]\n  [1 1 1]\n  [1 1 1]]]'),
    ('np.array([1.5, 2.], np.float16)', False, 'Array([1.5, 2. ], dtype=float16)', '[1.5 2. ]'),
    ('np.array([1+2j, 3-4j], np.complex64)', False, 'Array([1.+2.j, 3.-4.j], dtype=complex64)', '[1.+2.j 3.-4.j]'),
    ('np.array(1j, np.complex64)', True, 'Array(0.+1.j, dtype=complex64, weak_type=True)', '1j'),
    ('np.zeros((0,), np.float32)', False, 'Array([], shape=(0,), dtype=float32)', '[]'),
    ('np.zeros((2, 0), np.int32)', False, 'Array([], shape=(2, 0), dtype=int32)', '[]'),
    ('np.zeros((0, 3), np.bool_)', True, 'Array([], shape=(0, 3), dtype=bool, weak_type=True)', '[]'),
    ('np.arange(12, dtype=np.float32).reshape(3, 4)', False, 'Array([[ 0.,  1.,  2.,  3.],\n       [ 4.,  5.,  6.,  7.],\n       [ 8.,  9., 10., 11.]], dtype=float32)', '[[ 0.  1.  2.  3.]\n [ 4.  5.  6.  7.]\n [ 8.  9. 10. 11.]]'),
    ('np.arange(24, dtype=np.int32).reshape(2, 3, 4)', False, 'Array([[[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]],\n\n       [[12, 13, 14, 15],\n        [16, 17, 18, 19],\n        [20, 21, 22, 23]]], dtype=int32)', '[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]'),
    ('np.arange(2000, dtype=np.float32)', False, 'Array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], dtype=float32)', '[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]'),
    ('np.arange(1001, dtype=np.int32)', False, 'Array([   0,    1,    2, ...,  998,  999, 1000], dtype=int32)', '[   0    1    2 ...  998  999 1000]'),
    ('np.arange(40, dtype=np.float32) / 7', False, 'Array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n       0.71428573, 0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n       1.4285715 , 1.5714285 , 1.7142857 , 1.8571428 , 2.        ,\n       2.142857  , 2.2857144 , 2.4285715 , 2.5714285 , 2.7142856 ,\n       2.857143  , 3.        , 3.142857  , 3.2857144 , 3.4285715 ,\n       3.5714285 , 3.7142856 , 3.857143  , 4.        , 4.142857  ,\n       4.285714  , 4.428571  , 4.571429  , 4.714286  , 4.857143  ,\n       5.        , 5.142857  , 5.285714  , 5.428571  , 5.571429  ],      dtype=float32)', '[0.         0.14285715 0.2857143  0.42857143 0.5714286  0.71428573\n 0.85714287 1.         1.1428572  1.2857143  1.4285715  1.5714285\n 1.7142857  1.8571428  2.         2.142857   2.2857144  2.4285715\n 2.5714285  2.7142856  2.857143   3.         3.142857   3.2857144\n 3.4285715  3.5714285  3.7142856  3.857143   4.         4.142857\n 4.285714   4.428571   4.571429   4.714286   4.857143   5.\n 5.142857   5.285714   5.428571   5.571429  ]'),
    ('np.linspace(0, 1, 30, dtype=np.float32)', True, 'Array([0.        , 0.03448276, 0.06896552, 0.10344828, 0.13793103,\n       0.1724138 , 0.20689656, 0.2413793 , 0.27586207, 0.31034482,\n       0.3448276 , 0.37931034, 0.41379312, 0.44827586, 0.4827586 ,\n       0.51724136, 0.55172414, 0.5862069 , 0.62068963, 0.6551724 ,\n       0.6896552 , 0.7241379 , 0.7586207 , 0.79310346, 0.82758623,\n       0.86206895, 0.8965517 , 0.9310345 , 0.9655172 , 1.        ],      dtype=float32, weak_type=True)', '[0.         0.03448276 0.06896552 0.10344828 0.13793103 0.1724138\n 0.20689656 0.2413793  0.27586207 0.31034482 0.3448276  0.37931034\n 0.41379312 0.44827586 0.4827586  0.51724136 0.55172414 0.5862069\n 0.62068963 0.6551724  0.6896552  0.7241379  0.7586207  0.79310346\n 0.82758623 0.86206895 0.8965517  0.9310345  0.9655172  1.        ]'),
    ('np.array([1e10, 1e-10], np.float32)', False, 'Array([1.e+10, 1.e-10], dtype=float32)', '[1.e+10 1.e-10]'),
    ('np.array([np.nan, np.inf, -np.inf], np.float32)', False, 'Array([ nan,  inf, -inf], dtype=float32)', '[ nan  inf -inf]'),
    ('np.array([255, 0], np.uint8)', False, 'Array([255,   0], dtype=uint8)', '[255   0]'),
    ('np.array([-128, 127], np.int8)', False, 'Array([-128,  127], dtype=int8)', '[-128  127]'),
    ('np.array([1, 2], np.uint32)', False, 'Array([1, 2], dtype=uint32)', '[1 2]'),
    ('np.array([[1.123456789, 2.], [3., 4.]], np.float32)', False, 'Array([[1.1234568, 2.       ],\n       [3.       , 4.       ]], dtype=float32)', '[[1.1234568 2.       ]\n [3.        4.       ]]'),
    ('np.arange(30, dtype=np.int32).reshape(5, 6) * 1000000', False, 'Array([[       0,  1000000,  2000000,  3000000,  4000000,  5000000],\n       [ 6000000,  7000000,  8000000,  9000000, 10000000, 11000000],\n       [12000000, 13000000, 14000000, 15000000, 16000000, 17000000],\n       [18000000, 19000000, 20000000, 21000000, 22000000, 23000000],\n       [24000000, 25000000, 26000000, 27000000, 28000000, 29000000]],      dtype=int32)', '[[       0  1000000  2000000  3000000  4000000  5000000]\n [ 6000000  7000000  8000000  9000000 10000000 11000000]\n [12000000 13000000 14000000 15000000 16000000 17000000]\n [18000000 19000000 20000000 21000000 22000000 23000000]\n [24000000 25000000 26000000 27000000 28000000 29000000]]'),
    ('np.array([0.5] * 17, np.float32)', False, 'Array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,\n       0.5, 0.5, 0.5, 0.5], dtype=float32)', '[0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5 0.5]'),
    ('np.arange(8, dtype=np.float32).reshape(2, 2, 2)', False, 'Array([[[0., 1.],\n        [2., 3.]],\n\n       [[4., 5.],\n        [6., 7.]]], dtype=float32)', '[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]'),
]


@pytest.mark.parametrize("expr, weak, expected_repr, expected_str", REPR_CASES,
                         ids=[f"{c[0]}{'-weak' if c[1] else ''}" for c in REPR_CASES])
def test_repr_and_str_match_jax(expr, weak, expected_repr, expected_str):
    value = eval(expr)
    x = runtime.device_put(value, aval=ShapedArray(value.shape, value.dtype, weak))
    assert repr(x) == expected_repr
    assert str(x) == expected_str


def test_repr_follows_numpy_print_options():
    x = runtime.device_put(np.arange(12, dtype=np.float32))
    with np.printoptions(linewidth=40):
        assert repr(x) == ("Array([ 0.,  1.,  2.,  3.,  4.,  5.,\n"
                           "        6.,  7.,  8.,  9., 10., 11.],      dtype=float32)")
        assert str(x) == "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.\n  9. 10. 11.]"


# ----------------------------------------------------------------------------------------
# The Array type and its Python protocols
# ----------------------------------------------------------------------------------------

def test_array_type_is_jaxlibs_cpp_class():
    x = runtime.device_put(np.ones(3, np.float32))
    assert type(x).__name__ == "ArrayImpl" and type(x).__module__ == "jaxlib._jax"
    assert array.ArrayImpl is type(x) and issubclass(array.ArrayImpl, array.Array)
    assert isinstance(x, array.Array)

    class ArrayTracer(core.Tracer):           # jaxlib asks a tracer _is_traced_array()
        aval = ShapedArray((2,), np.float32)
        _is_traced_array = lambda self: True
    assert isinstance(ArrayTracer(None), array.Array)       # tracers count as Arrays
    assert not isinstance(np.ones(3), array.Array)
    assert x.__array_priority__ == 100


def test_methods_can_be_installed_on_the_array_types():
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    array.ArrayImpl.twice = lambda self: np.asarray(self) * 2
    array.Array.base_attribute = property(lambda self: "from base")
    try:
        np.testing.assert_array_equal(x.twice(), [0., 2., 4.])
        assert x.base_attribute == "from base"
    finally:
        del array.ArrayImpl.twice
        del array.Array.base_attribute
    assert not hasattr(x, "twice")


def test_placement_properties():
    x = runtime.device_put(np.ones(3, np.float32))
    device = runtime.default_device()
    assert x.devices() == {device} and x.device == device
    assert repr(x.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert x.sharding == runtime.SingleDeviceSharding(device)
    assert hash(x.sharding) == hash(runtime.SingleDeviceSharding(device))
    assert not x.committed and x.is_fully_addressable and x.is_fully_replicated
    assert repr(x.addressable_shards) == ("[Shard(device=CpuDevice(id=0), "
                                          "index=(slice(None, None, None),), replica_id=0, "
                                          "data=[1. 1. 1.])]")
    assert x.addressable_data(0) is x
    assert x.block_until_ready() is x and x.is_ready()


def test_conversions_to_python_values_match_jax():
    vector = runtime.device_put(np.ones(3, np.float32))
    for convert in (int, float, complex):
        with pytest.raises(TypeError, match="^Only scalar arrays can be converted to Python "
                           r"scalars; got arr.ndim=1$"):
            convert(vector)
    with pytest.raises(TypeError, match="^Only integer scalar arrays can be converted to a "
                       "scalar index.$"):
        vector.__index__()
    with pytest.raises(TypeError, match="^Only integer scalar arrays can be converted to a "
                       "scalar index.$"):
        runtime.device_put(2.5).__index__()
    with pytest.raises(ValueError, match="^The truth value of an array with more than one "
                       r"element is ambiguous. Use a.any\(\) or a.all\(\)$"):
        bool(vector)
    with pytest.raises(ValueError, match="^The truth value of an empty array is ambiguous. "
                       r"Use `array.size > 0` to check that an array is not empty.$"):
        bool(runtime.device_put(np.zeros(0, np.float32)))
    with pytest.raises(ValueError, match="^can only convert an array of size 1 to a Python "
                       "scalar$"):
        vector.item()
    assert int(runtime.device_put(2.7)) == 2
    assert float(runtime.device_put(np.float32(2.5))) == 2.5
    assert complex(runtime.device_put(1j)) == 1j
    assert bool(runtime.device_put(np.array([2.], np.float32))) is True
    assert hex(runtime.device_put(10)) == "0xa"
    assert [0, 1, 2][runtime.device_put(1)] == 1
    item = runtime.device_put(np.array([2.5], np.float32)).item()
    assert item == 2.5 and type(item) is float
    assert vector.tolist() == [1.0, 1.0, 1.0]
    assert runtime.device_put(np.array(3, np.int32)).tolist() == 3


def test_format_len_iter_hash():
    assert f"{runtime.device_put(2.5):.3f}" == "2.500"
    assert f"{runtime.device_put(7):>4}" == "   7"
    assert format(runtime.device_put(np.array([1.5, 2.], np.float32)), "") == "[1.5 2. ]"
    scalar = runtime.device_put(np.float32(1))
    with pytest.raises(TypeError, match="^len\\(\\) of unsized object$"):
        len(scalar)
    with pytest.raises(TypeError, match="^iteration over a 0-d array$"):
        iter(scalar)
    x = runtime.device_put(np.arange(6, dtype=np.int32).reshape(3, 2))
    assert len(x) == 3
    rows = list(x)
    assert [repr(r) for r in rows] == ["Array([0, 1], dtype=int32)",
                                       "Array([2, 3], dtype=int32)",
                                       "Array([4, 5], dtype=int32)"]
    assert all(type(r) is runtime.ArrayImpl for r in rows)
    weak = runtime.device_put(np.ones(2, np.float32),
                              aval=ShapedArray((2,), np.float32, weak_type=True))
    assert all(r.weak_type for r in weak)
    with pytest.raises(TypeError, match="^unhashable type: 'jaxlib._jax.ArrayImpl'$"):
        hash(x)


def test_numpy_conversion():
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    assert repr(np.asarray(x, dtype=np.int32)) == "array([0, 1, 2], dtype=int32)"
    assert np.array(x).flags.writeable
    b = runtime.device_put(np.array([1.5, 2.], bf16))
    assert np.asarray(b).dtype == bf16                # not an object array
    np.testing.assert_array_equal(np.from_dlpack(x), [0., 1., 2.])
    x.copy_to_host_async()
    np.testing.assert_array_equal(x, [0., 1., 2.])


def test_pickle_keeps_value_dtype_and_weak_type():
    for x in [runtime.device_put(2.0), runtime.device_put(np.array([1.5, 2.], bf16)),
              runtime.device_put(np.arange(6, dtype=np.int32).reshape(2, 3))]:
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is runtime.ArrayImpl and y.aval == x.aval
        np.testing.assert_array_equal(y, x)
    assert repr(pickle.loads(pickle.dumps(runtime.device_put(2.0)))) == \
        "Array(2., dtype=float32, weak_type=True)"


def test_copy_has_its_own_buffer():
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    y = x.copy()
    assert y is not x and y.aval == x.aval
    x.delete()
    assert repr(y) == "Array([0., 1., 2.], dtype=float32)"


def test_deleted_arrays():
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    x.delete()
    message = r"^Array has been deleted with shape=float32\[3\].$"
    for use in [repr, str, np.asarray, list, pickle.dumps, lambda x: x.devices(),
                lambda x: x.device, lambda x: x.tolist(), lambda x: x.item(),
                lambda x: x.addressable_shards, lambda x: x.copy_to_host_async(),
                lambda x: format(x, "")]:
        with pytest.raises(RuntimeError, match=message):
            use(x)
    assert x.is_deleted() and x.shape == (3,) and len(x) == 3
    x.delete()                                          # deleting twice is fine
    empty = runtime.device_put(np.zeros(0, np.float32))
    empty.delete()
    assert repr(empty) == "Array([], shape=(0,), dtype=float32)"   # as in JAX


# ----------------------------------------------------------------------------------------
# Compiling and executing hand-written StableHLO
# ----------------------------------------------------------------------------------------

def test_compile_and_execute_from_text_and_module():
    from jaxlib.mlir import ir
    x = runtime.device_put(np.array([0., 1., 2.], np.float32))
    with runtime.mlir_context():
        module = ir.Module.parse(SINE)
    for source in (SINE, module):
        exe = runtime.compile(source)
        out, = runtime.execute(exe, [x], [ShapedArray((3,), np.float32)])
        assert type(out) is runtime.ArrayImpl and out.aval == ShapedArray((3,), np.float32)
        assert not out.committed and out.device == runtime.default_device()
        np.testing.assert_allclose(out, np.sin(np.array([0., 1., 2.], np.float32)), rtol=1e-6)


def test_execute_several_outputs_weak_types_and_commitment():
    text = """
    module @m {
      func.func public @main(%a: tensor<2xi32>, %b: tensor<i32>) -> (tensor<2xi32>, tensor<i1>) {
        %0 = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<i32>) -> tensor<2xi32>
        %1 = stablehlo.add %a, %0 : tensor<2xi32>
        %2 = stablehlo.compare GT, %b, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
        return %1, %2 : tensor<2xi32>, tensor<i1>
      }
    }"""
    exe = runtime.compile(text)
    a = runtime.device_put(np.array([1, 2], np.int32))
    b = runtime.device_put(10)
    total, flag = runtime.execute(exe, [a, b], [ShapedArray((2,), np.int32, weak_type=True),
                                                ShapedArray((), np.bool_)], committed=True)
    assert repr(total) == "Array([11, 12], dtype=int32, weak_type=True)"
    assert repr(flag) == "Array(False, dtype=bool)"
    assert total.committed and flag.committed


def test_optimized_hlo_and_cost_analysis():
    exe = runtime.compile(SINE)
    text = runtime.optimized_hlo_text(exe)
    assert text.startswith("HloModule m") and "sine(" in text
    costs = runtime.cost_analysis(exe)
    assert costs["transcendentals"] == 3.0 and costs["bytes accessed"] == 24.0


def test_host_callback():
    calls = []

    def callback(a):
        calls.append(np.array(a))
        return (np.asarray(a) * 10,)

    text = """
    module @m {
      func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
        %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%a) {api_version = 4 : i32,
          backend_config = {index = 0 : ui64}, has_side_effect = true}
          : (tensor<3xf32>) -> tensor<3xf32>
        return %0 : tensor<3xf32>
      }
    }"""
    exe = runtime.compile(text, host_callbacks=[callback])
    del callback
    gc.collect()                                  # jaxlib keeps the callback alive
    out, = runtime.execute(exe, [runtime.device_put(np.arange(3, dtype=np.float32))],
                           [ShapedArray((3,), np.float32)])
    np.testing.assert_array_equal(out, [0., 10., 20.])
    assert len(calls) == 1


def test_donated_input_is_deleted():
    text = """
    module @m {
      func.func public @main(%a: tensor<3xf32> {tf.aliasing_output = 0 : i32}) -> tensor<3xf32> {
        %0 = stablehlo.add %a, %a : tensor<3xf32>
        return %0 : tensor<3xf32>
      }
    }"""
    exe = runtime.compile(text)
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    out, = runtime.execute(exe, [x], [ShapedArray((3,), np.float32)])
    np.testing.assert_array_equal(out, [0., 2., 4.])
    assert x.is_deleted()


def test_float0_values_have_no_data():
    # float0 (the tangent type of integers) is held by XLA as bools; results come back as
    # host zeros of dtype float0 (TypedNdArray, a NumPy array subclass), as in JAX.
    x = runtime.device_put(np.zeros(3, dtypes.float0))
    assert repr(x) == "Array([False, False, False], dtype=bool)"
    text = """
    module @m {
      func.func public @main(%a: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>) {
        return %a, %a : tensor<3xi1>, tensor<3xi1>
      }
    }"""
    zeros, same = runtime.execute(runtime.compile(text), [x],
                                  [ShapedArray((3,), dtypes.float0), x.aval])
    assert isinstance(zeros, core.TypedNdArray) and zeros.dtype == dtypes.float0
    assert repr(zeros) == "TypedNdArray([(b'',), (b'',), (b'',)], dtype=void)"
    assert repr(same) == "Array([False, False, False], dtype=bool)"


def test_compile_checks_device_count():
    with pytest.raises(ValueError, match="1 devices given for 2 replicas x 1 partitions"):
        runtime.compile(SINE, devices=[runtime.default_device()], num_replicas=2)


# ----------------------------------------------------------------------------------------
# Several devices (child processes with 4 CPU devices)
# ----------------------------------------------------------------------------------------

def test_multi_device_arrays_and_replica_execution():
    run_child(f"""
        import numpy as np
        import glassjax.array
        from glassjax.core import ShapedArray
        from glassjax.xla import runtime as rt
        devs = rt.devices()

        # device_put onto a split sharding: device i holds row i
        x = rt.device_put(np.array([[1., 2, 3], [4, 5, 6]], np.float32),
                          rt.split_sharding(devs[:2], 2))
        assert repr(x) == ("Array([[1., 2., 3.],\\n       [4., 5., 6.]], dtype=float32)")
        assert x.devices() == set(devs[:2]) and x.device is x.sharding
        assert repr(x.sharding) == "GSPMDSharding({{devices=[2,1]<=[2]}}, memory_kind=device)"
        assert not x.is_fully_replicated and x.is_fully_addressable
        shards = x.addressable_shards
        assert [s.device for s in shards] == devs[:2]
        assert [s.index for s in shards] == [(slice(0, 1), slice(None)),
                                             (slice(1, 2), slice(None))]
        assert [repr(s.data) for s in shards] == [
            "Array([[1., 2., 3.]], dtype=float32)", "Array([[4., 5., 6.]], dtype=float32)"]
        assert all(s.data.aval == ShapedArray((1, 3), np.float32) for s in shards)

        # two replicas: all_reduce sums the blocks, replica_id numbers them
        exe = rt.compile({ALL_REDUCE!r}, devices=devs[:2], num_replicas=2)
        total, ids = rt.execute(exe, [x], [ShapedArray((2, 3), np.float32),
                                           ShapedArray((2,), np.uint32)],
                                out_shardings=[rt.split_sharding(devs[:2], 2),
                                               rt.split_sharding(devs[:2], 1)])
        np.testing.assert_array_equal(total, [[5., 7., 9.], [5., 7., 9.]])
        np.testing.assert_array_equal(ids, [0, 1])
        assert total.sharding == rt.split_sharding(devs[:2], 2)
        assert [s.data.tolist() for s in total.addressable_shards] == [[[5., 7., 9.]]] * 2

        # replicated arrays: a full copy on every device
        r = rt.device_put(np.arange(4, dtype=np.float32), rt.replicated_sharding(devs))
        assert r.is_fully_replicated and [s.replica_id for s in r.addressable_shards] == [0, 1, 2, 3]
        assert repr(r) == "Array([0., 1., 2., 3.], dtype=float32)"

        # moving arrays between devices and layouts
        y = rt.device_put(np.arange(3, dtype=np.float32))
        z = rt.device_put(y, devs[3])
        assert z.device == devs[3] and not z.committed
        w = rt.device_put(z, devs[1], committed=True)
        assert w.device == devs[1] and w.committed
        np.testing.assert_array_equal(w, [0., 1., 2.])
        single = rt.device_put(x, devs[2])
        assert single.device == devs[2] and single.tolist() == x.tolist()
        copied = x.copy()
        assert copied.sharding == x.sharding and copied.tolist() == x.tolist()

        # which device a computation on committed arrays must use
        assert rt.committed_devices([y, 2.0]) is None
        assert rt.committed_devices([y, w]) == (devs[1],)
        try:
            rt.committed_devices([w, rt.device_put(y, devs[2], committed=True)],
                                ["x", "y"], "f")
            raise AssertionError("expected an error")
        except ValueError as e:
            assert str(e) == (
                "Received incompatible devices for jitted computation. Got argument x of "
                "f with shape float32[3] and with device ids [1] on platform CPU and "
                "argument y of f with shape float32[3] and with device ids [2] on "
                "platform CPU")
    """)


# A meta-path finder in the child records every attempt to import jax, even one that
# fails (jaxlib swallows the ImportError), so this works whether or not jax is installed.
_RECORD_JAX_IMPORTS = """
    import sys
    attempts = []
    class RecordJaxImports:
        def find_spec(self, name, path=None, target=None):
            if name == "jax" or name.startswith("jax."):
                attempts.append(name)
    sys.meta_path.insert(0, RecordJaxImports())
    import numpy as np
    import glassjax.array
    from glassjax.core import ShapedArray
    from glassjax.xla import runtime as rt
    devs = rt.devices()
    x = rt.device_put(np.arange(6, dtype=np.float32).reshape(2, 3), rt.split_sharding(devs[:2], 2))
"""


def test_device_put_sharded_and_replicated_seed_examples():
    """The seed's examples of the two functions JAX 0.10 removed (glassjax keeps them):
    slice i of the stacked result lives on device i."""
    out = run_child("""
        import numpy as np, glassjax as jax
        devices = jax.local_devices()
        x = jax.numpy.array([1., 2., 3.])
        y = jax.device_put_replicated(x, devices)
        print(np.allclose(y, jax.numpy.stack([x for _ in devices])), y.shape)
        x = [jax.numpy.ones(5) for device in devices]
        y = jax.device_put_sharded(x, devices)
        print(np.allclose(y, jax.numpy.stack(x)))
        x = [(i, jax.numpy.arange(i, i + 4)) for i in range(len(devices))]
        y = jax.device_put_sharded(x, devices)
        print(type(y))
        y0 = jax.device_put_sharded([a for a, b in x], devices)
        y1 = jax.device_put_sharded([b for a, b in x], devices)
        print(np.allclose(y[0], y0), np.allclose(y[1], y1))
        print(sorted(d.id for d in y1.sharding.device_set) == [d.id for d in devices])
        print(y1.sharding.devices_indices_map(y1.shape)[devices[2]])
        try:
            jax.device_put_sharded(x[:2], devices)
        except ValueError as e:
            print(e)
    """)
    assert out.splitlines() == [
        "True (4, 3)", "True", "<class 'tuple'>", "True True", "True",
        "(slice(2, 3, None), slice(None, None, None))",
        "len(shards) = 2 must equal len(devices) = 4."]


def test_running_computations_never_imports_jax():
    out = run_child(_RECORD_JAX_IMPORTS + f"""
    exe = rt.compile({SINE!r})
    out, = rt.execute(exe, [rt.device_put(np.ones(3, np.float32))], [ShapedArray((3,), np.float32)])
    repr(out), list(out), out.addressable_shards, rt.device_put(out, devs[1]).tolist()
    exe = rt.compile({ALL_REDUCE!r}, devices=devs[:2], num_replicas=2)
    total, ids = rt.execute(exe, [x], [ShapedArray((2, 3), np.float32), ShapedArray((2,), np.uint32)],
                        out_shardings=[rt.split_sharding(devs[:2], 2), rt.split_sharding(devs[:2], 1)])
    repr(total), np.asarray(ids), total.addressable_shards, list(total), total.copy()
    rt.device_put(total, devs[3]), x.copy_to_host_async()
    print(attempts, sorted(m for m in sys.modules if m == "jax" or m.startswith("jax.")))
    """)
    assert out.strip() == "[] []"


def test_the_import_check_would_catch_jaxlib_importing_jax():
    # Reading the pieces of a multi-device array straight from jaxlib makes it import
    # jax.core (for their avals): the trap runtime.shards avoids.
    out = run_child(_RECORD_JAX_IMPORTS + """
    x._arrays
    print(attempts)
    """)
    assert out.strip().startswith("['jax'")


def test_every_compile_goes_through_the_patchable_compiler_hook(monkeypatch):
    """``jax._src.compiler.backend_compile_and_load`` is looked up at each compile, so a
    wrapper of it (chex's ``restrict_backends``) sees every compile; ``jax._src.xla_bridge
    ._backends`` is the runtime's live ``{platform: client}``."""
    import importlib
    from glassjax._src import compiler, xla_bridge
    assert importlib.import_module("glassjax._src.compiler") is compiler
    seen = []
    original = compiler.backend_compile_and_load

    def spy(backend, *args):
        seen.append(backend.platform)
        return original(backend, *args)
    monkeypatch.setattr(compiler, "backend_compile_and_load", spy)
    assert float(glassjax.jit(lambda x: x * 3 + 1)(np.float32(2))) == 7.
    assert seen == ["cpu"]
    assert xla_bridge._backends is runtime._backends and "cpu" in xla_bridge._backends
