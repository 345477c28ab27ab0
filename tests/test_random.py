"""glassjax.random: the same numbers as JAX 0.10.2 for the same keys (threefry2x32).

The expected texts are what JAX 0.10.2 prints for the same programs."""
import numpy as np

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
