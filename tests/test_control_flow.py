"""Structured control flow: cond, switch, while_loop, fori_loop, scan, map.

Jaxpr and StableHLO texts are compared with what JAX 0.10.2 prints for the same programs
(the expected strings were produced by running each snippet under real JAX); values are
compared with plain Python loops and NumPy, derivatives with finite differences.
"""
import re

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import checkpoint, grad, jit, jvp, lax, linearize, make_jaxpr, vmap
from glassjax.config import disable_jit
from glassjax.test_util import check_grads
from glassjax.xla import dispatch


def _sin_times(v):
    return jnp.sin(v) * v


def _cube(v):
    return v ** 3


def _cond_sin_or_cube(x):
    return lax.cond(x > 0, _sin_times, _cube, x)


def _tanh_rnn(w, xs):
    def body(c, x):
        c = jnp.tanh(w * c + x)
        return c, c
    c, ys = lax.scan(body, 0.0, xs)
    return c + jnp.sum(ys)


def _while_sin(x):
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * 2.),
                          (0, x))[1]


# ----------------------------------------------------------------------------------------
# The seed examples (JAX's documentation), exactly as JAX prints them
# ----------------------------------------------------------------------------------------

def test_seed_cond():
    def func7(arg):
        return lax.cond(arg >= 0., lambda xtrue: xtrue + 3., lambda xfalse: xfalse - 3., arg)
    assert str(make_jaxpr(func7)(5.)) == """\
{ lambda ; a:f32[]. let
    b:bool[] = ge a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sub e 3.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = add g 3.0:f32[] in (h,) }
      )
    ] c a
  in (d,) }"""
    assert float(func7(5.)) == 8.0 and float(func7(-5.)) == -8.0


def test_seed_switch():
    def one_of_three(index, arg):
        return lax.switch(index, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3.], arg)
    assert str(make_jaxpr(one_of_three)(1, 5.)) == """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let g:f32[] = add f 1.0:f32[] in (g,) }
        { lambda ; h:f32[]. let i:f32[] = sub h 2.0:f32[] in (i,) }
        { lambda ; j:f32[]. let k:f32[] = add j 3.0:f32[] in (k,) }
      )
    ] d b
  in (e,) }"""
    assert [float(one_of_three(i, 5.)) for i in (-1, 0, 1, 2, 7)] == [6., 6., 3., 8., 8.]


def test_seed_fori_with_traced_trip_count_is_a_while():
    def func10(arg, n):
        ones = jnp.ones(arg.shape)
        return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)
    assert str(make_jaxpr(func10)(np.ones(16), 5)) == """\
{ lambda ; a:f32[16] b:i32[]. let
    c:f32[16] = broadcast_in_dim 1.0:f32[]
    d:f32[16] = add a c
    _:i32[] _:i32[] e:f32[16] = while[
      body_jaxpr={ lambda ; f:f32[16] g:f32[16] h:i32[] i:i32[] j:f32[16]. let
          k:i32[] = add h 1:i32[]
          l:f32[16] = mul f 3.0:f32[]
          m:f32[16] = add j l
          n:f32[16] = add m g
        in (k, i, n) }
      body_nconsts=2
      cond_jaxpr={ lambda ; o:i32[] p:i32[] q:f32[16]. let
          r:bool[] = lt o p
        in (r,) }
      cond_nconsts=0
    ] c a 0:i32[] b d
  in (e,) }"""
    np.testing.assert_array_equal(func10(np.ones(4), 5), np.full(4, 22.))


