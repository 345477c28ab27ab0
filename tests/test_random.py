"""glassjax.random: the same numbers as JAX 0.10.2 for the same keys (threefry2x32).

The expected texts are what JAX 0.10.2 prints for the same programs."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import random

PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp, numpy as np
from glassjax import random
k = random.PRNGKey(3)
print(random.bits(k, (3,)), random.bits(k, (2,), jnp.uint8), random.bits(k, (2,), jnp.uint16))
print(random.randint(k, (5,), -3, 7), random.randint(k, (3,), 0, 256, jnp.uint8), random.randint(k, (2,), 0, 10, jnp.int8))
print(random.bernoulli(k, 0.3, (6,)), random.bernoulli(k, jnp.array([0.1, 0.9])))
print(random.gumbel(k, (3,)), random.categorical(k, jnp.array([[0., 1., 2.], [2., 0., -1.]])))
print(random.categorical(k, jnp.array([0., 1., 2.]), shape=(4,)))
print(random.permutation(k, 6), random.permutation(k, jnp.arange(8.)))
print(random.normal(k, (2, 2), jnp.bfloat16), random.uniform(k, (3,), jnp.float16, 2., 5.))
print(random.split(k, (2, 2)))
print(jax.vmap(lambda kk: random.normal(kk, (2,)))(random.split(k, 3)))
print(jax.grad(lambda m: jnp.sum(m + random.normal(k, (3,))))(1.))
print(random.fold_in(k, jnp.uint32(7)), random.PRNGKey(np.int32(5)))
'''

EXPECTED = '''\
[ 318053758 4029299397 2787249374] [126 197] [ 7550 15045]
[2 6 2 1 3] [ 75 115 157] [5 9]
[ True False False False  True False] [ True False]
[-0.95665693  2.7511957   0.83843017] [1 0]
[1 0 2 1]
[0 5 4 2 1 3] [0. 5. 6. 7. 4. 2. 1. 3.]
[[-0.0146484 0.730469]
 [1.125 -0.878906]] [2.344 2.688 2.148]
[[[3716834203 3481239269]
  [1946498123 2217676430]]

 [[1024511538 2603795180]
  [ 877192987 3448417067]]]
[[-2.3783398  -1.7061667 ]
 [-1.9432216   0.1048161 ]
 [-0.58778137 -2.4551458 ]]
3.0
[2647473427 4234374204] [0 5]
'''


def test_samplers_print_what_jax_prints(capsys):
    exec(compile(PROGRAM, "random_program", "exec"), {})
    assert capsys.readouterr().out == EXPECTED


def test_keys_are_bit_exact():
    assert random.PRNGKey(0).tolist() == [0, 0]
    assert random.PRNGKey(-1).tolist() == [0, 4294967295]
    assert random.split(random.PRNGKey(0)).tolist() == [[1797259609, 2579123966],
                                                         [928981903, 3453687069]]
    assert random.fold_in(random.PRNGKey(0), 1).tolist() == [928981903, 3453687069]


def test_jit_and_vmap_draw_the_same_numbers_as_eager():
    keys = random.split(random.PRNGKey(8), 4)
    eager = np.stack([random.normal(k, (3,)) for k in keys])
    np.testing.assert_array_equal(jax.vmap(lambda k: random.normal(k, (3,)))(keys), eager)
    np.testing.assert_array_equal(jax.jit(lambda k: random.normal(k, (3,)))(keys[0]),
                                  eager[0])


def test_uniform_bounds_and_dtypes():
    u = random.uniform(random.PRNGKey(1), (1000,), minval=-2.0, maxval=3.0)
    assert u.dtype == jnp.float32 and float(u.min()) >= -2.0 and float(u.max()) < 3.0
    assert random.randint(random.PRNGKey(1), (4,), 0, 10).dtype == jnp.int32
    assert random.bits(random.PRNGKey(1), (2,), jnp.uint8).dtype == jnp.uint8


TYPED_PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp
from glassjax import random
k = random.key(1)
ks = random.split(k, 3)
print(ks)
print(repr(ks[1]), ks[1:].shape, ks.shape, ks.dtype, len(ks))
print(jax.vmap(random.uniform)(ks))
print(jax.jit(lambda k: random.normal(k, (2,)))(k))
print(jax.jit(lambda k: random.split(k))(k))
print(random.fold_in(k, 3), random.split(k).shape)
print([float(random.uniform(s)) for s in ks])
print(jax.vmap(lambda kk: random.randint(kk, (2,), 0, 9))(ks))
print(random.key_data(random.wrap_key_data(random.key_data(ks))))
print(random.bernoulli(k, 0.5, (3,)), random.permutation(k, 5))
'''

TYPED_EXPECTED = '''\
Array((3,), dtype=key<fry>) overlaying:
[[ 507451445 1853169794]
 [1948878966 4237131848]
 [2441914641 3819641963]]
Array((), dtype=key<fry>) overlaying:
[1948878966 4237131848] (2,) (3,) key<fry> 3
[0.70261526 0.40364635 0.5577841 ]
[-0.15443718  0.08470728]
Array((2,), dtype=key<fry>) overlaying:
[[ 507451445 1853169794]
 [1948878966 4237131848]]
Array((), dtype=key<fry>) overlaying:
[3568232559 2761185182] (2,)
[0.7026152610778809, 0.4036463499069214, 0.5577840805053711]
[[3 8]
 [8 7]
 [4 5]]
[[ 507451445 1853169794]
 [1948878966 4237131848]
 [2441914641 3819641963]]
[ True False  True] [3 2 0 1 4]
'''


def test_typed_keys_print_and_draw_what_jax_does(capsys):
    exec(compile(TYPED_PROGRAM, "typed_keys_program", "exec"), {})
    assert capsys.readouterr().out == TYPED_EXPECTED
    assert jnp.issubdtype(random.key(0).dtype, jax.dtypes.prng_key)
    assert str(random.key_impl(random.key(0))) == "threefry2x32"


# -- Every sampler, transformations, jaxprs and errors: programs and the exact text JAX
# 0.10.2 prints for them (the same programs with ``import jax``).

def _run(program, capsys):
    exec(compile("import glassjax as jax, glassjax.numpy as jnp, numpy as np\n"
                 "from glassjax import random\n" + program, "random_program", "exec"), {})
    return capsys.readouterr().out


SAMPLERS_PROGRAM = '''\
tk = random.key(3)
p = jnp.array([.1, .2, .3, .2, .2])
print(random.uniform(tk, (4,)), random.normal(tk, (2,), jnp.complex64))
print(random.randint(tk, (5,), -5, 300, jnp.uint8), random.bernoulli(tk, 0.3, (4,), mode='high'))
print(random.choice(tk, 10, (4,)), random.choice(tk, 10, (4,), replace=False))
print(random.choice(tk, jnp.arange(5.), (6,), p=p), random.choice(tk, 5, (3,), replace=False, p=p))
print(random.permutation(tk, jnp.arange(12).reshape(3, 4), axis=1, independent=True))
print(random.categorical(tk, jnp.array([0., 1., 2., 3.]), shape=(3,), replace=False))
print(random.gumbel(tk, (3,), mode='high'), random.truncated_normal(tk, -1., 2., (3,)))
print(random.exponential(tk, (3,)), random.laplace(tk, (3,)))
print(random.logistic(tk, (3,)), random.cauchy(tk, (3,)))
print(random.gamma(tk, jnp.array([0.5, 1., 3.])), random.loggamma(tk, 0.3, (3,)))
print(random.beta(tk, 2., 3., (3,)), random.dirichlet(tk, jnp.array([1., 2., 3.])))
print(random.poisson(tk, 3., (5,)), random.poisson(tk, jnp.array([20., 200.])))
print(random.t(tk, 3., (3,)), random.chisquare(tk, 3., (3,)))
print(random.f(tk, 3., 4., (3,)), random.pareto(tk, 3., (3,)))
print(random.rayleigh(tk, 2., (3,)), random.wald(tk, 2., (3,)))
print(random.geometric(tk, 0.3, (4,)), random.triangular(tk, 0., 1., 3., (3,)))
print(random.lognormal(tk, 0.5, (3,)), random.rademacher(tk, (5,)))
print(random.maxwell(tk, (3,)), random.double_sided_maxwell(tk, 0., 1., (3,)))
print(random.weibull_min(tk, 1., 2., (3,)), random.generalized_normal(tk, 1.5, (3,)))
print(random.ball(tk, 3, shape=(2,)))
print(random.binomial(tk, 10., 0.3, (4,)), random.binomial(tk, jnp.array([100., 1000.]), jnp.array([0.4, 0.7])))
print(random.multinomial(tk, 10., jnp.array([0.2, 0.3, 0.5])))
print(random.bits(tk, (2,), jnp.uint8).dtype, random.normal(tk, dtype=jnp.float16).dtype, random.uniform(tk).weak_type)
'''

SAMPLERS_EXPECTED = '''\
[0.07405257 0.9381443  0.648957   0.975621  ] [-1.6817402-1.3740652j  -1.206442 +0.07411618j]
[ 75 115 157 170  12] [ True False False False]
[5 9 5 4] [0 5 6 7]
[4. 0. 2. 0. 3. 2.] [3 1 2]
[[ 0  2  1  3]
 [ 5  6  7  4]
 [10  9 11  8]]
[3 1 2]
[ 2.564756   -1.023512   -0.04578244] [-0.7746465  1.4510362  0.4955328]
[0.07693782 2.7829514  1.0468466 ] [ 1.9098325 -2.0898046 -0.3536995]
[-2.526042    2.7191      0.61445785] [-4.2205963  5.081072   0.5054053]
[0.13466075 0.19266698 7.487772  ] [-2.9822812 -2.195373  -2.9992836]
[0.13563721 0.42286143 0.3893804 ] [0.01423233 0.09605159 0.8897161 ]
[0 4 2 4 7] [ 18 200]
[-2.4868844 -1.7185069 -0.5658464] [0.70373523 0.9603686  9.939548  ]
[3.923188  0.8608549 0.905243 ] [1.0259776 2.528561  1.4175768]
[4.5633144 0.714711  1.8598683] [0.1510868  0.26001024 1.0115485 ]
[8 1 2 1] [0.4713361 2.3907924 1.5487047]
[0.48523185 2.159098   1.2107658 ] [ 1 -1 -1 -1  1]
[2.146547  2.067093  1.5122446] [ 2.9679918 -1.4847785  3.3235345]
[0.27737668 1.668218   1.0231552 ] [ 0.08286304 -0.99000067  0.7537885 ]
[[ 0.68552756  0.5922616   0.40163434]
 [ 0.2726835  -0.8189636   0.13265364]]
[0. 1. 4. 3.] [ 38. 700.]
[1. 3. 6.]
uint8 float16 False
'''


def test_samplers_as_jax(capsys):
    """Every distribution draws JAX's numbers, with JAX's dtypes."""
    assert _run(SAMPLERS_PROGRAM, capsys) == SAMPLERS_EXPECTED


TRANSFORMS_PROGRAM = '''\
tk = random.key(5)
ks = random.split(tk, 3)
print(jax.vmap(lambda k: random.gamma(k, 2., (2,)))(ks))
print(random.key_data(jax.vmap(lambda k: random.fold_in(k, 3))(ks)))
print(random.key_data(jax.vmap(lambda i: random.fold_in(tk, i))(jnp.arange(3))))
print(jax.jit(lambda k: random.split(k))(random.PRNGKey(5)))
print(jax.jit(random.PRNGKey)(7), random.key_data(jax.jit(random.key)(7)))
print(jax.grad(lambda m, s: jnp.sum(m + s * random.normal(tk, (3,))), argnums=(0, 1))(1., 2.))
print(jax.lax.fori_loop(0, 3, lambda i, c: (random.split(c[0])[0], c[1] + random.uniform(c[0])), (tk, 0.))[1])
print(jax.lax.scan(lambda c, x: (random.fold_in(c, x), random.normal(c)), tk, jnp.arange(3))[1])
def f(k):
    k1, k2 = random.split(k)
    return random.normal(k1), random.uniform(k2)
print(jax.jit(f)(tk), f(tk))
print(jax.vmap(f)(ks))
print(random.key(1) == random.key(1), random.split(tk) != random.key(1))
'''

TRANSFORMS_EXPECTED = '''\
[[1.3332504  1.2813259 ]
 [2.3259816  2.43095   ]
 [1.000327   0.51304704]]
[[1446168359 2998702470]
 [3228849613 2227882949]
 [1620288876 4119761382]]
[[2724472204 3573582090]
 [ 202567368 3886822060]
 [3594430910 1784718894]]
[[2724472204 3573582090]
 [ 202567368 3886822060]]
[0 7] [0 7]
(Array(3., dtype=float32, weak_type=True), Array(1.9571314, dtype=float32, weak_type=True))
1.7442923
[-0.08437306  0.41528264 -1.3889432 ]
(Array(0.41528264, dtype=float32), Array(0.08381331, dtype=float32)) (Array(0.41528264, dtype=float32), Array(0.08381331, dtype=float32))
(Array([ 0.29729664,  1.34876   , -1.9105697 ], dtype=float32), Array([0.082425  , 0.5359762 , 0.08936822], dtype=float32))
True [ True  True]
'''


def test_transforms_as_jax(capsys):
    """Vmap (batched keys), jit, grad (reparameterized), loops and scan."""
    assert _run(TRANSFORMS_PROGRAM, capsys) == TRANSFORMS_EXPECTED


JAXPRS_PROGRAM = '''\
tk = random.key(3)
print(jax.make_jaxpr(lambda k: random.uniform(k, (3,)))(tk))
print(jax.make_jaxpr(lambda k: random.uniform(k, (3,)))(random.PRNGKey(0)))
print(jax.make_jaxpr(lambda s: random.PRNGKey(s))(1))
print(jax.make_jaxpr(lambda s: random.key(s))(1))
print(jax.make_jaxpr(lambda k: random.split(k))(random.PRNGKey(0)))
print(jax.make_jaxpr(lambda k, d: random.fold_in(k, d))(tk, 7))
print(jax.make_jaxpr(lambda k: random.normal(k, (3,)))(tk))
print(jax.make_jaxpr(lambda k: (random.key_data(k), random.bits(k, (2, 3), jnp.uint8)))(tk))
print(jax.make_jaxpr(lambda d: random.wrap_key_data(d))(random.PRNGKey(0)))
print(jax.make_jaxpr(jax.vmap(lambda k: random.uniform(k, (2,))))(random.split(tk, 3)))
print(jax.make_jaxpr(jax.grad(lambda m: jnp.sum(m * random.normal(tk, (3,)))))(1.))
'''

JAXPRS_EXPECTED = '''\
let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    f:f32[1] = broadcast_in_dim d
    g:f32[1] = broadcast_in_dim e
    h:u32[3] = random_bits[bit_width=32 shape=(3,)] a
    i:u32[3] = shift_right_logical h 9:u32[]
    j:u32[3] = or i 1065353216:u32[]
    k:f32[3] = bitcast_convert_type[new_dtype=float32] j
    l:f32[3] = sub k 1.0:f32[]
    m:f32[1] = sub g f
    n:f32[3] = mul l m
    o:f32[3] = add n f
    p:f32[3] = max f o
  in (p,) } in
{ lambda ; q:key<fry>[]. let
    r:f32[3] = jit[name=_uniform jaxpr=_uniform] q 0.0:f32[] 1.0:f32[]
  in (r,) }
let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    f:f32[1] = broadcast_in_dim d
    g:f32[1] = broadcast_in_dim e
    h:u32[3] = random_bits[bit_width=32 shape=(3,)] a
    i:u32[3] = shift_right_logical h 9:u32[]
    j:u32[3] = or i 1065353216:u32[]
    k:f32[3] = bitcast_convert_type[new_dtype=float32] j
    l:f32[3] = sub k 1.0:f32[]
    m:f32[1] = sub g f
    n:f32[3] = mul l m
    o:f32[3] = add n f
    p:f32[3] = max f o
  in (p,) } in
{ lambda ; q:u32[2]. let
    r:key<fry>[] = random_wrap[impl=fry] q
    s:f32[3] = jit[name=_uniform jaxpr=_uniform] r 0.0:f32[] 1.0:f32[]
  in (s,) }
{ lambda ; a:i32[]. let
    b:key<fry>[] = random_seed[impl=fry] a
    c:u32[2] = random_unwrap b
  in (c,) }
{ lambda ; a:i32[]. let b:key<fry>[] = random_seed[impl=fry] a in (b,) }
{ lambda ; a:u32[2]. let
    b:key<fry>[] = random_wrap[impl=fry] a
    c:key<fry>[2] = random_split[shape=(2,)] b
    d:u32[2,2] = random_unwrap c
  in (d,) }
{ lambda ; a:key<fry>[] b:i32[]. let
    c:u32[] = convert_element_type[new_dtype=uint32 weak_type=False] b
    d:key<fry>[] = random_fold_in a c
  in (d,) }
let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let
    d:f32[1] = broadcast_in_dim b
    e:f32[1] = broadcast_in_dim c
    f:u32[3] = random_bits[bit_width=32 shape=(3,)] a
    g:u32[3] = shift_right_logical f 9:u32[]
    h:u32[3] = or g 1065353216:u32[]
    i:f32[3] = bitcast_convert_type[new_dtype=float32] h
    j:f32[3] = sub i 1.0:f32[]
    k:f32[1] = sub e d
    l:f32[3] = mul j k
    m:f32[3] = add l d
    n:f32[3] = max d m
  in (n,) } in
{ lambda ; o:key<fry>[]. let
    p:f32[3] = jit[
      name=_normal
      jaxpr={ lambda ; o:key<fry>[]. let
          p:f32[3] = jit[
            name=_normal_real
            jaxpr={ lambda ; o:key<fry>[]. let
                q:f32[3] = jit[name=_uniform jaxpr=_uniform] o -0.9999999403953552:f32[]
                  1.0:f32[]
                r:f32[3] = erf_inv q
                p:f32[3] = mul 1.4142135381698608:f32[] r
              in (p,) }
          ] o
        in (p,) }
    ] o
  in (p,) }
{ lambda ; a:key<fry>[]. let
    b:u32[2] = random_unwrap a
    c:u8[2,3] = random_bits[bit_width=8 shape=(2, 3)] a
  in (b, c) }
{ lambda ; a:u32[2]. let b:key<fry>[] = random_wrap[impl=fry] a in (b,) }
let _uniform = { lambda ; a:key<fry>[3] b:f32[] c:f32[]. let
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    f:f32[1] = broadcast_in_dim d
    g:f32[1] = broadcast_in_dim e
    h:u32[3,2] = random_bits[bit_width=32 shape=(2,)] a
    i:u32[3,2] = shift_right_logical h 9:u32[]
    j:u32[3,2] = or i 1065353216:u32[]
    k:f32[3,2] = bitcast_convert_type[new_dtype=float32] j
    l:f32[3,2] = sub k 1.0:f32[]
    m:f32[1] = sub g f
    n:f32[1,1] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] m
    o:f32[3,2] = mul l n
    p:f32[1,1] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] f
    q:f32[3,2] = add o p
    r:f32[1,1] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] f
    s:f32[3,2] = max r q
  in (s,) } in
{ lambda ; t:key<fry>[3]. let
    u:f32[3,2] = jit[name=_uniform jaxpr=_uniform] t 0.0:f32[] 1.0:f32[]
  in (u,) }
let _uniform = { lambda ; a:key<fry>[] b:f32[] c:f32[]. let
    d:f32[1] = broadcast_in_dim b
    e:f32[1] = broadcast_in_dim c
    f:u32[3] = random_bits[bit_width=32 shape=(3,)] a
    g:u32[3] = shift_right_logical f 9:u32[]
    h:u32[3] = or g 1065353216:u32[]
    i:f32[3] = bitcast_convert_type[new_dtype=float32] h
    j:f32[3] = sub i 1.0:f32[]
    k:f32[1] = sub e d
    l:f32[3] = mul j k
    m:f32[3] = add l d
    n:f32[3] = max d m
  in (n,) } in
{ lambda o:key<fry>[]; p:f32[]. let
    q:f32[3] = jit[
      name=_normal
      jaxpr={ lambda ; o:key<fry>[]. let
          q:f32[3] = jit[
            name=_normal_real
            jaxpr={ lambda ; o:key<fry>[]. let
                r:f32[3] = jit[name=_uniform jaxpr=_uniform] o -0.9999999403953552:f32[]
                  1.0:f32[]
                s:f32[3] = erf_inv r
                q:f32[3] = mul 1.4142135381698608:f32[] s
              in (q,) }
          ] o
        in (q,) }
    ] o
    t:f32[] = convert_element_type[new_dtype=float32 weak_type=False] p
    u:f32[3] = mul t q
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] u
    v:f32[3] = broadcast_in_dim 1.0:f32[]
    w:f32[3] = mul v q
    x:f32[] = reduce_sum[axes=(0,) out_sharding=None] w
    y:f32[] = convert_element_type[new_dtype=float32 weak_type=True] x
  in (y,) }
'''


def test_jaxprs_as_jax(capsys):
    """Make_jaxpr prints random_seed/random_bits/random_wrap/... as JAX."""
    assert _run(JAXPRS_PROGRAM, capsys) == JAXPRS_EXPECTED


ERRORS_PROGRAM = '''\
def err(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, str(e)[:120])
tk = random.key(3)
err(lambda: random.uniform(jnp.zeros(2, jnp.int32)))
err(lambda: random.uniform(random.split(random.PRNGKey(0))))
err(lambda: random.key(jnp.zeros(2, jnp.int32)))
err(lambda: random.PRNGKey(1.5))
err(lambda: random.split(random.split(tk)))
err(lambda: random.uniform(tk, dtype=jnp.int32))
err(lambda: random.bits(tk, dtype=jnp.int32))
err(lambda: np.asarray(tk))
err(lambda: random.uniform(tk, (2,), minval=jnp.zeros(3)))
err(lambda: random.choice(tk, 3, (5,), replace=False))
'''

ERRORS_EXPECTED = '''\
TypeError JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=int32
ValueError uniform accepts a single key, but was given a key array of shape (2, 2) != (). Use jax.vmap for batching.
TypeError key accepts a scalar seed, but was given an array of shape (2,) != (). Use jax.vmap for batching
TypeError PRNG key seed must be an integer; got JitTracer(~float32[])
ValueError split accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.
ValueError dtype argument to `uniform` must be a float dtype, got int32
ValueError dtype argument to `bits` must be an unsigned int dtype, got int32
TypeError JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use jax.random.key_data(arr) if you wish to extract t
TypeError mul got incompatible shapes for broadcasting: (2,), (3,).
ValueError Cannot take a larger sample (size 5) than population (size 3) when 'replace=False'
'''


def test_errors_as_jax(capsys):
    """Bad keys, seeds and dtypes raise JAX's exceptions and messages."""
    assert _run(ERRORS_PROGRAM, capsys) == ERRORS_EXPECTED


