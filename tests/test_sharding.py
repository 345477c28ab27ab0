"""Shardings, SPMD jit and shard_map: layouts against NumPy slicing, sharded jit against
single-device jit, jaxprs and lowered text against what JAX 0.10.2 prints, gradients
against finite differences. (8 CPU devices, see conftest.py.)"""
import re

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.named_sharding import IndivisibleError
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P
from glassjax.test_util import check_grads

SPECS = [P('x'), P(None, 'y'), P('y', 'x'), P(('x', 'y')), P(), P('x', 'y'), P(None, 'x')]


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


@pytest.fixture(scope="module")
def a():
    return np.arange(64.0, dtype=np.float32).reshape(8, 8)


def _block(mesh, spec, device, value):
    """The block of ``value`` that ``device`` holds, computed independently with NumPy."""
    position = dict(zip(mesh.axis_names, np.argwhere(mesh.devices == device)[0]))
    block = value
    for dim, entry in enumerate(list(spec) + [None] * (value.ndim - len(spec))):
        axes = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
        n, k = 1, 0
        for name in axes:
            n, k = n * mesh.shape[name], k * mesh.shape[name] + position[name]
        size = value.shape[dim] // n
        block = np.take(block, range(k * size, (k + 1) * size), axis=dim)
    return block


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_device_put_lays_out_blocks(mesh, a, spec):
    x = jax.device_put(a, NamedSharding(mesh, spec))
    assert x.sharding == NamedSharding(mesh, spec)
    np.testing.assert_array_equal(np.asarray(x), a)
    shards = x.addressable_shards
    assert len(shards) == 8
    for shard in shards:
        np.testing.assert_array_equal(shard.data, _block(mesh, spec, shard.device, a))
        np.testing.assert_array_equal(a[shard.index], shard.data)
    assert x.is_fully_replicated == (spec == P())


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_jit_over_sharded_inputs_equals_single_device(mesh, a, spec):
    x = jax.device_put(a, NamedSharding(mesh, spec))
    for f in (lambda v: jnp.sin(v) * 2 + v.T, lambda v: (v @ v).sum(0), jnp.cumsum):
        np.testing.assert_allclose(jax.jit(f)(x), jax.jit(f)(a), rtol=1e-5)


def test_named_sharding_repr_and_equality(mesh):
    s = NamedSharding(mesh, P('x'))
    assert repr(s) == ("NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), "
                       "spec=P('x',), memory_kind=device)")
    assert s == NamedSharding(mesh, P('x')) and hash(s) == hash(NamedSharding(mesh, P('x')))
    assert s != NamedSharding(mesh, P('x', None))      # other spec, as in JAX
    assert s != NamedSharding(mesh, P('y'))
    assert isinstance(s, NamedSharding) and isinstance(s, jax.sharding.Sharding)
    with pytest.raises(ValueError, match="not found in mesh"):
        NamedSharding(mesh, P('z'))
    from glassjax.named_sharding import DuplicateSpecError
    with pytest.raises(DuplicateSpecError, match="duplicate entries for `x`"):
        NamedSharding(mesh, P('x', 'x'))
    with pytest.raises(ValueError, match="only valid for values of rank at least 3, but "
                                         "was applied to a value of rank 1"):
        jax.device_put(np.ones(6), NamedSharding(mesh, P('x', 'y', None)))
    tree = jax.device_put({'u': np.ones((8, 2)), 'v': np.ones(3)},
                          {'u': NamedSharding(mesh, P('x')), 'v': NamedSharding(mesh, P())})
    assert tree['u'].sharding.spec == P('x') and tree['v'].sharding.spec == P()
    with pytest.raises(IndivisibleError, match="partitioned 4 times, but the dimension "
                                               "size is 6"):
        jax.device_put(np.ones(6), NamedSharding(mesh, P('x')))


def test_results_are_named_over_the_mesh(mesh, a):
    x = jax.device_put(a, NamedSharding(mesh, P('x')))
    assert jax.jit(lambda v: v + 1)(x).sharding == NamedSharding(mesh, P('x'))
    assert jax.jit(lambda v: v.sum())(x).sharding == NamedSharding(mesh, P())