def test_closed_over_values_are_taken_in_in_jax_order():
    """Type promotion takes in an operand that already has the promoted type too (JAX
    binds a no-op convert), so ``x`` is the loop's first const, then ``y``."""
    g = lambda x, y: lax.scan(lambda c, _: (c, jnp.minimum(x, y)), 0, None, length=2)
    assert str(make_jaxpr(g)(jnp.float32(1.), -1.41)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[2] = scan[
      jaxpr={ lambda ; d:i32[] e:f32[] f:f32[]. let
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          h:f32[] = min e g
        in (h,) }
      length=2
      num_carry=0
      num_consts=3
      reverse=False
      unroll=1
    ] 0:i32[] a b
  in (0:i32[], c) }"""
    np.testing.assert_allclose(g(jnp.float32(1.), -1.41)[1], [-1.41, -1.41], rtol=1e-6)


def test_seed_scan_with_consts():
    def func11(arr, extra):
        ones = jnp.ones(arr.shape)

        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)
        return lax.scan(body, 0., (arr, ones))
    assert str(make_jaxpr(func11)(np.ones(16), 5.)) == """\
{ lambda ; a:f32[16] b:f32[]. let
    c:f32[16] = broadcast_in_dim 1.0:f32[]
    d:f32[] e:f32[16] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[] i:f32[]. let
          j:f32[] = mul h i
          k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          l:f32[] = add k j
          m:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          n:f32[] = add l m
        in (n, g) }
      length=16
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] b 0.0:f32[] a c
  in (d, e) }"""
    carry, ys = func11(np.arange(5.), 5.)
    assert float(carry) == 35.0
    np.testing.assert_array_equal(ys, [0., 5., 11., 18., 26.])


# ----------------------------------------------------------------------------------------
# More jaxprs: pytrees, consts, nesting, and the transformations of each primitive
# ----------------------------------------------------------------------------------------

JAXPR_CASES = [
    pytest.param(
        lambda x: lax.cond(x > 0, lambda d: {'a': d['a'] + 1, 'b': d['b']},
                           lambda d: {'a': d['a'], 'b': d['b'] * 2}, {'a': x, 'b': x * 3}),
        (1.0,), """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:f32[] = mul a 3.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    e:f32[] f:f32[] = cond[
      branches=(
        { lambda ; g:f32[] h:f32[]. let i:f32[] = mul h 2.0:f32[] in (g, i) }
        { lambda ; j:f32[] k:f32[]. let l:f32[] = add j 1.0:f32[] in (l, k) }
      )
    ] d a c
  in (e, f) }""", id="cond_pytree"),
    pytest.param(
        lambda x, p: lax.cond(p, lambda x: x + np.arange(3.0, dtype=np.float32),
                              lambda x: x * 2., x),
        (np.ones(3, np.float32), True), """\
{ lambda a:f32[3]; b:f32[3] c:bool[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[3] g:f32[3]. let h:f32[3] = mul g 2.0:f32[] in (h,) }
        { lambda ; i:f32[3] j:f32[3]. let k:f32[3] = add j i in (k,) }
      )
    ] d a b
  in (e,) }""", id="cond_const_array"),
    pytest.param(
        lambda x, y: lax.cond(x > 0, lambda x: (x, x * y), lambda x: (x, x - y), x),
        (1.0, 2.0), """\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let h:f32[] = sub g f in (h,) }
        { lambda ; i:f32[] j:f32[]. let k:f32[] = mul j i in (k,) }
      )
    ] d b a
  in (a, e) }""", id="cond_forwarded"),
    pytest.param(
        lambda x: lax.cond(x > 0, lambda: 1.0, lambda: 2.0),
        (1.0,), """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; . let  in (2.0:f32[],) }
        { lambda ; . let  in (1.0:f32[],) }
      )
    ] c
  in (d,) }""", id="cond_no_operands"),
    pytest.param(
        lambda x, i: lax.cond(i, lambda x: x, lambda x: -x, x),
        (1.0, 3), """\
{ lambda ; a:f32[] b:i32[]. let
    c:bool[] = ne b 0:i32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let g:f32[] = neg f in (g,) }
        { lambda ; h:f32[]. let  in (h,) }
      )
    ] d a
  in (e,) }""", id="cond_int_pred"),
    pytest.param(
        lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0., xs, reverse=True),
        (jnp.ones(3),), """\
{ lambda ; a:f32[3]. let
    b:f32[] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          g:f32[] = add f e
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          i:f32[] = mul h e
        in (g, i) }
      length=3
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 0.0:f32[] a
  in (b, c) }""", id="scan_reverse"),
    pytest.param(
        lambda c: lax.scan(lambda c, x: (c * 2, c), c, None, length=4, unroll=True),
        (1.0,), """\
{ lambda ; a:f32[]. let
    b:f32[] c:f32[4] = scan[
      jaxpr={ lambda ; d:f32[]. let e:f32[] = mul d 2.0:f32[] in (e, d) }
      length=4
      num_carry=1
      num_consts=0
      reverse=False
      unroll=4
    ] a
  in (b, c) }""", id="scan_no_xs"),
    pytest.param(
        lambda c, xs: lax.scan(lambda c, x: ((c[0], c[1] + x['a']), (x['b'], c[1])), c, xs),
        ((1.0, 2.0), {'a': jnp.ones(3), 'b': jnp.zeros(3)}), """\
{ lambda ; a:f32[] b:f32[] c:f32[3] d:f32[3]. let
    e:f32[] f:f32[3] = scan[
      jaxpr={ lambda ; g:f32[] h:f32[] i:f32[] j:f32[]. let
          k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] h
          l:f32[] = add k i
        in (l, h) }
      length=3
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a b c d
  in (a, e, d, f) }""", id="scan_pytree"),
    pytest.param(
        lambda x, y: lax.while_loop(lambda c: c[0] < y, lambda c: (c[0] + 1., c[1] * y),
                                    (0., x)),
        (1.0, 3.0), """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:f32[] f:f32[] g:f32[]. let
          h:f32[] = add f 1.0:f32[]
          i:f32[] = mul g e
        in (h, i) }
      body_nconsts=1
      cond_jaxpr={ lambda ; j:f32[] k:f32[] l:f32[]. let
          m:bool[] = lt k j
        in (m,) }
      cond_nconsts=1
    ] b b 0.0:f32[] a
  in (c, d) }""", id="while_consts"),
    pytest.param(
        lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2. + i, x),
        (1.0,), """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = mul d 2.0:f32[]
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          h:f32[] = add f g
        in (e, h) }
      length=5
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }""", id="fori_static"),
    pytest.param(
        lambda xs: lax.map(lambda x: x * 2, xs, batch_size=2),
        (jnp.ones(5),), """\
{ lambda ; a:f32[5]. let
    b:f32[4] = slice[limit_indices=(4,) start_indices=(0,) strides=None] a
    c:f32[2,2] = reshape[dimensions=None new_sizes=(2, 2) sharding=None] b
    d:f32[1] = slice[limit_indices=(5,) start_indices=(4,) strides=None] a
    e:f32[2,2] = scan[
      jaxpr={ lambda ; f:f32[2]. let g:f32[2] = mul f 2.0:f32[] in (g,) }
      length=2
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] c
    h:f32[1] = mul d 2.0:f32[]
    i:f32[4] = reshape[dimensions=None new_sizes=(4,) sharding=None] e
    j:f32[5] = concatenate[dimension=0] i h
  in (j,) }""", id="map_batch"),
    pytest.param(
        lambda x: lax.cond(x > 0, lambda x: lax.scan(lambda c, y: (c + y, c), x, jnp.ones(3)),
                           lambda x: (x, jnp.zeros(3)), x),
        (1.0,), """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[]. let
            g:f32[3] = broadcast_in_dim 0.0:f32[]
          in (f, g) }
        { lambda ; h:f32[]. let
            i:f32[3] = broadcast_in_dim 1.0:f32[]
            j:f32[] k:f32[3] = scan[
              jaxpr={ lambda ; l:f32[] m:f32[]. let
                  n:f32[] = convert_element_type[
                    new_dtype=float32
                    weak_type=False
                  ] l
                  o:f32[] = add n m
                in (o, l) }
              length=3
              num_carry=1
              num_consts=0
              reverse=False
              unroll=1
            ] h i
          in (j, k) }
      )
    ] c a
  in (d, e) }""", id="nested"),
    pytest.param(
        lambda x, t: jvp(_cond_sin_or_cube, (x,), (t,)),
        (1.0, 1.0), """\
{ lambda ; a:f32[] b:f32[]. let
    c:bool[] = gt a 0.0:f32[]
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    e:f32[] f:f32[] = cond[
      branches=(
        { lambda ; g:f32[] h:f32[]. let
            i:f32[] = integer_pow[y=3] g
            j:f32[] = integer_pow[y=2] g
            k:f32[] = mul 3.0:f32[] j
            l:f32[] = mul h k
          in (i, l) }
        { lambda ; m:f32[] n:f32[]. let
            o:f32[] = sin m
            p:f32[] = cos m
            q:f32[] = mul n p
            r:f32[] = mul o m
            s:f32[] = mul q m
            t:f32[] = mul o n
            u:f32[] = add_any s t
          in (r, u) }
      )
    ] d a b
  in (e, f) }""", id="jvp_cond"),
    pytest.param(
        grad(_cond_sin_or_cube),
        (1.0,), """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    _:f32[] d:f32[] e:f32[] f:f32[] = cond[
      branches=(
        { lambda ; g:f32[]. let
            h:f32[] = integer_pow[y=3] g
            i:f32[] = integer_pow[y=2] g
            j:f32[] = mul 3.0:f32[] i
            k:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            l:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            m:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (h, j, l, m) }
        { lambda ; n:f32[]. let
            o:f32[] = sin n
            p:f32[] = cos n
            q:f32[] = mul o n
            r:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            s:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            t:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (q, p, n, o) }
      )
    ] c a
    u:f32[] = cond[
      branches=(
        { lambda ; v:f32[] w:f32[] x:f32[] y:f32[]. let
            z:f32[] = mul y v
          in (z,) }
        { lambda ; ba:f32[] bb:f32[] bc:f32[] bd:f32[]. let
            be:f32[] = mul bc bd
            bf:f32[] = mul bd bb
            bg:f32[] = mul bf ba
            bh:f32[] = add_any be bg
          in (bh,) }
      )
    ] c d e f 1.0:f32[]
  in (u,) }""", id="grad_cond"),
    pytest.param(
        grad(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * 3.], x), 1),
        (1, 0.5), """\
{ lambda ; a:i32[] b:f32[]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    _:f32[] e:f32[] = cond[
      branches=(
        { lambda ; f:f32[]. let
            g:f32[] = sin f
            h:f32[] = cos f
            i:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (g, h) }
        { lambda ; j:f32[]. let
            k:f32[] = cos j
            l:f32[] = sin j
            m:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (k, l) }
        { lambda ; n:f32[]. let
            o:f32[] = mul n 3.0:f32[]
            p:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (o, p) }
      )
    ] d b
    q:f32[] = cond[
      branches=(
        { lambda ; r:f32[] s:f32[]. let t:f32[] = mul s r in (t,) }
        { lambda ; u:f32[] v:f32[]. let
            w:f32[] = neg v
            x:f32[] = mul w u
          in (x,) }
        { lambda ; y:f32[] z:f32[]. let ba:f32[] = mul z 3.0:f32[] in (ba,) }
      )
    ] d e 1.0:f32[]
  in (q,) }""", id="grad_switch"),
    pytest.param(
        grad(_tanh_rnn),
        (0.5, jnp.array([0.1, 0.2, 0.3, 0.4])), """\
{ lambda ; a:f32[] b:f32[4]. let
    c:f32[] d:f32[4] e:f32[4] f:f32[4] g:f32[4] = scan[
      jaxpr={ lambda ; h:f32[] i:f32[] j:f32[]. let
          k:f32[] = mul h i
          l:f32[] = convert_element_type[new_dtype=float32 weak_type=False] k
          m:f32[] = add l j
          n:f32[] = tanh m
          o:f32[] = sub 1.0:f32[] n
        in (n, n, i, n, o) }
      length=4
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a 0.0:f32[] b
    p:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
    _:f32[] = add c p
    q:f32[4] = broadcast_in_dim 1.0:f32[]
    r:f32[] _:f32[] = scan[
      jaxpr={ lambda ; s:f32[] t:f32[] u:f32[] v:f32[] w:f32[] x:f32[] y:f32[]. let
          z:f32[] = add_any u v
          ba:f32[] = mul z y
          bb:f32[] = mul ba x
          bc:f32[] = add_any ba bb
          bd:f32[] = convert_element_type[new_dtype=float32 weak_type=True] bc
          be:f32[] = mul s bd
          bf:f32[] = mul bd w
          bg:f32[] = add_any t bf
        in (bg, be) }
      length=4
      num_carry=2
      num_consts=1
      reverse=True
      unroll=1
    ] a 0.0:f32[] 1.0:f32[] q e f g
  in (r,) }""", id="grad_scan"),
    pytest.param(
        grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x)),
        (0.5,), """\
{ lambda ; a:f32[]. let
    _:i32[] _:f32[] b:f32[3] c:f32[3] = scan[
      jaxpr={ lambda ; d:f32[] e:i32[] f:f32[]. let
          g:i32[] = add e 1:i32[]
          h:f32[] = sin f
          i:f32[] = cos f
          j:f32[] = mul h d
        in (g, j, i, h) }
      length=3
      num_carry=2
      num_consts=1
      reverse=False
      unroll=1
    ] a 0:i32[] a
    k:f32[] l:f32[] = scan[
      jaxpr={ lambda ; m:f32[] n:f32[] o:f32[] p:f32[] q:f32[]. let
          r:f32[] = mul q o
          s:f32[] = add_any n r
          t:f32[] = mul o m
          u:f32[] = mul t p
        in (s, u) }
      length=3
      num_carry=2
      num_consts=1
      reverse=True
      unroll=1
    ] a 0.0:f32[] 1.0:f32[] b c
    v:f32[] = add_any k l
  in (v,) }""", id="grad_fori"),
    pytest.param(
        lambda x, t: jvp(_while_sin, (x,), (t,)),
        (1.0, 1.0), """\
{ lambda ; a:f32[] b:f32[]. let
    _:i32[] c:f32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:i32[] f:f32[] g:f32[]. let
          h:i32[] = add e 1:i32[]
          i:f32[] = sin f
          j:f32[] = cos f
          k:f32[] = mul g j
          l:f32[] = mul i 2.0:f32[]
          m:f32[] = mul k 2.0:f32[]
        in (h, l, m) }
      body_nconsts=0
      cond_jaxpr={ lambda ; n:i32[] o:f32[] p:f32[]. let
          q:bool[] = lt n 3:i32[]
        in (q,) }
      cond_nconsts=0
    ] 0:i32[] a b
  in (c, d) }""", id="jvp_while"),
    pytest.param(
        vmap(_cond_sin_or_cube),
        (jnp.ones(3),), """\
{ lambda ; a:f32[3]. let
    b:bool[3] = gt a 0.0:f32[]
    c:i32[3] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:bool[3] = eq c 0:i32[]
    e:f32[3] = stop_gradient a
    f:f32[3] = select_n d e a
    g:f32[3] = integer_pow[y=3] f
    h:bool[3] = eq c 1:i32[]
    i:f32[3] = stop_gradient a
    j:f32[3] = select_n h i a
    k:f32[3] = sin j
    l:f32[3] = mul k j
    m:f32[3] = select_n c g l
  in (m,) }""", id="vmap_cond_batched_pred"),
    pytest.param(
        vmap(lambda p, x: lax.cond(p, _sin_times, _cube, x), (None, 0)),
        (True, jnp.ones(3)), """\
{ lambda ; a:bool[] b:f32[3]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:f32[3] = cond[
      branches=(
        { lambda ; e:f32[3]. let f:f32[3] = integer_pow[y=3] e in (f,) }
        { lambda ; g:f32[3]. let h:f32[3] = sin g; i:f32[3] = mul h g in (i,) }
      )
    ] c b
  in (d,) }""", id="vmap_cond_unbatched_pred"),
    pytest.param(
        vmap(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x)),
        (jnp.ones(3),), """\
{ lambda ; a:f32[3]. let
    b:f32[3] = while[
      body_jaxpr={ lambda ; c:f32[3]. let d:f32[3] = mul c 2.0:f32[] in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:f32[3]. let f:bool[3] = lt e 10.0:f32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }""", id="vmap_while_batched_pred"),
    pytest.param(
        vmap(lambda c, xs: lax.scan(lambda c, x: (c * x + 1., jnp.sin(c)), c, xs)),
        (jnp.ones(2), jnp.ones((2, 3))), """\
{ lambda ; a:f32[2] b:f32[2,3]. let
    c:f32[3,2] = transpose[permutation=(1, 0)] b
    d:f32[2] e:f32[3,2] = scan[
      jaxpr={ lambda ; f:f32[2] g:f32[2]. let
          h:f32[2] = mul f g
          i:f32[2] = add h 1.0:f32[]
          j:f32[2] = sin f
        in (i, j) }
      length=3
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a c
    k:f32[2,3] = transpose[permutation=(1, 0)] e
  in (d, k) }""", id="vmap_scan"),
]


@pytest.mark.parametrize("fun, args, expected", JAXPR_CASES)
def test_jaxpr_matches_jax(fun, args, expected):
    assert str(make_jaxpr(fun)(*args)) == expected


def test_a_function_used_for_two_branches_is_printed_once():
    f = lambda x: jnp.sin(x) * 2.
    out = make_jaxpr(lambda i, x: lax.switch(i, [f, lambda x: x + 1., f], x))(1, 2.)
    assert str(out) == """\
let jaxpr = { lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = mul b 2.0:f32[]
  in (c,) } in
{ lambda ; d:i32[] e:f32[]. let
    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] d
    g:i32[] = clamp 0:i32[] f 2:i32[]
    h:f32[] = cond[
      branches=(
        jaxpr
        { lambda ; i:f32[]. let j:f32[] = add i 1.0:f32[] in (j,) }
        jaxpr
      )
    ] g e
  in (h,) }"""


def test_a_body_closing_over_tracers_scanned_twice_is_printed_once():
    """The body closes over ``wh``, a tracer of the trace around it: its jaxpr is
    remembered for that trace, so both scans share it (as in JAX)."""
    def run(wh, h, xs):
        def cell(h, x):
            return jnp.tanh(h * wh + x), h.sum()
        for _ in range(2):
            h, _ = lax.scan(cell, h, xs)
        return h
    out = make_jaxpr(run)(jnp.ones(3), jnp.ones(3), jnp.ones((5, 3)))
    assert str(out) == """\
let jaxpr = { lambda ; a:f32[3] b:f32[3] c:f32[3]. let
    d:f32[3] = mul b a
    e:f32[3] = add d c
    f:f32[3] = tanh e
    g:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
  in (f, g) } in
{ lambda ; h:f32[3] i:f32[3] j:f32[5,3]. let
    k:f32[3] _:f32[5] = scan[
      jaxpr=jaxpr
      length=5
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] h i j
    l:f32[3] _:f32[5] = scan[
      jaxpr=jaxpr
      length=5
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] h k j
  in (l,) }"""
    rng = np.random.RandomState(0)
    wh, h, xs = rng.randn(3).astype(np.float32), rng.randn(3), rng.randn(5, 3)
    expected = h
    for _ in range(2):
        for x in xs:
            expected = np.tanh(expected * wh + x)
    np.testing.assert_allclose(jit(run)(wh, h, xs), expected, rtol=1e-5)


# ----------------------------------------------------------------------------------------
# Lowering: stablehlo.case and stablehlo.while, as JAX emits them
# ----------------------------------------------------------------------------------------

def test_cond_lowers_to_case():
    text = jit(lambda x: lax.cond(x > 0, lambda x: x + 1, lambda x: x - 1, x)).lower(1.0)
    assert text.as_text().split("\n", 1)[1] == """\
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.compare GT, %arg0, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %3 = stablehlo.subtract %arg0, %cst_0 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }, {
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %3 = stablehlo.add %arg0, %cst_0 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
"""


def test_while_lowers_to_while():
    lowered = jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2., x)).lower(1.0, 3)
    assert lowered.as_text().split("\n", 1)[1] == """\
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<i32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1, %iterArg_1 = %arg0) : tensor<i32>, tensor<i32>, tensor<f32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %iterArg_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg, %c_2 : tensor<i32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %2 = stablehlo.multiply %iterArg_1, %cst : tensor<f32>
      stablehlo.return %1, %iterArg_0, %2 : tensor<i32>, tensor<i32>, tensor<f32>
    }
    return %0#2 : tensor<f32>
  }
}
"""


def test_scan_lowers_to_a_while_over_slices():
    text = jit(lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs)).lower(
        1.0, jnp.ones(3)).as_text()
    for op in ("stablehlo.while", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
               "func.call @closed_call"):
        assert op in text


# ----------------------------------------------------------------------------------------
# Values, against plain Python
# ----------------------------------------------------------------------------------------

def _python_scan(f, init, xs, reverse=False):
    carry, ys = init, []
    for x in (xs[::-1] if reverse else xs):
        carry, y = f(carry, x)
        ys.append(y)
    return carry, np.stack(ys[::-1] if reverse else ys)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 2, 3, True, 0])
def test_scan_values(reverse, unroll):
    f = lambda c, x: (c * 0.5 + x, c - x)
    xs = np.arange(7., dtype=np.float32)
    carry, ys = lax.scan(f, np.float32(1.), xs, reverse=reverse, unroll=unroll)
    expected_carry, expected_ys = _python_scan(f, np.float32(1.), xs, reverse)
    np.testing.assert_allclose(carry, expected_carry, rtol=1e-6)
    np.testing.assert_allclose(ys, expected_ys, rtol=1e-6)


def test_scan_pytrees_and_no_xs():
    (total, count), ys = lax.scan(lambda c, x: ((c[0] + x, c[1] + 1), c[0] * 2),
                                  (0.0, 0), jnp.arange(5.0))
    assert float(total) == 10.0 and int(count) == 5
    np.testing.assert_array_equal(ys, [0., 0., 2., 6., 12.])
    carry, ys = lax.scan(lambda c, _: (c * 2, c), 1.0, None, length=4)
    assert float(carry) == 16.0
    np.testing.assert_array_equal(ys, [1., 2., 4., 8.])
    carry, ys = lax.scan(lambda c, x: (c + 1, c), 0., None, length=0)
    assert float(carry) == 0.0 and ys.shape == (0,)


def test_while_and_fori_values():
    assert int(lax.while_loop(lambda c: c < 10, lambda c: c + 3, 0)) == 12
    out = lax.fori_loop(0, 10, lambda i, x: x + i, 0)
    assert int(out) == 45 and out.weak_type
    assert float(lax.fori_loop(2, jnp.int32(6), lambda i, x: x * i, 1.)) == 120.
    assert float(lax.fori_loop(5, 2, lambda i, x: x + 1., 0.)) == 0.
    # A weakly typed carry takes the type the body gives it.
    out = lax.while_loop(lambda c: c < 3, lambda c: jnp.float32(c) + 1, 1)
    assert out.dtype == np.float32 and float(out) == 3.


def test_cond_and_switch_values():
    operand = jnp.array([0.])
    inc, dec = (lambda x: x + 1), (lambda x: x - 1)
    np.testing.assert_array_equal(lax.cond(True, inc, dec, operand), [1.])
    np.testing.assert_array_equal(lax.cond(False, inc, dec, operand), [-1.])
    assert float(lax.cond(2.5, lambda x: x, lambda x: -x, 1.)) == 1.  # numbers: != 0
    assert lax.cond(True, lambda: {"a": 1.}, lambda: {"a": 2.})["a"] == 1.
    branches = [lambda x: x * 1.0, lambda x: x * 10.0, lambda x: x * 100.0]
    assert [float(lax.switch(i, branches, 2.0)) for i in [-5, 0, 1, 2, 99]] == \
        [2., 2., 20., 200., 200.]
    assert float(jit(lambda i: lax.switch(i, branches, 2.0))(7)) == 200.
    assert float(lax.switch(0, [lambda a, b: a + b, lambda a, b: a * b], 3., 4.)) == 7.


def test_map_values():
    np.testing.assert_array_equal(lax.map(lambda x: x ** 2, jnp.arange(5.0)),
                                  [0., 1., 4., 9., 16.])
    out = lax.map(lambda p: {"s": p[0] + p[1]}, (jnp.arange(3.), jnp.ones(3)))
    np.testing.assert_array_equal(out["s"], [1., 2., 3.])
    for batch_size in (0, 2, 3, 6, 8):
        out = lax.map(lambda x: x.sum(), jnp.arange(12.0).reshape(6, 2), batch_size=batch_size)
        np.testing.assert_array_equal(out, [1., 5., 9., 13., 17., 21.])


def test_disable_jit_runs_python_loops():
    with disable_jit():
        assert float(lax.cond(True, lambda x: x + 1., lambda x: x, 1.)) == 2.
        assert int(lax.while_loop(lambda c: c < 5, lambda c: c + 1, 0)) == 5
        carry, ys = lax.scan(lambda c, x: (c + x, c), 0., jnp.arange(3.))
        assert float(carry) == 3.
        np.testing.assert_array_equal(ys, [0., 0., 1.])


def test_eager_calls_compile_once():
    f, g = (lambda x: x + 1.), (lambda x: x - 1.)
    body = lambda c, x: (c + x, c * x)
    x = jnp.ones(3)
    lax.cond(True, f, g, x)
    lax.scan(body, 0., jnp.arange(4.))
    before = len(dispatch._primitive_cache)
    for p in (True, False, True):
        lax.cond(p, f, g, x)
    lax.scan(body, 2., jnp.arange(4.))
    assert len(dispatch._primitive_cache) == before


# ----------------------------------------------------------------------------------------
# Derivatives
# ----------------------------------------------------------------------------------------

def test_grad_through_cond_and_switch():
    f = _cond_sin_or_cube
    np.testing.assert_allclose([grad(f)(1.0), grad(f)(-2.0)], [1.3817732, 12.0], rtol=1e-6)
    g = lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)
    np.testing.assert_allclose([grad(g, 1)(i, 0.5) for i in range(3)],
                               [np.cos(.5), -np.sin(.5), 1 - np.tanh(.5) ** 2], rtol=1e-6)
    for x in (1.3, -0.7):
        check_grads(f, (x,), order=2)


def test_grad_of_cond_shares_the_linearized_jit_of_both_branches():
    """Linearizing a jaxpr (and pruning a jit's outputs) is cached as in JAX: the jit
    called in both branches is split into one primal and one tangent jaxpr, printed once."""
    f = jit(lambda x: jnp.sin(x) * x)
    g = grad(lambda x: lax.cond(x > 0, lambda: f(x), lambda: f(x) * 2.))
    assert str(make_jaxpr(g)(1.)) == """\
let lambda = { lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = cos a
    d:f32[] = mul b a
  in (d, c, b) } in
let lambda1 = { lambda ; e:f32[] f:f32[] g:f32[] h:f32[]. let
    i:f32[] = mul g h
    j:f32[] = mul h f
    k:f32[] = mul j e
    l:f32[] = add_any i k
  in (l,) } in
{ lambda ; m:f32[]. let
    n:bool[] = gt m 0.0:f32[]
    o:i32[] = convert_element_type[new_dtype=int32 weak_type=False] n
    _:f32[] p:f32[] q:f32[] r:f32[] = cond[
      branches=(
        { lambda ; s:f32[]. let
            t:f32[] u:f32[] v:f32[] = jit[name=<lambda> jaxpr=lambda] s
            w:f32[] = mul t 2.0:f32[]
            x:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            y:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            z:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (w, u, s, v) }
        { lambda ; ba:f32[]. let
            bb:f32[] bc:f32[] bd:f32[] = jit[name=<lambda> jaxpr=lambda] ba
            be:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            bf:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
            bg:f32[] = empty2[dtype=float32 memory_space=MemorySpace.Device] 
          in (bb, bc, ba, bd) }
      )
    ] o m
    bh:f32[] = cond[
      branches=(
        { lambda ; bi:f32[] bj:f32[] bk:f32[] bl:f32[]. let
            bm:f32[] = mul bl 2.0:f32[]
            bn:f32[] = jit[name=<lambda> jaxpr=lambda1] bi bj bk bm
          in (bn,) }
        { lambda ; bo:f32[] bp:f32[] bq:f32[] br:f32[]. let
            bs:f32[] = jit[name=<lambda> jaxpr=lambda1] bo bp bq br
          in (bs,) }
      )
    ] o p q r 1.0:f32[]
  in (bh,) }"""
    np.testing.assert_allclose(g(1.), np.sin(1.) + np.cos(1.), rtol=1e-6)


def test_grad_of_scan_splits_an_inner_jit_as_jax_does():
    """Partial evaluation of a jit in a scan body passes the unknown inputs first and the
    residuals after them, forwards known inputs instead of returning them, and keeps the
    zero instantiated by select_n's JVP a residual (a value of the known side)."""
    def g(x, y):
        def h(c):
            c, _ = lax.scan(lambda c, _: (jnp.where(c > y, c * y, jnp.sin(y)), None), c,
                            None, length=2)
            return c
        return grad(h)(x)
    assert str(make_jaxpr(g)(1., 2.)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = sin b
    d:f32[] = jit[name=_where jaxpr={ lambda ; c:f32[]. let  in (0.0:f32[],) }] c
    _:f32[] e:bool[2] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:bool[] = gt h f
          j:f32[] = mul h f
          k:f32[] = jit[
            name=_where
            jaxpr={ lambda ; i:bool[] j:f32[] g:f32[]. let
                k:f32[] = select_n i g j
              in (k,) }
          ] i j g
        in (k, i) }
      length=2
      num_carry=1
      num_consts=2
      reverse=False
      unroll=1
    ] b c a
    l:f32[] = scan[
      jaxpr={ lambda ; m:f32[] n:f32[] o:f32[] p:bool[]. let
          q:f32[] = jit[
            name=_where
            jaxpr={ lambda ; p:bool[] n:f32[] o:f32[]. let
                q:f32[] = select_n p 0.0:f32[] o
              in (q,) }
          ] p n o
          r:f32[] = mul q m
        in (r,) }
      length=2
      num_carry=1
      num_consts=2
      reverse=True
      unroll=1
    ] b d 1.0:f32[] e
  in (l,) }"""
    np.testing.assert_allclose([g(1., 2.), g(3., 2.)], [0., 4.])


def test_grad_of_scan_keeps_a_forwarded_constant_residual_a_const_of_the_loop():
    """A jit in the body split with a known literal input forwards that input as its
    residual; it stays a value of the known side (a const of the loop, printed at the
    call) rather than a literal inside the unknown jit."""
    def g(x):
        def h(x0):
            c, _ = lax.scan(lambda c, _: (jnp.where(jnp.round(c) > 1.0, jnp.round(c), 1.0)
                                          + 0 * c, None), x0, None, length=2)
            return jnp.sum(c)
        return grad(h)(x)
    assert str(make_jaxpr(g)(0.1)) == """\
