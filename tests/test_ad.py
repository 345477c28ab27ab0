"""Automatic differentiation: jvp, linearize, vjp, grad and friends.

Jaxpr texts are compared with what JAX 0.10.2 prints for the same programs (the expected
strings were produced by running each snippet under real JAX). Values are compared with
NumPy, with finite differences (``check_grads``), or with JAX's documented outputs.
"""
import numpy as np
import pytest

import glassjax.numpy as jnp
from glassjax import lax
from glassjax.ad_api import (grad, hessian, jacfwd, jacrev, jvp, linear_transpose,
                             linearize, value_and_grad, vjp)
from glassjax import make_jaxpr
from glassjax.core import ShapeDtypeStruct
from glassjax.jit import jit

# ----------------------------------------------------------------------------------------
# Jaxprs, character for character as JAX prints them
# ----------------------------------------------------------------------------------------


def test_jaxpr_grad_sin_cos():
    f = lambda x: jnp.sin(jnp.cos(x))
    out = make_jaxpr(grad(f))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    _:f32[] = sin b
    d:f32[] = cos b
    e:f32[] = mul 1.0:f32[] d
    f:f32[] = neg e
    g:f32[] = mul f c
  in (g,) }"""


def test_jaxpr_grad_of_grad():
    f = lambda x: jnp.sin(jnp.cos(x))
    out = make_jaxpr(grad(grad(f)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    d:f32[] = sin a
    e:f32[] = cos a
    _:f32[] = sin b
    _:f32[] = cos b
    f:f32[] = cos b
    g:f32[] = sin b
    h:f32[] = mul 1.0:f32[] f
    i:f32[] = neg h
    _:f32[] = mul i d
    j:f32[] = mul i 1.0:f32[]
    k:f32[] = mul 1.0:f32[] d
    l:f32[] = neg k
    m:f32[] = mul 1.0:f32[] l
    n:f32[] = neg m
    o:f32[] = mul n g
    p:f32[] = mul j e
    q:f32[] = neg o
    r:f32[] = mul q c
    s:f32[] = add_any p r
  in (s,) }"""


def test_jaxpr_jvp_sin_cos():
    f = lambda x: jnp.sin(jnp.cos(x))
    out = make_jaxpr(lambda x: jvp(f, (x,), (1.0,)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    d:f32[] = mul 1.0:f32[] c
    e:f32[] = neg d
    f:f32[] = sin b
    g:f32[] = cos b
    h:f32[] = mul e g
  in (f, h) }"""


def test_jaxpr_linearize_apply():
    f = lambda x: jnp.sin(jnp.cos(x))
    out = make_jaxpr(lambda x: linearize(f, x)[1](2.0))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = cos a
    c:f32[] = sin a
    _:f32[] = sin b
    d:f32[] = cos b
    e:f32[] = mul 2.0:f32[] c
    f:f32[] = neg e
    g:f32[] = mul f d
  in (g,) }"""


def test_jaxpr_grad_of_jit_keeps_an_instantiated_zero_as_a_residual():
    """A zero instantiated while linearizing inside a jit is a constant of the primal
    jaxpr (where constants-only work runs), so it reaches the tangent jit as a residual."""
    f = jit(lambda x: lax.select(x > 1., x, 1.))
    assert str(make_jaxpr(grad(f))(1.)) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:bool[] c:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          b:bool[] = gt a 1.0:f32[]
          _:f32[] = select_n b 1.0:f32[] a
        in (_, b, 0.0:f32[]) }
    ] a
    d:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; b:bool[] c:f32[] e:f32[]. let
          d:f32[] = select_n b 0.0:f32[] e
        in (d,) }
    ] b c 1.0:f32[]
  in (d,) }"""
    assert grad(f)(2.) == 1. and grad(f)(0.5) == 0.


def test_jaxpr_grad_sum_of_squares():
    out = make_jaxpr(grad(lambda x: jnp.sum(x * x)))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = mul a a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    c:f32[3] = broadcast_in_dim 1.0:f32[]
    d:f32[3] = mul a c
    e:f32[3] = mul c a
    f:f32[3] = add_any d e
  in (f,) }"""


