"""pmap: values against a loop over the slices, jaxprs against what JAX 0.10.2 prints,
JAX's errors, collectives against NumPy, and gradients against finite differences.
(8 CPU devices, see conftest.py.)"""
import functools

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.named_sharding import IndivisibleError
from glassjax.test_util import check_grads


# -- printed as JAX prints it ------------------------------------------------------------

PSUM_NORMALIZE = """\
{ lambda ; a:f32[4]. let
    b:f32[4] = jit[
      name=_fun
      jaxpr={ lambda ; a:f32[4]. let
          b:f32[4] = shard_map[
            check_vma=False
            in_specs=(P('i',),)
            jaxpr={ lambda ; c:f32[1]. let
                d:f32[] = squeeze[dimensions=(0,)] c
                e:f32[] = psum[axes=('i',) axis_index_groups=None] d
                f:f32[] = div d e
                g:f32[1] = broadcast_in_dim f
              in (g,) }
            mesh=Mesh('i': 4, axis_types=(Auto,))
            newly_manual_axes=frozenset({'i'})
            out_specs=(P('i',),)
          ] a
        in (b,) }
    ] a
  in (b,) }"""

BROADCAST_ARG = """\
{ lambda ; a:f32[2] b:f32[]. let
    c:f32[2] = jit[
      name=_fun
      jaxpr={ lambda ; a:f32[2] b:f32[]. let
          c:f32[2] = shard_map[
            check_vma=False
            in_specs=(P('_internal_pmap_axis_name',), P())
            jaxpr={ lambda ; d:f32[1] e:f32[]. let
                f:f32[] = squeeze[dimensions=(0,)] d
                g:f32[] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] e
                h:f32[] = mul f g
                i:f32[1] = broadcast_in_dim h
              in (i,) }
            mesh=Mesh('_internal_pmap_axis_name': 2, axis_types=(Auto,))
            newly_manual_axes=frozenset({'_internal_pmap_axis_name'})
            out_specs=(P('_internal_pmap_axis_name',),)
          ] a b
        in (c,) }
    ] a b
  in (c,) }"""


def test_jaxpr_is_jit_of_shard_map_as_in_jax():
    f = jax.pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')
    assert str(jax.make_jaxpr(f)(jnp.arange(4.))) == PSUM_NORMALIZE


def test_jaxpr_of_a_broadcast_argument():
    f = jax.pmap(lambda x, y: x * y, in_axes=(0, None))
    assert str(jax.make_jaxpr(f)(jnp.ones(2), 3.0)) == BROADCAST_ARG


# -- values: pmap equals a loop over the slices --------------------------------------------

_UNARY = [jnp.sin, jnp.cos, jnp.tanh, lambda v: v * 2.0 + 1.0, lambda v: v ** 2,
          jnp.exp, lambda v: jnp.maximum(v, 0.3), lambda v: v[::-1], jnp.cumsum]


def _random_program(seed):
    rng = np.random.RandomState(seed)
    ops = [_UNARY[i] for i in rng.randint(len(_UNARY), size=rng.randint(1, 5))]

    def f(v):
        for op in ops:
            v = op(v)
        return v
    return f


