"""JAX 0.10.2's top-level config options and sharding names: ``default_prng_impl`` (and the
rbg / unsafe_rbg generators), ``debug_key_reuse``, ``auto_pcast``,
``remove_size_one_mesh_axis_from_type``, ``thread_guard``, ``reshard``, ``auto_axes`` /
``explicit_axes``, ``use_abstract_mesh``, ``smap``, ... Expected values and jaxpr texts
are what JAX 0.10.2 prints for the same snippet (8 CPU devices, conftest.py)."""
import re

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.sharding import PartitionSpec as P


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


# -- jax.sharding: AbstractDevice, ManualAxisType, use_abstract_mesh, get_mesh --------------

def test_abstract_device_and_abstract_mesh_of_a_mesh():
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    device = jax.sharding.AbstractDevice(device_kind="cpu", num_cores=None, platform="cpu")
    assert repr(device) == "AbstractDevice(device_kind=cpu, num_cores=None, platform=cpu)"
    assert mesh.abstract_mesh.abstract_device == device
    assert repr(mesh.abstract_mesh) == (
        "AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit), device_kind=cpu, "
        "num_cores=None, platform=cpu)")
    plain = jax.sharding.AbstractMesh((4, 2), ("x", "y"))
    assert repr(plain) == "AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto))"
    assert plain != mesh.abstract_mesh.update(axis_types=plain.axis_types)
    assert plain.update(abstract_device=device) == mesh.abstract_mesh.update(
        axis_types=plain.axis_types)


def test_manual_axis_type():
    mat = jax.sharding.ManualAxisType(varying=frozenset({"x"}))
    assert repr(mat) == ("ManualAxisType(varying=frozenset({'x'}), unreduced=frozenset(), "
                         "reduced=frozenset())")
    assert mat.update(reduced={"y"}).vur == {"x", "y"} and jax.sharding.ManualAxisType().empty
    with pytest.raises(ValueError, match="varying and unreduced cannot have common mesh "
                       "axes"):
        jax.sharding.ManualAxisType(varying={"x"}, unreduced={"x"})
    # Inside shard_map(check_vma=True) the types carry it.
    seen = []
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    jax.shard_map(lambda a: seen.append(jax.typeof(a).manual_axis_type) or a, mesh=mesh,
                  in_specs=P("i"), out_specs=P("i"))(jnp.arange(8.))
    assert seen[0] == jax.sharding.ManualAxisType(varying={"i"})


def test_use_abstract_mesh():
    abstract = jax.sharding.AbstractMesh((4, 2), ("x", "y"))
    assert jax.sharding.get_abstract_mesh().empty
    assert str(jax.sharding.get_mesh()) == "Mesh()"
    with jax.sharding.use_abstract_mesh(abstract):
        assert jax.sharding.get_abstract_mesh() == abstract
        assert str(jax.sharding.get_mesh()) == "Mesh()"   # no devices came with it
        with pytest.raises(ValueError, match=r"use_abstract_mesh cannot change the size "
                           r"of the mesh. Got new mesh: AbstractMesh\('z': 2, "
                           r"axis_types=\(Auto,\)\) with size=2 and prev mesh"):
            with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((2,), ("z",))):
                pass
        assert jax.sharding.get_abstract_mesh() == abstract
    assert jax.sharding.get_abstract_mesh().empty
    with pytest.raises(ValueError, match="Expected mesh of type "
                       "`jax.sharding.AbstractMesh`. Got type"):
        jax.sharding.use_abstract_mesh(jax.make_mesh((8,), ("x",)))


# -- reshard --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def explicit_mesh():
    return jax.make_mesh((4, 2), ("x", "y"))


@pytest.fixture(scope="module")
def auto_mesh():
    return jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)


X = np.arange(16.).reshape(8, 2).astype(np.float32)