def test_jaxpr_grad_tanh_sum():
    out = make_jaxpr(grad(lambda x: jnp.sum(jnp.tanh(x) * 2.0)))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = tanh a
    c:f32[3] = sub 1.0:f32[] b
    d:f32[3] = mul b 2.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
    e:f32[3] = broadcast_in_dim 1.0:f32[]
    f:f32[3] = mul e 2.0:f32[]
    g:f32[3] = mul f c
    h:f32[3] = mul g b
    i:f32[3] = add_any g h
  in (i,) }"""


def test_jaxpr_grad_two_argnums():
    f = lambda x, y: jnp.sum(x * y + jnp.exp(x))
    out = make_jaxpr(grad(f, argnums=(0, 1)))(np.ones(3, np.float32), 2.0)
    assert str(out) == """\
{ lambda ; a:f32[3] b:f32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[3] = mul a c
    e:f32[3] = exp a
    f:f32[3] = add d e
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = mul g e
    i:f32[3] = mul a g
    j:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
    k:f32[3] = mul g c
    l:f32[3] = add_any h k
    m:f32[] = convert_element_type[new_dtype=float32 weak_type=True] j
  in (l, m) }"""


def test_jaxpr_grad_polynomial():
    out = make_jaxpr(grad(lambda x: x ** 3 + 2 * x ** 2 - 3 * x + 1))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = integer_pow[y=3] a
    c:f32[] = integer_pow[y=2] a
    d:f32[] = mul 3.0:f32[] c
    e:f32[] = integer_pow[y=2] a
    f:f32[] = mul 2.0:f32[] a
    g:f32[] = mul 2.0:f32[] e
    h:f32[] = add b g
    i:f32[] = mul 3.0:f32[] a
    j:f32[] = sub h i
    _:f32[] = add j 1.0:f32[]
    k:f32[] = neg 1.0:f32[]
    l:f32[] = mul 3.0:f32[] k
    m:f32[] = mul 2.0:f32[] 1.0:f32[]
    n:f32[] = mul m f
    o:f32[] = add_any l n
    p:f32[] = mul 1.0:f32[] d
    q:f32[] = add_any o p
  in (q,) }"""


def test_jaxpr_grad_log1pexp():
    out = make_jaxpr(grad(lambda x: jnp.log(1. + jnp.exp(x))))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = exp a
    c:f32[] = add 1.0:f32[] b
    _:f32[] = log c
    d:f32[] = div 1.0:f32[] c
    e:f32[] = mul d b
  in (e,) }"""


def test_jaxpr_vjp_apply():
    out = make_jaxpr(lambda x: vjp(lambda y: jnp.sin(y) * y, x)[1](np.ones(3, np.float32)))(
        np.ones(3, np.float32))
    assert str(out) == """\
{ lambda a:f32[3]; b:f32[3]. let
    c:f32[3] = sin b
    d:f32[3] = cos b
    _:f32[3] = mul c b
    e:f32[3] = mul c a
    f:f32[3] = mul a b
    g:f32[3] = mul f d
    h:f32[3] = add_any e g
  in (h,) }"""


def test_jaxpr_grad_matmul():
    a = np.ones((2, 3), np.float32)
    out = make_jaxpr(grad(lambda w: jnp.sum(jnp.dot(a, w))))(np.ones((3, 4), np.float32))
    assert str(out) == """\
{ lambda a:f32[2,3]; b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
    d:f32[2,4] = broadcast_in_dim 1.0:f32[]
    e:f32[4,3] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] d a
    f:f32[3,4] = transpose[permutation=(1, 0)] e
  in (f,) }"""


def test_jaxpr_grad_slice():
    out = make_jaxpr(grad(lambda x: jnp.sum(x[1:] * 2)))(np.ones(4, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[4]. let
    b:f32[3] = slice[limit_indices=(4,) start_indices=(1,) strides=None] a
    c:f32[3] = mul b 2.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c
    d:f32[3] = broadcast_in_dim 1.0:f32[]
    e:f32[3] = mul d 2.0:f32[]
    f:f32[4] = pad[padding_config=((1, np.int64(0), 0),)] e 0.0:f32[]
  in (f,) }"""


def test_jaxpr_grad_constant_function():
    out = make_jaxpr(grad(lambda x: 2.0))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let  in (0.0:f32[],) }"""


def test_jaxpr_grad_unused_argument():
    out = make_jaxpr(grad(lambda x, y: x * 2.0, argnums=(0, 1)))(
        3.0, np.ones(3, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[3]. let
    _:f32[] = mul a 2.0:f32[]
    c:f32[] = mul 1.0:f32[] 2.0:f32[]
    d:f32[3] = broadcast_in_dim 0.0:f32[]
  in (c, d) }"""