let round = { lambda ; . let  in () } in
let round1 = { lambda ; a:f32[]. let
    b:f32[] = round[rounding_method=1] a
  in (b,) } in
{ lambda ; c:f32[]. let
    jit[name=round jaxpr=round] 
    jit[name=round jaxpr=round] 
    jit[name=_where jaxpr={ lambda ; d:f32[]. let  in () }] 1.0:f32[]
    e:f32[] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[]. let
          h:f32[] = jit[name=round jaxpr=round1] g
          i:bool[] = gt h 1.0:f32[]
          j:f32[] = jit[name=round jaxpr=round1] g
          k:f32[] = jit[
            name=_where
            jaxpr={ lambda ; i:bool[] j:f32[] f:f32[]. let
                k:f32[] = select_n i f j
              in (k,) }
          ] i j f
          l:f32[] = mul 0.0:f32[] g
          m:f32[] = add k l
        in (m,) }
      length=2
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] 1.0:f32[] c
    n:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
    _:f32[] = reduce_sum[axes=() out_sharding=None] n
    o:f32[] = scan[
      jaxpr={ lambda ; p:f32[]. let q:f32[] = mul 0.0:f32[] p in (q,) }
      length=2
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[]
  in (o,) }"""
    assert g(0.1) == 0. and g(2.) == 0.     # round and where are flat almost everywhere


def test_grad_of_scan_hoists_loop_invariant_residuals_in_jax_order():
    """Residuals computed from consts alone are hoisted out of the loop and passed in the
    order JAX's partial evaluation lists them (a topological order, not first use)."""
    def g(x, y, z):
        def h(c):
            c, _ = lax.scan(lambda c, _: (lax.max(jnp.arctan2(z, c), y), None), c, None,
                            length=2)
            return c
        return grad(h)(x)
    assert str(make_jaxpr(g)(1., 2., 3.)) == """\
{ lambda ; a:f32[] b:f32[] c:f32[]. let
    d:f32[] = neg c
    e:f32[] = square c
    _:f32[] f:f32[2] g:f32[2] = scan[
      jaxpr={ lambda ; h:f32[] i:f32[] j:f32[] k:f32[] l:f32[]. let
          m:f32[] = atan2 j l
          n:f32[] = square l
          o:f32[] = add i n
          p:f32[] = div h o
          q:f32[] = max m k
          r:bool[] = eq m q
          s:f32[] = select_n r 0.0:f32[] 1.0:f32[]
          t:bool[] = eq k q
          u:f32[] = select_n t 1.0:f32[] 2.0:f32[]
          v:f32[] = div s u
        in (q, p, v) }
      length=2
      num_carry=1
      num_consts=4
      reverse=False
      unroll=1
    ] d e c b a
    w:f32[] = scan[
      jaxpr={ lambda ; x:f32[] y:f32[] z:f32[]. let
          ba:f32[] = mul x z
          bb:f32[] = mul ba y
        in (bb,) }
      length=2
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[] f g
  in (w,) }"""
    s = lambda c: lax.scan(lambda c, _: (lax.max(jnp.arctan2(3., c), -2.), None), c, None,
                           length=2)[0]
    np.testing.assert_allclose(g(1., -2., 3.), (s(1.01) - s(.99)) / .02, rtol=1e-2)


