"""Sharding in types, primitive by primitive: which splits an operation keeps, which it
refuses (JAX's ShardingTypeError texts), and that control flow, ``grad`` and creation
functions carry the splits. Expected texts were printed by JAX 0.10.2; values are
checked against NumPy."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax

P = jax.P
_AMESH = ("AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), device_kind=cpu, "
          "num_cores=None, platform=cpu)")
_A = np.arange(32.).reshape(8, 4)


def _ns(spec):
    return f"NamedSharding(mesh={_AMESH}, spec={spec})"


@pytest.fixture
def mesh():
    with jax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y'))) as m:
        yield m


def _x(spec=('X', 'Y')):
    return jax.device_put(jnp.asarray(_A), P(*spec))


def _refused(f, message):
    with pytest.raises(jax.core.ShardingTypeError) as info:
        f()
    assert str(info.value) == message


def test_concatenate_and_stack_need_operands_split_alike(mesh):
    x = _x()
    both = jnp.concatenate([x, x], 0)
    assert str(jax.typeof(both)) == "float32[16@X,4@Y]"
    np.testing.assert_array_equal(both, np.concatenate([_A, _A]))
    assert str(jax.make_jaxpr(lambda x: jnp.concatenate([x, x], 1))(x)) == (
        "{ lambda ; a:f32[8@X,4@Y]. let\n"
        "    b:f32[8@X,8@Y] = concatenate[dimension=1] a a\n  in (b,) }")
    assert str(jax.make_jaxpr(lambda x: jnp.stack([x, x]))(x)) == (
        "{ lambda ; a:f32[8@X,4@Y]. let b:f32[2,8@X,4@Y] = stack[axis=0] a a in (b,) }")
    _refused(lambda: jnp.concatenate([x, jnp.ones((8, 4))], 1),
             "All operands should have the same sharding. Got shardings "
             f"{_ns(P('X', 'Y'))}, {_ns(P(None, None))}")
    _refused(lambda: jnp.stack([x, _x(('X', None))]),
             "All operands should have the same sharding. Got shardings "
             f"{_ns(P('X', 'Y'))}, {_ns(P('X', None))}")


def test_sorting_and_scanning_need_their_dimension_whole(mesh):
    x, xr = _x(), _x(('X', None))
    _refused(lambda: jnp.cumsum(x, 0), "Input should be unsharded over the axis being "
             "reduced. Got input type=float32[8@X,4@Y] and axis=0")
    _refused(lambda: lax.sort([x, jnp.ones((8, 4))], dimension=0),
             "Arguments to sort must be unsharded over the sorting dimension. Got arg "
             f"sharding={_ns(P('X', 'Y'))} and sorting dimension=0")
    _refused(lambda: lax.sort([xr, jnp.ones((8, 4))], dimension=1),
             f"Arguments to sort must have equal shardings, got: {_ns(P('X', None))} "
             f"{_ns(P(None, None))}")
    _refused(lambda: lax.top_k(x, 2), "The input should be unsharded over the axis along "
             "which to compute the top_k values. Got input type=float32[8@X,4@Y] and "
             "axis=1")
    c = jnp.cumsum(xr, 1)
    assert str(jax.typeof(c)) == "float32[8@X,4]"
    np.testing.assert_allclose(c, np.cumsum(_A, 1))
    s = jnp.sort(-xr, 1)
    assert str(jax.typeof(s)) == "float32[8@X,4]"
    np.testing.assert_array_equal(s, np.sort(-_A, 1))
    assert str(jax.make_jaxpr(lambda x: lax.top_k(x, 2))(xr)) == (
        "{ lambda ; a:f32[8@X,4]. let\n"
        "    b:f32[8@X,2] c:i32[8@X,2] = top_k[axis=1 k=2] a\n  in (b, c) }")


def test_updates_selects_and_windows(mesh):
    x, xr = _x(), _x(('X', None))
    _refused(lambda: lax.dynamic_update_slice(x, jnp.ones((2, 2)), (0, 0)),
             "dynamic_update_slice operand sharding must be equal to update sharding, got "
             "operand sharding float32[8@X,4@Y]({Explicit: ('X', 'Y')}) and update "
             "sharding float32[2,2]({Explicit: ('X', 'Y')}).")
    u = lax.dynamic_update_slice(x, x * 0, (0, 0))
    assert str(jax.typeof(u)) == "float32[8@X,4@Y]"
    _refused(lambda: lax.select_n(jnp.ones((8, 4), bool), x, xr),
             f"select cases must have the same shardings, got [{_ns(P('X', 'Y'))}, "
             f"{_ns(P('X', None))}].")
    _refused(lambda: lax.select_n(jnp.ones((8, 4), bool), x, x),
             "select `which` must be scalar or have the same sharding as cases, got `which` "
             f"sharding {_ns(P(None, None))} but case sharding {_ns(P('X', 'Y'))}.")
    w = jnp.where(x > 10, x, 0.)
    assert str(jax.typeof(w)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(w, np.where(_A > 10, _A, 0.))
    t = jnp.triu(x)
    assert str(jax.typeof(t)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(t, np.triu(_A))
    r = lax.reduce_window(x, 0., lax.add, (1, 2), (1, 2), 'VALID')
    assert str(jax.typeof(r)) == "float32[8@X,2@Y]"
    np.testing.assert_array_equal(r, _A.reshape(8, 2, 2).sum(2))
    assert str(jax.typeof(lax.reduce_precision(x, 5, 10))) == "float32[8@X,4@Y]"


def test_a_convolution_keeps_the_input_split_over_a_whole_kernel(mesh):
    x = _x()
    assert str(jax.make_jaxpr(lambda x: lax.conv_general_dilated(
        x[None, None], jnp.ones((1, 1, 3, 3)), (1, 1), 'SAME'))(x)) == """\
{ lambda ; a:f32[8@X,4@Y]. let
    b:f32[1,1,8@X,4@Y] = broadcast_in_dim[broadcast_dimensions=(2, 3)] a
    c:f32[1,1,3,3] = broadcast_in_dim 1.0:f32[]
    d:f32[1,1,8@X,4@Y] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] b c
  in (d,) }"""
    kernel = jax.device_put(jnp.ones((1, 1, 4, 2)), P(None, None, 'X'))
    _refused(lambda: lax.conv_general_dilated(x[None, None], kernel, (1, 1), 'SAME'),
             "Please specify the output sharding via `out_sharding` parameter of "
             "`conv_general_dilated`")


def test_creation_with_out_sharding(mesh):
    assert str(jax.make_jaxpr(lambda: jnp.arange(8, out_sharding=P('X')))()) == f"""\
{{ lambda ; . let
    a:i32[8@X] = iota[
      dimension=0
      dtype=int32
      shape=(8,)
      sharding={_ns(P('X'))}
    ] 
  in (a,) }}"""
    assert str(jax.make_jaxpr(lambda: jnp.zeros((8, 4), out_sharding=P('X')))()) == (
        "{ lambda ; . let a:f32[8@X,4] = broadcast_in_dim 0.0:f32[] in (a,) }")
    for made, expected in [(jnp.arange(8, out_sharding=P('X')), np.arange(8)),
                           (jnp.arange(1, 9, 1, out_sharding=P('X')), np.arange(1, 9)),
                           (jax.jit(lambda: jnp.arange(8, out_sharding=P('X')))(),
                            np.arange(8)),
                           (jnp.ones((8, 4), out_sharding=P('X')), np.ones((8, 4))),
                           (lax.broadcasted_iota(jnp.int32, (8, 4), 0,
                                                 out_sharding=P('X', 'Y')),
                            np.arange(8)[:, None] + np.zeros((8, 4), int))]:
        np.testing.assert_array_equal(made, expected)
        spec = P('X', 'Y') if made.shape == (8, 4) and made.dtype == np.int32 else \
            P('X', None) if made.ndim == 2 else P('X')
        assert made.sharding == jax.NamedSharding(mesh, spec)
    z = jnp.zeros_like(_x())
    assert str(jax.typeof(z)) == "float32[8@X,4@Y]"
    assert z.sharding == jax.NamedSharding(mesh, P('X', 'Y'))


def test_control_flow_carries_keep_their_splits(mesh):
    x = _x()
    assert str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2, x))(x)) \
        .splitlines()[1] == "    _:i32[] b:f32[8@X,4@Y] = scan["
    y = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2), (0, x))[1]
    assert str(jax.typeof(y)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(y, _A * 8)
    rows = _x((None, 'Y'))
    c, ys = lax.scan(lambda c, r: (c + r, c * 2), jax.device_put(jnp.ones(4), P('Y')), rows)
    assert (str(jax.typeof(c)), str(jax.typeof(ys))) == ("float32[4@Y]", "float32[8,4@Y]")
    np.testing.assert_array_equal(c, _A.sum(0) + 1)
    np.testing.assert_array_equal(ys[1], (_A[0] + 1) * 2)
    with pytest.raises(TypeError) as info:
        lax.cond(True, lambda x: jax.reshard(x, P()), lambda x: x, x)
    assert "The output of true_fun has type float32[8,4] but the corresponding output of " \
           "false_fun has type float32[8@X,4@Y]." in str(info.value)
    with pytest.raises(TypeError) as info:
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jax.reshard(c[1], P())),
                       (0, x))
    assert "The input carry component c[1] has type float32[8@X,4@Y] but the " \
           "corresponding output carry component has type float32[8,4]." in str(info.value)
    with pytest.raises(ValueError) as info:
        lax.scan(lambda c, r: (c + r, c), jnp.zeros(4), x)
    assert str(info.value) == "0th dimension of all xs should be replicated. Got P('X', 'Y')"


def test_grad_starts_from_a_resharded_seed(mesh):
    f = lambda x: (jnp.sin(x) ** 2).sum()
    assert str(jax.make_jaxpr(jax.grad(f))(jax.device_put(jnp.ones(8), P('X')))) == """\
{ lambda ; a:f32[8@X]. let
    b:f32[8@X] = sin a
    c:f32[8@X] = cos a
    d:f32[8@X] = integer_pow[y=2] b
    e:f32[8@X] = mul 2.0:f32[] b
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
    f:f32[] = reshard 1.0:f32[]
    g:f32[8@X] = broadcast_in_dim f
    h:f32[8@X] = mul g e
    i:f32[8@X] = mul h c
  in (i,) }"""
    g = jax.grad(f)(_x())
    assert str(jax.typeof(g)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(g, np.sin(2 * _A), rtol=1e-5, atol=1e-5)


def test_jit_equations_record_the_mesh_and_the_layouts_asked_for():
    """``ctx_mesh`` is the mesh of ``set_mesh`` (any axis types; not the old ``with
    mesh:``); ``in_shardings``/``out_shardings`` list one entry per flat input/output."""
    m = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    text = "Mesh('X': 4, 'Y': 2, axis_types=(Auto, Auto))"
    split = f"NamedSharding(mesh={text}, spec=P('X',), memory_kind=device)"
    with m:
        assert "ctx_mesh" not in str(jax.make_jaxpr(jax.jit(lambda x: x * 2))(jnp.ones(4)))
    with jax.set_mesh(m):
        f = jax.jit(lambda x, y: (x * 2, y), in_shardings=(jax.NamedSharding(m, P('X')),
                                                            None))
        assert str(jax.make_jaxpr(f)(jnp.ones(4), jnp.ones(3))) == f"""\
{{ lambda ; a:f32[4] b:f32[3]. let
    c:f32[4] d:f32[3] = jit[
      name=<lambda>
      ctx_mesh={text}
      in_shardings=({split}, UnspecifiedValue)
      jaxpr={{ lambda ; a:f32[4] b:f32[3]. let
          c:f32[4] = mul a 2.0:f32[]
        in (c, b) }}
    ] a b
  in (c, d) }}"""
        f = jax.jit(lambda x, y: (x * 2, y), out_shardings=(jax.NamedSharding(m, P('X')),
                                                             None))
        assert f"      out_shardings=({split}, UnspecifiedValue)\n" in str(
            jax.make_jaxpr(f)(jnp.ones(4), jnp.ones(3)))
        f = jax.jit(lambda x, y: (x * 2, y), in_shardings=P('X'))
        assert f"      in_shardings=({split}, {split})\n" in str(
            jax.make_jaxpr(f)(jnp.ones(4), {'a': jnp.ones(4)}))
    f = jax.jit(lambda x: x * 2, in_shardings=jax.NamedSharding(m, P('X')))
    assert str(jax.make_jaxpr(f)(jnp.ones(4))) == f"""\
{{ lambda ; a:f32[4]. let
    b:f32[4] = jit[
      name=<lambda>
      in_shardings=({split},)
      jaxpr={{ lambda ; a:f32[4]. let b:f32[4] = mul a 2.0:f32[] in (b,) }}
    ] a
  in (b,) }}"""


def test_indexing_gathers_and_scatters_keep_or_refuse_splits(mesh):
    """A gather keeps the splits of the dimensions it does not index into; indexing a
    split dimension (or updating one) is JAX's error asking for ``out_sharding``."""
    x, xr = _x(), _x(('X', None))
    idx = jnp.array([0, 2, 1])
    _refused(lambda: x[idx], "Use `.at[...].get(out_sharding=)` to provide output "
             "PartitionSpec for the gather indexing as out sharding could not be resolved "
             "unambiguously (or would require collectives on inputs). Got "
             "operand=ShapedArray(float32[8@X,4@Y]), indices=ShapedArray(int32[3,1])")
    cols = xr[:, idx]
    assert str(jax.typeof(cols)) == "float32[8@X,3]"
    np.testing.assert_array_equal(cols, _A[:, [0, 2, 1]])
    picked = jnp.take_along_axis(xr, jnp.zeros((8, 2), jnp.int32), axis=1)
    assert str(jax.typeof(picked)) == "float32[8@X,2]"
    np.testing.assert_array_equal(picked, _A[:, :1].repeat(2, 1))
    _refused(lambda: x.at[idx].set(1.),
             "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec "
             "for the scatter update as out sharding could not be resolved unambiguously "
             "(or would require collectives on inputs). Got "
             "operand=ShapedArray(float32[8@X,4@Y]), indices=ShapedArray(int32[3,1]), "
             "updates=ShapedArray(float32[3,4@Y])")
    _refused(lambda: x.at[:, 1].add(1.),
             "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec "
             "for the scatter update as out sharding could not be resolved unambiguously "
             "(or would require collectives on inputs). Got "
             "operand=ShapedArray(float32[8@X,4@Y]), indices=ShapedArray(int32[1]), "
             "updates=ShapedArray(float32[8@X])")
    added = xr.at[:, 1].add(1.)
    assert str(jax.typeof(added)) == "float32[8@X,4]"
    expected = _A.copy()
    expected[:, 1] += 1
    np.testing.assert_array_equal(added, expected)
    v = jax.device_put(jnp.arange(8.), P('X'))
    assert str(jax.make_jaxpr(lambda v: jax.nn.one_hot(v.astype(int), 4))(v)) == f"""\
{{ lambda ; a:f32[8@X]. let
    b:i32[8@X] = convert_element_type[new_dtype=int32 weak_type=False] a
    c:f32[8@X,4] = jit[
      name=_one_hot
      ctx_mesh=Mesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit))
      jaxpr={{ lambda ; b:i32[8@X]. let
          d:i32[8@X,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b
          e:i32[1,4] = iota[
            dimension=1
            dtype=int32
            shape=(1, 4)
            sharding={_ns(P(None, None))}
          ] 
          f:bool[8@X,4] = eq d e
          c:f32[8@X,4] = convert_element_type[new_dtype=float32 weak_type=False] f
        in (c,) }}
    ] b
  in (c,) }}"""
    np.testing.assert_array_equal(jax.nn.one_hot(v.astype(int) % 4, 4),
                                  np.eye(4)[np.arange(8) % 4])