def test_jaxpr_grad_allow_int():
    f = lambda x, n: jnp.sum(x * n)
    out = make_jaxpr(grad(f, argnums=(0, 1), allow_int=True))(np.ones(3, np.float32),
                                                               np.arange(3, dtype=np.int32))
    assert str(out) == """\
{ lambda ; a:f32[3] b:i32[3]. let
    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[3] = mul a c
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
    e:f32[3] = broadcast_in_dim 1.0:f32[]
    f:f32[3] = mul e c
    g:float0[3] = broadcast_in_dim (b'',):float0[]
  in (f, g) }"""


def test_jaxpr_value_and_grad():
    out = make_jaxpr(value_and_grad(lambda y: jnp.sum(jnp.sin(y))))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = sin a
    c:f32[3] = cos a
    d:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    e:f32[3] = broadcast_in_dim 1.0:f32[]
    f:f32[3] = mul e c
  in (d, f) }"""


def test_jaxpr_grad_has_aux():
    out = make_jaxpr(grad(lambda y: (jnp.sum(jnp.sin(y)), y * 2), has_aux=True))(
        np.ones(3, np.float32))
    assert str(out) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = sin a
    c:f32[3] = cos a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f32[3] = mul a 2.0:f32[]
    e:f32[3] = broadcast_in_dim 1.0:f32[]
    f:f32[3] = mul e c
  in (f, d) }"""


def test_jaxpr_grad_of_jit():
    f = lambda x: jnp.sin(jnp.cos(x))
    out = make_jaxpr(grad(jit(f)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] c:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          d:f32[] = cos a
          b:f32[] = sin a
          _:f32[] = sin d
          c:f32[] = cos d
        in (_, b, c) }
    ] a
    e:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; b:f32[] c:f32[] f:f32[]. let
          g:f32[] = mul f c
          h:f32[] = neg g
          e:f32[] = mul h b
        in (e,) }
    ] b c 1.0:f32[]
  in (e,) }"""


def test_jaxpr_jvp_of_jit():
    def f(x): return jnp.sin(jnp.cos(x))
    out = make_jaxpr(lambda x: jvp(jit(f), (x,), (1.0,)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] c:f32[] = jit[
      name=f
      jaxpr={ lambda ; a:f32[] d:f32[]. let
          e:f32[] = cos a
          f:f32[] = sin a
          g:f32[] = mul d f
          h:f32[] = neg g
          b:f32[] = sin e
          i:f32[] = cos e
          c:f32[] = mul h i
        in (b, c) }
    ] a 1.0:f32[]
  in (b, c) }"""


def test_jaxpr_jit_of_grad():
    def f(x): return jnp.sin(jnp.cos(x))
    out = make_jaxpr(jit(grad(f)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=f
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = cos a
          d:f32[] = sin a
          e:f32[] = sin c
          f:f32[] = cos c
          g:f32[] = mul 1.0:f32[] f
          h:f32[] = neg g
          b:f32[] = mul h d
        in (b,) }
    ] a
  in (b,) }"""


def test_jaxpr_grad_of_jit_multiple_outputs():
    @jit
    def h(x, y):
        return x * y, x + 1.0, y
    out = make_jaxpr(grad(lambda x, y: sum(h(x, y))))(3.0, 4.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] d:f32[] = jit[
      name=h
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          c:f32[] = mul a b
          d:f32[] = add a 1.0:f32[]
        in (c, d) }
    ] a b
    e:f32[] = add 0.0:f32[] c
    f:f32[] = add e d
    _:f32[] = add f b
    g:f32[] = jit[
      name=h
      jaxpr={ lambda ; b:f32[] h:f32[] i:f32[]. let
          j:f32[] = mul h b
          g:f32[] = add_any i j
        in (g,) }
    ] b 1.0:f32[] 1.0:f32[]
  in (g,) }"""