def test_grad_through_scan():
    f = _tanh_rnn
    xs = jnp.array([0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(grad(f)(0.5, xs), 1.0815492, rtol=1e-6)
    np.testing.assert_allclose(grad(f, argnums=1)(0.5, xs),
                               [1.790403, 1.6167336, 1.4395245, 1.4239696], rtol=1e-6)
    check_grads(f, (0.5, xs), order=2)
    check_grads(lambda x: lax.scan(lambda c, y: (c * y, jnp.sin(c)), x, jnp.arange(1., 4.),
                                   reverse=True, unroll=2), (0.7,), order=1)


def test_grad_through_fori_with_static_bounds():
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x)
    check_grads(f, (0.5,), order=2)


def test_while_is_forward_differentiable_only():
    f = _while_sin
    check_grads(f, (0.3,), order=2, modes=["fwd"])
    _, f_lin = linearize(f, 0.3)
    np.testing.assert_allclose(f_lin(1.0), jvp(f, (0.3,), (1.0,))[1], rtol=1e-6)
    message = ("Reverse-mode differentiation does not work for lax.while_loop or "
               "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
               "fori_loop with static start/stop.")
    with pytest.raises(ValueError, match=re.escape(message)):
        grad(f)(0.3)
    with pytest.raises(ValueError, match=re.escape(message)):
        jit(grad(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, x)))(1.0, 3)