def test_reshard_eager_moves_the_value(explicit_mesh):
    from glassjax.sharding import NamedSharding
    assert jax.reshard is jax.sharding.reshard
    y = jax.sharding.reshard(jnp.asarray(X), NamedSharding(explicit_mesh, P("x")))
    assert repr(y.sharding) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=("
                                "Explicit, Explicit)), spec=P('x', None), "
                                "memory_kind=device)")
    np.testing.assert_array_equal(y, X)
    assert [s.data.shape for s in y.addressable_shards] == [(2, 2)] * 8
    with jax.set_mesh(explicit_mesh):
        z = jax.reshard({"a": y}, P(None, "y"))["a"]
    assert z.sharding.spec == P(None, "y")
    np.testing.assert_array_equal(z, X)


def test_reshard_under_jit(explicit_mesh):
    from glassjax.sharding import NamedSharding
    f = lambda x: jax.reshard(jnp.sin(x), NamedSharding(explicit_mesh, P()))
    assert str(jax.make_jaxpr(f)(X)) == (
        "{ lambda ; a:f32[8,2]. let b:f32[8,2] = sin a; c:f32[8,2] = reshard b in (c,) }")
    g = lambda x: jax.reshard(x * 2, NamedSharding(explicit_mesh, P("x", "y")))
    with jax.set_mesh(explicit_mesh):
        out = jax.jit(g)(X)
        text = jax.jit(g).lower(X).as_text()
    assert out.sharding.spec == P("x", "y")
    np.testing.assert_array_equal(out, X * 2)
    assert ('%2 = sdy.sharding_constraint %1 <@mesh, [{"x"}, {"y"}]> : tensor<8x2xf32>'
            in text)
    # Transformations: values as without the reshard.
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(f(x)))(X), np.cos(X), rtol=1e-6)
    vg = jax.vmap(lambda r: jax.reshard(r, NamedSharding(explicit_mesh, P("y"))))
    np.testing.assert_array_equal(jax.jit(vg)(X), X)


def test_reshard_errors(explicit_mesh, auto_mesh):
    from glassjax.sharding import NamedSharding
    x = jnp.asarray(X)
    with pytest.raises(ValueError, match=r"PartitionSpec passed to reshard cannot contain "
                       r"axis names that are of type Auto or Manual. Got PartitionSpec: "
                       r"P\('x',\) with axis name: x of type: AxisType.Auto."):
        jax.reshard(x, NamedSharding(auto_mesh, P("x")))
    with pytest.raises(TypeError, match="`out_sharding` argument of reshard only supports "
                       "instances of `NamedSharding` or `PartitionSpec`. Got 3"):
        jax.reshard(x, 3)
    with pytest.raises(ValueError, match="Reshard should only be used with out_shardings "
                       "which are non-None and have a non-empty mesh. Got sharding None."):
        jax.reshard(x, None)
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a "
                       "mesh context is not allowed"):
        jax.reshard(x, P("x"))
    # vmap: the batched layout splits the per-example axis 1 (JAX's message).
    with pytest.raises(ValueError, match=re.escape(
            "Sharding spec ('x',) implies that array axis 1 is partitioned 4 times, but does "
            "not evenly divide the dimension size 2. Got shape: (8, 2) and sharding "
            "NamedSharding(mesh=AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, "
            "Explicit), device_kind=cpu, num_cores=None, platform=cpu), spec=P(None, 'x'))")):
        jax.make_jaxpr(jax.vmap(lambda r: jax.reshard(r, NamedSharding(explicit_mesh,
                                                                       P("x")))))(X)


# -- auto_axes / explicit_axes --------------------------------------------------------------