@pytest.mark.parametrize("devices", [1, 2, 4, 8])
@pytest.mark.parametrize("seed", range(6))
def test_pmap_equals_a_loop_over_slices(devices, seed):
    f = _random_program(seed)
    x = np.random.RandomState(100 + seed).randn(devices, 3).astype(np.float32)
    expected = np.stack([np.asarray(f(jnp.asarray(row))) for row in x])
    np.testing.assert_allclose(jax.pmap(f)(x), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("devices", [1, 2, 4, 8])
@pytest.mark.parametrize("seed", range(4))
def test_collectives_equal_reductions_of_the_loop(devices, seed):
    f = _random_program(seed)
    x = np.random.RandomState(seed).randn(devices, 3).astype(np.float32)
    rows = np.stack([np.asarray(f(jnp.asarray(row))) for row in x])
    g = jax.pmap(lambda v: (lax.psum(f(v), 'i'), lax.pmean(f(v), 'i'), lax.pmax(f(v), 'i'),
                            lax.pmin(f(v), 'i'), lax.all_gather(f(v), 'i'),
                            lax.axis_index('i')), axis_name='i')
    total, mean, high, low, gathered, index = g(x)
    np.testing.assert_allclose(total, np.broadcast_to(rows.sum(0), rows.shape), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(mean, np.broadcast_to(rows.mean(0), rows.shape), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(high, np.broadcast_to(rows.max(0), rows.shape))
    np.testing.assert_allclose(low, np.broadcast_to(rows.min(0), rows.shape))
    np.testing.assert_allclose(gathered, np.broadcast_to(rows, (devices, *rows.shape)))
    np.testing.assert_array_equal(index, np.arange(devices))


def test_seed_examples():
    assert str(jax.pmap(lambda x: x ** 2)(jnp.arange(8))) == "[ 0  1  4  9 16 25 36 49]"
    out = jax.pmap(lambda x, y: (x + y, y * 2.), in_axes=(0, None))(jnp.arange(2.), 4.)
    assert repr(out) == ("(Array([4., 5.], dtype=float32), Array([8., 8.], dtype=float32, "
                         "weak_type=True))")
    out = jax.pmap(lambda x: x / lax.psum(x, axis_name='i'), axis_name='i')(jnp.arange(4.))
    np.testing.assert_allclose(out, [0, 1 / 6, 2 / 6, 3 / 6], rtol=1e-6)


def test_nested_pmap_keeps_the_seeds_values():
    """The seed's doubly-normalised example with a pmap inside a pmap (JAX 0.10.2 rejects
    the nesting; the seeds document these values)."""
    @functools.partial(jax.pmap, axis_name='rows')
    @functools.partial(jax.pmap, axis_name='cols')
    def normalize(x):
        row_normed = x / lax.psum(x, 'rows')
        col_normed = x / lax.psum(x, 'cols')
        doubly_normed = x / lax.psum(x, ('rows', 'cols'))
        return row_normed, col_normed, doubly_normed

    x = np.arange(8.).reshape((4, 2))
    row, col, both = normalize(x)
    np.testing.assert_allclose(row.sum(0), [1, 1], rtol=1e-6)
    np.testing.assert_allclose(col.sum(1), [1, 1, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(both.sum(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(row, x / x.sum(0), rtol=1e-6)


def test_axes_options_and_static_arguments():
    x = jnp.arange(6.).reshape(3, 2)
    np.testing.assert_array_equal(jax.pmap(lambda v: v, in_axes=1, out_axes=1)(x), x)
    assert float(jax.pmap(lambda v: v.sum(), out_axes=None)(jnp.ones((2, 3)))) == 3.0
    out = jax.pmap(lambda v, n: v * n, static_broadcasted_argnums=1)(jnp.ones(2), 3)
    np.testing.assert_array_equal(out, [3., 3.])
    tree = {"a": jnp.arange(4.), "b": (jnp.ones((4, 2)), 2.0)}
    out = jax.pmap(lambda t: t["a"] + t["b"][0].sum() * t["b"][1],
                   in_axes=({"a": 0, "b": (0, None)},))(tree)
    np.testing.assert_array_equal(out, np.arange(4.) + 4.)
    out = jax.pmap(lambda v, *, w: v + w)(jnp.arange(2.), w=jnp.ones(2))
    np.testing.assert_array_equal(out, [1., 2.])
    devs = jax.devices()[-2:]
    out = jax.pmap(lambda v: lax.psum(v ** 2, 'i'), axis_name='i', devices=devs)(
        jnp.array([2., 3.]))
    np.testing.assert_array_equal(out, [13., 13.])
    assert out.sharding.device_set == set(devs)


def test_one_pmap_called_with_several_argument_structures():
    # pmap works out in_axes and donation once per argument structure: calls with other
    # structures, sizes and static values must each get their own.
    f = jax.pmap(lambda t, n: jax.tree.map(lambda v: v * n, t), in_axes=(0, None),
                 static_broadcasted_argnums=1)
    a, b = np.arange(4.), np.arange(6.).reshape(2, 3)
    np.testing.assert_array_equal(f(a, 2), a * 2)
    np.testing.assert_array_equal(f(b, 3), b * 3)
    out = f({"u": a, "w": (a[:, None] * np.ones(2),)}, 5)
    np.testing.assert_array_equal(out["u"], a * 5)
    np.testing.assert_array_equal(out["w"][0], a[:, None] * np.ones(2) * 5)
    np.testing.assert_array_equal(f(a, 2), a * 2)       # the first structure again


def test_results_are_split_over_the_devices():
    out = jax.pmap(lambda v: v * 2)(jnp.ones((4, 3)))
    assert repr(out.sharding) == (
        "NamedSharding(mesh=Mesh('_internal_pmap_axis_name': 4, axis_types=(Auto,)), "
        "spec=P('_internal_pmap_axis_name',), memory_kind=device)")
    shards = out.addressable_shards
    assert [s.device for s in shards] == jax.devices()[:4]
    assert [s.index for s in shards] == [(slice(i, i + 1), slice(None)) for i in range(4)]
    np.testing.assert_array_equal(out * 2, np.full((4, 3), 4.))    # and they compute on


def test_errors_are_jaxs():
    with pytest.raises(ValueError, match="pmap requires at least one argument with a "
                                         "mapped axis"):
        jax.pmap(lambda x: x)(1.0)
    with pytest.raises(ValueError, match="at least one argument with a mapped axis"):
        jax.pmap(lambda x, y: x + y, in_axes=(None, None))(1.0, jnp.ones(2))
    with pytest.raises(IndivisibleError, match="implies that array axis 0 is partitioned "
                                               "4 times, but the dimension size is 3"):
        jax.pmap(lambda x, y: x + y)(jnp.ones(4), jnp.ones(3))
    # more slices than devices: cut among all 8 devices, as JAX 0.10.2 does
    with pytest.raises(IndivisibleError, match="implies that array axis 0 is partitioned "
                                               "8 times, but the dimension size is 9"):
        jax.pmap(lambda x: x)(jnp.ones(9))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has "
                                         "size not equal to one, got shape=\\(2, 2\\)"):
        jax.pmap(lambda x: x)(jnp.ones((16, 2)))
    with pytest.raises(NameError, match="Found an unbound axis name: j"):
        jax.pmap(lambda x: lax.psum(x, 'j'), axis_name='i')(jnp.ones(2))
    with pytest.raises(TypeError, match="pmap in_axes must be an int, None"):
        jax.pmap(lambda x: x, in_axes="a")
    with pytest.raises(ValueError, match="static_broadcasted_argnums=\\(1,\\)"):
        jax.pmap(lambda x, n: x, static_broadcasted_argnums=1)(jnp.ones(2))


# -- collectives ------------------------------------------------------------------------

def test_ppermute_ring_and_swap():
    perm = [(i, (i + 1) % 8) for i in range(8)]
    out = jax.pmap(lambda v: lax.ppermute(v, 'i', perm), axis_name='i')(jnp.arange(8.) * 10)
    np.testing.assert_array_equal(out, [70, 0, 10, 20, 30, 40, 50, 60])
    out = jax.pmap(lambda v: lax.pshuffle(v, 'i', [1, 0]), axis_name='i')(
        jnp.array([[1., 2.], [3., 4.]]))
    np.testing.assert_array_equal(out, [[3., 4.], [1., 2.]])


def test_scatter_all_to_all_and_groups():
    x = np.arange(16.).reshape(4, 4)
    out = jax.pmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='i')(x)
    np.testing.assert_array_equal(out, x.sum(0))
    out = jax.pmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(x)
    np.testing.assert_array_equal(out, x.sum(0).reshape(4, 1))
    out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0), axis_name='i')(x)
    np.testing.assert_array_equal(out, x.T)
    out = jax.pmap(lambda v: lax.all_gather(v, 'i', tiled=True), axis_name='i')(x)
    np.testing.assert_array_equal(out, np.broadcast_to(x.reshape(-1), (4, 16)))
    out = jax.pmap(lambda v: lax.psum(v, 'i', axis_index_groups=[[0, 1], [2, 3]]),
                   axis_name='i')(jnp.arange(4.))
    np.testing.assert_array_equal(out, [1., 1., 5., 5.])


def test_axis_env_replica_groups_of_the_seed():
    hlo = jax.xla_computation(lambda x: lax.psum(x, 'i'),
                              axis_env=[('i', 4), ('j', 2)])(1.).as_hlo_text()
    assert "replica_groups={{0,2,4,6},{1,3,5,7}}" in hlo
    def g(x):
        return lax.psum(x, 'i'), lax.psum(x, 'j'), lax.psum(x, ('i', 'j'))
    hlo = jax.xla_computation(g, axis_env=[('i', 4), ('j', 2)])(5.).as_hlo_text()
    groups = [line.split("replica_groups=")[1].split(",to_apply")[0].split(", to_apply")[0]
              for line in hlo.splitlines() if "all-reduce(" in line]
    assert groups == ["{{0,2,4,6},{1,3,5,7}}", "{{0,1},{2,3},{4,5},{6,7}}",
                      "{{0,1,2,3,4,5,6,7}}"]


# -- transformations ---------------------------------------------------------------------

def test_grad_through_pmap_and_collectives():
    x = jnp.arange(8.).reshape(4, 2)
    f = jax.pmap(lambda v: jnp.sin(v) * lax.psum(v, 'i'), axis_name='i')
    expected = jax.grad(lambda x: (jnp.sin(x) * x.sum(0)).sum())(x)
    np.testing.assert_allclose(jax.grad(lambda x: f(x).sum())(x), expected, rtol=1e-5)
    check_grads(f, (x,), order=2, modes=["fwd", "rev"])
    g = jax.pmap(lambda v: lax.all_gather(v, 'i').sum(0) * lax.pmean(v ** 2, 'i'),
                 axis_name='i')
    check_grads(g, (x,), order=1, modes=["fwd", "rev"])
    h = jax.pmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 3), (3, 0)]) * v,
                 axis_name='i')
    check_grads(h, (x,), order=1, modes=["fwd", "rev"])