def test_checkpoint_inside_and_around_scan():
    body = lambda c, y: (jnp.sin(c) * y, jnp.cos(c))
    inside = lambda x: lax.scan(checkpoint(body), x, jnp.arange(1., 4.))[0]
    around = checkpoint(lambda x: lax.scan(body, x, jnp.arange(1., 4.))[0])
    plain = lambda x: lax.scan(body, x, jnp.arange(1., 4.))[0]
    np.testing.assert_allclose(grad(inside)(2.0), grad(plain)(2.0), rtol=1e-6)
    np.testing.assert_allclose(grad(around)(2.0), grad(plain)(2.0), rtol=1e-6)
    check_grads(inside, (2.0,), order=1)


# ----------------------------------------------------------------------------------------
# vmap, against a Python loop over the batch
# ----------------------------------------------------------------------------------------

def _check_vmap(f, *args, in_axes=0):
    batched = vmap(f, in_axes)(*args)
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[d] for a, d in zip(args, axes) if d is not None)
    pick = lambda a, d, i: a if d is None else np.take(a, i, axis=d)
    expected = [f(*(pick(a, d, i) for a, d in zip(args, axes))) for i in range(size)]
    for got, want in zip(jax.tree_util.tree_leaves(batched),
                         zip(*map(jax.tree_util.tree_leaves, expected))):
        np.testing.assert_allclose(got, np.stack(want), rtol=1e-6)


