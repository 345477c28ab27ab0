"""glassjax.scipy.special: values, dtypes, weak types, errors, gradients and jaxprs as
JAX 0.10.2 prints them for the same program (the expected text was printed by JAX)."""
import math
from fractions import Fraction

import numpy as np

PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp
import numpy as np
from glassjax.scipy import special as s
x = jnp.array([0.1, 0.5, 1., 2.5, 7.])
u = jnp.array([-0.9, -0.3, 0., 0.4, 0.95])
p = jnp.array([1e-30, 1e-5, 0.1, 0.5, 0.8, 0.99, 1.0, 0.])
z = jnp.array([-40., -12., -3., 0., 1., 6., 9.])
cases = [('gammaln', x), ('digamma', x), ('erf', u), ('erfc', u), ('erfinv', u), ('expit', z),
         ('logit', jnp.array([0.1, 0.5, 0.9])), ('entr', jnp.array([0., 0.5, 1., -1., 3.])),
         ('ndtr', z), ('ndtri', p), ('log_ndtr', z), ('logsumexp', x), ('softmax', x), ('log_softmax', x)]
for n, v in cases:
    f = getattr(s, n)
    y = f(v)
    print(n, y, y.dtype, y.weak_type)
    try: print('  grad', jax.grad(lambda a: f(a).sum())(v))
    except Exception as e: print('  grad', type(e).__name__, e)
    for sc in (1, 0.5):
        try: r = f(sc); print('  scalar', sc, r, r.dtype, r.weak_type)
        except Exception as e: print('  scalar', type(e).__name__, e)
    print(jax.make_jaxpr(f)(v))
for n in ['xlogy', 'xlog1py', 'betaln']:
    f = getattr(s, n)
    a, b = jnp.array([0., 0., 1., 2., 3., 10.]), jnp.array([0., 1., 0.5, 2., 30., 100.])
    print(n, f(a, b), f(a, b).dtype, f(2, 3), f(2., 3).weak_type)
    print(jax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(a + 0.5, b + 0.5))
    print(jax.make_jaxpr(f)(a, b))
print(s.multigammaln(x + 2, 3), s.multigammaln(4.5, 2), jax.make_jaxpr(lambda v: s.multigammaln(v, 3))(x))
print(s.polygamma(1, x), s.polygamma(jnp.array([0, 1, 2, 3, 4]), x), jax.grad(lambda v: s.polygamma(2, v).sum())(x))
print(jax.make_jaxpr(s.polygamma)(2, x))
try: s.polygamma(1., x)
except Exception as e: print(type(e).__name__, e)
print(s.zeta(jnp.array([2., 3., 4.5]), jnp.array([1., 2., 0.5])), s.zeta(2., 1.))
print(jax.grad(lambda a, q: s.zeta(a, q).sum(), argnums=(0, 1))(jnp.array([2., 3., 4.5]), jnp.array([1., 2., 0.5])))

print(s.log_ndtr(z, series_order=5), jax.make_jaxpr(jax.grad(lambda v: s.log_ndtr(v).sum()))(z))
print(s.logsumexp(x, b=jnp.array([1., -1., 2., 0., 1.]), return_sign=True), s.logsumexp(x.reshape(1, 5), axis=1, where=x > 1))
print(jax.make_jaxpr(jax.grad(lambda v: s.xlogy(v, v).sum()))(x))
print(jax.make_jaxpr(jax.grad(lambda v: s.logit(v).sum()))(x / 8))
print(jax.make_jaxpr(jax.grad(lambda v: s.entr(v).sum()))(x))
for bad in [lambda: s.ndtr(jnp.array([1, 2])), lambda: s.ndtri(jnp.float16(0.3)), lambda: s.log_ndtr(1., series_order=2.), lambda: s.log_ndtr(1., series_order=31), lambda: s.zeta(2.), lambda: s.entr(1j)]:
    try: print(bad())
    except Exception as e: print(type(e).__name__, e)