def test_data_parallel_training_step_equals_the_full_batch_step():
    def loss(w, xb, yb):
        return ((xb @ w - yb) ** 2).mean()

    def step(w, xb, yb):
        return w - 0.1 * lax.pmean(jax.grad(loss)(w, xb, yb), 'batch')

    rng = np.random.RandomState(0)
    w = rng.randn(3).astype(np.float32)
    x, y = rng.randn(4, 5, 3).astype(np.float32), rng.randn(4, 5).astype(np.float32)
    out = jax.pmap(step, axis_name='batch', in_axes=(None, 0, 0))(w, x, y)
    expected = w - 0.1 * jax.grad(loss)(w, x.reshape(20, 3), y.reshape(20))
    np.testing.assert_allclose(out, np.broadcast_to(expected, (4, 3)), rtol=1e-5)


def test_vmap_of_pmap_and_pmap_of_vmap():
    x = jnp.arange(8.).reshape(2, 4)
    expected = np.broadcast_to(np.asarray(x).sum(1, keepdims=True), (2, 4))
    out = jax.vmap(jax.pmap(lambda v: lax.psum(v, 'i'), axis_name='i'))(x)
    np.testing.assert_array_equal(out, expected)
    out = jax.pmap(jax.vmap(lambda v: lax.psum(v, 'j'), axis_name='j'))(x)
    np.testing.assert_array_equal(out, expected)
    out = jax.vmap(jax.pmap(lambda v: lax.psum(v, ('i', 'j')), axis_name='i'),
                   axis_name='j')(x)
    np.testing.assert_array_equal(out, np.full((2, 4), float(np.asarray(x).sum())))