def test_vmap_cond_and_switch():
    xs = np.array([-1.0, 0.5, 2.0], np.float32)
    _check_vmap(_cond_sin_or_cube, xs)
    _check_vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), True, xs, in_axes=(None, 0))
    _check_vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda x: x * 3.], x),
                np.array([2, 0, 1]), xs)
    _check_vmap(grad(_cond_sin_or_cube), xs)


def test_vmap_loops():
    _check_vmap(lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x),
                np.array([1., 3., 7.], np.float32))
    _check_vmap(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 1.5 + i, x),
                np.ones(3, np.float32), np.array([1, 2, 3]))
    sc = lambda c, xs: lax.scan(lambda c, x: (c * x + 1., jnp.sin(c)), c, xs)
    _check_vmap(sc, np.arange(2., dtype=np.float32),
                np.arange(6., dtype=np.float32).reshape(3, 2), in_axes=(0, 1))
    _check_vmap(sc, np.float32(1.), np.ones((2, 3), np.float32), in_axes=(None, 0))
    _check_vmap(lambda x: lax.map(jnp.sin, x), np.ones((2, 3), np.float32))


# ----------------------------------------------------------------------------------------
# Errors, with JAX's types and messages
# ----------------------------------------------------------------------------------------

def _here(fun):
    code = fun.__code__
    return f"<lambda> at {code.co_filename}:{code.co_firstlineno}"