def test_jaxpr_grad_grad_of_jit():
    def f(x): return jnp.sin(jnp.cos(x))
    out = make_jaxpr(grad(grad(jit(f))))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] c:f32[] d:f32[] e:f32[] _:f32[] f:f32[] = jit[
      name=f
      jaxpr={ lambda ; a:f32[]. let
          g:f32[] = cos a
          d:f32[] = sin a
          b:f32[] = sin a
          e:f32[] = cos a
          _:f32[] = sin g
          _:f32[] = cos g
          c:f32[] = cos g
          f:f32[] = sin g
        in (_, b, c, d, e, _, f) }
    ] a
    _:f32[] h:f32[] = jit[
      name=f
      jaxpr={ lambda ; b:f32[] c:f32[] i:f32[]. let
          j:f32[] = mul i c
          h:f32[] = neg j
          _:f32[] = mul h b
        in (_, h) }
    ] b c 1.0:f32[]
    k:f32[] l:f32[] = jit[
      name=f
      jaxpr={ lambda ; m:f32[] b:f32[] h:f32[] n:f32[]. let
          k:f32[] = mul h n
          o:f32[] = mul n b
          p:f32[] = neg o
          l:f32[] = mul m p
        in (k, l) }
    ] 1.0:f32[] b h 1.0:f32[]
    q:f32[] = jit[
      name=f
      jaxpr={ lambda ; d:f32[] e:f32[] f:f32[] k:f32[] l:f32[]. let
          r:f32[] = neg l
          s:f32[] = mul r f
          t:f32[] = mul k e
          u:f32[] = neg s
          v:f32[] = mul u d
          q:f32[] = add_any t v
        in (q,) }
    ] d e f k l
  in (q,) }"""


def test_jaxpr_linear_transpose_pair():
    x = np.ones(3, np.float32)
    f_t = lambda x: linear_transpose(lambda y, z: (y * 3.0, y - z), x, x)((x, x))
    out = make_jaxpr(f_t)(x)
    assert str(out) == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = neg a
    c:f32[3] = mul a 3.0:f32[]
    d:f32[3] = add_any a c
  in (d, b) }"""


# ----------------------------------------------------------------------------------------
# Values: JAX's documented examples
# ----------------------------------------------------------------------------------------

def test_grad_tanh():
    np.testing.assert_allclose(grad(jnp.tanh)(0.2), 0.961043, rtol=1e-6)


def test_grad_is_weakly_typed_like_its_input():
    g = grad(lambda x: jnp.sin(jnp.sin(x)))(2.0)
    assert g.dtype == np.float32 and g.weak_type


def test_higher_order_grad():
    f = lambda x: x ** 3 + 2 * x ** 2 - 3 * x + 1
    derivatives = [grad(f), grad(grad(f)), grad(grad(grad(f))), grad(grad(grad(grad(f))))]
    assert [float(d(1.)) for d in derivatives] == [4.0, 10.0, 6.0, 0.0]
    np.testing.assert_allclose(grad(grad(jnp.tanh))(2.0), -0.13621868, rtol=1e-6)


def test_jvp_sin():
    y, t = jvp(jnp.sin, (0.1,), (0.2,))
    np.testing.assert_allclose([y, t], [np.sin(0.1), 0.2 * np.cos(0.1)], rtol=1e-6)


def test_linearize():
    f = lambda x: 3. * jnp.sin(x) + jnp.cos(x / 2.)
    y, f_jvp = linearize(f, 2.)
    np.testing.assert_allclose(y, 3.2681944, rtol=1e-6)
    np.testing.assert_allclose(f_jvp(3.), -5.007528, rtol=1e-6)
    np.testing.assert_allclose(f_jvp(4.), -6.676704, rtol=1e-6)
    np.testing.assert_allclose(jvp(f, (2.,), (3.,))[1], -5.007528, rtol=1e-6)


def test_vjp():
    primals, f_vjp = vjp(lambda x, y: (jnp.sin(x), jnp.cos(y)), 0.5, 1.0)
    xbar, ybar = f_vjp((-0.7, 0.3))
    np.testing.assert_allclose([xbar, ybar], [-0.61430776, -0.2524413], rtol=1e-6)
    np.testing.assert_allclose(primals, [np.sin(0.5), np.cos(1.0)], rtol=1e-6)