def test_auto_axes(explicit_mesh, auto_mesh):
    inside = []

    @jax.sharding.auto_axes
    def g(x):
        inside.append(jax.sharding.get_abstract_mesh().axis_types)
        return x * 2

    with jax.set_mesh(explicit_mesh):
        xs = jax.device_put(X, P("x"))
        out = g(xs, out_sharding=P("x", "y"))
        text = jax.jit(lambda x: g(x, out_sharding=P("x", "y"))).lower(xs).as_text()
        with pytest.raises(TypeError, match="Missing required keyword argument: "
                           "'out_sharding'"):
            g(xs)
    assert inside[0] == (jax.sharding.AxisType.Auto,) * 2
    assert out.sharding.spec == P("x", "y") and out.sharding.mesh == explicit_mesh
    np.testing.assert_array_equal(out, X * 2)
    # JAX 0.10.2's body: no constraint on the way in, the out_sharding on the way out.
    assert text.count("sdy.sharding_constraint") == 1
    assert 'sdy.sharding_constraint %1 <@mesh, [{"x"}, {"y"}]>' in text
    # Over axes that are Auto already, it is the function itself (JAX prints no reshard).
    with jax.set_mesh(auto_mesh):
        assert str(jax.make_jaxpr(jax.sharding.auto_axes(lambda x: x + 1,
                                                         out_sharding=P()))(X)) == (
            "{ lambda ; a:f32[8,2]. let b:f32[8,2] = add a 1.0:f32[] in (b,) }")


def test_explicit_axes(auto_mesh):
    inside = []

    @jax.sharding.explicit_axes(axes="x", in_sharding=P("x"))
    def h(x):
        inside.append(jax.sharding.get_abstract_mesh().axis_types)
        return x * 2

    with pytest.raises(ValueError, match="Context mesh cannot be empty. Please use "
                       "`jax.set_mesh` API"):
        h(X)
    with jax.set_mesh(auto_mesh):
        out = h(X)
        text = str(jax.make_jaxpr(h)(X))
        lowered = jax.jit(h).lower(X).as_text()
    assert inside[0] == (jax.sharding.AxisType.Explicit, jax.sharding.AxisType.Auto)
    np.testing.assert_array_equal(out, X * 2)
    # The result keeps the layout the body gave it (JAX: split over 'x').
    assert out.sharding.spec[0] == "x" and out.sharding.mesh.axis_types == \
        auto_mesh.axis_types
    # As JAX 0.10.2 prints it: inside, 'x' is Explicit, so the split is in the types.
    assert text == """\
{ lambda ; a:f32[8,2]. let
    b:f32[8@x,2] = reshard a
    c:f32[8@x,2] = mul b 2.0:f32[]
    d:f32[8,2] = reshard c
  in (d,) }"""
    assert '%0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}]>' in lowered


# -- smap -------------------------------------------------------------------------------------

SMAP_BODY = """\
      jaxpr={ lambda ; d:f32[2,2]{V:x} e:f32[]. let
          f:f32[2,2] = psum_invariant[axes=('x',)] d
          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          h:f32[2,2] = mul f g
          i:f32[2,2]{V:x} = pvary[axes=('x',)] h
        in (i,) }"""


def test_smap(auto_mesh):
    f = jax.smap(lambda a, b: jax.lax.psum(a, "x") * b, in_axes=(0, None), out_axes=1,
                 axis_name="x")
    with jax.set_mesh(auto_mesh):
        text = str(jax.make_jaxpr(f)(X, 3.))
        out = f(X, 3.)
        jitted = jax.jit(f)(X, 3.)
    # JAX prints the context mesh as AbstractMesh(...); glassjax's shard_map keeps the
    # concrete mesh of set_mesh.
    assert "in_specs=(P('x',), P())" in text and "out_specs=(P(None, 'x'),)" in text
    assert SMAP_BODY in text and "newly_manual_axes=frozenset({'x'})" in text
    want = np.tile(X.reshape(4, 2, 2).sum(0) * 3, (1, 4))
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(jitted, want)
    # Against a loop: each block of rows of 'x' summed (the 'y' axis stays Auto).
    g = jax.smap(lambda a: a * 2 + 1, in_axes=1, out_axes=1, axis_name="y")
    with jax.set_mesh(auto_mesh):
        np.testing.assert_array_equal(g(X), X * 2 + 1)