def test_branch_output_type_mismatch():
    true_fun, false_fun = (lambda x: x), (lambda x: x.astype(jnp.int32))
    with pytest.raises(TypeError) as e:
        lax.cond(True, true_fun, false_fun, 1.0)
    assert str(e.value) == (
        "cond branches must have equal output types but they differ.\n\n"
        f"true_fun is {_here(true_fun)}\nfalse_fun is {_here(false_fun)}\n\n"
        "The output of true_fun has type float32[] but the corresponding output of "
        "false_fun has type int32[], so the dtypes do not match.\n\n"
        "Revise true_fun and/or false_fun so that all output types match.")


def test_branch_output_structure_mismatch():
    with pytest.raises(TypeError, match="true_fun output is a <class 'tuple'> but "
                                        "false_fun output is a pytree leaf, so their "
                                        "Python types differ"):
        lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)
    with pytest.raises(TypeError, match="branch 0 output is a <class 'tuple'> but branch1 "
                                        "output is a pytree leaf"):
        lax.switch(0, [lambda x: (x, x), lambda x: x], 1.0)


def test_carry_type_changes():
    with pytest.raises(TypeError) as e:
        lax.scan(lambda c, x: (c.astype(jnp.int32), x), 1.0, jnp.ones(3))
    assert str(e.value) == (
        "scan body function carry input and carry output must have equal types, but they "
        "differ:\n\nThe input carry c has type float32[] but the corresponding output carry "
        "component has type int32[], so the dtypes do not match.\n\nRevise the function so "
        "that all output types match the corresponding input types.")
    with pytest.raises(TypeError, match="while_loop body function carry input and carry "
                                        "output must have equal types"):
        lax.while_loop(lambda c: c < 3, lambda c: c.astype(jnp.int32), 1.0)
    with pytest.raises(TypeError, match="must have the same pytree structure"):
        lax.scan(lambda c, x: ({"a": c["a"], "b": 1}, x), {"a": 1.0}, jnp.ones(3))


@pytest.mark.parametrize("pred, message", [
    (jnp.ones(2) > 0, "Pred must be a scalar, got [ True  True] of shape (2,)."),
    ([True], "Pred must be a scalar, got [True] of type <class 'list'>"),
    (None, "cond predicate is None"),
    (1j, "Pred type must be either boolean or number, got complex64."),
])
def test_bad_predicates(pred, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        lax.cond(pred, lambda x: x, lambda x: x, 1.0)


def test_bad_switch_index_and_branches():
    with pytest.raises(TypeError, match=re.escape("Index type must be an integer, got 1.0 as "
                                                  "float32")):
        lax.switch(1.0, [lambda x: x, lambda x: x], 1.0)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(1, [], 1.0)


def test_bad_scan_arguments():
    with pytest.raises(ValueError, match=re.escape("scan got `length` argument of 4 which "
                                                   "disagrees with leading axis sizes [3].")):
        lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), length=4)
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: "
                                         "3, 4."):
        lax.scan(lambda c, x: (c, x), 1.0, (jnp.ones(3), jnp.ones(4)))
    with pytest.raises(ValueError, match="scan got no values to scan over and `length` not "
                                         "provided."):
        lax.scan(lambda c, x: (c, x), 1.0, None)
    with pytest.raises(TypeError, match=re.escape("scan body output must be a pair, got "
                                                  "~float32[].")):
        lax.scan(lambda c, x: c, 1.0, jnp.ones(3))
    with pytest.raises(TypeError, match=re.escape("cond_fun must return a boolean scalar, but "
                                                  "got output type(s) [ShapedArray(float32[], "
                                                  "weak_type=True)].")):
        lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)


def test_python_if_on_a_traced_predicate():
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jit(lambda x: lax.cond(x > 0, lambda: 1., lambda: 2.) if x > 0 else 1.)(1.0)


# -- custom_root ---------------------------------------------------------------------------

def _newton(f, x0):
    return lax.fori_loop(0, 20, lambda i, s: s - f(s) / jax.grad(f)(s), x0)


def _sqrt_root(a):
    return lax.custom_root(lambda y: y ** 2 - a, 1.0, _newton, lambda g, y: y / g(1.0))


def test_custom_root_differentiates_implicitly():
    np.testing.assert_allclose(_sqrt_root(2.0), np.sqrt(2.0), rtol=1e-6)
    # d sqrt(a)/da = 1 / (2 sqrt(a)), from f alone (the solver is not differentiated).
    np.testing.assert_allclose(jax.grad(_sqrt_root)(2.0), 0.35355338, rtol=1e-6)
    assert jax.jit(jax.grad(_sqrt_root))(4.0) == 0.25
    np.testing.assert_allclose(jax.vmap(jax.grad(_sqrt_root))(
        jnp.array([1.0, 4.0, 9.0])), [0.5, 0.25, 1 / 6], rtol=1e-6)
    primal, tangent = jax.jvp(_sqrt_root, (4.0,), (1.0,))
    assert (primal, tangent) == (2.0, 0.25)