def test_control_flow_inside_pmap():
    out = jax.pmap(lambda v: lax.cond(lax.axis_index('i') % 2 == 0, lambda u: u * 10,
                                      lambda u: -u, v), axis_name='i')(jnp.arange(4.))
    np.testing.assert_array_equal(out, [0., -1., 20., -3.])
    x = np.arange(12.).reshape(4, 3)
    out = jax.pmap(lambda v: lax.scan(lambda c, e: (c + lax.psum(e, 'i'), c), 0., v)[0],
                   axis_name='i')(x)
    np.testing.assert_array_equal(out, [x.sum()] * 4)
    out = jax.pmap(lambda v: lax.fori_loop(0, 3, lambda i, c: c + lax.pmax(v, 'i'), 0.),
                   axis_name='i')(jnp.arange(4.))
    np.testing.assert_array_equal(out, [9.] * 4)


def test_jit_of_pmap_and_pmap_of_jit():
    f = jax.pmap(jax.jit(lambda v: lax.psum(v * 2, 'i')), axis_name='i')
    np.testing.assert_array_equal(f(jnp.arange(4.)), [12.] * 4)
    g = jax.jit(jax.pmap(lambda v: v + lax.axis_index('i'), axis_name='i'))
    np.testing.assert_array_equal(g(jnp.zeros(4)), [0., 1., 2., 3.])


