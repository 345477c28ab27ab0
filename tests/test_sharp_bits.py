"""The "sharp bits" of JAX, each giving JAX 0.10.2's exact error or value: concrete
values needed while tracing, Python ints that do not fit, NumPy-style inputs.
(Expected strings were printed by JAX 0.10.2 for the same code.)"""
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.errors import ConcretizationTypeError


def _origin(fun, arg):
    code = fun.__code__
    return (f"The error occurred while tracing the function {fun.__name__} at "
            f"{code.co_filename}:{code.co_firstlineno} for jit. This concrete value was "
            f"not available in Python because it depends on the value of the argument "
            f"{arg}.")


def test_traced_shape():
    def example_fun(length, val):
        return jnp.ones((length,)) * val
    with pytest.raises(TypeError) as err:
        jax.jit(example_fun)(10, 4)
    assert str(err.value) == (
        "Shapes must be 1D sequences of concrete values of integer type, got "
        "(JitTracer(~int32[]),).\nIf using `jit`, try using `static_argnums` or applying "
        "`jit` to smaller subfunctions.\n" + _origin(example_fun, "length"))


def test_tolist_of_a_tracer():
    def f(x):
        return x.tolist()
    with pytest.raises(ConcretizationTypeError) as err:
        jax.jit(f)(jnp.ones(2))
    origin = _origin(f, "x")
    assert str(err.value) == (
        "Abstract tracer value encountered where concrete value is expected: traced array "
        "with shape float32[2]\nThe tolist() method was called on traced array with shape "
        f"float32[2].\n{origin}\n{origin}\n\nSee https://docs.jax.dev/en/latest/errors.html"
        "#jax.errors.ConcretizationTypeError")


@pytest.mark.parametrize("fun, message", [
    (lambda: jax.jit(lambda x, y: x + y)(1, 2**31),
     "An overflow was encountered while parsing an argument to a jitted computation, "
     "whose argument path is y. Got <class 'int'> with value 2147483648"),
    (lambda: jax.jit(lambda d: d["a"])({"a": 2**40}),
     "whose argument path is d['a']. Got <class 'int'> with value 1099511627776"),
    (lambda: jnp.arange(3, dtype=jnp.int32) + 2**31, "whose argument path is y."),
    (lambda: jnp.array(2**31), "Python int 2147483648 too large to convert to int32"),
    (lambda: jax.typeof(2**31), "Python int 2147483648 too large to convert to int32"),
    (lambda: jnp.int32(2**31), "Python integer 2147483648 out of bounds for int32"),
    (lambda: jnp.array(-1, jnp.uint8), "Python integer -1 out of bounds for uint8"),
])
def test_python_ints_that_do_not_fit(fun, message):
    with pytest.raises(OverflowError) as err:
        fun()
    assert message in str(err.value)


def test_integer_pow_error_shows_weak_type():
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got "
                                        r"integer_pow\(~int32\[\], -1\)"):
        jnp.power(2, -1)


def test_array_from_range():
    assert repr(jnp.array(range(4))) == "Array([0, 1, 2, 3], dtype=int32)"
    assert repr(jnp.array(range(2), dtype=float)) == "Array([0., 1.], dtype=float32)"
    assert jnp.sum(jnp.array(range(10))) == 45
    with pytest.raises(TypeError, match="with dtype object is not a valid JAX array type"):
        jnp.array(object())