def test_shard_map_without_mesh_records_the_context_abstract_mesh(mesh):
    """``shard_map`` given no ``mesh=`` names the AbstractMesh of ``set_mesh`` in its
    equation (as JAX does); it runs on that mesh's devices, eagerly, under ``jit``,
    ``grad`` and ``vmap`` (whose elements keep their splits)."""
    x = _x()
    f = jax.shard_map(lambda x: x * 2, out_specs=P('X', 'Y'))
    assert str(jax.make_jaxpr(f)(x)) == f"""\
{{ lambda ; a:f32[8@X,4@Y]. let
    b:f32[8@X,4@Y] = shard_map[
      check_vma=True
      in_specs=(P('X', 'Y'),)
      jaxpr={{ lambda ; c:f32[2,2]{{V:(X,Y)}}. let
          d:f32[]{{V:(X,Y)}} = pvary[axes=('X', 'Y')] 2.0:f32[]
          e:f32[2,2]{{V:(X,Y)}} = mul c d
        in (e,) }}
      mesh={_AMESH}
      newly_manual_axes=frozenset({{'X', 'Y'}})
      out_specs=(P('X', 'Y'),)
    ] a
  in (b,) }}"""
    np.testing.assert_array_equal(f(x), 2 * _A)
    y = jax.jit(f)(x)
    assert y.sharding == jax.NamedSharding(mesh, P('X', 'Y'))
    np.testing.assert_array_equal(y, 2 * _A)
    g = jax.jit(jax.grad(lambda x: f(x).sum()))(x)
    assert str(jax.typeof(g)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(g, np.full((8, 4), 2.))
    np.testing.assert_array_equal(jax.vmap(f)(jnp.stack([x, x])), np.stack([2 * _A] * 2))


def test_tiles_factorizations_samplers_and_vmap(mesh):
    x = _x()
    _refused(lambda: jnp.tile(x, (1, 2)), "Operand cannot be sharded on dimension 1 when "
             "the tiling is non-trivial. Got input type: float32[8@X,4@Y] with reps: (1, 2)")
    t = jnp.tile(_x(('X', None)), (1, 2))
    assert str(jax.typeof(t)) == "float32[8@X,8]"
    np.testing.assert_array_equal(t, np.tile(_A, (1, 2)))
    s = jax.nn.softmax(x)
    assert str(jax.typeof(s)) == "float32[8@X,4@Y]"
    np.testing.assert_allclose(s, np.exp(_A) / np.exp(_A).sum(1, keepdims=True), rtol=1e-5)
    _refused(lambda: lax.linalg.cholesky(jax.device_put(jnp.eye(4) * 4., P('X')),
                                         symmetrize_input=False),
             "Input 0 to cholesky must be unsharded on non-batch dimensions, but got "
             "P('X', None).")
    batch = jax.device_put(jnp.eye(4)[None].repeat(8, 0) * 4., P('X'))
    vectors, values = lax.linalg.eigh(batch)
    assert [str(jax.typeof(o)) for o in (vectors, values)] == ["float32[8@X,4,4]",
                                                               "float32[8@X,4]"]
    np.testing.assert_allclose(values, np.full((8, 4), 4.))
    solved = lax.linalg.triangular_solve(batch, jax.device_put(jnp.ones((8, 4, 4)), P('X')))
    assert str(jax.typeof(solved)) == "float32[8@X,4,4]"
    np.testing.assert_allclose(solved, np.full((8, 4, 4), .25))
    _refused(lambda: lax.linalg.triangular_solve(batch, jnp.ones((8, 4, 4))),
             "All inputs to triangular_solve must have the same batch sharding, but got "
             "('X',) and (None,).")
    with pytest.raises(ValueError) as info:
        jax.vmap(lambda a, b: a + b)(x, jnp.ones((8, 4)))
    assert str(info.value) == ("Mapped away dimension of inputs passed to vmap should be "
                               "sharded the same. Got inconsistent axis specs: X vs None")
    text = str(jax.make_jaxpr(lambda x: x + jax.random.normal(
        jax.random.key(0), (8, 4), out_sharding=P('X', 'Y')))(x)).splitlines()
    assert text[-6:] == ["          ] q", "        in (r,) }", "    ] q",
                         "    u:f32[8@X,4@Y] = reshard r", "    v:f32[8@X,4@Y] = add o u",
                         "  in (v,) }"]
    assert "    q:key<fry>[] = reshard p" in text


@pytest.mark.parametrize("shape,spec,new_sizes,expected", [
    ((8, 4), ('X', 'Y'), (32,), "float32[32@(X,Y)]"),
    ((8, 4), ('X', None), (4, 2, 4), "float32[4@X,2,4]"),
    ((8, 4), ('X', None), (32,), "float32[32@X]"),
    ((8, 4), ('X', 'Y'), (1, 8, 4, 1), "float32[1,8@X,4@Y,1]"),
    ((8, 1, 4), ('X', None, 'Y'), (8, 4), "float32[8@X,4@Y]"),
    ((16, 4), (('X', 'Y'), None), (8, 2, 4), "float32[8@(X,Y),2,4]"),
    ((16, 4), (('X', 'Y'), None), (4, 4, 4), "float32[4@X,4@Y,4]"),
    ((8, 4, 2), ('X', None, None), (8, 8), "float32[8@X,8]"),
    ((8, 4), ('X', 'Y'), (4, 8), None),
    ((8, 4), ('X', None), (2, 4, 4), None),
    ((8, 4), (None, 'Y'), (32,), None),
    ((4, 8), (None, 'X'), (32,), None),
])
def test_reshapes_deal_mesh_axes_to_the_new_dimensions(mesh, shape, spec, new_sizes,
                                                       expected):
    x = jax.device_put(jnp.arange(np.prod(shape), dtype=jnp.float32).reshape(shape),
                       P(*spec))
    if expected is None:
        _refused(lambda: x.reshape(new_sizes), "This reshape is not supported. Please "
                 "specify the sharding of the output via the `out_sharding` argument of "
                 f"jax.lax.reshape. Got operand type: {jax.typeof(x)}, new sizes: "
                 f"{new_sizes}")
    else:
        y = x.reshape(new_sizes)
        assert str(jax.typeof(y)) == expected
        np.testing.assert_array_equal(y, np.arange(np.prod(shape)).reshape(new_sizes))


def test_gradients_through_sorts_gathers_and_scatters_keep_the_splits(mesh):
    xr = _x(('X', None))
    idx = jnp.array([0, 2, 1])
    # (JAX's sort JVP sorts an unsplit iota along: refused, in JAX too)
    _refused(lambda: jax.grad(lambda x: jnp.sort(x, 1).sum())(xr),
             f"Arguments to sort must have equal shardings, got: {_ns(P('X', None))} "
             f"{_ns(P(None, None))}")
    for f, expected in [
            (lambda x: x[:, idx].sum(), np.ones((8, 4)) * [1, 1, 1, 0]),
            (lambda x: (x.at[:, 1].set(0.) ** 2).sum(), 2 * _A * [1, 0, 1, 1]),
            (lambda x: jnp.cumsum(x, 1).sum(), np.ones((8, 4)) * [4, 3, 2, 1])]:
        g = jax.grad(f)(xr)
        assert str(jax.typeof(g)) == "float32[8@X,4]"
        np.testing.assert_allclose(g, expected)
    order = jnp.argsort(-xr, 1)
    assert str(jax.typeof(order)) == "int32[8@X,4]"
    np.testing.assert_array_equal(order, np.argsort(-_A, 1))


def test_at_get_and_set_take_out_sharding(mesh):
    """JAX's ``auto_axes`` around the indexing: operand, values and index arrays made
    whole, the gather/scatter done there, the result resharded as asked."""
    x = _x()
    idx = jnp.array([0, 2, 1])
    assert str(jax.make_jaxpr(lambda x: x.at[idx].get(out_sharding=P(None, 'Y')))(x)) == """\
{ lambda a:i32[3]; b:f32[8@X,4@Y]. let
    c:f32[8,4] = reshard b
    d:i32[3] = reshard a
    e:bool[3] = lt d 0:i32[]
    f:i32[3] = add d 8:i32[]
    g:i32[3] = select_n e d f
    h:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g
    i:f32[3,4] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1, 4)
      unique_indices=False
    ] c h
    j:f32[3,4@Y] = reshard i
  in (j,) }"""
    rows = x.at[idx].get(out_sharding=P(None, 'Y'))
    assert str(jax.typeof(rows)) == "float32[3,4@Y]"
    np.testing.assert_array_equal(rows, _A[[0, 2, 1]])
    updated = x.at[idx].set(1., out_sharding=P('X', 'Y'))
    assert str(jax.typeof(updated)) == "float32[8@X,4@Y]"
    expected = _A.copy()
    expected[[0, 2, 1]] = 1.
    np.testing.assert_array_equal(updated, expected)
    assert "    d:f32[] = reshard 1.0:f32[]\n" in str(jax.make_jaxpr(
        lambda x: x.at[idx].add(1., out_sharding=P('X', 'Y')))(x))