def test_in_and_out_shardings(mesh, a):
    f = jax.jit(lambda v: v * 2, in_shardings=NamedSharding(mesh, P('x')),
                out_shardings=NamedSharding(mesh, P(None, 'y')))
    for _ in range(2):                   # the Python path, then C++ dispatch
        out = f(a)
        assert out.sharding == NamedSharding(mesh, P(None, 'y'))
        np.testing.assert_array_equal(out, a * 2)
    g = jax.jit(lambda t: t["u"] + t["v"], in_shardings=({"u": NamedSharding(mesh, P('x')),
                                                          "v": None},))
    np.testing.assert_array_equal(g({"u": a, "v": a}), 2 * a)


def test_sharded_lowering_is_jaxs(mesh, a):
    x = jax.device_put(a[:, :4], NamedSharding(mesh, P('x')))
    text = jax.jit(lambda v: (v * 2).sum(0)).lower(x).as_text()
    assert text == """\
module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
"""


def test_with_sharding_constraint(mesh, a):
    x = jax.device_put(a, NamedSharding(mesh, P('x')))
    h = jax.jit(lambda v: lax.with_sharding_constraint(v * 2, NamedSharding(mesh,
                                                                            P(None, 'y'))))
    assert str(jax.make_jaxpr(h)(x)) == """\
{ lambda ; a:f32[8,8]. let
    b:f32[8,8] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[8,8]. let
          c:f32[8,8] = mul a 2.0:f32[]
          b:f32[8,8] = sharding_constraint[
            context_mesh=Mesh()
            layout=None
            sharding=NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), spec=P(None, 'y'), memory_kind=device)
            unconstrained_dims=frozenset({})
          ] c
        in (b,) }
    ] a
  in (b,) }"""
    out = h(x)
    assert out.sharding == NamedSharding(mesh, P(None, 'y'))
    np.testing.assert_array_equal(out, a * 2)
    assert "sdy.sharding_constraint %1 <@mesh, [{}, {\"y\"}]>" in h.lower(x).as_text()
    np.testing.assert_array_equal(jax.grad(lambda v: h(v).sum())(x), np.full(a.shape, 2.))
    batched = jax.vmap(lambda v: lax.with_sharding_constraint(v, NamedSharding(mesh,
                                                                               P('y'))))(a)
    np.testing.assert_array_equal(batched, a)
    with jax.set_mesh(mesh):
        out = jax.jit(lambda v: lax.with_sharding_constraint(v, P('x', 'y')))(a)
    assert out.sharding == NamedSharding(mesh, P('x', 'y'))


def test_device_put_sharded_then_compute():
    x = jax.device_put_sharded([jnp.ones(2) * i for i in range(4)], jax.devices()[:4])
    np.testing.assert_array_equal(x * 2, [[0., 0.], [2., 2.], [4., 4.], [6., 6.]])
    np.testing.assert_array_equal(jax.jit(lambda v: v.sum(1))(x), [0., 2., 4., 6.])


# -- shard_map ---------------------------------------------------------------------------

def test_shard_map_jaxpr_is_jaxs(mesh):
    g = jax.shard_map(lambda b: lax.psum(b, 'x') + lax.all_gather(b, 'y', tiled=True).sum()
                      + lax.axis_index('y'), mesh=mesh, in_specs=P('x', 'y'),
                      out_specs=P(None, 'y'), check_vma=False)
    assert str(jax.make_jaxpr(g)(jnp.zeros((8, 4)))) == """\
{ lambda ; a:f32[8,4]. let
    b:f32[2,4] = shard_map[
      check_vma=False
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2]. let
          d:f32[2,2] = psum[axes=('x',) axis_index_groups=None] c
          e:f32[4,2] = all_gather[
            all_gather_dimension=0
            axis_index_groups=None
            axis_name=('y',)
            axis_size=2
            tiled=True
          ] c
          f:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] e
          g:f32[2,2] = add d f
          h:i32[] = axis_index[axis_name=y] 
          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] h
          j:f32[2,2] = add g i
        in (j,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P(None, 'y'),)
    ] a
  in (b,) }"""


