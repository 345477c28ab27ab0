"""Common mistakes get JAX 0.10.2's exception, found up front (before any lowering).

Each expected line is what JAX 0.10.2 prints as ``type(err).__name__: first line``,
recorded with the reference JAX. Where JAX only fails late (the XLA verifier rejecting a
reshape, ``safe_map`` inside its eager slice), glassjax raises the same exception type
from the shape rule with a message naming the shapes; those cases check the type and
the key information.
"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax

x3 = jnp.arange(3.0)


def first_line(thunk):
    try:
        thunk()
    except Exception as err:       # noqa: BLE001 - the exception is the result
        lines = str(err).strip().splitlines()
        return f"{type(err).__name__}: {lines[0] if lines else ''}"
    return "OK"


SAME_AS_JAX = {
    "grad(argnums=-2) of a one-argument function":
        (lambda: jax.grad(lambda x: x * x, argnums=-2)(1.0),
         "ValueError: Positional argument indices, e.g. for `static_argnums`, must have "
         "value greater than or equal to -len(args) and less than len(args), but got value "
         "-2 for len(args) == 1."),
    "jacfwd(argnums=-3)":
        (lambda: jax.jacfwd(lambda x, y: x * y, argnums=-3)(1.0, 2.0),
         "ValueError: Positional argument indices, e.g. for `static_argnums`, must have "
         "value greater than or equal to -len(args) and less than len(args), but got value "
         "-3 for len(args) == 2."),
    "the same argument static and donated (by number)":
        (lambda: jax.jit(lambda x, y: x, static_argnums=0, donate_argnums=0),
         "ValueError: static_argnames and donate_argnames cannot intersect. Argument names "
         "{'x'} appear in both static_argnames and donate_argnames"),
    "the same argument static and donated (by name)":
        (lambda: jax.jit(lambda x, y: x, static_argnames="y", donate_argnames="y"),
         "ValueError: static_argnames and donate_argnames cannot intersect. Argument names "
         "{'y'} appear in both static_argnames and donate_argnames"),
    "einsum operand sizes disagree":
        (lambda: jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((4, 5))),
         "ValueError: Size of label 'j' for operand 1 (3) does not match previous terms (4)."),
    "einsum operand sizes disagree (implicit output)":
        (lambda: jnp.einsum("i,i", jnp.ones(3), jnp.ones(4)),
         "ValueError: Size of label 'i' for operand 1 (3) does not match previous terms (4)."),
    "einsum subscript of the wrong rank":
        (lambda: jnp.einsum("ij,j->i", jnp.ones(3), jnp.ones(3)),
         "ValueError: Einstein sum subscript 'ij' does not contain the correct number of "
         "indices for operand 0."),
    "device_put to a string":
        (lambda: jax.device_put(x3, "cpu:0"),
         "ValueError: `jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
         "`jax.Device`, `Format`, `jax.memory.Space` or a pytree of these values. Received "
         "invalid value: cpu:0"),
    "device_put to an integer":
        (lambda: jax.device_put(x3, 1),
         "ValueError: `jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
         "`jax.Device`, `Format`, `jax.memory.Space` or a pytree of these values. Received "
         "invalid value: 1"),
    "key + 1":
        (lambda: jax.random.key(0) + 1, "TypeError: add does not accept dtypes key<fry>, int32."),
    "1.5 * key":
        (lambda: 1.5 * jax.random.key(0),
         "TypeError: multiply does not accept dtypes float32, key<fry>."),
    "key * 2 under jit":
        (lambda: jax.jit(lambda k: k * 2)(jax.random.key(0)),
         "TypeError: multiply does not accept dtypes key<fry>, int32."),
    "jnp.sin of a key":
        (lambda: jnp.sin(jax.random.key(0)), "TypeError: Cannot interpret 'key<fry>' as a data type"),
    "jnp.sin of a key under jit":
        (lambda: jax.jit(jnp.sin)(jax.random.key(0)),
         "TypeError: Cannot interpret 'key<fry>' as a data type"),
    "key < key":
        (lambda: jax.random.key(0) < jax.random.key(1),
         "TypeError: lt does not accept dtype key<fry> at position 0. Accepted dtypes at "
         "position 0 are subtypes of integer, floating, bool."),
    "vmap of key + 1.0":
        (lambda: jax.vmap(lambda k: k + 1.0)(jax.random.split(jax.random.key(0))),
         "TypeError: add does not accept dtypes key<fry>, float32."),
    "lax.add of keys":
        (lambda: lax.add(jax.random.key(0), jax.random.key(1)),
         "TypeError: add does not accept dtype key<fry> at position 0. Accepted dtypes at "
         "position 0 are subtypes of integer, floating, complexfloating."),
    "a raw key of the wrong dtype":
        (lambda: jax.random.uniform(jnp.ones(2), (3,)),
         "TypeError: JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
         "got dtype=float32"),
    "a Python int as a key":
        (lambda: jax.random.uniform(0, (3,)),
         "TypeError: JAX encountered invalid PRNG key data: expected key_data to have ndim, "
         "shape, and dtype attributes. Got 0"),
    "a Python int as a key to split":
        (lambda: jax.random.split(42),
         "TypeError: JAX encountered invalid PRNG key data: expected key_data to have ndim, "
         "shape, and dtype attributes. Got 42"),
    "an int constant too big for int32, under jit":
        (lambda: jax.jit(lambda a: a * 2**40)(x3),
         "OverflowError: An overflow was encountered while parsing an argument to a jitted "
         "computation, whose argument path is y. Got <class 'int'> with value 1099511627776"),
    "an int constant too big for int32, under grad":
        (lambda: jax.grad(lambda a: a + 2**31)(1.0),
         "OverflowError: An overflow was encountered while parsing an argument to a jitted "
         "computation, whose argument path is y. Got <class 'int'> with value 2147483648"),
    "an int constant too big for int32, eagerly":
        (lambda: x3 + 2**40,
         "OverflowError: An overflow was encountered while parsing an argument to a jitted "
         "computation, whose argument path is y. Got <class 'int'> with value 1099511627776"),
    "a traced slice start":
        (lambda: jax.jit(lambda a, i: a[i:i + 2])(x3, 0),
         "IndexError: Slice entries must be static integers. Got slice(JitTracer(~int32[]), "
         "JitTracer(~int32[]), None) at position 0"),
    "a traced slice stop in the second position":
        (lambda: jax.jit(lambda a, i: a[None, :i])(x3, 1),
         "IndexError: Slice entries must be static integers. Got slice(None, "
         "JitTracer(~int32[]), None) at position 1"),
    "svd of a vector":
        (lambda: jnp.linalg.svd(x3),
         "TypeError: Input 0 to svd must have rank at least 2, but got shape=(3,)"),
    "qr of a vector":
        (lambda: lax.linalg.qr(x3),
         "TypeError: Input 0 to qr must have rank at least 2, but got shape=(3,)"),
    "triangular_solve of a non-square matrix":
        (lambda: lax.linalg.triangular_solve(jnp.ones((2, 3)), jnp.ones((3, 3))),
         "ValueError: The first input to triangular_solve must be a square matrix. Got "
         "shape (2, 3)."),
    "triangular_solve of mismatched matrices":
        (lambda: lax.linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((2, 2))),
         "ValueError: Incompatible shapes for arguments to triangular_solve: (3, 3) and "
         "(2, 2)."),
    "a slice longer than the operand":
        (lambda: lax.slice(x3, (0,), (5,)),
         "TypeError: slice slice_sizes must be less than or equal to operand shape, got "
         "slice_sizes (np.int64(5),) for operand shape (3,)."),
    "a slice longer than the operand, traced":
        (lambda: jax.make_jaxpr(lambda x: lax.slice(x, (0,), (5,)))(x3),
         "TypeError: slice limit_indices must be less than or equal to operand shape, got "
         "limit_indices (5,) for operand shape (3,)."),
    "reshape to a negative size":
        (lambda: lax.reshape(x3, (-1,)), "TypeError: reshape new_sizes must all be positive, got (-1,)."),
    "dynamic_update_slice with a bigger update":
        (lambda: lax.dynamic_update_slice(x3, jnp.ones(5), (0,)),
         "TypeError: dynamic_update_slice update shape must be smaller than operand shape, got "
         "update shape (5,) for operand shape (3,)."),
}


@pytest.mark.parametrize("name", list(SAME_AS_JAX))
def test_mistake_raises_jax_error(name):
    thunk, expected = SAME_AS_JAX[name]
    assert first_line(thunk) == expected


def test_key_shards_hold_keys():
    key = jax.random.key(0)
    shard, = key.addressable_shards
    assert shard.data.dtype == key.dtype and shard.data.shape == ()
    assert shard.device == jax.devices()[0]
    assert bool(key.addressable_data(0) == key)


# (thunk, exception type JAX raises, text the message must contain)
SAME_TYPE_AS_JAX = {
    # JAX: "ValueError: Cannot lower jaxpr with verifier errors: ... number of output
    # elements (4) doesn't match expected number of elements (3)"
    "reshape changing the size":
        (lambda: lax.reshape(x3, (2, 2)), ValueError, "new_sizes (2, 2) (size 4) for operand "
         "shape (3,) (size 3)"),
    "reshape changing the size, traced":
        (lambda: jax.jit(lambda x: lax.reshape(x, (4,)))(x3), ValueError,
         "new_sizes (4,) (size 4) for operand shape (3,) (size 3)"),
    # JAX: "ValueError: Cannot lower jaxpr with verifier errors:" (window stride 0)
    "a convolution with stride 0":
        (lambda: lax.conv(jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3)), (0, 1), "SAME"),
         ValueError, "strides must be positive, got (0, 1)"),
    # JAX (and XLA) abort the process: "overflow in static extent product"
    "an array too big for 64 bits":
        (lambda: jnp.ones((2 ** 40, 2 ** 40)), ValueError,
         "float32[1099511627776,1099511627776]: its size in bytes does not fit in 64 bits"),
    # JAX: "AssertionError: (ValAccum(~float32[]), ValAccum(~float32[]))"
    "linear_transpose of a non-linear function":
        (lambda: jax.linear_transpose(lambda x: x * x + 3, 1.0)(1.0), AssertionError,
         "(UndefinedPrimal(~float32[]), UndefinedPrimal(~float32[]))"),
    # JAX: "IndexError: tuple index out of range"
    "mean over an axis out of range":
        (lambda: jnp.mean(jnp.ones(3), axis=(4, 4)), IndexError, "out of range"),
    # JAX: "ValueError: safe_map() argument 2 is longer than argument 1"
    "a slice of the wrong rank":
        (lambda: lax.slice(x3, (0, 0), (1, 1)), ValueError,
         "start_indices (0, 0) and limit_indices (1, 1) for operand shape (3,)"),
}


@pytest.mark.parametrize("name", list(SAME_TYPE_AS_JAX))
def test_mistake_raises_jax_exception_type_naming_the_shapes(name):
    thunk, kind, text = SAME_TYPE_AS_JAX[name]
    with pytest.raises(kind) as info:
        thunk()
    assert text in str(info.value)


def test_dynamic_slice_of_the_wrong_rank_is_rejected_by_its_shape_rule():
    # An earlier eager call with equal-but-differently-typed params must not lend the
    # later call its params (the eager dispatcher cache once keyed on values alone).
    lax.dynamic_slice_p.bind(jnp.ones(3), np.int32(0), slice_sizes=(np.int64(1),))
    with pytest.raises(TypeError, match=r"slice_sizes \(1,\) for operand shape \(3, 2\)"):
        lax.dynamic_slice_p.bind(jnp.ones((3, 2)), np.int32(0), slice_sizes=(1,))


@pytest.mark.parametrize("index, expected", [
    (5, "IndexError: index 5 out of bounds for axis 0 with size 3 (normalize_indices=True)"),
    (-4, "IndexError: index -4 out of bounds for axis 0 with size 3 (normalize_indices=True)"),
    (-3, "OK"),
])
def test_out_of_range_static_index_with_check_static_indices(index, expected):
    assert first_line(lambda: x3[index]) == "OK"           # clamped by default
    with jax.config.option("jax_check_static_indices").override(True):
        assert first_line(lambda: x3[index]) == expected
        assert first_line(lambda: jax.jit(lambda a: a[index])(x3)) == expected
        assert first_line(lambda: x3.at[index].get(mode="clip")) == "OK"
