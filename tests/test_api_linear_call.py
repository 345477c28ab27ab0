"""jax.custom_derivatives.linear_call: the examples of JAX's docstring, values and jaxprs
as JAX 0.10.2 prints them, grad against the closed form."""
from functools import partial

import numpy as np

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.custom_derivatives import linear_call


def f(r, x):
    return x / r


def t(r, ct):
    return ct / r


def div_add(x, denom):
    return x + linear_call(f, t, denom, x)


def transpose(fun, x_example):
    def transposed(y):
        x, = jax.linear_transpose(fun, x_example)(y)
        return x
    return transposed


def custom_id(x):
    return linear_call(lambda _, x: x, lambda _, ct: 7., (), x)


def test_values_and_custom_transposes():
    assert div_add(9., 3.) == 12.
    assert transpose(partial(div_add, denom=3.), 1.)(18.) == 24.
    assert transpose(lambda x: x + x / 3., 1.)(18.) == 24.      # the reference
    assert custom_id(1.) == 1.
    assert transpose(custom_id, 1.)(1.) == 7.
    assert transpose(transpose(custom_id, 1.), 1.)(1.) == 1.
    assert transpose(transpose(transpose(custom_id, 1.), 1.), 1.)(1.) == 7.
    assert jax.jit(div_add)(9., 3.) == 12.
    x, r = np.float32(2.5), np.float32(4.)
    np.testing.assert_allclose(jax.grad(div_add)(x, r), 1 + 1 / r, rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(lambda x: div_add(x, r), (x,), (np.float32(2.),))[1],
                               2 * (1 + 1 / r), rtol=1e-6)


def test_pytrees():
    def fun(r, xs):
        return {"s": xs[0] * r["k"], "d": xs[1] * 2}

    def fun_t(r, ct):
        return (ct["s"] * r["k"], ct["d"] * 2)
    r = {"k": jnp.float32(3.)}
    xs = (jnp.arange(3.), jnp.ones(2))
    out = linear_call(fun, fun_t, r, xs)
    np.testing.assert_allclose(out["s"], np.arange(3.) * 3)
    cts = jax.linear_transpose(lambda xs: linear_call(fun, fun_t, r, xs), xs)(
        {"s": jnp.ones(3), "d": jnp.ones(2)})
    np.testing.assert_allclose(cts[0][0], [3., 3., 3.])
    np.testing.assert_allclose(cts[0][1], [2., 2.])


def test_jaxprs_print_as_in_jax():
    assert str(jax.make_jaxpr(div_add)(9., 3.)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = linear_call[
      callee={ lambda ; d:f32[] e:f32[]. let f:f32[] = div e d in (f,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] b a
    g:f32[] = add a c
  in (g,) }"""
    assert str(jax.make_jaxpr(transpose(partial(div_add, denom=3.), 1.))(18.)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = linear_call[
      callee={ lambda ; c:f32[] d:f32[]. let e:f32[] = div d c in (e,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _linear_call_transpose_rule.<locals>.new_transpose_thunk at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] a
    f:f32[] = add_any a b
  in (f,) }"""