def test_lowered_text_is_jaxs():
    text = jax.pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i').lower(
        jnp.arange(4.)).as_text()
    assert text == """\
module @jit__fun attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]> {stablehlo.mesh = {axes = [{name = "i", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}]>}) -> (tensor<4xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"i"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%arg1: tensor<1xf32>) {
      %1 = stablehlo.reshape %arg1 : (tensor<1xf32>) -> tensor<f32>
      %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %3 = stablehlo.divide %1, %2 : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<1xf32>
      sdy.return %4 : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def test_one_device_mesh():
    np.testing.assert_array_equal(jax.pmap(lambda x: x + 1.0)(jnp.ones((1, 3))),
                                  [[2., 2., 2.]])


def test_pbroadcast_copies_the_source_element():
    x = jnp.arange(4.) + 1
    f = jax.pmap(lambda v: lax.pbroadcast(v, 'i', 2) * v, axis_name='i')
    np.testing.assert_array_equal(f(x), 3 * np.asarray(x))
    check_grads(f, (x,), order=1, modes=["fwd", "rev"])
    np.testing.assert_array_equal(
        jax.vmap(lambda v: lax.pbroadcast(v, 'i', 1), axis_name='i')(x), [2.] * 4)
    assert str(jax.make_jaxpr(lambda v: lax.pbroadcast(v, 'i', 1), axis_env=[('i', 4)])(
        1.)) == "{ lambda ; a:f32[]. let b:f32[] = pbroadcast[axis_name=i source=1] a in (b,) }"


def test_jacobians_of_pmap():
    """vmap of pmap leaves the outputs that do not depend on the batch unbatched, so
    jacfwd (a vmap of jvp with an unbatched primal) works."""
    x = jnp.arange(3.)
    for jac in (jax.jacfwd, jax.jacrev):
        np.testing.assert_allclose(jac(jax.pmap(jnp.sin))(x), np.diag(np.cos(x)),
                                   rtol=1e-6)


def test_pmap_under_disable_jit_runs_as_an_eager_shard_map(capsys):
    """As in JAX 0.10.2, ``disable_jit`` runs pmap's body eagerly (on a ShardMapTracer),
    each operation still compiled for all devices; staging it gives pmap's jaxpr."""
    f = jax.pmap(lambda x: (print("traced", type(x).__name__), x * 2)[1])
    with jax.disable_jit():
        np.testing.assert_array_equal(f(jnp.arange(4.)), [0., 2., 4., 6.])
        assert capsys.readouterr().out == "traced ShardMapTracer\n"
        assert "squeeze[dimensions=(0,)]" in str(jax.make_jaxpr(f)(jnp.arange(4.)))