def test_vjp_function_is_a_pytree_of_its_residuals():
    # As JAX's ``VJP``: the residuals are its leaves, so it can cross a jit boundary.
    from glassjax import tree_util
    _, f_vjp = vjp(jnp.sin, 1.0)
    leaves = tree_util.tree_leaves(f_vjp)
    np.testing.assert_allclose(leaves, [np.cos(1.0)], rtol=1e-6)
    (ct,) = jit(lambda f, c: f(c))(f_vjp, 2.0)
    np.testing.assert_allclose(ct, 2 * np.cos(1.0), rtol=1e-6)
    rebuilt = tree_util.tree_unflatten(tree_util.tree_structure(f_vjp), [jnp.float32(3.0)])
    np.testing.assert_allclose(rebuilt(1.0)[0], 3.0)
    assert type(f_vjp).__name__ == "VJP"


def test_jacfwd_and_jacrev():
    def f(x):
        return jnp.asarray([x[0], 5 * x[2], 4 * x[1] ** 2 - 2 * x[2], x[2] * jnp.sin(x[0])])
    x = jnp.array([1., 2., 3.])
    expected = [[1., 0., 0.], [0., 0., 5.], [0., 16., -2.],
                [3 * np.cos(1.), 0., np.sin(1.)]]
    np.testing.assert_allclose(jacfwd(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jacrev(f)(x), expected, rtol=1e-6)


def test_hessian():
    g = lambda x: x[0] ** 3 - 2 * x[0] * x[1] - x[1] ** 6
    np.testing.assert_allclose(hessian(g)(jnp.array([1., 2.])), [[6., -2.], [-2., -480.]])


def test_hessian_of_pytree_function():
    f = lambda d: {"c": jnp.power(d["a"], d["b"])}
    h = hessian(f)({"a": jnp.arange(2.) + 1., "b": jnp.arange(2.) + 2.})
    np.testing.assert_allclose(h["c"]["a"]["a"],
                               [[[2., 0.], [0., 0.]], [[0., 0.], [0., 12.]]])
    np.testing.assert_allclose(h["c"]["b"]["b"][1, 1, 1], 3.843624, rtol=1e-5)


def test_jacrev_of_dict_input():
    f = lambda p: jnp.tanh(p["w"] * 2.0 + p["b"])
    jac = jacrev(f)({"w": jnp.ones(2), "b": jnp.float32(0.5)})
    d = 1 - np.tanh(2.5) ** 2
    np.testing.assert_allclose(jac["w"], np.diag([2 * d, 2 * d]), rtol=1e-5)
    np.testing.assert_allclose(jac["b"], [d, d], rtol=1e-5)


def test_linear_transpose():
    f = lambda x, y: 0.5 * x - 0.5 * y
    scalar = ShapeDtypeStruct(shape=(), dtype=np.dtype(np.float32))
    tx, ty = linear_transpose(f, scalar, scalar)(1.0)
    assert (float(tx), float(ty)) == (0.5, -0.5)


def test_grad_argnums_and_has_aux():
    def f(x, y, z):
        loss = jnp.sum(x * y) + z ** 2
        return loss, {"loss": loss, "n": x.shape[0]}
    x, y, z = jnp.arange(3.0), jnp.ones(3), 2.0
    g, aux = grad(f, has_aux=True)(x, y, z)
    np.testing.assert_array_equal(g, [1., 1., 1.])
    assert float(aux["loss"]) == 7.0 and aux["n"] == 3
    gs, _ = grad(f, argnums=(0, 2), has_aux=True)(x, y, z)
    np.testing.assert_array_equal(gs[0], [1., 1., 1.])
    assert float(gs[1]) == 4.0 and gs[1].weak_type
    (v, _), gs = value_and_grad(f, argnums=(1,), has_aux=True)(x, y, z)
    assert float(v) == 7.0
    np.testing.assert_array_equal(gs[0], [0., 1., 2.])


def test_python_control_flow_under_grad():
    f = lambda x: x * x if x > 0 else -3.0 * x
    assert float(grad(f)(2.0)) == 4.0
    assert float(grad(f)(-2.0)) == -3.0


def test_grad_of_constant_function_is_an_instantiated_zero():
    g = grad(lambda x: 2.0)(3.0)
    assert float(g) == 0.0 and g.weak_type


def test_allow_int_gives_float0_cotangents():
    g = grad(lambda x, n: jnp.sum(x * n), argnums=(0, 1), allow_int=True)(
        jnp.ones(3), jnp.arange(3))
    np.testing.assert_array_equal(g[0], [0., 1., 2.])
    assert g[1].shape == (3,) and g[1].dtype == np.dtype([("float0", "V")])


def test_jvp_with_float0_tangent_for_integer_input():
    float0 = np.dtype([("float0", "V")])
    (y, n), (ty, tn) = jvp(lambda x, n: (x * n, n), (1.0, 3), (1.0, np.zeros((), float0)))
    assert float(y) == 3.0 and n == 3 and float(ty) == 3.0 and tn.dtype == float0


def test_grad_through_jit_matches_grad():
    f = lambda x: jnp.sum(jnp.tanh(x) * jnp.cos(x))
    x = jnp.linspace(0., 1., 5)
    np.testing.assert_allclose(grad(jit(f))(x), grad(f)(x), rtol=1e-5)
    np.testing.assert_allclose(jit(grad(f))(x), grad(f)(x), rtol=1e-5)


def test_tracer_reprs():
    reprs = []

    def f(x):
        reprs.append(repr(x))
        return x.sum()

    grad(f)(jnp.float16(1.0))
    jacrev(f)(jnp.arange(4, dtype="float32"))
    jacfwd(f)(jnp.arange(3, dtype="float32"))
    assert reprs == [
        "GradTracer(primal=1.0, typeof(tangent)=f16[])",
        "GradTracer(primal=[0. 1. 2. 3.], typeof(tangent)=f32[4])",
        "JVPTracer(primal=[0. 1. 2.], tangent=VmapTracer(aval=float32[3], "
        "batched=float32[3,3]))"]


# ----------------------------------------------------------------------------------------
# Derivatives of lax primitives against finite differences, to second order
# ----------------------------------------------------------------------------------------

_rng = np.random.RandomState(0)
_pos = lambda *shape: (_rng.rand(*shape) + 0.5).astype(np.float32)   # in [0.5, 1.5)
_unit = lambda *shape: (_rng.rand(*shape) * 0.8 - 0.4).astype(np.float32)   # in (-.4, .4)

PRIMITIVE_CASES = [
    ("sin", lax.sin, (_pos(3),)),
    ("cos", lax.cos, (_pos(3),)),
    ("tan", lax.tan, (_unit(3),)),
    ("tanh", lax.tanh, (_unit(3),)),
    ("exp", lax.exp, (_unit(3),)),
    ("log", lax.log, (_pos(3),)),
    ("log1p", lax.log1p, (_pos(3),)),
    ("expm1", lax.expm1, (_unit(3),)),
    ("sqrt", lax.sqrt, (_pos(3),)),
    ("rsqrt", lax.rsqrt, (_pos(3),)),
    ("logistic", lax.logistic, (_unit(3),)),
    ("sinh", lax.sinh, (_unit(3),)),
    ("cosh", lax.cosh, (_unit(3),)),
    ("asin", lax.asin, (_unit(3),)),
    ("acos", lax.acos, (_unit(3),)),
    ("atan", lax.atan, (_unit(3),)),
    ("asinh", lax.asinh, (_unit(3),)),
    ("atanh", lax.atanh, (_unit(3),)),
    ("erf", lax.erf, (_unit(3),)),
    ("square", lax.square, (_unit(3),)),
    ("neg", lax.neg, (_unit(3),)),
    ("integer_pow", lambda x: lax.integer_pow(x, 3), (_pos(3),)),
    ("add", lax.add, (_unit(3), _unit(3))),
    ("sub", lax.sub, (_unit(3), _unit(3))),
    ("mul", lax.mul, (_unit(3), _unit(3))),
    ("div", lax.div, (_unit(3), _pos(3))),
    ("pow", lax.pow, (_pos(3), _unit(3))),
    ("atan2", lax.atan2, (_pos(3), _pos(3))),
    ("max", lax.max, (np.float32([0.1, 0.9, -0.5]), np.float32([0.3, 0.2, -0.8]))),
    ("min", lax.min, (np.float32([0.1, 0.9, -0.5]), np.float32([0.3, 0.2, -0.8]))),
    ("select_n", lambda a, b: lax.select_n(np.array([True, False, True]), a, b),
     (_unit(3), _unit(3))),
    ("dot_general", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
     (_unit(2, 3), _unit(3, 4))),
    ("batched_dot_general",
     lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     (_unit(2, 2, 3), _unit(2, 3, 2))),
    ("reduce_sum", lambda x: lax.reduce_sum(x, (1,)), (_unit(2, 3),)),
    ("reduce_max", lambda x: lax.reduce_max(x, (0,)),
     (np.float32([[0.1, 0.5], [0.3, 0.2]]),)),
    ("reduce_prod", lambda x: lax.reduce_prod(x, (0,)), (_pos(3, 2),)),
    ("cumsum", lambda x: lax.cumsum(x, axis=0), (_unit(4),)),
    ("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (_unit(3),)),
    ("reshape", lambda x: lax.reshape(x, (3, 2)), (_unit(2, 3),)),
    ("transpose", lambda x: lax.transpose(x, (1, 0)), (_unit(2, 3),)),
    ("slice", lambda x: lax.slice(x, (1,), (4,), (2,)), (_unit(5),)),
    ("pad", lambda x: lax.pad(x, np.float32(0.), ((1, 2, 1),)), (_unit(3),)),
    ("concatenate", lambda a, b: lax.concatenate([a, b], 0), (_unit(2), _unit(3))),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (1,), (2,)), (_unit(4),)),
    ("dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (1,)),
     (_unit(4), _unit(2))),
    ("gather", lambda x: x[np.array([2, 0, 2])], (_unit(3),)),
    ("rev", lambda x: lax.rev(x, (0,)), (_unit(3),)),
    ("squeeze", lambda x: lax.squeeze(x, (0,)), (_unit(1, 3),)),
]