def test_custom_root_pytrees_aux_and_errors():
    def aux_root(a):
        return lax.custom_root(lambda y: y ** 2 - a, 1.0,
                               lambda f, x: (_newton(f, x), x + 1),
                               lambda g, y: y / g(1.0), has_aux=True)
    (root, aux), = [aux_root(4.0)]
    assert (root, aux) == (2.0, 2.0)
    assert jax.grad(lambda a: aux_root(a)[0])(4.0) == 0.25
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match "
                                        r"initial_guess, got PyTreeDef\(\(\*, \*\)\) and "
                                        r"PyTreeDef\(\*\)\."):
        lax.custom_root(lambda y: (y, y), 1.0, _newton, lambda g, y: y)


def test_custom_root_jaxpr_as_jax():
    def newton(f, x0):
        cond = lambda s: jnp.abs(f(s)) > 1e-3
        return lax.while_loop(cond, lambda s: s - f(s) / jax.grad(f)(s), x0)

    def sqrt_cubed(x):
        return lax.custom_root(lambda y: y ** 2 - x ** 3, 1.0, newton,
                               lambda g, y: y / g(1.0))
    assert str(jax.make_jaxpr(sqrt_cubed)(5.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=_custom_root
      call_jaxpr={ lambda ; c:f32[] d:f32[] e:f32[] f:f32[]. let
          g:f32[] = while[
            body_jaxpr={ lambda ; h:f32[] i:f32[]. let
                j:f32[] = integer_pow[y=2] i
                k:f32[] = integer_pow[y=3] h
                l:f32[] = sub j k
                m:f32[] = integer_pow[y=2] i
                n:f32[] = mul 2.0:f32[] i
                o:f32[] = integer_pow[y=3] h
                p:f32[] = sub m o
                q:f32[] = mul 1.0:f32[] n
                r:f32[] = div l q
                s:f32[] = sub i r
              in (s,) }
            body_nconsts=1
            cond_jaxpr={ lambda ; t:f32[] u:f32[]. let
                v:f32[] = integer_pow[y=2] u
                w:f32[] = integer_pow[y=3] t
                x:f32[] = sub v w
                y:f32[] = abs x
                z:bool[] = gt y 0.001:f32[]
              in (z,) }
            cond_nconsts=1
          ] d d f
        in (g,) }
      jvp=_root_jvp
      symbolic_zeros=False
    ] a a a 1.0:f32[]
  in (b,) }"""


# -- custom_linear_solve -------------------------------------------------------------------

_A = np.array([[2., 1.], [1., 3.]], np.float32)
_A_INV5 = np.array([[3., -1.], [-1., 2.]], np.float32)     # 5 * inverse of _A


_A_J, _A_INV5_J = jnp.asarray(_A), jnp.asarray(_A_INV5)


def _matvec(v):
    return _A_J @ v


def _solve(matvec, b):
    return _A_INV5_J @ b / 5.0


def _tsolve(vecmat, b):
    return _A_INV5_J.T @ b / 5.0


def test_custom_linear_solve_values_and_derivatives():
    b = jnp.array([1., 2.])
    solve = lambda b: lax.custom_linear_solve(_matvec, b, _solve, symmetric=True)
    np.testing.assert_allclose(solve(b), np.linalg.solve(_A, b), rtol=1e-6)
    # x = A^-1 b, so the gradient of sum(x) is A^-T 1 and the Jacobian A^-1.
    np.testing.assert_allclose(jax.grad(lambda b: solve(b).sum())(b),
                               np.linalg.solve(_A.T, np.ones(2)), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda b: lax.custom_linear_solve(
        _matvec, b, _solve, _tsolve).sum())(b), [0.4, 0.2], rtol=1e-6)
    np.testing.assert_allclose(jax.jacfwd(solve)(b), np.linalg.inv(_A), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(solve)(jnp.stack([b, 2 * b])),
                               [[0.2, 0.6], [0.4, 1.2]], rtol=1e-6)
    np.testing.assert_allclose(jax.jit(solve)(b), [0.2, 0.6], rtol=1e-6)
    with pytest.raises(TypeError, match="transpose_solve required for backwards mode"):
        jax.grad(lambda b: lax.custom_linear_solve(_matvec, b, _solve).sum())(b)


def test_custom_linear_solve_parameter_derivatives_and_batching():
    b = jnp.array([1., 2.])

    def param_solve(a, b):
        m = jnp.array([[a, 1.], [1., 3.]])
        solve = lambda mv, bb: jnp.array([[3., -1.], [-1., a]]) @ bb / (3 * a - 1)
        return lax.custom_linear_solve(lambda v: m @ v, b, solve, symmetric=True)
    np.testing.assert_allclose(param_solve(2.0, b), [0.2, 0.6], rtol=1e-6)
    # d/da of sum(A(a)^-1 b) = -1^T A^-1 (dA/da) A^-1 b
    x = np.linalg.solve(_A, b)
    dA = np.array([[1., 0.], [0., 0.]])
    expected = -np.ones(2) @ np.linalg.solve(_A, dA @ x)
    np.testing.assert_allclose(jax.grad(lambda a: param_solve(a, b).sum())(2.0), expected,
                               rtol=1e-5)
    batched = jax.vmap(lambda a: param_solve(a, b))(jnp.array([2.0, 3.0]))
    np.testing.assert_allclose(batched[1], np.linalg.solve([[3., 1.], [1., 3.]], b),
                               rtol=1e-6)


def test_custom_linear_solve_jaxpr_as_jax():
    b = jnp.array([1., 2.])
    text = str(jax.make_jaxpr(lambda b: lax.custom_linear_solve(
        _matvec, b, _solve, symmetric=True))(b))
    assert text == """let jaxpr = { lambda ; a:f32[2,2] b:f32[2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) } in
{ lambda d:f32[2,2] e:f32[2,2]; f:f32[2]. let
    g:f32[2] = custom_linear_solve[
      const_lengths=_LinearSolveTuple(matvec=1, vecmat=1, solve=1, transpose_solve=1)
      jaxprs=_LinearSolveTuple(matvec={ lambda ; a:f32[2,2] b:f32[2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }, vecmat={ lambda ; a:f32[2,2] b:f32[2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }, solve={ lambda ; a:f32[2,2] b:f32[2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[2] = div c 5.0:f32[]
  in (d,) }, transpose_solve={ lambda ; a:f32[2,2] b:f32[2]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[2] = div c 5.0:f32[]
  in (d,) })
    ] d d e e f
  in (g,) }"""


def test_platform_dependent_lowers_only_the_branch_for_its_platform():
    """JAX 0.10.2's text: the other platforms' branches are left out, and the index
    reaches the kept one through a case."""
    f = jax.jit(lambda x: lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.cos,
                                                 default=jnp.tan))
    assert f.lower(1.).as_text() == """\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = "stablehlo.case"(%c) ({
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_0 : tensor<i32>
    }, {
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_0 : tensor<i32>
    }, {
      %c_0 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_0 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.sine %arg0 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
"""
    assert f(1.) == jnp.sin(1.)
