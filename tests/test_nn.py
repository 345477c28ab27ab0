"""glassjax.nn: values, gradients and jaxprs as JAX 0.10.2 prints them for the same
program (the expected text was printed by JAX)."""
import pytest

PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp
x = jnp.array([-2., -0.5, 0., 0.5, 3., 7.])
for f in [jax.nn.relu, jax.nn.relu6, jax.nn.softplus, jax.nn.sigmoid, jax.nn.silu, jax.nn.log_sigmoid, jax.nn.elu, jax.nn.leaky_relu, jax.nn.hard_tanh, jax.nn.selu, jax.nn.gelu, lambda v: jax.nn.gelu(v, approximate=False), jax.nn.softmax, jax.nn.log_softmax]:
    print(f(x), jax.grad(lambda v: f(v).sum())(x))
m = jnp.arange(6.).reshape(2, 3)
print(jax.nn.softmax(m, axis=0), jax.nn.log_softmax(m, axis=1), jax.nn.softmax(m, where=m > 1))
print(jax.nn.one_hot(jnp.array([0, 2, 5]), 3), jax.nn.one_hot(jnp.array([1, 0]), 2, axis=0, dtype=jnp.int32))
print(jax.make_jaxpr(jax.nn.relu)(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.relu(v).sum()))(x))
print(jax.make_jaxpr(jax.nn.softmax)(x))
print(jax.make_jaxpr(jax.nn.sigmoid)(x))
print(jax.make_jaxpr(jax.nn.log_softmax)(x))
print(jax.make_jaxpr(jax.nn.gelu)(x))
print(jax.vmap(jax.nn.softmax)(m), jax.jit(jax.nn.silu)(x))
'''

EXPECTED = '''\
[0.  0.  0.  0.5 3.  7. ] [0. 0. 0. 1. 1. 1.]
[0.  0.  0.  0.5 3.  6. ] [0. 0. 0. 1. 1. 0.]
[0.126928  0.474077  0.6931472 0.974077  3.0485873 7.000911 ] [0.11920291 0.37754068 0.5        0.62245935 0.95257413 0.9990892 ]
[0.11920292 0.37754068 0.5        0.62245935 0.95257413 0.999089  ] [0.10499358 0.23500371 0.25       0.23500371 0.04517666 0.00091017]
[-0.23840584 -0.18877034  0.          0.31122968  2.8577223   6.993623  ] [-0.09078424  0.26003882  0.5         0.7399612   1.0881041   1.0054601 ]
[-2.1269281e+00 -9.7407699e-01 -6.9314718e-01 -4.7407699e-01
 -4.8587352e-02 -9.1146649e-04] [0.880797   0.62245935 0.5        0.37754068 0.04742587 0.00091105]
[-0.86466473 -0.39346933  0.          0.5         3.          7.        ] [0.13533527 0.60653067 1.         1.         1.         1.        ]
[-2.e-02 -5.e-03  0.e+00  5.e-01  3.e+00  7.e+00] [0.01 0.01 1.   1.   1.   1.  ]
[-1.  -0.5  0.   0.5  1.   1. ] [0. 1. 1. 1. 0. 0.]
[-1.5201665 -0.6917582  0.         0.5253505  3.152103   7.354907 ] [0.23793285 1.0663412  1.7580993  1.050701   1.050701   1.050701  ]
[-0.04540235 -0.154286    0.          0.345714    2.9963627   7.        ] [-0.08609934  0.13263011  0.5         0.86736995  1.0115839   1.        ]
[-0.04550027 -0.15426877  0.          0.34573123  2.9959502   7.        ] [-0.08523182  0.13250488  0.5         0.8674951   1.0119456   1.        ]
[1.20823286e-04 5.41492365e-04 8.92770011e-04 1.47192890e-03
 1.79317649e-02 9.79041219e-01] [7.3557974e-12 3.2966397e-11 5.4352401e-11 8.9611957e-11 1.0916972e-09
 5.9604645e-08]
