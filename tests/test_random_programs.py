"""Random-program differences of issue 19: each program prints exactly the jaxpr JAX
0.10.2 prints (recorded with the reference JAX), and computes the same values."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp

sin_remat = jax.checkpoint(jnp.sin)

EXPECTED = {
    "grad_of_checkpoint_around_jit": (
        lambda: jax.make_jaxpr(jax.grad(lambda x: jax.checkpoint(jax.jit(jnp.sin))(x)))(1.0),
        """\
{ lambda ; a:f32[]. let
    _:f32[] = jit[
      name=sin
      jaxpr={ lambda ; a:f32[]. let _:f32[] = sin a in (_,) }
    ] a
    b:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = jit[
            name=sin
            jaxpr={ lambda ; c:f32[]. let e:f32[] = cos c in (e,) }
          ] c
          f:f32[] = jit[
            name=sin
            jaxpr={ lambda ; e:f32[] d:f32[]. let f:f32[] = mul d e in (f,) }
          ] e d
        in (f,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (b,) }"""),
    "int_max_with_initial_minus_inf": (
        lambda: jax.make_jaxpr(lambda x: jnp.max(x, initial=-jnp.inf))(jnp.arange(3)),
        """\
{ lambda ; a:i32[3]. let
    b:i32[] = reduce_max[axes=(0,)] a
    c:i32[] = max -2147483648:i32[] b
  in (c,) }"""),
    "zeros_like_of_a_weak_bool": (
        lambda: jax.make_jaxpr(lambda x: jnp.zeros_like(x > 0))(1.0),
        """\
{ lambda ; a:f32[]. let _:bool[] = gt a 0.0:f32[] in (False:bool[],) }"""),
    "and_of_weak_bools": (
        lambda: jax.make_jaxpr(lambda x: jnp.ones_like(x > 0) & (x > 0))(1.0),
        """\
{ lambda ; a:f32[]. let
    _:bool[] = gt a 0.0:f32[]
    b:bool[] = gt a 0.0:f32[]
    c:bool[] = convert_element_type[new_dtype=bool weak_type=False] b
    d:bool[] = and True:bool[] c
  in (d,) }"""),
    "checkpointed_function_called_twice": (
        lambda: jax.make_jaxpr(lambda x: sin_remat(x) + sin_remat(x))(1.0),
        """\
let jaxpr = { lambda ; a:f32[]. let b:f32[] = sin a in (b,) } in
{ lambda ; c:f32[]. let
    d:f32[] = remat2[
      differentiated=False
      jaxpr=jaxpr
      policy=None
      prevent_cse=True
    ] c
    e:f32[] = remat2[
      differentiated=False
      jaxpr=jaxpr
      policy=None
      prevent_cse=True
    ] c
    f:f32[] = add d e
  in (f,) }"""),
    "grad_of_checkpointed_function_called_twice": (
        lambda: jax.make_jaxpr(jax.grad(lambda x: sin_remat(x) * sin_remat(2 * x)))(1.0),
        """\
let jaxpr = { lambda ; a:f32[] b:f32[]. let
    c:f32[] = cos a
    d:f32[] = mul b c
  in (d,) } in
{ lambda ; e:f32[]. let
    f:f32[] = sin e
    g:f32[] = mul 2.0:f32[] e
    h:f32[] = sin g
    _:f32[] = mul f h
    i:f32[] = mul f 1.0:f32[]
    j:f32[] = mul 1.0:f32[] h
    k:f32[] = remat2[
      differentiated=True
      jaxpr=jaxpr
      policy=None
      prevent_cse=True
    ] g i
    l:f32[] = mul 2.0:f32[] k
    m:f32[] = remat2[
      differentiated=True
      jaxpr=jaxpr
      policy=None
      prevent_cse=True
    ] e j
    n:f32[] = add_any l m
  in (n,) }"""),
    "jnp_bool_constant": (
        lambda: jax.make_jaxpr(lambda x: jnp.array([True, False], jnp.bool) & x)(jnp.ones(2, bool)),
        """\
{ lambda a:bool[2]; b:bool[2]. let c:bool[2] = and a b in (c,) }"""),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_jaxpr_text_as_jax(name):
    program, expected = EXPECTED[name]
    assert str(program()) == expected


def test_values_of_the_checkpointed_programs():
    # d/dx sin(x) = cos(x); d/dx sin(x) sin(2x) = cos(x) sin(2x) + 2 sin(x) cos(2x)
    x = 1.0
    assert np.isclose(jax.grad(lambda x: jax.checkpoint(jax.jit(jnp.sin))(x))(x), np.cos(x))
    assert np.isclose(jax.grad(lambda x: sin_remat(x) * sin_remat(2 * x))(x),
                      np.cos(x) * np.sin(2 * x) + 2 * np.sin(x) * np.cos(2 * x), rtol=1e-6)


def test_nonfinite_to_int_folds_as_numpy_while_staging_and_saturates_eagerly():
    x = jnp.arange(3)
    # Staged, JAX folds the conversion with NumPy (-inf -> INT_MIN), so the max is 2.
    assert int(jax.jit(lambda x: jnp.max(x, initial=-jnp.inf))(x)) == 2
    # Eagerly the device converts: +inf saturates to INT_MAX.
    assert int(jnp.max(x, initial=jnp.inf)) == np.iinfo(np.int32).max


def test_jnp_bool_is_bool_():
    assert jnp.bool is jnp.bool_
    assert jnp.bool(1).dtype == np.bool_ and bool(jnp.bool(1))