print(s.erf(jnp.float16(0.5)), s.gammaln(jnp.bfloat16(3.5)), s.erf(np.float64(0.5)), s.erf(jnp.array([1, 2])))
'''

EXPECTED = '''\
gammaln [2.2527127e+00 5.7236481e-01 4.7683716e-07 2.8468299e-01 6.5792527e+00] float32 False
  grad [-10.423755   -1.96351    -0.5772154   0.7031568   1.8727846]
  scalar 1 4.7683716e-07 float32 True
  scalar 0.5 0.5723648 float32 True
{ lambda ; a:f32[5]. let b:f32[5] = lgamma a in (b,) }
digamma [-10.423755   -1.96351    -0.5772154   0.7031568   1.8727846] float32 False
  grad [101.4333       4.934802     1.644934     0.49035776   0.15354517]
  scalar 1 -0.5772154 float32 True
  scalar 0.5 -1.96351 float32 True
{ lambda ; a:f32[5]. let b:f32[5] = digamma a in (b,) }
erf [-0.7969082  -0.3286268   0.          0.42839232  0.8208908 ] float32 False
  grad [0.5019686  1.031261   1.1283792  0.9615413  0.45761928]
  scalar 1 0.84270084 float32 True
  scalar 0.5 0.5204999 float32 True
{ lambda ; a:f32[5]. let b:f32[5] = erf a in (b,) }
erfc [1.7969081  1.3286268  1.         0.57160765 0.17910928] float32 False
  grad [-0.5019686  -1.031261   -1.1283792  -0.9615413  -0.45761928]
  scalar 1 0.15729924 float32 True
  scalar 0.5 0.47950017 float32 True
{ lambda ; a:f32[5]. let b:f32[5] = erfc a in (b,) }
erfinv [-1.163087   -0.27246276  0.          0.3708072   1.3859037 ] float32 False
  grad [3.428042   0.9545204  0.88622695 1.0168563  6.0493264 ]
  scalar 1 inf float32 True
  scalar 0.5 0.47693628 float32 True
{ lambda ; a:f32[5]. let b:f32[5] = erf_inv a in (b,) }
expit [4.2483541e-18 6.1441742e-06 4.7425874e-02 5.0000000e-01 7.3105860e-01
 9.9752742e-01 9.9987662e-01] float32 False
  grad [4.2483541e-18 6.1441365e-06 4.5176659e-02 2.5000000e-01 1.9661193e-01
 2.4664658e-03 1.2336639e-04]
  scalar 1 0.7310586 float32 True
  scalar 0.5 0.62245935 float32 True
{ lambda ; a:f32[7]. let b:f32[7] = logistic a in (b,) }
logit [-2.1972246  0.         2.1972244] float32 False
  grad [11.111112  4.       11.111109]
  scalar 1 inf float32 True
  scalar 0.5 0.0 float32 True
{ lambda ; a:f32[3]. let
    b:f32[3] = custom_jvp_call[
      name=logit
      call_jaxpr={ lambda ; c:f32[3]. let
          d:f32[3] = sub 1.0:f32[] c
          e:f32[3] = div c d
          f:f32[3] = log e
        in (f,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
  in (b,) }
entr [-0.         0.3465736 -0.              -inf -3.295837 ] float32 False
  grad [        inf -0.30685282 -1.                 nan -2.0986123 ]
  scalar 1 -0.0 float32 True
  scalar 0.5 0.3465736 float32 True
{ lambda ; a:f32[5]. let
    b:bool[5] = lt a 0.0:f32[]
    c:f32[5] = broadcast_in_dim -inf:f32[]
    d:f32[5] = custom_jvp_call[
      name=_xlogx
      call_jaxpr={ lambda ; e:f32[5]. let
          f:f32[5] = custom_jvp_call[
            name=xlogy
            call_jaxpr={ lambda ; g:f32[5] h:f32[5]. let
                i:bool[5] = ne g 0.0:f32[]
                j:bool[5] = ne h h
                k:bool[5] = or i j
                l:f32[5] = log h
                m:f32[5] = mul g l
                n:f32[5] = broadcast_in_dim 0.0:f32[]
                o:f32[5] = jit[
                  name=_where
                  jaxpr={ lambda ; k:bool[5] m:f32[5] n:f32[5]. let
                      o:f32[5] = select_n k n m
                    in (o,) }
                ] k m n
              in (o,) }
            jvp=_xlogy_jvp
            symbolic_zeros=False
          ] e e
        in (f,) }
      jvp=_xlogx_jvp
      symbolic_zeros=False
    ] a
    p:f32[5] = neg d
    q:f32[5] = select_n b p c
  in (q,) }
ndtr [0.0000000e+00 1.7764960e-33 1.3498988e-03 5.0000000e-01 8.4134471e-01
 1.0000000e+00 1.0000000e+00] float32 False
  grad [0.0000000e+00 2.1464001e-32 4.4318507e-03 3.9894229e-01 2.4197075e-01
 6.0758949e-09 1.0279813e-18]
  scalar TypeError x.dtype=int32 is not supported, see docstring for supported types.
  scalar 0.5 0.69146246 float32 False
{ lambda ; a:f32[7]. let
    b:f32[7] = mul a 0.7071067690849304:f32[]
    c:f32[7] = abs b
    d:bool[7] = lt c 0.7071067690849304:f32[]
    e:f32[7] = erf b
    f:f32[7] = add 1.0:f32[] e
    g:bool[7] = gt b 0.0:f32[]
    h:f32[7] = erfc c
    i:f32[7] = sub 2.0:f32[] h
    j:f32[7] = erfc c
    k:f32[7] = select_n g j i
    l:f32[7] = select_n d k f
    m:f32[7] = mul 0.5:f32[] l
  in (m,) }
ndtri [-11.464024   -4.2648907  -1.2815516   0.          0.8416212   2.3263483
         inf        -inf] float32 False
  grad [8.6580283e+28 2.2327746e+04 5.6980605e+00 2.5066283e+00 3.5719140e+00
 3.7520466e+01 0.0000000e+00 0.0000000e+00]
  scalar TypeError x.dtype=int32 is not supported, see docstring for supported types.
  scalar 0.5 0.0 float32 False
let _where = { lambda ; a:bool[8] b:f32[8] c:f32[8]. let
    d:f32[8] = select_n a c b
  in (d,) } in
let polyval = { lambda ; e:f32[9] f:f32[8]. let
    g:f32[8] = broadcast_in_dim 0.0:f32[]
    h:f32[8] = scan[
      jaxpr=jaxpr
      length=9
      num_carry=1
      num_consts=1
      reverse=False
      unroll=16
    ] f g e
  in (h,) } in
let jaxpr = { lambda ; i:f32[8] j:f32[8] k:f32[]. let
    l:f32[8] = mul j i
    m:f32[8] = add l k
  in (m,) } in
{ lambda n:f32[5] o:f32[9] p:f32[9] q:f32[9] r:f32[9] s:f32[9]; t:f32[8]. let
    u:bool[8] = gt t 0.8646647334098816:f32[]
    v:f32[8] = sub 1.0:f32[] t
    w:f32[8] = jit[name=_where jaxpr=_where] u v t
    x:bool[8] = eq w 0.0:f32[]
    y:f32[8] = broadcast_in_dim 0.5:f32[]
    z:f32[8] = jit[name=_where jaxpr=_where] x y w
    ba:f32[8] = sub z 0.5:f32[]
    bb:f32[8] = square ba
    bc:f32[8] = mul ba bb
    bd:f32[8] = jit[
      name=polyval
      jaxpr={ lambda ; n:f32[5] bb:f32[8]. let
          be:f32[8] = broadcast_in_dim 0.0:f32[]
          bd:f32[8] = scan[
            jaxpr={ lambda ; bf:f32[8] bg:f32[8] bh:f32[]. let
                bi:f32[8] = mul bg bf
                bj:f32[8] = add bi bh
              in (bj,) }
            length=5
            num_carry=1
            num_consts=1
            reverse=False
            unroll=16
          ] bb be n
        in (bd,) }
    ] n bb
    bk:f32[8] = jit[name=polyval jaxpr=polyval] o bb
    bl:f32[8] = div bd bk
    bm:f32[8] = mul bc bl
    bn:f32[8] = add ba bm
    bo:f32[8] = mul bn -2.5066282749176025:f32[]
    bp:f32[8] = log z
    bq:f32[8] = mul -2.0:f32[] bp
    br:f32[8] = sqrt bq
    bs:f32[8] = log br
    bt:f32[8] = div bs br
    bu:f32[8] = sub br bt
    bv:f32[8] = div 1.0:f32[] br
    bw:f32[8] = jit[name=polyval jaxpr=polyval] p bv
    bx:f32[8] = div 1.0:f32[] br
    by:f32[8] = jit[name=polyval jaxpr=polyval] q bx
    bz:f32[8] = div bw by
    ca:f32[8] = div bz br
    cb:f32[8] = div 1.0:f32[] br
    cc:f32[8] = jit[name=polyval jaxpr=polyval] r cb
    cd:f32[8] = div 1.0:f32[] br
    ce:f32[8] = jit[name=polyval jaxpr=polyval] s cd
    cf:f32[8] = div cc ce
    cg:f32[8] = div cf br
    ch:f32[8] = sub bu ca
    ci:f32[8] = sub bu cg
    cj:bool[8] = gt z 0.1353352814912796:f32[]
    ck:bool[8] = ge br 8.0:f32[]
    cl:f32[8] = jit[name=_where jaxpr=_where] ck ch ci
    cm:f32[8] = jit[name=_where jaxpr=_where] cj bo cl
    cn:bool[8] = gt t 0.8646647334098816:f32[]
    co:f32[8] = neg cm
    cp:f32[8] = jit[name=_where jaxpr=_where] cn cm co
    cq:f32[8] = broadcast_in_dim inf:f32[]
    cr:bool[8] = eq t 0.0:f32[]
    cs:f32[8] = neg cq
    ct:bool[8] = eq t 1.0:f32[]
    cu:f32[8] = jit[name=_where jaxpr=_where] ct cq cp
    cv:f32[8] = jit[name=_where jaxpr=_where] cr cs cu
  in (cv,) }
log_ndtr [-8.0460846e+02 -7.5410675e+01 -6.6077256e+00 -6.9314718e-01
 -1.7275381e-01 -9.8658959e-10 -1.1285927e-19] float32 False
  grad [4.0025394e+01 1.2082250e+01 3.2830963e+00 7.9788458e-01 2.8759998e-01
 6.0758882e-09 1.0279782e-18]
  scalar TypeError x.dtype=int32 is not supported.
  scalar 0.5 -0.3689464 float32 False
let jaxpr = { lambda ; a:f32[7]. let
    b:bool[7] = gt a 5.0:f32[]
    c:f32[7] = neg a
    d:f32[7] = max a -10.0:f32[]
    e:f32[7] = jit[name=_where jaxpr=_where] b c d
    f:f32[7] = mul e 0.7071067690849304:f32[]
    g:f32[7] = abs f
    h:bool[7] = lt g 0.7071067690849304:f32[]
    i:f32[7] = erf f
    j:f32[7] = add 1.0:f32[] i
    k:bool[7] = gt f 0.0:f32[]
    l:f32[7] = erfc g
    m:f32[7] = sub 2.0:f32[] l
    n:f32[7] = erfc g
    o:f32[7] = select_n k n m
    p:f32[7] = select_n h o j
    q:f32[7] = mul 0.5:f32[] p
    r:f32[7] = neg q
    s:bool[7] = gt a -10.0:f32[]
    t:f32[7] = log q
    u:f32[7] = min a -10.0:f32[]
    v:f32[7] = square u
    w:f32[7] = mul -0.5:f32[] v
    x:f32[7] = neg u
    y:f32[7] = log x
    z:f32[7] = sub w y
    ba:f32[7] = sub z 0.9189385175704956:f32[]
    bb:f32[7] = square u
    bc:f32[7] = broadcast_in_dim 0.0:f32[]
    bd:f32[7] = broadcast_in_dim 0.0:f32[]
    be:f32[7] = div 1.0:f32[] bb
    bf:f32[7] = add bd be
    bg:f32[7] = mul bb bb
    bh:f32[7] = div 3.0:f32[] bg
    bi:f32[7] = add bc bh
    bj:f32[7] = mul bg bb
    bk:f32[7] = div 15.0:f32[] bj
    bl:f32[7] = add bf bk
    bm:f32[7] = mul bj bb
    bn:f32[7] = add 1.0:f32[] bi
    bo:f32[7] = sub bn bl
    bp:f32[7] = log bo
    bq:f32[7] = add ba bp
    br:f32[7] = jit[name=_where jaxpr=_where] s t bq
    bs:f32[7] = jit[name=_where jaxpr=_where] b r br
  in (bs,) } in
let _where = { lambda ; bt:bool[7] bu:f32[7] bv:f32[7]. let
    bw:f32[7] = select_n bt bv bu
  in (bw,) } in
{ lambda ; bx:f32[7]. let
    by:f32[7] = custom_jvp_call[
      name=log_ndtr
      call_jaxpr=jaxpr
      jvp=_log_ndtr_jvp
      symbolic_zeros=False
    ] bx
  in (by,) }
logsumexp 7.0159707 float32 False
  grad [0.00099182 0.00147962 0.00243948 0.01093299 0.9841561 ]
  scalar 1 1.0 float32 False
  scalar 0.5 0.5 float32 False
{ lambda ; a:f32[5]. let
    b:f32[] = reduce_max[axes=(0,)] a
    c:f32[] = max -inf:f32[] b
    d:bool[] = is_finite c
    e:f32[] = select_n d 0.0:f32[] c
    f:f32[] = stop_gradient e
    g:f32[1] = broadcast_in_dim f
    h:f32[5] = sub a g
    i:f32[5] = exp h
    j:f32[] = reduce_sum[axes=(0,) out_sharding=None] i
    _:f32[] = sign j
    k:f32[] = abs j
    l:f32[] = log k
    m:f32[] = add l f
  in (m,) }
softmax [0.00099182 0.00147962 0.00243948 0.01093299 0.9841561 ] float32 False
  grad [-6.0068686e-11 -8.9611957e-11 -1.4774515e-10 -6.6214778e-10
 -5.9604645e-08]
  scalar 1 1.0 float32 False
  scalar 0.5 1.0 float32 False
{ lambda ; a:f32[5]. let
    b:f32[] = reduce_max[axes=(0,)] a
    c:f32[] = max -inf:f32[] b
    d:f32[1] = broadcast_in_dim c
    e:f32[1] = stop_gradient d
    f:f32[5] = sub a e
    g:f32[5] = exp f
    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g
    i:f32[1] = broadcast_in_dim h
    j:f32[5] = div g i
  in (j,) }
log_softmax [-6.915971   -6.5159707  -6.0159707  -4.5159707  -0.01597076] float32 False
  grad [ 0.9950409   0.99260193  0.9878026   0.9453351  -3.9207807 ]
  scalar 1 0.0 float32 False
  scalar 0.5 0.0 float32 False
{ lambda ; a:f32[5]. let
    b:f32[5] = jit[
      name=log_softmax
      jaxpr={ lambda ; a:f32[5]. let
          c:f32[] = reduce_max[axes=(0,)] a
          d:f32[] = max -inf:f32[] c
          e:f32[1] = broadcast_in_dim d
          f:f32[1] = stop_gradient e
          g:f32[5] = sub a f
          h:f32[5] = exp g
          i:f32[] = reduce_sum[axes=(0,) out_sharding=None] h
          j:f32[1] = broadcast_in_dim i
          k:f32[1] = log j
          b:f32[5] = sub g k
        in (b,) }
    ] a
  in (b,) }
xlogy [ 0.         0.        -0.6931472  1.3862944 10.203592  46.051704 ] float32 2.1972246 True
(Array([-0.6931472 ,  0.4054651 ,  0.        ,  0.91629076,  3.4177268 ,
        4.6101575 ], dtype=float32), Array([1.        , 0.33333334, 1.5       , 1.        , 0.1147541 ,
       0.10447761], dtype=float32))
{ lambda ; a:f32[6] b:f32[6]. let
    c:f32[6] = custom_jvp_call[
      name=xlogy
      call_jaxpr={ lambda ; d:f32[6] e:f32[6]. let
          f:bool[6] = ne d 0.0:f32[]
          g:bool[6] = ne e e
          h:bool[6] = or f g
          i:f32[6] = log e
          j:f32[6] = mul d i
          k:f32[6] = broadcast_in_dim 0.0:f32[]
          l:f32[6] = jit[
            name=_where
            jaxpr={ lambda ; h:bool[6] j:f32[6] k:f32[6]. let
                l:f32[6] = select_n h k j
              in (l,) }
          ] h j k
        in (l,) }
      jvp=_xlogy_jvp
      symbolic_zeros=False
    ] a b
  in (c,) }
xlog1py [ 0.         0.         0.4054651  2.1972246 10.301962  46.151203 ] float32 2.7725887 True
(Array([0.4054651 , 0.91629076, 0.6931472 , 1.252763  , 3.4499876 ,
       4.620059  ], dtype=float32), Array([0.33333334, 0.2       , 0.75      , 0.71428573, 0.11111112,
       0.10344827], dtype=float32))
{ lambda ; a:f32[6] b:f32[6]. let
    c:f32[6] = custom_jvp_call[
      name=xlog1py
      call_jaxpr={ lambda ; d:f32[6] e:f32[6]. let
          f:bool[6] = ne d 0.0:f32[]
          g:bool[6] = ne e e
          h:bool[6] = or f g
          i:f32[6] = log1p e
          j:f32[6] = mul d i
          k:f32[6] = broadcast_in_dim 0.0:f32[]
          l:f32[6] = jit[
            name=_where
            jaxpr={ lambda ; h:bool[6] j:f32[6] k:f32[6]. let
                l:f32[6] = select_n h k j
              in (l,) }
          ] h j k
        in (l,) }
      jvp=_xlog1py_jvp
      symbolic_zeros=False
    ] a b
  in (c,) }
betaln [        nan         inf   0.6931472  -1.7917603  -9.607773  -33.686264 ] float32 -2.4849074 True
(Array([-1.3862946 , -2.3862946 , -0.66666675, -0.80296135, -2.4084263 ,
       -2.4020174 ], dtype=float32), Array([-1.3862946 , -0.38629454, -1.2803721 , -0.80296135, -0.11033889,
       -0.09984459], dtype=float32))
let _where = { lambda ; a:bool[6] b:f32[6] c:f32[6]. let
    d:f32[6] = select_n a c b
  in (d,) } in
{ lambda ; e:f32[6] f:f32[6]. let
    g:f32[6] = min e f
    h:f32[6] = max e f
    i:f32[6] = lgamma g
    j:f32[6] = lgamma h
    k:f32[6] = add g h
    l:f32[6] = lgamma k
    m:f32[6] = sub j l
    n:f32[6] = add i m
    o:f32[6] = lgamma g
    p:f32[6] = div g h
    q:f32[6] = add 1.0:f32[] p
    r:f32[6] = div p q
    s:f32[6] = add 1.0:f32[] p
    t:f32[6] = div p s
    u:f32[6] = sub g 0.5:f32[]
    v:f32[6] = add h u
    w:f32[6] = mul t t
    x:f32[6] = add t w
    y:f32[6] = add 1.0:f32[] x
    z:f32[6] = mul w y
    ba:f32[6] = add t z
    bb:f32[6] = add 1.0:f32[] ba
    bc:f32[6] = mul w bb
    bd:f32[6] = add t bc
    be:f32[6] = add 1.0:f32[] bd
    bf:f32[6] = mul w be
    bg:f32[6] = add t bf
    bh:f32[6] = add 1.0:f32[] bg
    bi:f32[6] = mul w bh
    bj:f32[6] = add t bi
    bk:f32[6] = add 1.0:f32[] bj
    bl:f32[6] = div 1.0:f32[] h
    bm:f32[6] = integer_pow[y=2] bl
    bn:f32[6] = mul -0.0016532295849174261:f32[] bk
    bo:f32[6] = mul bn bm
    bp:f32[6] = mul 0.0008373080054298043:f32[] bh
    bq:f32[6] = add bo bp
    br:f32[6] = mul bq bm
    bs:f32[6] = mul -0.0005952029023319483:f32[] be
    bt:f32[6] = add br bs
    bu:f32[6] = mul bt bm
    bv:f32[6] = mul 0.0007936506881378591:f32[] bb
    bw:f32[6] = add bu bv
    bx:f32[6] = mul bw bm
    by:f32[6] = mul -0.0027777778450399637:f32[] y
    bz:f32[6] = add bx by
    ca:f32[6] = mul bz bm
    cb:f32[6] = add ca 0.0833333358168602:f32[]
    cc:f32[6] = div r h
    cd:f32[6] = mul cb cc
    ce:f32[6] = div g h
    cf:f32[6] = log1p ce
    cg:f32[6] = mul v cf
    ch:f32[6] = log h
    ci:f32[6] = sub ch 1.0:f32[]
    cj:f32[6] = mul g ci
    ck:bool[6] = le cg cj
    cl:f32[6] = sub cd cj
    cm:f32[6] = sub cl cg
    cn:f32[6] = sub cd cg
    co:f32[6] = sub cn cj
    cp:f32[6] = jit[name=_where jaxpr=_where] ck cm co
    cq:f32[6] = add o cp
    cr:bool[6] = lt h 8.0:f32[]
    cs:f32[6] = jit[name=_where jaxpr=_where] cr n cq
  in (cs,) }
[ 1.600068   1.8809959  2.6949253  7.163567  30.396126 ] 4.8178635 { lambda ; a:f32[5]. let
    b:f32[] = mul 0.25:f32[] 3.0:f32[]
    c:f32[] = sub 3.0:f32[] 1.0:f32[]
    d:f32[] = mul b c
    e:f32[] = log 3.1415927410125732:f32[]
    f:f32[] = mul d e
    g:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] 
    h:f32[3] = div g 2.0:f32[]
    i:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    j:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] h
    k:f32[5,3] = sub i j
    l:f32[5,3] = lgamma k
    m:f32[5] = reduce_sum[axes=(1,) out_sharding=None] l
    n:f32[5] = add m f
  in (n,) }
[101.4333       4.934802     1.644934     0.49035776   0.15354517] [-1.0423755e+01  4.9348021e+00 -2.4041145e+00  2.2390607e-01
 -3.2967750e-03] [6.0004559e+04 9.7409187e+01 6.4939461e+00 2.2390607e-01 7.1982052e-03]
{ lambda ; a:i32[] b:f32[5]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    d:f32[5] = polygamma c b
  in (d,) }
ValueError Argument `n` to polygamma must be of integer type. Got dtype float32.
[ 1.644934    0.20205691 22.8106    ] 1.644934
(Array([-0.9375482 , -0.19812626, 15.595808  ], dtype=float32), Array([  -2.404114  ,   -0.24696971, -204.16617   ], dtype=float32))
[-8.0460846e+02 -7.5410675e+01 -6.6077256e+00 -6.9314718e-01
 -1.7275381e-01 -9.8658959e-10 -1.1285927e-19] let jaxpr = { lambda ; a:f32[7]. let
    b:bool[7] = gt a 5.0:f32[]
    c:f32[7] = neg a
    d:f32[7] = max a -10.0:f32[]
    e:f32[7] = jit[name=_where jaxpr=_where] b c d
    f:f32[7] = mul e 0.7071067690849304:f32[]
    g:f32[7] = abs f
    h:bool[7] = lt g 0.7071067690849304:f32[]
    i:f32[7] = erf f
    j:f32[7] = add 1.0:f32[] i
    k:bool[7] = gt f 0.0:f32[]
    l:f32[7] = erfc g
    m:f32[7] = sub 2.0:f32[] l
    n:f32[7] = erfc g
    o:f32[7] = select_n k n m
    p:f32[7] = select_n h o j
    q:f32[7] = mul 0.5:f32[] p
    r:f32[7] = neg q
    s:bool[7] = gt a -10.0:f32[]
    t:f32[7] = log q
    u:f32[7] = min a -10.0:f32[]
    v:f32[7] = square u
    w:f32[7] = mul -0.5:f32[] v
    x:f32[7] = neg u
    y:f32[7] = log x
    z:f32[7] = sub w y
    ba:f32[7] = sub z 0.9189385175704956:f32[]
    bb:f32[7] = square u
    bc:f32[7] = broadcast_in_dim 0.0:f32[]
    bd:f32[7] = broadcast_in_dim 0.0:f32[]
    be:f32[7] = div 1.0:f32[] bb
    bf:f32[7] = add bd be
    bg:f32[7] = mul bb bb
    bh:f32[7] = div 3.0:f32[] bg
    bi:f32[7] = add bc bh
    bj:f32[7] = mul bg bb
    bk:f32[7] = div 15.0:f32[] bj
    bl:f32[7] = add bf bk
    bm:f32[7] = mul bj bb
    bn:f32[7] = add 1.0:f32[] bi
    bo:f32[7] = sub bn bl
    bp:f32[7] = log bo
    bq:f32[7] = add ba bp
    br:f32[7] = jit[name=_where jaxpr=_where] s t bq
    bs:f32[7] = jit[name=_where jaxpr=_where] b r br
  in (bs,) } in
let _where = { lambda ; bt:bool[7] bu:f32[7] bv:f32[7]. let
    bw:f32[7] = select_n bt bv bu
  in (bw,) } in
{ lambda ; bx:f32[7]. let
    by:f32[7] = custom_jvp_call[
      name=log_ndtr
      call_jaxpr=jaxpr
      jvp=_log_ndtr_jvp
      symbolic_zeros=False
    ] bx
    bz:f32[7] = square bx
    ca:f32[7] = mul -0.5:f32[] bz
    cb:f32[7] = sub ca 0.9189385175704956:f32[]
    cc:f32[7] = sub cb by
    cd:f32[7] = exp cc
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] by
    ce:f32[7] = broadcast_in_dim 1.0:f32[]
    cf:f32[7] = mul ce cd
  in (cf,) }
