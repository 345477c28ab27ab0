"""glassjax.nn: values, gradients and jaxprs as JAX 0.10.2 prints them for the same
program (the expected text was printed by JAX)."""

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


def test_nn_functions_print_what_jax_prints(capsys):
    exec(compile(PROGRAM, "nn_program", "exec"), {})
    assert capsys.readouterr().out == EXPECTED