def test_smap_errors(auto_mesh):
    body = lambda a: a
    with jax.set_mesh(auto_mesh):
        with pytest.raises(TypeError, match=re.escape(
                "in_axes was not specified when axis_name=frozenset({'x'}) was of type "
                "AxisType.Auto")):
            jax.smap(body, out_axes=0, axis_name="x")(X)
    with pytest.raises(ValueError, match="The context mesh cannot be empty"):
        jax.smap(body, in_axes=0, out_axes=0, axis_name="x")(X)
    for kwargs, message in [
            (dict(in_axes=0, out_axes=0, axis_name=("x",)),
             "smap axis_name should be a `str` or a `Hashable`, but got ('x',)"),
            (dict(in_axes=[0], out_axes=0, axis_name="x"),
             "smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of entries "
             "corresponding to the positional arguments passed to the function, but got "
             "[0]."),
            (dict(in_axes=0, out_axes="a", axis_name="x"),
             "smap out_axes must be an int, None, or (nested) container with those types "
             "as leaves, but got a."),
            (dict(in_axes=(0.5,), out_axes=0, axis_name="x"),
             "smap in_axes must be an int, None, jax.sharding.Infer, or (nested) container "
             "with those types as leaves, but got (0.5,).")]:
        with pytest.raises(TypeError, match=re.escape(message)):
            jax.smap(body, **kwargs)


# -- ragged_all_to_all, psend / precv -------------------------------------------------------
# XLA:CPU compiles neither (JAX 0.10.2 fails the same way): tracing, printing,
# differentiation and lowering are checked against JAX's texts.

RAGGED_ARGS = (jnp.ones(3), jnp.zeros(4), jnp.array([0, 1], jnp.int32),
               jnp.array([1, 2], jnp.int32), jnp.array([0, 0], jnp.int32),
               jnp.array([1, 1], jnp.int32))


def _ragged(*args):
    return jax.lax.ragged_all_to_all(*args, axis_name="x")


def test_ragged_all_to_all_jaxprs():
    assert jax.lax.ragged_all_to_all_p.name == "ragged_all_to_all"
    assert str(jax.make_jaxpr(_ragged, axis_env=[("x", 2)])(*RAGGED_ARGS)) == """\
{ lambda ; a:f32[3] b:f32[4] c:i32[2] d:i32[2] e:i32[2] f:i32[2]. let
    g:f32[4] = ragged_all_to_all[axis_index_groups=None axis_name=('x',)] a b c d
      e f
  in (g,) }"""
    jvp = jax.make_jaxpr(lambda a, b, *rest: jax.jvp(lambda a, b: _ragged(a, b, *rest),
                                                     (a, b), (a, b)),
                         axis_env=[("x", 2)])(*RAGGED_ARGS)
    assert str(jvp) == """\
{ lambda ; a:f32[3] b:f32[4] c:i32[2] d:i32[2] e:i32[2] f:i32[2]. let
    g:f32[4] = ragged_all_to_all[axis_index_groups=None axis_name=('x',)] a b c d
      e f
    h:f32[4] = ragged_all_to_all[axis_index_groups=None axis_name=('x',)] a b c d
      e f
  in (g, h) }"""
    # The transpose sends cotangents back: offsets swapped through all_to_all (JAX's
    # first equations; JAX builds the mask of overwritten rows with scatters and a cumsum,
    # glassjax with comparisons).
    vjp = str(jax.make_jaxpr(
        lambda op, out, *rest: jax.vjp(lambda a, b: _ragged(a, b, *rest), op, out)[1](
            jnp.ones(4)), axis_env=[("x", 2)])(*RAGGED_ARGS))
    assert """\
    i:i32[2] = all_to_all[
      axis_index_groups=None
      axis_name=('x',)
      concat_axis=0
      split_axis=0
      tiled=True
    ] e
    j:i32[2] = all_to_all[
      axis_index_groups=None
      axis_name=('x',)
      concat_axis=0
      split_axis=0
      tiled=True
    ] c
    k:f32[3] = ragged_all_to_all[axis_index_groups=None axis_name=('x',)] g h i f
      j d""" in vjp