[-9.021181   -7.5211816  -7.0211816  -6.5211816  -4.0211816  -0.02118156] [ 0.9992751   0.99675107  0.9946434   0.99116844  0.8924094  -4.874247  ]
[[0.04742587 0.04742587 0.04742587]
 [0.95257413 0.95257413 0.95257413]] [[-2.407606   -1.4076059  -0.40760595]
 [-2.407606   -1.4076059  -0.40760595]] [[0.         0.         1.        ]
 [0.09003057 0.24472848 0.66524094]]
[[1. 0. 0.]
 [0. 0. 1.]
 [0. 0. 0.]] [[0 1]
 [1 0]]
{ lambda ; a:f32[6]. let
    b:f32[6] = custom_jvp_call[
      name=relu
      call_jaxpr={ lambda ; c:f32[6]. let
          d:f32[6] = jit[
            name=relu
            jaxpr={ lambda ; c:f32[6]. let d:f32[6] = max c 0.0:f32[] in (d,) }
          ] c
        in (d,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
  in (b,) }
{ lambda ; a:f32[6]. let
    b:f32[6] = custom_jvp_call[
      name=relu
      call_jaxpr={ lambda ; c:f32[6]. let
          d:f32[6] = jit[
            name=relu
            jaxpr={ lambda ; c:f32[6]. let d:f32[6] = max c 0.0:f32[] in (d,) }
          ] c
        in (d,) }
      jvp=jvp
      symbolic_zeros=False
    ] a
    e:bool[6] = gt a 0.0:f32[]
    _:f32[6] = broadcast_in_dim 0.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    f:f32[6] = broadcast_in_dim 1.0:f32[]
    g:f32[6] = broadcast_in_dim 0.0:f32[]
    h:f32[6] = select_n e g f
  in (h,) }
{ lambda ; a:f32[6]. let
    b:f32[] = reduce_max[axes=(0,)] a
    c:f32[] = max -inf:f32[] b
    d:f32[1] = broadcast_in_dim c
    e:f32[1] = stop_gradient d
    f:f32[6] = sub a e
    g:f32[6] = exp f
    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g
    i:f32[1] = broadcast_in_dim h
    j:f32[6] = div g i
  in (j,) }
{ lambda ; a:f32[6]. let b:f32[6] = logistic a in (b,) }
{ lambda ; a:f32[6]. let
    b:f32[6] = jit[
      name=log_softmax
      jaxpr={ lambda ; a:f32[6]. let
          c:f32[] = reduce_max[axes=(0,)] a
          d:f32[] = max -inf:f32[] c
          e:f32[1] = broadcast_in_dim d
          f:f32[1] = stop_gradient e
          g:f32[6] = sub a f
          h:f32[6] = exp g
          i:f32[] = reduce_sum[axes=(0,) out_sharding=None] h
          j:f32[1] = broadcast_in_dim i
          k:f32[1] = log j
          b:f32[6] = sub g k
        in (b,) }
    ] a
  in (b,) }
{ lambda ; a:f32[6]. let
    b:f32[6] = integer_pow[y=3] a
    c:f32[6] = mul 0.044714998453855515:f32[] b
    d:f32[6] = add a c
    e:f32[6] = mul 0.7978845834732056:f32[] d
    f:f32[6] = tanh e
    g:f32[6] = add 1.0:f32[] f
    h:f32[6] = mul 0.5:f32[] g
    i:f32[6] = mul a h
  in (i,) }
[[0.09003057 0.24472848 0.66524094]
 [0.09003057 0.24472848 0.66524094]] [-0.23840584 -0.18877034  0.          0.31122968  2.8577223   6.993623  ]
'''

# The rest of jax.nn: the other activations, glu, log1mexp, logsumexp/logmeanexp,
# standardize; gradients' jaxprs of softplus, softmax, logsumexp and gelu.
MORE_PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp
x = jnp.array([-3., -1., -0.5, 0., 0.5, 1., 2., 6., 8.])
for f in [jax.nn.celu, jax.nn.soft_sign, jax.nn.hard_sigmoid, jax.nn.hard_silu, jax.nn.sparse_plus,
          jax.nn.sparse_sigmoid, jax.nn.squareplus, jax.nn.mish, jax.nn.identity, jax.nn.logsumexp,
          jax.nn.logmeanexp, jax.nn.standardize, jax.nn.tanh]:
    y = f(x)
    print(y, y.dtype, y.weak_type, jax.grad(lambda v: f(v).sum())(x))
print(jax.nn.swish is jax.nn.silu, jax.nn.hard_swish is jax.nn.hard_silu)
print(jax.nn.log1mexp(jnp.array([1e-3, 0.5, 2., 10.])), jax.grad(lambda v: jax.nn.log1mexp(v).sum())(jnp.array([1e-3, 0.5, 2., 10.])))
m = jnp.arange(12.).reshape(3, 4) / 3
print(jax.nn.glu(m), jax.nn.glu(m.T, axis=0))
print(jax.nn.softmax(m, axis=(0, 1)), jax.nn.softmax(m, axis=None))
print(jax.nn.standardize(m, axis=0), jax.nn.standardize(m, where=m > 1, algorithm="stable"))
print(jax.nn.logsumexp(m, axis=1), jax.nn.logsumexp(m, axis=0, keepdims=True), jax.nn.logmeanexp(m, axis=1, where=m > 1))
print(jax.nn.gelu(2), jax.nn.gelu(2).weak_type, jax.nn.logsumexp(2.).weak_type, jax.nn.relu(jnp.array([1, -2, 3])))
print(jax.nn.elu(x, alpha=2.), jax.nn.leaky_relu(x, 0.2), jax.nn.celu(x, 0.5))
print(jax.nn.one_hot(jnp.array([[0, 3], [1, -1]]), 4, axis=1))
print(jax.make_jaxpr(jax.nn.softplus)(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.softplus(v).sum()))(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.softmax(v).sum()))(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.logsumexp(v)))(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.gelu(v).sum()))(x))
print(jax.make_jaxpr(jax.grad(lambda v: jax.nn.gelu(v, approximate=False).sum()))(x))
print(jax.make_jaxpr(jax.nn.hard_silu)(x))
print(jax.make_jaxpr(jax.nn.glu)(m))
print(jax.make_jaxpr(jax.nn.log1mexp)(x))
print(jax.make_jaxpr(lambda v: jax.nn.standardize(v, axis=0, algorithm="stable"))(m))
print(jax.make_jaxpr(lambda v: jax.nn.logsumexp(v, axis=1, b=v - 1, return_sign=True))(m))
print(jax.make_jaxpr(lambda v: jax.nn.softmax(v, where=v > 1))(m))
print(jax.make_jaxpr(jax.vmap(jax.nn.mish))(m))
'''

MORE_EXPECTED = '''\
[-0.95021296 -0.63212055 -0.39346933  0.          0.5         1.
  2.          6.          8.        ] float32 False [0.04978704 0.36787945 0.60653067 1.         1.         1.
 1.         1.         1.        ]
[-0.75       -0.5        -0.33333334  0.          0.33333334  0.5
  0.6666667   0.85714287  0.8888889 ] float32 False [0.0625     0.25       0.44444448 1.         0.44444448 0.25
 0.11111112 0.02040817 0.01234568]
[0.         0.33333334 0.4166667  0.5        0.5833334  0.6666667
 0.8333334  1.         1.        ] float32 False [0.         0.16666667 0.16666667 0.16666667 0.16666667 0.16666667
 0.16666667 0.         0.        ]
[-0.         -0.33333334 -0.20833334  0.          0.2916667   0.6666667
  1.6666667   6.          8.        ] float32 False [0.         0.16666667 0.33333334 0.5        0.6666667  0.8333334
 1.1666667  1.         1.        ]
[0.     0.     0.0625 0.25   0.5625 1.     2.     6.     8.    ] float32 False [0.   0.   0.25 0.5  0.75 1.   1.   1.   1.  ]
[0.   0.   0.25 0.5  0.75 1.   1.   1.   1.  ] float32 False [0.   0.25 0.5  0.5  0.5  0.25 0.   0.   0.  ]
[0.30277562 0.618034   0.7807764  1.         1.2807764  1.618034
 2.4142137  6.1622777  8.123106  ] float32 False [0.08397485 0.2763932  0.37873217 0.5        0.6212678  0.7236068
 0.8535534  0.97434163 0.9850713 ]
[-0.14564745 -0.30340144 -0.22074378  0.          0.37524524  0.8650985
  1.943959    5.999927    8.        ] float32 False [-0.09339312  0.05921675  0.28951067  0.6         0.8864244   1.0490361
  1.0693178   1.0001334   1.        ]
[-3.  -1.  -0.5  0.   0.5  1.   2.   6.   8. ] float32 False [1. 1. 1. 1. 1. 1. 1. 1. 1.]
8.130991 float32 False [1.46511538e-05 1.08258195e-04 1.78487593e-04 2.94276280e-04
 4.85179597e-04 7.99925940e-04 2.17442424e-03 1.18719533e-01
 8.77225280e-01]
5.9337664 float32 False [1.46511538e-05 1.08258195e-04 1.78487593e-04 2.94276280e-04
 4.85179597e-04 7.99925940e-04 2.17442424e-03 1.18719533e-01
 8.77225280e-01]
[-1.3557369  -0.74565524 -0.5931348  -0.44061446 -0.28809407 -0.13557367
  0.1694671   1.3896302   1.9997118 ] float32 False [-5.9604645e-08 -2.9802322e-08 -2.9802322e-08 -2.9802322e-08
 -2.9802322e-08 -2.9802322e-08 -2.9802322e-08  0.0000000e+00
  2.9802322e-08]
[-0.9950547  -0.7615942  -0.46211717  0.          0.46211717  0.7615942
  0.9640276   0.9999876   1.        ] float32 False [9.8661184e-03 4.1997433e-01 7.8644776e-01 1.0000000e+00 7.8644770e-01
 4.1997433e-01 7.0650816e-02 2.4795379e-05 0.0000000e+00]
True True
[-6.9082556e+00 -9.3275213e-01 -1.4541346e-01 -4.5400961e-05] [9.9950018e+02 1.5414940e+00 1.5651764e-01 4.5401994e-05]
[[0.        0.2436862]
 [1.174396  1.5193338]
 [2.574813  2.9252267]] [[0.        1.174396  2.574813 ]
 [0.2436862 1.5193338 2.9252267]]
[[0.00738108 0.01030113 0.01437639 0.02006386]
 [0.02800138 0.03907907 0.05453924 0.07611565]
 [0.10622794 0.14825301 0.2069038  0.28875747]] [[0.00738108 0.01030113 0.01437639 0.02006386]
 [0.02800138 0.03907907 0.05453924 0.07611565]
 [0.10622794 0.14825301 0.2069038  0.28875747]]
[[-1.2247397 -1.2247398 -1.2247392 -1.22474  ]
 [ 0.         0.         0.         0.       ]
 [ 1.2247397  1.2247397  1.2247394  1.2247398]] [[        nan         nan         nan         nan]
 [-1.3415924  -0.44719738  0.44719738  1.3415928 ]
 [-1.3415924  -0.44719768  0.44719768  1.3415924 ]]
[1.9546757 3.2880092 4.6213427] [[2.9541593 3.2874925 3.620826  3.9541593]] [      nan 1.9017148 3.2350483]
1.9545977 False False [1 0 3]
[-1.9004259  -1.2642411  -0.78693867  0.          0.5         1.
  2.          6.          8.        ] [-0.6 -0.2 -0.1  0.   0.5  1.   2.   6.   8. ] [-0.4987606  -0.43233237 -0.31606027  0.          0.5         1.
  2.          6.          8.        ]
[[[1. 0.]
  [0. 0.]
  [0. 0.]
  [0. 1.]]

 [[0. 0.]
  [1. 0.]
  [0. 0.]
  [0. 0.]]]
{ lambda ; a:f32[9]. let
    b:f32[9] = jit[
      name=softplus
      jaxpr={ lambda ; a:f32[9]. let
          b:f32[9] = custom_jvp_call[
            name=logaddexp
            call_jaxpr={ lambda ; c:f32[9] d:f32[]. let
                e:f32[9] = max c d
                f:f32[9] = sub c d
                g:bool[9] = ne f f
                h:f32[9] = add c d
                i:f32[9] = abs f
                j:f32[9] = neg i
                k:f32[9] = exp j
                l:f32[9] = log1p k
                m:f32[9] = add e l
                n:f32[9] = select_n g m h
              in (n,) }
            jvp=_logaddexp_jvp
            symbolic_zeros=False
          ] a 0.0:f32[]
        in (b,) }
    ] a
  in (b,) }
let softplus = { lambda ; a:f32[9]. let
    b:f32[9] = custom_jvp_call[
      name=logaddexp
      call_jaxpr={ lambda ; c:f32[9] d:f32[]. let
          e:f32[9] = max c d
          f:f32[9] = sub c d
          g:bool[9] = ne f f
          h:f32[9] = add c d
          i:f32[9] = abs f
          j:f32[9] = neg i
          k:f32[9] = exp j
          l:f32[9] = log1p k
          m:f32[9] = add e l
          n:f32[9] = select_n g m h
        in (n,) }
      jvp=_logaddexp_jvp
      symbolic_zeros=False
    ] a 0.0:f32[]
    o:bool[9] = eq a inf:f32[]
    p:f32[9] = broadcast_in_dim 0.0:f32[]
    q:f32[9] = select_n o a p
    r:bool[9] = eq b inf:f32[]
    s:f32[9] = broadcast_in_dim 0.0:f32[]
    t:f32[9] = select_n r b s
    u:f32[9] = sub q t
    v:f32[9] = exp u
    w:bool[] = eq 0.0:f32[] inf:f32[]
    x:f32[] = select_n w 0.0:f32[] 0.0:f32[]
    y:bool[9] = eq b inf:f32[]
    z:f32[9] = broadcast_in_dim 0.0:f32[]
    ba:f32[9] = select_n y b z
    bb:f32[9] = sub x ba
    bc:f32[9] = exp bb
    bd:f32[9] = mul 0.0:f32[] bc
  in (b, v, bd) } in
{ lambda ; be:f32[9]. let
    bf:f32[9] bg:f32[9] bh:f32[9] = jit[name=softplus jaxpr=softplus] be
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] bf
    bi:f32[9] = broadcast_in_dim 1.0:f32[]
    bj:f32[9] = jit[
      name=softplus
      jaxpr={ lambda ; bg:f32[9] bh:f32[9] bi:f32[9]. let
          bj:f32[9] = mul bi bg
        in (bj,) }
    ] bg bh bi
  in (bj,) }
{ lambda ; a:f32[9]. let
    b:f32[] = reduce_max[axes=(0,)] a
    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b
    d:bool[9] = eq a c
    e:f32[9] = convert_element_type[new_dtype=float32 weak_type=False] d
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] e
    f:f32[] = max -inf:f32[] b
    g:bool[] = eq b f
    h:f32[] = select_n g 0.0:f32[] 1.0:f32[]
    i:bool[] = eq -inf:f32[] f
    j:f32[] = select_n i 1.0:f32[] 2.0:f32[]
    _:f32[] = div h j
    k:f32[1] = broadcast_in_dim f
    l:f32[1] = stop_gradient k
    m:f32[9] = sub a l
    n:f32[9] = exp m
    o:f32[] = reduce_sum[axes=(0,) out_sharding=None] n
    p:f32[1] = broadcast_in_dim o
    q:f32[9] = div n p
    r:f32[1] = integer_pow[y=-2] p
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] q
    s:f32[9] = broadcast_in_dim 1.0:f32[]
    t:f32[9] = mul s r
    u:f32[9] = mul t n
    v:f32[] = reduce_sum[axes=(0,) out_sharding=None] u
    w:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] v
    x:f32[1] = neg w
    y:f32[9] = div s p
    z:f32[] = reduce_sum[axes=(0,) out_sharding=None] x
    ba:f32[9] = broadcast_in_dim z
    bb:f32[9] = add_any y ba
    bc:f32[9] = mul bb n
  in (bc,) }
{ lambda ; a:f32[9]. let
    b:f32[] = reduce_max[axes=(0,)] a
    c:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b
    d:bool[9] = eq a c
    e:f32[9] = convert_element_type[new_dtype=float32 weak_type=False] d
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] e
    f:f32[] = max -inf:f32[] b
    g:bool[] = eq b f
    h:f32[] = select_n g 0.0:f32[] 1.0:f32[]
    i:bool[] = eq -inf:f32[] f
    j:f32[] = select_n i 1.0:f32[] 2.0:f32[]
    _:f32[] = div h j
    k:bool[] = is_finite f
    l:f32[] = select_n k 0.0:f32[] f
    m:f32[] = stop_gradient l
    n:f32[1] = broadcast_in_dim m
    o:f32[9] = sub a n
    p:f32[9] = exp o
    q:f32[] = reduce_sum[axes=(0,) out_sharding=None] p
    _:f32[] = sign q
    r:f32[] = abs q
    s:bool[] = ge q 0.0:f32[]
    t:f32[] = log r
    _:f32[] = add t m
    u:f32[] = div 1.0:f32[] r
    v:f32[] = select_n s u 0.0:f32[]
    w:f32[] = select_n s 0.0:f32[] u
    x:f32[] = neg v
    y:f32[] = add_any w x
    z:f32[9] = broadcast_in_dim y
    ba:f32[9] = mul z p
  in (ba,) }
{ lambda ; a:f32[9]. let
    b:f32[9] = integer_pow[y=3] a
    c:f32[9] = integer_pow[y=2] a
    d:f32[9] = mul 3.0:f32[] c
    e:f32[9] = mul 0.044714998453855515:f32[] b
    f:f32[9] = add a e
    g:f32[9] = mul 0.7978845834732056:f32[] f
    h:f32[9] = tanh g
    i:f32[9] = sub 1.0:f32[] h
    j:f32[9] = add 1.0:f32[] h
    k:f32[9] = mul 0.5:f32[] j
    l:f32[9] = mul a k
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] l
    m:f32[9] = broadcast_in_dim 1.0:f32[]
    n:f32[9] = mul a m
    o:f32[9] = mul m k
    p:f32[9] = mul 0.5:f32[] n
    q:f32[9] = mul p i
    r:f32[9] = mul q h
    s:f32[9] = add_any q r
    t:f32[9] = mul 0.7978845834732056:f32[] s
    u:f32[9] = add_any o t
    v:f32[9] = mul 0.044714998453855515:f32[] t
    w:f32[9] = mul v d
    x:f32[9] = add_any u w
  in (x,) }
{ lambda ; a:f32[9]. let
    b:f32[9] = mul 0.5:f32[] a
    c:f32[9] = neg a
    d:f32[9] = mul c 0.7071067690849304:f32[]
    e:f32[9] = erfc d
    f:f32[9] = square d
    g:f32[9] = neg f
    h:f32[9] = exp g
    i:f32[9] = mul b e
    j:f32[9] = copy i
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] j
    k:f32[9] = broadcast_in_dim 1.0:f32[]
    l:f32[9] = copy k
    m:f32[9] = mul b l
    n:f32[9] = mul l e
    o:f32[9] = mul -1.128379225730896:f32[] m
    p:f32[9] = mul o h
    q:f32[9] = mul p 0.7071067690849304:f32[]
    r:f32[9] = neg q
    s:f32[9] = mul 0.5:f32[] n
    t:f32[9] = add_any r s
  in (t,) }
{ lambda ; a:f32[9]. let
    b:f32[9] = jit[
      name=hard_silu
      jaxpr={ lambda ; a:f32[9]. let
          c:f32[9] = jit[
            name=hard_sigmoid
            jaxpr={ lambda ; a:f32[9]. let
                d:f32[9] = add a 3.0:f32[]
                e:f32[9] = custom_jvp_call[
                  name=relu6
                  call_jaxpr={ lambda ; f:f32[9]. let
                      g:f32[9] = jit[
                        name=relu6
                        jaxpr={ lambda ; f:f32[9]. let
                            h:f32[9] = max f 0.0:f32[]
                            g:f32[9] = min h 6.0:f32[]
                          in (g,) }
                      ] f
                    in (g,) }
                  jvp=jvp
                  symbolic_zeros=False
                ] d
                c:f32[9] = div e 6.0:f32[]
              in (c,) }
          ] a
          b:f32[9] = mul a c
        in (b,) }
    ] a
  in (b,) }
{ lambda ; a:f32[3,4]. let
    b:f32[3,2] = jit[
      name=glu
      jaxpr={ lambda ; a:f32[3,4]. let
          c:f32[3,2] d:f32[3,2] = split[axis=1 sizes=(np.int64(2), np.int64(2))] a
          e:f32[3,2] = logistic d
          b:f32[3,2] = mul c e
        in (b,) }
    ] a
  in (b,) }
let log1mexp = { lambda ; a:f32[9]. let
    b:f32[] = log 2.0:f32[]
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:bool[9] = lt a c
    e:f32[9] = neg a
    f:f32[9] = expm1 e
    g:f32[9] = neg f
    h:f32[9] = log g
    i:f32[9] = neg a
    j:f32[9] = exp i
    k:f32[9] = neg j
    l:f32[9] = log1p k
    m:f32[9] = jit[
      name=_where
      jaxpr={ lambda ; d:bool[9] h:f32[9] l:f32[9]. let
          m:f32[9] = select_n d l h
        in (m,) }
    ] d h l
  in (m,) } in
{ lambda ; n:f32[9]. let
    o:f32[9] = custom_jvp_call[
      name=log1mexp
      call_jaxpr={ lambda ; p:f32[9]. let
          q:f32[9] = jit[name=log1mexp jaxpr=log1mexp] p
        in (q,) }
      jvp=jvp
      symbolic_zeros=False
    ] n
  in (o,) }
let standardize = { lambda ; a:f32[3,4]. let
    b:f32[4] = reduce_sum[axes=(0,) out_sharding=None] a
    c:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    d:f32[1,4] = div c 3.0:f32[]
    e:f32[3,4] = sub a d
    f:f32[3,4] = square e
    g:f32[4] = reduce_sum[axes=(0,) out_sharding=None] f
    h:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] g
    i:f32[1,4] = div h 3.0:f32[]
    j:f32[3,4] = sub a d
    k:f32[1,4] = add i 9.999999747378752e-06:f32[]
    l:f32[1,4] = rsqrt k
    m:f32[3,4] = mul j l
  in (m,) } in
{ lambda ; n:f32[3,4]. let
    o:f32[3,4] = jit[name=standardize jaxpr=standardize] n
  in (o,) }
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = sub a 1.0:f32[]
    c:bool[3,4] = ne b 0.0:f32[]
    d:f32[3,4] = jit[
      name=_where
      jaxpr={ lambda ; c:bool[3,4] a:f32[3,4] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          g:f32[3,4] = broadcast_in_dim f
          d:f32[3,4] = select_n c g a
        in (d,) }
    ] c a -inf:f32[]
    h:f32[3] = reduce_max[axes=(1,)] d
    i:f32[3] = max -inf:f32[] h
    j:bool[3] = is_finite i
    k:f32[3] = broadcast_in_dim 0.0:f32[]
    l:f32[3] = select_n j k i
    m:f32[3] = stop_gradient l
    n:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] m
    o:f32[3,4] = sub d n
    p:f32[3,4] = exp o
    q:f32[3,4] = mul p b
    r:f32[3] = reduce_sum[axes=(1,) out_sharding=None] q
    s:f32[3] = sign r
    t:f32[3] = abs r
    u:f32[3] = log t
    v:f32[3] = add u m
  in (v, s) }
let _where = { lambda ; a:bool[3,4] b:f32[3,4] c:f32[]. let
    d:f32[3,4] = broadcast_in_dim c
    e:f32[3,4] = select_n a d b
  in (e,) } in
{ lambda ; f:f32[3,4]. let
    g:bool[3,4] = gt f 1.0:f32[]
    h:f32[3,4] = jit[name=_where jaxpr=_where] g f -inf:f32[]
    i:f32[3] = reduce_max[axes=(1,)] h
    j:f32[3] = max -inf:f32[] i
    k:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] j
    l:f32[3,4] = jit[
      name=_where
      jaxpr={ lambda ; g:bool[3,4] f:f32[3,4] m:f32[]. let
          n:f32[] = convert_element_type[new_dtype=float32 weak_type=False] m
          o:f32[3,4] = broadcast_in_dim n
          l:f32[3,4] = select_n g o f
        in (l,) }
    ] g f -inf:f32[]
    p:f32[3,1] = stop_gradient k
    q:f32[3,4] = sub l p
    r:f32[3,4] = exp q
    s:f32[3,4] = jit[name=_where jaxpr=_where] g r 0.0:f32[]
    t:f32[3] = reduce_sum[axes=(1,) out_sharding=None] s
    u:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] t
    v:f32[3,4] = div r u
    w:f32[3,4] = jit[
      name=_where
      jaxpr={ lambda ; g:bool[3,4] v:f32[3,4] x:i32[]. let
          y:f32[] = convert_element_type[new_dtype=float32 weak_type=False] x
          z:f32[3,4] = broadcast_in_dim y
          w:f32[3,4] = select_n g z v
        in (w,) }
    ] g v 0:i32[]
  in (w,) }
{ lambda ; a:f32[3,4]. let
    b:f32[3,4] = jit[
      name=mish
      jaxpr={ lambda ; a:f32[3,4]. let
          c:f32[3,4] = jit[
            name=softplus
            jaxpr={ lambda ; a:f32[3,4]. let
                c:f32[3,4] = custom_jvp_call[
                  name=logaddexp
                  call_jaxpr={ lambda ; d:f32[3,4] e:f32[]. let
                      f:f32[3,4] = max d e
                      g:f32[3,4] = sub d e
                      h:bool[3,4] = ne g g
                      i:f32[3,4] = add d e
                      j:f32[3,4] = abs g
                      k:f32[3,4] = neg j
                      l:f32[3,4] = exp k
                      m:f32[3,4] = log1p l
                      n:f32[3,4] = add f m
                      o:f32[3,4] = select_n h n i
                    in (o,) }
                  jvp=_logaddexp_jvp
                  symbolic_zeros=False
                ] a 0.0:f32[]
              in (c,) }
          ] a
          p:f32[3,4] = tanh c
          b:f32[3,4] = mul a p
        in (b,) }
    ] a
  in (b,) }
'''


@pytest.mark.parametrize("program, expected", [(PROGRAM, EXPECTED),
                                               (MORE_PROGRAM, MORE_EXPECTED)])
def test_nn_functions_print_what_jax_prints(program, expected, capsys):
    exec(compile(program, "nn_program", "exec"), {})
    assert capsys.readouterr().out == expected


def test_nn_package_mirrors_jax_nn_names():
    import glassjax.nn as nn
    names = {"celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
             "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax",
             "logmeanexp", "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid",
             "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
             "squareplus", "standardize", "swish", "tanh"}
    assert names <= set(dir(nn))
    import glassjax.scipy.special as special
    assert nn.logsumexp is special.logsumexp


def test_one_hot_of_floats_warns_as_jax():
    import glassjax.nn as nn
    import glassjax.numpy as jnp
    with pytest.warns(DeprecationWarning, match="one_hot input should be integer-typed"):
        nn.one_hot(jnp.array([0., 1.]), 2)