(Array(7.0044518, dtype=float32), Array(1., dtype=float32)) [7.011048]
{ lambda ; a:f32[5]. let
    b:f32[5] = custom_jvp_call[
      name=xlogy
      call_jaxpr={ lambda ; c:f32[5] d:f32[5]. let
          e:bool[5] = ne c 0.0:f32[]
          f:bool[5] = ne d d
          g:bool[5] = or e f
          h:f32[5] = log d
          i:f32[5] = mul c h
          j:f32[5] = broadcast_in_dim 0.0:f32[]
          k:f32[5] = jit[
            name=_where
            jaxpr={ lambda ; g:bool[5] i:f32[5] j:f32[5]. let
                k:f32[5] = select_n g j i
              in (k,) }
          ] g i j
        in (k,) }
      jvp=_xlogy_jvp
      symbolic_zeros=False
    ] a a
    l:f32[5] = log a
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    m:f32[5] = broadcast_in_dim 1.0:f32[]
    n:f32[5] = div m a
    o:f32[5] = mul n a
    p:f32[5] = mul m l
    q:f32[5] = add_any o p
  in (q,) }
{ lambda ; a:f32[5]. let
    b:f32[5] = custom_jvp_call[
      name=logit
      call_jaxpr={ lambda ; c:f32[5]. let
          d:f32[5] = sub 1.0:f32[] c
          e:f32[5] = div c d
          f:f32[5] = log e
        in (f,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
    g:f32[5] = sub 1.0:f32[] a
    h:f32[5] = mul a g
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    i:f32[5] = broadcast_in_dim 1.0:f32[]
    j:f32[5] = div i h
  in (j,) }
{ lambda ; a:f32[5]. let
    b:bool[5] = lt a 0.0:f32[]
    c:f32[5] = broadcast_in_dim -inf:f32[]
    d:f32[5] = custom_jvp_call[
      name=_xlogx
      call_jaxpr={ lambda ; e:f32[5]. let
          f:f32[5] = custom_jvp_call[
            name=xlogy
            call_jaxpr={ lambda ; g:f32[5] h:f32[5]. let
                i:bool[5] = ne g 0.0:f32[]
                j:bool[5] = ne h h
                k:bool[5] = or i j
                l:f32[5] = log h
                m:f32[5] = mul g l
                n:f32[5] = broadcast_in_dim 0.0:f32[]
                o:f32[5] = jit[
                  name=_where
                  jaxpr={ lambda ; k:bool[5] m:f32[5] n:f32[5]. let
                      o:f32[5] = select_n k n m
                    in (o,) }
                ] k m n
              in (o,) }
            jvp=_xlogy_jvp
            symbolic_zeros=False
          ] e e
        in (f,) }
      jvp=_xlogx_jvp
      symbolic_zeros=False
    ] a
    p:f32[5] = log a
    q:f32[5] = add p 1.0:f32[]
    r:f32[5] = neg d
    s:f32[5] = select_n b r c
    _:f32[5] = broadcast_in_dim 0.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] s
    t:f32[5] = broadcast_in_dim 1.0:f32[]
    u:f32[5] = broadcast_in_dim 0.0:f32[]
    v:f32[5] = select_n b t u
    w:f32[5] = neg v
    x:f32[5] = mul w q
  in (x,) }
TypeError x.dtype=int32 is not supported, see docstring for supported types.
TypeError x.dtype=float16 is not supported, see docstring for supported types.
TypeError series_order must be a Python integer.
ValueError series_order must be <= 30.
NotImplementedError Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta function.
ValueError entr does not support complex-valued inputs.
0.5205 1.20312 0.5204999 [0.84270084 0.9953222 ]
'''


def test_special_functions_print_what_jax_prints(capsys):
    exec(compile(PROGRAM, "special_program", "exec"), {})
    assert capsys.readouterr().out == EXPECTED


def test_euler_maclaurin_coefficients_are_factorial_over_bernoulli():
    from glassjax.scipy.special_functions import _EULER_MACLAURIN_COEFS
    bernoulli = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
                 Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6)]
    expected = [float(math.factorial(2 * k) / b) for k, b in enumerate(bernoulli, start=1)]
    assert _EULER_MACLAURIN_COEFS[:7].tolist() == expected
    assert _EULER_MACLAURIN_COEFS[15] == -134196726836183700385281186201600000000 / 7709321041217


def test_values_against_numpy_references():
    import glassjax.numpy as jnp
    from glassjax.scipy import special
    x = np.linspace(-4, 4, 17)
    ndtr = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    np.testing.assert_allclose(special.ndtr(jnp.array(x, jnp.float32)), ndtr, rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_allclose(special.ndtri(jnp.array(ndtr[1:-1], jnp.float32)), x[1:-1],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(special.log_ndtr(jnp.array(x, jnp.float32)), np.log(ndtr),
                               rtol=1e-5, atol=1e-7)
    a = np.array([0.5, 1.5, 3., 9., 20.])
    lgamma = np.vectorize(math.lgamma)
    np.testing.assert_allclose(special.gammaln(a), lgamma(a), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(special.betaln(a, a[::-1]),
                               lgamma(a) + lgamma(a[::-1]) - lgamma(a + a[::-1]), rtol=1e-5)
    np.testing.assert_allclose(special.multigammaln(a + 2, 3),
                               3 / 2 * np.log(np.pi) + sum(lgamma(a + 2 - j / 2)
                                                            for j in range(3)), rtol=1e-6)
    v = np.array([[1., 2., 3.], [-1., 0., 5.]])
    np.testing.assert_allclose(special.logsumexp(v, axis=1),
                               np.log(np.exp(v).sum(axis=1)), rtol=1e-6)
    np.testing.assert_allclose(special.softmax(v), np.exp(v) / np.exp(v).sum(), rtol=1e-6)
    np.testing.assert_allclose(special.zeta(3., 1.), 1.2020569, rtol=1e-6)   # Apery