def test_ragged_all_to_all_vmap_over_another_axis():
    """The batch is folded into the ragged rows, element b's offsets shifted by b rows."""
    text = str(jax.make_jaxpr(jax.vmap(_ragged, in_axes=(0, 0, None, None, None, None)),
                              axis_env=[("x", 2)])(jnp.ones((5, 3)), jnp.zeros((5, 4)),
                                                   *RAGGED_ARGS[2:]))
    assert "w:f32[20] = ragged_all_to_all[axis_index_groups=None axis_name=('x',)] q r s" \
        in text and "m:i32[1,5] = mul l 3:i32[]" in text and "o:i32[1,5] = mul l 4:i32[]" \
        in text


def test_ragged_all_to_all_lowering_and_errors():
    mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    args = (jnp.array([[1., 2., 2.], [3., 4., 0.]]), jnp.zeros((2, 4)),
            jnp.array([[0, 1], [0, 1]], jnp.int32), jnp.array([[1, 2], [1, 1]], jnp.int32),
            jnp.array([[0, 0], [1, 2]], jnp.int32), jnp.array([[1, 1], [2, 1]], jnp.int32))
    f = jax.shard_map(lambda *a: _ragged(*[x[0] for x in a])[None], mesh=mesh,
                      in_specs=(P("x"),) * 6, out_specs=P("x"))
    text = jax.jit(f).lower(*args).as_text()
    assert ("%7 = stablehlo.custom_call @ragged_all_to_all(%1, %2, %3, %4, %5, %6) "
            "{api_version = 4 : i32, backend_config = {channel_id = 1 : i64, "
            "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3xf32>, "
            "tensor<4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> "
            "tensor<4xf32>") in text
    with pytest.raises(Exception, match="HLO opcode `ragged-all-to-all` is not supported "
                       "by XLA:CPU ThunkEmitter"):
        jax.jit(f)(*args)
    with pytest.raises(ValueError, match="ragged_all_to_all input_offsets must be integer "
                       "type."):
        jax.make_jaxpr(_ragged, axis_env=[("x", 2)])(
            RAGGED_ARGS[0], RAGGED_ARGS[1], jnp.array([0., 1.]), *RAGGED_ARGS[3:])
    with pytest.raises(ValueError, match=re.escape(
            "ragged_all_to_all input_offsets must be rank 1 with positive dimension size, "
            "but got shape (1, 2)")):
        jax.make_jaxpr(_ragged, axis_env=[("x", 2)])(
            RAGGED_ARGS[0], RAGGED_ARGS[1], jnp.array([[0, 1]]), *RAGGED_ARGS[3:])
    with pytest.raises(RuntimeError, match="ragged_all_to_all must be used within a mapped "
                       "context like vmap or shard_map."):
        _ragged(*RAGGED_ARGS)


PERM = [(0, 1), (1, 2), (2, 3), (3, 0)]


def _send_receive(x):
    token = jax.lax.psend(x, "i", PERM)
    return jax.lax.precv(token, jax.ShapeDtypeStruct(x.shape, x.dtype), "i", PERM)