@pytest.mark.parametrize("name,fun,args", PRIMITIVE_CASES,
                         ids=[c[0] for c in PRIMITIVE_CASES])
def test_check_grads_of_primitive(name, fun, args):
    from glassjax.test_util import check_grads
    check_grads(fun, args, order=2, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)


def test_check_grads_of_composite_function():
    from glassjax.test_util import check_grads
    f = lambda x, w: jnp.sum(jnp.tanh(jnp.dot(w, x)) ** 2) + jnp.mean(jnp.exp(-x))
    check_grads(f, (_unit(3), _unit(2, 3)), order=2, modes=("fwd", "rev", "lin"))


def test_check_grads_detects_a_wrong_derivative():
    from glassjax.custom_derivatives import custom_jvp
    from glassjax.test_util import check_grads

    @custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 2.0 * t[0]))
    with pytest.raises(AssertionError):
        check_grads(f, (np.float32(0.3),), order=1, modes=("fwd",))


# ----------------------------------------------------------------------------------------
# Errors, with JAX's types and messages
# ----------------------------------------------------------------------------------------

def test_grad_of_non_scalar_output():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output "
                                        r"functions\. Output had shape: \(3,\)\."):
        grad(lambda x: x)(jnp.ones(3))


def test_grad_of_integer_input():
    msg = ("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype "
           "of np.inexact), but got int32. If you want to use Boolean- or integer-valued "
           "inputs, use vjp or set allow_int to True.")
    with pytest.raises(TypeError) as e:
        grad(lambda x: x)(1)
    assert str(e.value) == msg