def test_shard_map_blocks_and_collectives_over_a_2d_mesh(mesh, a):
    x = a[:, :4]
    blocks = jax.shard_map(lambda b: b * 0 + lax.axis_index('x') * 10 + lax.axis_index('y'),
                           mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))(x)
    np.testing.assert_array_equal(blocks, np.kron(np.arange(4)[:, None] * 10 + np.arange(2),
                                                  np.ones((2, 2))))
    total = jax.shard_map(lambda b: lax.psum(b, 'x'), mesh=mesh, in_specs=P('x', 'y'),
                          out_specs=P('x', 'y'))(x)
    np.testing.assert_array_equal(total, np.tile(x.reshape(4, 2, 4).sum(0), (4, 1)))
    rows = jax.shard_map(lambda b: lax.all_gather(b, 'y', tiled=True, axis=1), mesh=mesh,
                         in_specs=P('x', 'y'), out_specs=P('x'), check_vma=False)(x)
    np.testing.assert_array_equal(rows, np.tile(x, (1, 1)))
    with pytest.raises(ValueError, match="not evenly divisible"):
        jax.shard_map(lambda b: b, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(
            np.ones(6))
    with pytest.raises(NameError, match="unbound axis name: z"):
        jax.shard_map(lambda b: lax.psum(b, 'z'), mesh=mesh, in_specs=P('x'),
                      out_specs=P('x'))(np.ones(8))


def test_check_vma_types_values_by_the_axes_they_vary_over(mesh, a):
    """check_vma=True (the default): as in JAX, block types carry the manual axes they
    vary over, operands are cast with pvary, a psum over an axis the value varies over is
    psum_invariant, and out_specs claiming replication are checked."""
    g = jax.shard_map(lambda b: lax.psum(b * 2, 'x'), mesh=mesh, in_specs=P('x', 'y'),
                      out_specs=P(None, 'y'))
    assert str(jax.make_jaxpr(g)(a[:, :4])) == """\
{ lambda ; a:f32[8,4]. let
    b:f32[2,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2]{V:(x,y)}. let
          d:f32[]{V:(x,y)} = pvary[axes=('x', 'y')] 2.0:f32[]
          e:f32[2,2]{V:(x,y)} = mul c d
          f:f32[2,2]{V:y} = psum_invariant[axes=('x',)] e
        in (f,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P(None, 'y'),)
    ] a
  in (b,) }"""
    np.testing.assert_array_equal(g(a[:, :4]), 2 * a[:, :4].reshape(4, 2, 4).sum(0))
    h = jax.shard_map(lambda b: jax.grad(lambda c: (c ** 2).sum())(b) + lax.axis_index('x'),
                      mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
    text = str(jax.make_jaxpr(h)(a))
    # grad's cotangent seed varies like the output before it is broadcast, as in JAX
    assert re.search(r"(\w+):f32\[\]\{V:\(x,y\)\} = pvary\[axes=\('x', 'y'\)\] 1\.0:f32\[\]\n"
                     r" *\w+:f32\[2,4\]\{V:\(x,y\)\} = broadcast_in_dim \1", text), text
    assert "axis_index[axis_name=x]" in text and "{V:x}" in text
    np.testing.assert_array_equal(h(a), 2 * a + np.repeat(np.arange(4.), 2)[:, None])
    with pytest.raises(ValueError, match="out_specs is P\\('x',\\) which implies that the "
                                         "corresponding output value is replicated across "
                                         "mesh axis 'y'"):
        jax.shard_map(lambda b: lax.all_gather(b, 'y', tiled=True), mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P('x'))(a)


def test_shard_map_gradients(mesh, a):
    x = a[:, :4] / 64
    f = jax.shard_map(lambda b: jnp.sin(b) * lax.psum(b * b, 'x'), mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P('x', 'y'), check_vma=False)
    check_grads(f, (x,), order=2, modes=["fwd", "rev"])
    g = jax.shard_map(lambda b, w: (b @ w).sum(keepdims=True), mesh=mesh,
                      in_specs=(P('x'), P()), out_specs=P('x'), check_vma=False)
    w = np.ones((4, 3), np.float32) / 3
    check_grads(g, (x, w), order=1, modes=["rev"])
    expected = jax.grad(lambda w: (x @ w).sum())(w)
    np.testing.assert_allclose(jax.grad(lambda w: g(x, w).sum())(w), expected, rtol=1e-5)


def test_experimental_shard_map_keeps_its_old_signature(mesh, a):
    """JAX 0.10.2 keeps the deprecated ``experimental.shard_map(f, mesh, in_specs,
    out_specs, check_rep=True)``: the same primitive, a DeprecationWarning."""
    with pytest.warns(DeprecationWarning, match="jax.experimental.shard_map is deprecated"):
        from glassjax.experimental.shard_map import shard_map
    f = shard_map(lambda b: lax.psum(b, 'x'), mesh, P('x'), P())
    np.testing.assert_array_equal(f(a), a.reshape(4, 2, 8).sum(0))
    g = shard_map(lambda b: b * 2, mesh, P('x'), P('x'), check_rep=False)
    assert str(jax.make_jaxpr(g)(a)) == str(jax.make_jaxpr(jax.shard_map(
        lambda b: b * 2, mesh=mesh, in_specs=P('x'), out_specs=P('x'), check_vma=False))(a))
    assert "check_vma=False" in str(jax.make_jaxpr(g)(a))


# -- meshes whose axes split a dimension out of order, tile grids, resharding ------------

def _auto(shape, names):
    return jax.make_mesh(shape, names, axis_types=(jax.sharding.AxisType.Auto,) * len(names))


def _check_pieces(x, value):
    """Every piece ``x`` holds is the slice of ``value`` its index says."""
    np.testing.assert_array_equal(np.asarray(x), value)
    for shard in x.addressable_shards:
        np.testing.assert_array_equal(shard.data, value[shard.index])


def test_eager_ops_on_axes_out_of_mesh_order():
    """P(('feats', 'batch')) over a ('batch', 'feats') mesh cuts rows in an order that is
    not the devices' order: results are named over the mesh as JAX names them, and an
    eager op on such a result runs (it once crashed XLA: a program compiled for whole
    arrays was handed pieces)."""
    a = np.arange(128 * 4.0, dtype=np.float32).reshape(128, 4)
    mesh = jax.make_mesh((4, 2), ('batch', 'feats'))          # Explicit axes
    c = jax.device_put(a, NamedSharding(mesh, P(('feats', 'batch'))))
    _check_pieces(c, a)
    for e, value in ((c == a, a == a), (c + 1, a + 1)):
        assert repr(e.sharding) == (
            "NamedSharding(mesh=Mesh('batch': 4, 'feats': 2, axis_types=(Explicit, "
            "Explicit)), spec=P(('feats', 'batch'), None), memory_kind=device)")
        _check_pieces(e, value)
    assert bool(jnp.all(c == a)) and float(jnp.sum(c)) == a.sum()
    auto = _auto((4, 2), ('batch', 'feats'))
    d = jax.device_put(a, NamedSharding(auto, P(('feats', 'batch'))))
    assert (d + 1).sharding.spec == P(('feats', 'batch'))   # the argument's, as JAX
    assert d.T.sharding.spec == P(None, ('feats', 'batch'))
    assert d.sum(0).sharding.spec == P()
    _check_pieces(d.T * 2, a.T * 2)


def test_tile_grid_shardings():
    """An array laid out by a bare tile grid (GSPMDSharding) computes like any other; its
    results are tile grids too, printed as JAX prints them."""
    a = np.arange(16 * 2.0, dtype=np.float32).reshape(16, 2)
    mesh = _auto((4, 2), ('batch', 'feats'))
    grid = jax.sharding.GSPMDSharding(
        mesh._flat_devices_tuple,
        NamedSharding(mesh, P(('feats', 'batch')))._to_xla_hlo_sharding(2))
    y = jax.device_put(a, grid)
    _check_pieces(y, a)
    assert [s.device.id for s in y.addressable_shards if s.index[0].start == 2] == [2]
    assert repr((y + 1).sharding) == \
        "GSPMDSharding({devices=[8,1]<=[4,2]T(1,0)}, memory_kind=device)"
    assert repr(y.T.sharding) == \
        "GSPMDSharding({devices=[1,8]<=[4,2]T(1,0)}, memory_kind=device)"
    _check_pieces(y.T + 1, a.T + 1)
    assert bool(jnp.all(y == a))
    np.testing.assert_array_equal(jax.jit(lambda v: v @ v.T)(y), a @ a.T)


def test_device_put_reshards_pieces():
    """Moving an array to another cut of the same devices re-cuts its data (it once only
    relabelled the pieces); moving it to a reversed device order moves the pieces."""
    a = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    mesh = _auto((4, 2), ('x', 'y'))
    x = jax.device_put(a, NamedSharding(mesh, P('x', 'y')))
    for spec in (P('y', 'x'), P(('y', 'x')), P(), P(None, 'x')):
        moved = jax.device_put(x, NamedSharding(mesh, spec))
        assert moved.sharding == NamedSharding(mesh, spec)
        _check_pieces(moved, a)
    flipped = Mesh(np.array(jax.devices()[::-1]).reshape(4, 2), ('x', 'y'))
    _check_pieces(jax.device_put(x, NamedSharding(flipped, P('x', 'y'))), a)
    _check_pieces(jax.device_put(x, NamedSharding(flipped, P('x', 'y'))) * 2, a * 2)


def test_an_argument_laid_out_otherwise_than_compiled_for_is_an_error():
    """XLA does not check the pieces it runs on; glassjax does, and raises instead of
    crashing."""
    from glassjax.xla import dispatch
    mesh = _auto((8,), ('x',))
    x = jax.device_put(np.ones((8, 2), np.float32), NamedSharding(mesh, P('x')))
    compiled, _ = dispatch._run_primitive(lax.neg_p, {}, (x,))
    compiled.check_layouts([x])
    wrong = jax.device_put(np.ones((8, 2), np.float32), NamedSharding(mesh, P()))
    with pytest.raises(RuntimeError, match="laid out as .* but the program was compiled"):
        compiled.check_layouts([wrong])


def test_partition_specs_over_the_current_mesh():
    """A bare PartitionSpec means a NamedSharding over the mesh of ``set_mesh``: in
    device_put and in the ``out_sharding`` of dot, matmul and einsum (on Explicit axes
    the result's spec has one entry per dimension, as its type does in JAX)."""
    with pytest.raises(ValueError, match="Please set a mesh via `jax.set_mesh` if a "
                                         "PartitionSpec is passed to device_put"):
        jax.device_put(np.ones(4), P('x'))
    mesh = jax.make_mesh((4, 2), ('x', 'y'))
    a = np.arange(8 * 16.0, dtype=np.float32).reshape(8, 16)
    b = np.arange(16 * 4.0, dtype=np.float32).reshape(16, 4)
    with jax.set_mesh(mesh):
        x, y = jax.device_put((a, b), (P('x', 'y'), P('y', None)))
        assert x.sharding == NamedSharding(mesh, P('x', 'y'))
        _check_pieces(y, b)
        for product in (lambda spec: jnp.dot(x, y, out_sharding=spec),
                        lambda spec: jnp.matmul(x, y, out_sharding=spec),
                        lambda spec: jnp.einsum('ij,jk->ik', x, y, out_sharding=spec)):
            for spec, typed in ((P('x'), P('x', None)), (P(None, 'y'), P(None, 'y'))):
                out = product(spec)
                assert out.sharding == NamedSharding(mesh, typed)
                np.testing.assert_allclose(out, a @ b, rtol=1e-6)
        out = jax.jit(lambda u, v: jnp.dot(u, v, out_sharding=P(None, 'y')))(x, y)
        assert out.sharding == NamedSharding(mesh, P(None, 'y'))
        np.testing.assert_allclose(out, a @ b, rtol=1e-6)


def test_shard_map_on_the_current_mesh_infers_in_specs():
    """Without ``mesh=``, shard_map runs over the mesh current when it is *called*;
    without ``in_specs``, over Explicit axes, each argument is cut as it is laid out (an
    unsharded one is whole on every device); in_specs that disagree with an argument's
    layout are JAX's error."""
    a = np.arange(8 * 16.0, dtype=np.float32).reshape(8, 16)
    b = np.arange(16 * 4.0, dtype=np.float32).reshape(16, 4)
    matmul = jax.shard_map(lambda u, v: lax.psum(u @ v, 'y'), out_specs=P('x', None))
    with pytest.raises(ValueError, match="The context mesh cannot be empty"):
        matmul(a, b)
    with jax.set_mesh(jax.make_mesh((4, 2), ('x', 'y'))):
        x, y = jax.device_put((a, b), (P('x', 'y'), P('y', None)))
        np.testing.assert_allclose(matmul(x, y), a @ b, rtol=1e-6)
        scaled = jax.shard_map(lambda u: u * lax.axis_size('x'), out_specs=P('x'))(b[:, 0])
        np.testing.assert_array_equal(scaled, np.tile(b[:, 0] * 4, 4))
        with pytest.raises(ValueError, match=r"in_specs passed to shard_map: P\('x',\) "
                                             r"does not match the specs of the input: "
                                             r"P\(None,\)"):
            jax.shard_map(lambda u: u, in_specs=P('x'), out_specs=P('x'))(b[:, 0])
    with jax.set_mesh(Mesh(np.array(jax.devices()), ('i',))):    # Auto axes
        with pytest.raises(TypeError, match="in_specs argument must be a pytree of "
                                            "`jax.sharding.PartitionSpec` instances, but "
                                            "it was `None`"):
            jax.shard_map(lambda u: u, out_specs=P())(b)


def test_eager_shard_map_runs_the_body_op_by_op(capsys):
    """Outside jit a shard_map body runs eagerly, as in JAX 0.10.2: ``print`` shows each
    device's block (JAX's text), types carry the axes values vary over, and every
    collective gives what the staged (jitted) shard_map gives."""
    mesh = Mesh(np.array(jax.devices()[:4]), ('i',))
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])

    def body(b):
        print(b)
        print(jax.typeof(lax.psum(b, 'i')))
        return (lax.psum_scatter(b, 'i', tiled=True), lax.all_gather(b, 'i', tiled=True),
                lax.ppermute(b, 'i', [(k, (k + 1) % 4) for k in range(4)]),
                lax.all_to_all(b, 'i', 0, 0, tiled=True), jnp.sin(b) * 2 + 1)
    f = jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i'))
    eager = f(x)
    assert capsys.readouterr().out == "".join(
        f"On cpu:{k} at mesh coordinates (i,) = ({k},):\n{x[4 * k:4 * k + 4]}\n\n"
        for k in range(4))[:-1] + "\nint32[4]\n"
    for got, want in zip(eager, jax.jit(f)(x)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(eager[0], x.reshape(4, 4).sum(0))
    np.testing.assert_array_equal(eager[2], np.roll(x, 4))
    with pytest.raises(ValueError, match="shard_map applied to the function "
                                         "'_rem_singleton' was given out_specs which "
                                         "require replication"):
        jax.shard_map(lambda b: b, mesh=mesh, in_specs=P('i'), out_specs=P())(x)


def test_meshes_over_devices_in_any_order():
    """A mesh listing the devices backwards, or two meshes over the same devices: eager
    ops, jit, in/out_shardings and shard_map compute NumPy's values, with JAX's
    result shardings; in_shardings never silently re-lay a committed array out."""
    a = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    rev = Mesh(np.array(jax.devices()[::-1]).reshape(4, 2), ('x', 'y'))
    x = jax.device_put(a, NamedSharding(rev, P('x', 'y')))
    assert (x * 2).sharding == NamedSharding(rev, P('x', 'y'))
    _check_pieces(x.T * 2, a.T * 2)
    np.testing.assert_allclose(jax.jit(lambda u, v: u @ v + 1)(x, a), a @ a + 1)
    g = jax.jit(lambda u: u * 2, in_shardings=NamedSharding(rev, P(None, 'x')),
                out_shardings=NamedSharding(rev, P('y')))
    out = g(a)
    assert out.sharding == NamedSharding(rev, P('y'))
    _check_pieces(out, a * 2)
    with pytest.raises(ValueError, match="Sharding passed to jit does not match the "
                                         "sharding on the respective arg"):
        g(x)
    s = jax.jit(jax.shard_map(lambda b: lax.psum(b, 'x'), mesh=rev, in_specs=P('x', 'y'),
                              out_specs=P(None, 'y')))(x)
    _check_pieces(s, a.reshape(4, 2, 8).sum(0))
    assert [shard.device.id for shard in s.addressable_shards][:2] == [7, 6]
    m = _auto((2, 4), ('a', 'b'))
    y = jax.device_put(a, NamedSharding(m, P('b', 'a')))
    v = jax.device_put(a, NamedSharding(_auto((8,), ('d',)), P(None, 'd')))
    both = y + v
    assert both.sharding == NamedSharding(m, P(None, ('a', 'b')))
    _check_pieces(both, 2 * a)
    assert bool(jnp.all(both == 2 * a))


def test_typed_keys_cross_shard_map_boundaries():
    """Typed PRNG keys split over devices enter and leave shard_maps (their words are a
    trailing axis XLA sees, never split); every value of an eager body crosses one."""
    mesh = Mesh(np.array(jax.devices()[:4]), ('i',))
    keys = jax.random.split(jax.random.key(0), 4)
    draw = jax.shard_map(lambda k: jax.random.uniform(k[0], (1,)), mesh=mesh,
                         in_specs=P('i'), out_specs=P('i'))
    expected = jax.vmap(lambda k: jax.random.uniform(k, (1,)))(keys).ravel()
    np.testing.assert_array_equal(draw(keys), expected)
    np.testing.assert_array_equal(jax.jit(draw)(keys), expected)
    split = jax.shard_map(lambda k: jax.random.split(k[0], 2), mesh=mesh, in_specs=P('i'),
                          out_specs=P('i'))
    np.testing.assert_array_equal(jax.random.key_data(jax.jit(split)(keys)),
                                  jax.random.key_data(jax.vmap(jax.random.split)(keys)
                                                      ).reshape(8, 2))
