"""Sharding in types: on a mesh of ``Explicit`` axes (``jax.make_mesh``'s default) a
value's type says how it is split, ``float32[8@X,4@Y]``; every primitive's
``sharding_rule`` computes its output's split, and operations whose operands' splits do
not combine are refused. Expected texts were printed by JAX 0.10.2."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.sharding import AxisType


@pytest.fixture
def mesh():
    with jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y'))) as m:
        yield m


def _x():
    return jax.device_put(jnp.arange(32.).reshape(8, 4), jax.P('X', 'Y'))


def test_a_device_put_array_has_its_split_in_its_type(mesh):
    x = _x()
    assert repr(jax.typeof(x)) == "ShapedArray(float32[8@X,4@Y])"
    assert repr(jax.typeof(x).sharding) == (
        "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), "
        "device_kind=cpu, num_cores=None, platform=cpu), spec=P('X', 'Y'))")
    assert str(jax.typeof(jnp.zeros((8, 4)))) == "float32[8,4]"


def test_an_unsplit_type_has_an_empty_mesh_and_a_spec_of_nones():
    assert repr(jax.typeof(jnp.ones(3)).sharding) == (
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))")


def test_jaxprs_print_the_splits(mesh):
    assert str(jax.make_jaxpr(lambda x: jnp.sin(x).sum(0) * 2)(_x())) == """\
{ lambda ; a:f32[8@X,4@Y]. let
    b:f32[8@X,4@Y] = sin a
    c:f32[4@Y] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f32[4@Y] = mul c 2.0:f32[]
  in (d,) }"""


def test_eager_results_and_broadcasting(mesh):
    x = _x()
    assert str(jax.typeof(jnp.sin(x).T)) == "float32[4@Y,8@X]"
    assert str(jax.typeof(x.sum(0))) == "float32[4@Y]"
    a0 = jax.device_put(np.arange(4).reshape(4, 1), jax.P("X", None))
    a1 = jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, "Y"))
    assert str(jax.typeof(a0 + a1)) == "int32[4@X,8@Y]"
    np.testing.assert_array_equal(a0 + a1, np.arange(4)[:, None] + np.arange(8))
    assert str(jax.make_jaxpr(lambda a, b: (a + b).astype(jnp.float32))(a0, a1)) == """\
{ lambda ; a:i32[4@X,1] b:i32[1,8@Y]. let
    c:i32[4@X,8@Y] = add a b
    d:f32[4@X,8@Y] = convert_element_type[new_dtype=float32 weak_type=False] c
  in (d,) }"""


def test_one_axis_splitting_two_dimensions_is_refused(mesh):
    u = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", None))
    v = jax.device_put(np.arange(16).reshape(4, 4), jax.P(None, "X"))
    message = ("add operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally "
               "sharded result: i32[4@X,4@X]")
    for add in (lambda: u + v, lambda: jax.jit(lambda a, b: a + b)(u, v)):
        with pytest.raises(jax.core.ShardingTypeError) as info:
            add()
        assert str(info.value) == message


def test_a_product_over_split_contracting_axes_needs_out_sharding(mesh):
    a = np.arange(32.).reshape(8, 4)
    b = np.arange(64.).reshape(4, 16)
    p = jax.device_put(a, jax.P(None, 'X'))
    q = jax.device_put(b, jax.P('X', None))
    with pytest.raises(jax.core.ShardingTypeError) as info:
        jnp.dot(p, q)
    assert str(info.value) == (
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter. "
        "Got lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)")
    for product in (jnp.dot, jnp.matmul, lambda p, q, **kw: jnp.einsum('ij,jk->ik', p, q,
                                                                        **kw)):
        r = product(p, q, out_sharding=jax.P('X', None))
        assert str(jax.typeof(r)) == "float32[8@X,16]"
        assert str(r.sharding) == ("NamedSharding(mesh=Mesh('X': 4, 'Y': 2, axis_types="
                                   "(Explicit, Explicit)), spec=P('X', None), "
                                   "memory_kind=device)")
        np.testing.assert_allclose(r, a @ b)


def test_reshard_and_reshapes_move_the_splits(mesh):
    assert str(jax.make_jaxpr(lambda x: jax.reshard(x, jax.P(None, 'X')))(_x())) == \
        "{ lambda ; a:f32[8@X,4@Y]. let b:f32[8,4@X] = reshard a in (b,) }"
    moved = jax.reshard(_x(), jax.P(None, 'X'))
    assert str(jax.typeof(moved)) == "float32[8,4@X]"
    np.testing.assert_array_equal(moved, np.arange(32.).reshape(8, 4))
    xx = jax.device_put(jnp.arange(32.).reshape(8, 4), jax.P('X', None))
    assert str(jax.make_jaxpr(lambda x: x.reshape(4, 2, 4).reshape(8, 4)[None])(xx)) == """\
{ lambda ; a:f32[8@X,4]. let
    b:f32[4@X,2,4] = reshape[dimensions=None new_sizes=(4, 2, 4) sharding=None] a
    c:f32[8@X,4] = reshape[dimensions=None new_sizes=(8, 4) sharding=None] b
    d:f32[1,8@X,4] = broadcast_in_dim[broadcast_dimensions=(1, 2)] c
  in (d,) }"""
    assert str(jax.make_jaxpr(lambda x: jnp.broadcast_to(x, (3, 8, 4)) + 1)(xx)) == """\
{ lambda ; a:f32[8@X,4]. let
    b:f32[3,8@X,4] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    c:f32[3,8@X,4] = add b 1.0:f32[]
  in (c,) }"""


def test_jit_results_are_laid_out_as_their_types_say(mesh):
    x = _x()
    y = jax.jit(lambda x: x * 2)(x)
    assert str(jax.typeof(y)) == "float32[8@X,4@Y]"
    assert y.sharding == jax.NamedSharding(mesh, jax.P('X', 'Y'))
    np.testing.assert_array_equal(y, np.arange(32.).reshape(8, 4) * 2)
    seen = []
    jax.jit(lambda x: seen.append(str(jax.typeof(x))))(x)
    assert seen == ["float32[8@X,4@Y]"]
    # a trace of an unsplit argument is not reused for a split one
    f = jax.jit(lambda x: x + 1)
    assert str(jax.make_jaxpr(f)(np.ones((8, 4), np.float32))).startswith("{ lambda ; a:f32[8,4].")
    assert str(jax.make_jaxpr(f)(x)).startswith("{ lambda ; a:f32[8@X,4@Y].")


def test_grad_keeps_the_splits(mesh):
    x = _x()
    g = jax.grad(lambda x: (jnp.sin(x) ** 2).sum())(x)
    assert str(jax.typeof(g)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(g, np.sin(2 * np.arange(32.).reshape(8, 4)), rtol=1e-5,
                               atol=1e-6)


def test_auto_axes_are_not_part_of_types():
    with jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y'), (AxisType.Auto,) * 2)):
        y = jax.device_put(jnp.arange(8.), jax.P('X'))
        assert str(jax.typeof(y)) == "float32[8]"
        assert repr(jax.typeof(y).sharding.spec) == "P(None,)"
        assert y.sharding.spec == jax.P('X')


@pytest.mark.parametrize("sample", [
    lambda key, **kw: jax.random.normal(key, (8, 4), **kw),
    lambda key, **kw: jax.random.randint(key, (8, 4), 0, 10, **kw),
    lambda key, **kw: jax.random.bernoulli(key, 0.3, (8, 4), **kw),
])
def test_samplers_lay_their_results_out_as_asked(mesh, sample):
    """``out_sharding=``: the same numbers (threefry is partitionable), laid out and
    typed as asked, eagerly and under jit."""
    key = jax.random.key(0)
    whole = sample(key)
    for split in (sample(key, out_sharding=jax.P('X', 'Y')),
                  jax.jit(lambda k: sample(k, out_sharding=jax.P('X', 'Y')))(key)):
        np.testing.assert_array_equal(split, whole)
        assert str(jax.typeof(split)).endswith("[8@X,4@Y]")
        assert split.sharding == jax.NamedSharding(mesh, jax.P('X', 'Y'))


def test_slicing_padding_and_splitting_keep_the_splits(mesh):
    """Each dimension keeps its split; a split dimension whose new size its devices
    cannot share evenly is refused (JAX's message). Eager results are laid out as their
    types say."""
    x = _x()
    a = np.arange(32.).reshape(8, 4)
    assert str(jax.typeof(lax.slice(x, (0, 1), (8, 3)))) == "float32[8@X,2@Y]"
    assert str(jax.typeof(lax.slice(x, (4, 0), (8, 4)))) == "float32[4@X,4@Y]"
    np.testing.assert_array_equal(lax.slice(x, (0, 1), (8, 3)), a[:, 1:3])
    assert str(jax.make_jaxpr(lambda x: lax.slice(x, (0, 1), (8, 3)))(x)) == """\
{ lambda ; a:f32[8@X,4@Y]. let
    b:f32[8@X,2@Y] = slice[
      limit_indices=(8, 3)
      start_indices=(0, 1)
      strides=None
    ] a
  in (b,) }"""
    assert [str(jax.typeof(p)) for p in lax.split(x, (2, 2), axis=1)] == \
        ["float32[8@X,2@Y]"] * 2
    assert str(jax.typeof(lax.pad(x, 0., ((0, 0, 0), (2, 2, 0))))) == "float32[8@X,8@Y]"
    assert str(jax.typeof(lax.dynamic_slice(x, (0, 2), (4, 2)))) == "float32[4@X,2@Y]"
    np.testing.assert_array_equal(lax.dynamic_slice(x, (0, 2), (4, 2)), a[:4, 2:])
    with pytest.raises(jax.core.ShardingTypeError) as info:
        lax.pad(x, 0., ((0, 0, 0), (1, 0, 0)))
    assert str(info.value) == (
        "padding on sharded dims where out dim (5) is not divisible by mesh axes (2) with "
        "spec (Y) is not implemented. Got input type=f32[8@X,4@Y] and output shape=(8, 5)")