def test_grad_of_integer_output():
    with pytest.raises(TypeError, match="grad requires real-valued outputs"):
        make_jaxpr(grad(lambda x: x.astype(jnp.int32)))(1.0)


def test_grad_of_non_array_output():
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        grad(lambda x: "a")(1.0)


def test_grad_argnums_out_of_range():
    with pytest.raises(TypeError, match="differentiating with respect to argnums=2 "
                                        "requires at least 3 positional arguments"):
        grad(lambda x: x, argnums=2)(1.0)


def test_jvp_argument_errors():
    with pytest.raises(TypeError, match="must be tuples or lists; found float and float"):
        jvp(lambda x: x, 1.0, 1.0)
    with pytest.raises(TypeError, match="must have the same tree structure"):
        jvp(lambda x: x, (1.0,), (1.0, 2.0))
    with pytest.raises(ValueError, match="jvp called with different primal and tangent "
                                         "shapes"):
        jvp(lambda x: x, (1.0,), (np.ones(2, np.float32),))
    with pytest.raises(TypeError, match="expected tangent dtype float32, but got tangent "
                                        "dtype int32 instead"):
        jvp(lambda x: x, (1.0,), (1,))


def test_vjp_cotangent_errors():
    _, f_vjp = vjp(lambda y: y, 1.0)
    with pytest.raises(ValueError, match=r"got float32\[2\], but expected float32\[\]"):
        f_vjp(jnp.ones(2))
    with pytest.raises(TypeError, match="was called with 2 arguments"):
        f_vjp(1.0, 2.0)
    _, f_vjp = vjp(lambda y: (y, y), 1.0)
    with pytest.raises(ValueError, match="unexpected tree structure"):
        f_vjp(1.0)