def test_psend_precv():
    assert str(jax.make_jaxpr(_send_receive, axis_env=[("i", 4)])(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:Tok = psend[axis_name=('i',) perm=((0, 1), (1, 2), (2, 3), (3, 0))] a
    c:f32[3] = precv[
      axis_name=('i',)
      out_shape=float32[3]
      perm=((0, 1), (1, 2), (2, 3), (3, 0))
    ] b
  in (c,) }"""
    mesh = jax.make_mesh((4,), ("i",), axis_types=(jax.sharding.AxisType.Auto,))
    f = jax.shard_map(_send_receive, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    assert """\
      jaxpr={ lambda ; c:f32[2]{V:i}. let
          d:Tok = psend[axis_name=('i',) perm=((0, 1), (1, 2), (2, 3), (3, 0))] c
          e:f32[2] = precv[
            axis_name=('i',)
            out_shape=float32[2]
            perm=((0, 1), (1, 2), (2, 3), (3, 0))
          ] d
          f:f32[2]{V:i} = pvary[axes=('i',)] e
        in (f,) }""" in str(jax.make_jaxpr(f)(jnp.arange(8.)))
    with pytest.raises(NotImplementedError, match="psend is currently only implemented on "
                       "GPU"):
        jax.jit(f)(jnp.arange(8.))
    with pytest.raises(NameError, match="unbound axis name: i"):
        jax.make_jaxpr(_send_receive)(jnp.ones(3))


# -- lax.stage ------------------------------------------------------------------------------

def test_stage_lifts_values_into_the_trace():
    x = jax.lax.stage(np.arange(3.))
    assert isinstance(x, jax.Array) and x.dtype == np.float32
    np.testing.assert_array_equal(x, [0., 1., 2.])
    assert jax.lax.stage(2).dtype == np.int32 and jax.lax.stage(2.0).weak_type
    y = jnp.ones(3)
    assert jax.lax.stage(y) is y
    # JAX 0.10.2's texts: staging records no equation, the value becomes a constant.
    assert str(jax.make_jaxpr(lambda a: jax.lax.stage(np.arange(3.)) + a)(1.)) == """\
{ lambda a:f32[3]; b:f32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[3] = add a c
  in (d,) }"""
    assert str(jax.make_jaxpr(lambda a: jax.lax.stage(3.) * a)(1.)) == (
        "{ lambda ; a:f32[]. let b:f32[] = mul 3.0:f32[] a in (b,) }")
    assert str(jax.make_jaxpr(jax.grad(lambda a: jax.lax.stage(a) * 2))(1.)) == """\
{ lambda ; a:f32[]. let
    _:f32[] = mul a 2.0:f32[]
    b:f32[] = mul 1.0:f32[] 2.0:f32[]
  in (b,) }"""
    assert str(jax.make_jaxpr(jax.vmap(jax.lax.stage))(jnp.arange(3))) == (
        "{ lambda ; a:i32[3]. let  in (a,) }")
    assert jax.grad(lambda a: jax.lax.stage(a) * 2)(1.) == 2.0
    np.testing.assert_array_equal(jax.jit(lambda a: jax.lax.stage(a) + 1)(jnp.arange(3)),
                                  [1, 2, 3])


def test_experimental_shard_map_jshmap_is_the_implementation_module():
    from glassjax.experimental import shard_map as legacy
    assert legacy.jshmap.smap is jax.smap and legacy.jshmap.shard_map is jax.shard_map


# -- debug_key_reuse -------------------------------------------------------------------------
# Messages as JAX 0.10.2 raises them for the same programs.

def _raises_reuse(message, fn):
    with pytest.raises(jax.errors.KeyReuseError, match=re.escape(message)):
        fn()


def test_key_reuse_eager():
    with jax.debug_key_reuse(True):
        k = jax.random.key(0)
        jax.random.uniform(k)
        _raises_reuse("Previously-consumed key passed to jit-compiled function at index 0",
                      lambda: jax.random.uniform(k))
        k = jax.random.key(1)
        jax.random.split(k)
        _raises_reuse("Previously-consumed key passed to random_split at index 0",
                      lambda: jax.random.split(k))
        k1, k2 = jax.random.split(jax.random.key(2))
        jax.random.normal(k1), jax.random.normal(k2)          # fresh keys: fine
        _raises_reuse("Previously-consumed key passed to jit-compiled function at index 0",
                      lambda: jax.random.normal(k1))
        k = jax.random.key(3)
        jax.random.fold_in(k, 1), jax.random.fold_in(k, 2)     # fold_in does not consume
        jax.random.uniform(k)
        k = jax.random.key(4)
        jax.random.uniform(jax.random.clone(k))                # the clone is consumed
        jax.random.uniform(k)
        _raises_reuse("Previously-consumed key passed to jit-compiled function",
                      lambda: jax.random.uniform(k))
        k = jax.random.key(7)
        jax.random.key_data(k)                                 # reading the words: fine
        jax.random.uniform(k)
        ks = jax.random.split(jax.random.key(8), 3)
        jax.random.uniform(ks[0])
        _raises_reuse("Previously-consumed key", lambda: jax.random.uniform(ks[0]))
        jax.random.uniform(ks[1])                              # only ks[0] was used
        raw = jax.random.PRNGKey(0)                            # raw keys are not tracked
        jax.random.uniform(raw), jax.random.uniform(raw)
    k = jax.random.key(13)
    np.testing.assert_array_equal(jax.random.uniform(k), jax.random.uniform(k))   # off


def test_key_reuse_under_jit():
    def twice(k):
        return jax.random.uniform(k) + jax.random.uniform(k)

    def once(k):
        return jax.random.uniform(k)

    with jax.debug_key_reuse(True):
        _raises_reuse("In jit, argument 0 is already consumed.",
                      lambda: jax.jit(twice)(jax.random.key(5)))
        _raises_reuse("In jit, argument 0 is already consumed.",
                      lambda: jax.make_jaxpr(twice)(jax.random.key(9)))
        k = jax.random.key(6)
        jax.jit(once)(k)
        _raises_reuse("Previously-consumed key passed to jit-compiled function at index 0",
                      lambda: jax.jit(once)(k))
        _raises_reuse("Previously-consumed key passed to jit-compiled function at index 0",
                      lambda: jax.random.uniform(k))
        _raises_reuse("Previously-consumed key passed to jit-compiled function at index 0",
                      lambda: jax.vmap(twice)(jax.random.split(jax.random.key(10), 2)))
        # A key one branch consumes is consumed after the cond.
        _raises_reuse("In jit, argument 0 is already consumed.", lambda: jax.jit(
            lambda k, p: jax.lax.cond(p, lambda k: jax.random.uniform(k), lambda k: 0.0, k)
            + jax.random.uniform(k))(jax.random.key(11), True))
        jax.jit(lambda k, p: jax.lax.cond(p, jax.random.uniform, jax.random.normal, k))(
            jax.random.key(11), True)
        # A loop may not consume the same key on every iteration; a split carry is fine.
        _raises_reuse("scan body function leads to key reuse when repeatedly executed, "
                      "because key constants are repeatedly consumed:\n"
                      "  signature=KeyReuseSignature(Sink(0),)\n  eqn=a:f32[3] = scan[",
                      lambda: jax.jit(lambda k: jax.lax.scan(
                          lambda c, _: (c, jax.random.uniform(c)), k, None, length=3))(
                              jax.random.key(12)))
        out = jax.jit(lambda k: jax.lax.fori_loop(
            0, 3, lambda i, c: jax.random.split(c)[0], k))(jax.random.key(12))
        assert out.dtype == jax.random.key(0).dtype
    # Off again: the C++ fast path serves the same function.
    k = jax.random.key(6)
    assert jax.jit(once)(k) == jax.jit(once)(k)


def test_smap_axis_index_over_part_of_the_mesh(auto_mesh):
    """axis_index where the other mesh axes stay Auto: lowered, as in JAX, in a nested
    manual region over those axes (values printed by JAX 0.10.2)."""
    over_y = jax.smap(lambda a: a * jax.lax.axis_index("y"), in_axes=1, out_axes=1,
                      axis_name="y")
    over_x = jax.smap(lambda a: a + jax.lax.axis_index("x"), in_axes=0, out_axes=0,
                      axis_name="x")
    with jax.set_mesh(auto_mesh):
        want_y = X * np.array([0., 1.])
        np.testing.assert_array_equal(over_y(X), want_y)
        np.testing.assert_array_equal(jax.jit(over_y)(X), want_y)
        np.testing.assert_array_equal(over_x(X), X + np.repeat(np.arange(4.), 2)[:, None])
        text = jax.jit(over_y).lower(X).as_text()
    assert ('sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] '
            'manual_axes={"x"} () {') in text


# -- custom_derivatives.remat_opt_p (custom_vjp with optimize_remat=True) -------------------

def _remat_opt_f():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (c * g,),
             optimize_remat=True)
    return f


REMAT_OPT_EQN = """\
    b:f32[] c:f32[] = remat_opt[
      fun_jaxpr_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
      fwd_jaxpr={ lambda ; d:f32[]. let
          e:f32[] = sin d
          f:f32[] = cos d
        in (f, e) }
      num_consts=0
      num_res=1
    ] a"""


def test_remat_opt_jaxprs():
    f = _remat_opt_f()
    assert jax.custom_derivatives.remat_opt_p.name == "remat_opt"
    assert str(jax.make_jaxpr(jax.grad(lambda x: f(x) * 2))(1.)) == (
        "{ lambda ; a:f32[]. let\n" + REMAT_OPT_EQN + """
    _:f32[] = mul c 2.0:f32[]
    g:f32[] = mul 1.0:f32[] 2.0:f32[]
    h:f32[] = mul b g
  in (h,) }""")
    assert str(jax.make_jaxpr(lambda x: jax.linearize(f, x)[0])(1.)) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] = remat_opt[
      fun_jaxpr_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
      fwd_jaxpr={ lambda ; c:f32[]. let
          d:f32[] = sin c
          e:f32[] = cos c
        in (e, d) }
      num_consts=0
      num_res=1
    ] a
  in (b,) }"""
    # Under checkpoint the recomputed forward pass only needs the output: the function
    # itself is called (JAX prints closed_call[call_jaxpr=...]; glassjax's closed_call is
    # a jit of that name), and the residual-computing rule is pruned to the cosine.
    text = str(jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: f(x) * 2)))(1.))
    assert "name=closed_call\n      jaxpr={ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }" \
        in text
    assert "fwd_jaxpr={ lambda ; g:f32[]. let h:f32[] = cos g in (h,) }" in text


