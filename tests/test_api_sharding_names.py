"""JAX 0.10.2's top-level config options and sharding names: ``default_prng_impl`` (and the
rbg / unsafe_rbg generators), ``debug_key_reuse``, ``auto_pcast``,
``remove_size_one_mesh_axis_from_type``, ``thread_guard``, ``reshard``, ``auto_axes`` /
``explicit_axes``, ``use_abstract_mesh``, ``smap``, ... Expected values and jaxpr texts
are what JAX 0.10.2 prints for the same snippet (8 CPU devices, conftest.py)."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.sharding import Mesh, PartitionSpec as P


@pytest.fixture
def restore_config():
    saved = jax.config.values
    yield
    for name, value in saved.items():
        jax.config.update(name, value)


def _words(keys):
    return np.asarray(jax.random.key_data(keys)).tolist()


# -- jax_default_prng_impl: which generator key / PRNGKey use ------------------------------
# Expected words and samples printed by JAX 0.10.2 (seed 42, PRNGKey(7)).

PRNG_EXPECTED = {
    "threefry2x32": dict(
        tag="fry", raw=[0, 7],
        split=[[1832780943, 270669613], [64467757, 2916123636], [2465931498, 255383827]],
        fold_in=[2765691542, 824333390],
        uniform=[0.48870957, 0.6797972, 0.6162715, 0.5610161], bits8=[162, 217, 249],
        randint=[9, 2, 0]),
    "rbg": dict(
        tag="rbg", raw=[0, 7, 0, 7],
        split=[[1832780943, 270669613, 1832780943, 270669613],
               [64467757, 2916123636, 64467757, 2916123636],
               [2465931498, 255383827, 2465931498, 255383827]],
        fold_in=[2765691542, 824333390, 2765691542, 824333390],
        uniform=[0.6102176, 0.69660795, 0.06568921, 0.6029453], bits8=[210, 89, 227],
        randint=[3, 3, 0]),
    "unsafe_rbg": dict(
        tag="urbg", raw=[0, 7, 0, 7],
        split=[[2620864722, 2991908441, 282133475, 2589630650],
               [4105776319, 298289174, 864345282, 274752888],
               [3163845003, 1288433488, 2875901698, 4130285303]],
        fold_in=[3810769997, 2355008983, 1837142617, 748193156],
        uniform=[0.6102176, 0.69660795, 0.06568921, 0.6029453], bits8=[210, 89, 227],
        randint=[3, 4, 5]),
}


@pytest.mark.parametrize("impl", sorted(PRNG_EXPECTED))
def test_default_prng_impl_chooses_the_generator(impl, restore_config):
    want = PRNG_EXPECTED[impl]
    jax.config.update("jax_default_prng_impl", impl)
    k, raw = jax.random.key(42), jax.random.PRNGKey(7)
    assert str(k.dtype) == f"key<{want['tag']}>" and jax.random.key_impl(k) == impl
    assert np.asarray(raw).tolist() == want["raw"] and raw.dtype == np.uint32
    assert _words(jax.random.split(k, 3)) == want["split"]
    assert _words(jax.random.fold_in(k, 5)) == want["fold_in"]
    np.testing.assert_allclose(jax.random.uniform(k, (4,)), want["uniform"], rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda k: jax.random.uniform(k, (4,)))(k),
                               want["uniform"], rtol=1e-6)
    assert np.asarray(jax.random.bits(k, (3,), dtype="uint8")).tolist() == want["bits8"]
    # A raw key is read with the default implementation too.
    assert np.asarray(jax.random.randint(raw, (3,), 0, 10)).tolist() == want["randint"]
    assert str(jax.make_jaxpr(jax.random.split)(k)) == (
        f"{{ lambda ; a:key<{want['tag']}>[]. let\n"
        f"    b:key<{want['tag']}>[2] = random_split[shape=(2,)] a\n  in (b,) }}")


def test_default_prng_impl_context_manager_and_errors():
    with jax.default_prng_impl("rbg"):
        assert jax.random.PRNGKey(0).shape == (4,)
        assert jax.config.jax_default_prng_impl == "rbg"
    assert jax.random.PRNGKey(0).shape == (2,)
    with pytest.raises(ValueError, match="new enum value must be in"):
        jax.config.update("jax_default_prng_impl", "foo")
    # A name JAX 0.10.2 knows but glassjax does not implement: an honest error on use.
    with jax.default_prng_impl("philox4x32"), pytest.raises(NotImplementedError):
        jax.random.key(0)


def test_rbg_keys_agree_with_explicit_impl():
    """``impl=`` and the default give the same keys; vmap of split equals a loop."""
    k = jax.random.key(3, impl="rbg")
    with jax.default_prng_impl("rbg"):
        assert _words(jax.random.key(3)) == _words(k)
    keys = jax.random.split(k, 4)
    batched = jax.vmap(lambda kk: jax.random.split(kk, 2))(keys)
    assert _words(batched) == [_words(jax.random.split(kk, 2)) for kk in keys]


# -- auto_pcast ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mesh4():
    return jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))


def test_auto_pcast_off_makes_mixed_variance_an_error(mesh4):
    g = jax.shard_map(lambda x, y: x + y, mesh=mesh4, in_specs=(P("i"), P()),
                      out_specs=P("i"))
    x, y = jnp.arange(8.), jnp.float32(1)
    assert "= pvary[axes=('i',)] e" in str(jax.make_jaxpr(g)(x, y))
    with jax.auto_pcast(False):
        with pytest.raises(ValueError, match=r"Primitive add requires varying manual axes "
                           r"to match, but got \[frozenset\(\{'i'\}\), frozenset\(\)\]"):
            jax.make_jaxpr(g)(x, y)
    assert jax.config.jax_auto_pcast is True


def test_auto_pcast_off_inserts_no_casts(mesh4):
    """JAX 0.10.2: zeros_like and the out_specs add no pvary when auto_pcast is off."""
    g = jax.shard_map(lambda x, y: jnp.zeros_like(x) * 2, mesh=mesh4,
                      in_specs=(P("i"), P()), out_specs=P("i"))
    with jax.auto_pcast(False):
        text = str(jax.make_jaxpr(g)(jnp.arange(8.), jnp.float32(1)))
        np.testing.assert_array_equal(g(jnp.arange(8.), jnp.float32(1)), np.zeros(8))
    assert text == """\
{ lambda ; a:f32[8] b:f32[]. let
    c:f32[8] = shard_map[
      check_vma=True
      in_specs=(P('i',), P())
      jaxpr={ lambda ; d:f32[2]{V:i} e:f32[]. let
          f:f32[2] = broadcast_in_dim 0.0:f32[]
          g:f32[2] = mul f 2.0:f32[]
        in (g,) }
      mesh=Mesh('i': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'i'})
      out_specs=(P('i',),)
    ] a b
  in (c,) }"""


# -- remove_size_one_mesh_axis_from_type ----------------------------------------------------

SIZE_ONE_JAXPR = """\
{ lambda ; a:f32[4,2] b:f32[1,2]. let
    c:f32[4,2] d:f32[1,2] = shard_map[
      check_vma=True
      in_specs=(P('i', 'j'), P(None, 'j'))
      jaxpr={ lambda ; e:f32[1,2]{V:i} f:f32[1,2]. let
          g:f32[1,2]{V:i} = pvary[axes=('i',)] f
          h:f32[1,2]{V:i} = add e g
          i:f32[1,2]{V:i} = pvary[axes=('i',)] f
          j:f32[1,2] = psum_invariant[axes=('i',)] i
        in (h, j) }
      mesh=Mesh('i': 4, 'j': 1, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'i', 'j'})
      out_specs=(P('i', 'j'), P())
    ] a b
  in (c, d) }"""


def test_remove_size_one_mesh_axis_from_type():
    mesh = jax.make_mesh((4, 1), ("i", "j"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    g = jax.shard_map(lambda x, y: (jax.lax.psum(x, "j") + y, jax.lax.psum(y, ("i", "j"))),
                      mesh=mesh, in_specs=(P("i", "j"), P(None, "j")),
                      out_specs=(P("i", "j"), P()))
    x, y = jnp.arange(8.).reshape(4, 2), jnp.ones((1, 2))
    # Without the option y varies over 'j' only: a sum over ('i', 'j') mixes states.
    with pytest.raises(ValueError, match=r"jax.lax.psum can only accept axis_name which "
                       r"corresponds to one of varying, unreduced, reduced or invarying "
                       r"state of the input. Got input type: float32\[1,2\]\{V:j\}"):
        jax.make_jaxpr(g)(x, y)
    with jax.remove_size_one_mesh_axis_from_type(True):
        assert str(jax.make_jaxpr(g)(x, y)) == SIZE_ONE_JAXPR
        out, total = g(x, y)
    np.testing.assert_array_equal(out, np.arange(8.).reshape(4, 2) + 1)
    np.testing.assert_array_equal(total, np.full((1, 2), 4.))


# -- thread_guard and jax2tf_associative_scan_reductions ----------------------------------

def test_thread_guard_and_jax2tf_option_are_config_options(restore_config):
    assert jax.config.jax_thread_guard is False
    with jax.thread_guard(True):
        assert jax.config.jax_thread_guard is True
        np.testing.assert_array_equal(jax.jit(lambda x: x + 1)(jnp.arange(3)), [1, 2, 3])
    assert jax.thread_guard.value is False
    jax.config.update("jax2tf_associative_scan_reductions", True)
    assert jax.jax2tf_associative_scan_reductions.value is True
    np.testing.assert_array_equal(jnp.cumsum(jnp.arange(4)), [0, 1, 3, 6])