def test_linearized_function_checks_tangents():
    _, f_jvp = linearize(lambda y: y, 1.0)
    with pytest.raises(ValueError, match="linearized function called on tangent values "
                                         "inconsistent with the original primal values"):
        f_jvp(jnp.ones(2))


def test_missing_differentiation_rule():
    from glassjax import core
    from glassjax.interpreters import ad
    p = core.Primitive("no_rules")
    p.def_abstract_eval(lambda x: x)
    with pytest.raises(NotImplementedError,
                       match="Differentiation rule for 'no_rules' not implemented"):
        make_jaxpr(grad(lambda x: p.bind(x)))(1.0)
    with pytest.raises(NotImplementedError, match="Transpose rule"):
        ad.get_transpose_rule(p)


def test_jacobian_basis_pieces_are_cast_as_in_jax():
    """JAX casts each standard-basis piece to its leaf's type and sharding, so the cast
    is an equation even when the type does not change."""
    text = str(make_jaxpr(jacfwd(lambda x: jnp.sum(x)))(jnp.ones(2)))
    assert text == """\
{ lambda ; a:f32[2]. let
    b:i32[2,2] = iota[dimension=0 dtype=int32 shape=(2, 2) sharding=None] 
    c:i32[2,2] = iota[dimension=1 dtype=int32 shape=(2, 2) sharding=None] 
    d:i32[2,2] = add b 0:i32[]
    e:bool[2,2] = eq d c
    f:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] e
    g:f32[2,2] = split[axis=1 sizes=(np.int64(2),)] f
    h:f32[2,2] = convert_element_type[new_dtype=float32 weak_type=False] g
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] a
    i:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] h
    j:f32[2] = split[axis=0 sizes=(np.int64(2),)] i
  in (j,) }"""
    np.testing.assert_array_equal(jacrev(lambda x: jnp.sin(x) * 2)(jnp.zeros(2)),
                                  2 * np.eye(2))


def test_scan_transpose_types_the_carry_by_its_cotangent():
    """The transposed body's undefined carry has the cotangent's (strong) type, so the
    weakly typed carry of the forward scan leaves no convert behind, as in JAX."""
    f = lambda x: lax.scan(lambda c, y: (c * y, c), x, jnp.arange(3.0))[0]
    assert str(make_jaxpr(grad(f))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] 
    _:f32[] _:f32[3] = scan[
      jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:f32[] = mul e d
        in (f, c) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a b
    g:f32[] = scan[
      jaxpr={ lambda ; h:f32[] i:f32[]. let j:f32[] = mul h i in (j,) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[] b
  in (g,) }"""
    assert float(grad(f)(1.0)) == 0.0


def test_fwd_and_bwd_reuses_one_trace():
    import glassjax
    traces = []

    def f(x, w):
        traces.append(1)
        return x @ w
    fwd, bwd = glassjax.fwd_and_bwd(f, argnums=(0, 1))
    x = jnp.ones((4, 4))
    for _ in range(3):
        y, residuals = fwd(x, 2 * x)
        cot_x, cot_w = bwd(residuals, x)
    np.testing.assert_allclose(y, 8 * np.ones((4, 4)))
    np.testing.assert_allclose(cot_x, 8 * np.ones((4, 4)))
    np.testing.assert_allclose(cot_w, 4 * np.ones((4, 4)))
    assert len(traces) == 1
    fwd1, bwd1 = glassjax.fwd_and_bwd(lambda a: (jnp.sin(a).sum(), a * 2), 0,
                                      has_aux=True, jitted=False)
    y, res, aux = fwd1(jnp.arange(3.0))
    np.testing.assert_allclose(bwd1(res, 1.0), np.cos(np.arange(3.0)), rtol=1e-6)
    np.testing.assert_allclose(aux, [0., 2., 4.])