def test_remat_opt_values_and_transformations():
    @jax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    f.defvjp(lambda x, y: (jnp.sin(x) * y, (jnp.cos(x), y, jnp.sin(x))),
             lambda res, g: (res[0] * res[1] * g, res[2] * g), optimize_remat=True)
    loss = lambda x, y: jnp.sum(f(x, y) ** 2)
    x, y = jnp.linspace(0., 1., 5), jnp.arange(5.)
    want_x = 2 * np.sin(x) * np.asarray(y) ** 2 * np.cos(x)
    want_y = 2 * np.sin(x) ** 2 * np.asarray(y)
    for grad in (jax.grad(loss, (0, 1)), jax.jit(jax.grad(loss, (0, 1))),
                 jax.grad(jax.checkpoint(loss), (0, 1))):
        gx, gy = grad(x, y)
        np.testing.assert_allclose(gx, want_x, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gy, want_y, rtol=1e-5, atol=1e-6)
    batched = jax.vmap(jax.grad(loss))(jnp.stack([x, x + 1]), jnp.stack([y, y]))
    np.testing.assert_allclose(batched[1], jax.grad(loss)(x + 1, y), rtol=1e-6)
    # Forward over reverse uses remat_opt's JVP (JAX 0.10.2's values).
    _, tangent = jax.jvp(jax.grad(loss), (x, y), (x, y))
    np.testing.assert_allclose(tangent, [0., 1.3976424, 8.892977, 18.909859, 15.780817],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="Linearization failed to produce known values"):
        jax.grad(lambda x: jax.grad(loss)(x, y).sum())(x)