def test_typed_keys_compare_equal_or_not():
    """``eq`` / ``ne`` take typed keys (equal where every word is), as in JAX 0.10.2;
    ordering comparisons do not. Values and jaxprs are JAX's."""
    k = jax.random.key(0)
    k2 = jax.random.split(k)
    k3 = jax.random.split(k, (2, 3))
    assert bool(k == k) and not bool(k != k)
    np.testing.assert_array_equal(jnp.equal(k2, k), [False, False])
    np.testing.assert_array_equal(k2 != k2[::-1], [True, True])
    assert bool(jnp.array_equal(k2, k2)) and jnp.asarray(k2).dtype == k2.dtype
    np.testing.assert_array_equal(jax.jit(lambda a, b: a == b)(k3, k3[:, :1]),
                                  [[True, False, False]] * 2)
    np.testing.assert_array_equal(jax.vmap(lambda a, b: a != b)(k2, k2[::-1]), [True, True])
    assert str(jax.make_jaxpr(lambda a, b: jnp.array_equal(a, b))(k2, k2)) == (
        "{ lambda ; a:key<fry>[2] b:key<fry>[2]. let\n"
        "    c:bool[2] = eq a b\n"
        "    d:bool[] = reduce_and[axes=(0,)] c\n"
        "  in (d,) }")
    with pytest.raises(TypeError, match="lt does not accept dtype key<fry> at position 0"):
        jax.lax.lt(k, k)
