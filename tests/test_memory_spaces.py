"""Memory spaces (``jax.memory.Space``): values put in a device's host memory, their
types (``f32<host>[3]``), the programs that compute on them, and remat policies that
offload residuals there. Expected text was printed by JAX 0.10.2 on CPU; values are
checked against NumPy, offloaded gradients against plain ones."""
import re

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.ad_checkpoint import Offloadable, checkpoint_name
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

Space = jax.memory.Space
HOST_KIND = "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=pinned_host)"


def on_host(x):
    return jax.device_put(x, Space.Host)


def test_the_memory_spaces_and_their_names():
    assert repr(list(Space)) == "[MemorySpace.Device, MemorySpace.Host, MemorySpace.Any]"
    assert str(Space.Host) == "MemorySpace.Host"
    assert repr(Offloadable("device", "pinned_host")) == \
        "Offloadable(src='device', dst='pinned_host')"


def test_a_value_in_host_memory_says_so_in_its_type():
    x = jnp.arange(3.)
    y = on_host(x)
    assert str(jax.typeof(y)) == "float32<host>[3]"
    assert repr(jax.typeof(y)) == "ShapedArray(float32<host>[3])"
    assert str(jax.typeof(on_host(1.0))) == "~float32<host>[]"     # weak type kept
    assert repr(y.sharding) == HOST_KIND and y.committed
    assert jax.typeof(y).memory_space is Space.Host
    assert jax.typeof(x).memory_space is Space.Device
    # the memory space is part of the type; the weak type alone does not make it
    assert jax.typeof(y) != jax.typeof(x)
    assert jax.typeof(y) == jax.typeof(y * 1)
    assert str(jax.typeof(y).update(memory_space=Space.Device)) == "float32[3]"
    np.testing.assert_array_equal(y, np.arange(3.))


def test_device_put_to_a_memory_space_in_a_jaxpr():
    x = jnp.arange(3.)
    f = lambda a: jax.device_put(on_host(a) * 2, Space.Device)
    assert str(jax.make_jaxpr(f)(x)) == """\
{ lambda ; a:f32[3]. let
    b:f32<host>[3] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(MemorySpace.Host,)
      srcs=(None,)
    ] a
    c:f32<host>[3] = mul b 2.0:f32[]
    d:f32[3] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(MemorySpace.Device,)
      srcs=(None,)
    ] c
  in (d,) }"""
    np.testing.assert_array_equal(jax.jit(f)(x), 2 * np.arange(3.))
    assert str(jax.make_jaxpr(jax.vmap(on_host))(jnp.ones((2, 3)))) == """\
{ lambda ; a:f32[2,3]. let
    b:f32<host>[2,3] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(MemorySpace.Host,)
      srcs=(None,)
    ] a
  in (b,) }"""


def test_operations_on_host_values_stay_in_host_memory():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    h = on_host(a)
    assert str(jax.make_jaxpr(lambda v: jnp.sin(v) * 2)(h)) == """\
{ lambda ; a:f32<host>[4,3]. let
    b:f32<host>[4,3] = sin a
    c:f32<host>[4,3] = mul b 2.0:f32[]
  in (c,) }"""
    for fun, ref in [(lambda v: jnp.sin(v) * 2, lambda v: np.sin(v) * 2),
                     (lambda v: v.sum(0), lambda v: v.sum(0)),
                     (lambda v: v @ v.T, lambda v: v @ v.T),
                     (lambda v: v.astype(jnp.int32), lambda v: v.astype(np.int32))]:
        for run in (fun, jax.jit(fun)):
            out = run(h)
            assert jax.typeof(out).memory_space is Space.Host
            assert out.sharding.memory_kind == "pinned_host"
            np.testing.assert_allclose(out, ref(a), rtol=1e-6, atol=1e-6)


def test_operands_in_different_memories_are_jaxs_error():
    x = jnp.arange(3.)
    with pytest.raises(ValueError, match=re.escape(
            "memory_space of all inputs passed to `mul` must be the same. Got one operand "
            "with type: float32[3] and another operand with type: float32<host>[3]")):
        x * on_host(x)
    with pytest.raises(ValueError, match="passed to `and` must be the same"):
        jnp.allclose(x, on_host(x))         # (isnan(a) & isnan(b) meet first)
    assert bool(jnp.allclose(on_host(x), on_host(x)))
    with pytest.raises(TypeError, match="cond branches must have equal output types"):
        jax.lax.cond(True, lambda: x, lambda: on_host(x))


def test_memory_kinds_of_shardings():
    dev = jax.devices()[0]
    assert [m.kind for m in dev.addressable_memories()] == \
        ["device", "pinned_host", "unpinned_host"]
    assert dev.default_memory().kind == "device"
    x = jnp.arange(3.)
    s = x.sharding
    assert s.memory_kind == "device"
    assert repr(s.with_memory_kind("pinned_host")) == HOST_KIND
    assert SingleDeviceSharding(dev, memory_kind="pinned_host") == \
        s.with_memory_kind("pinned_host") != s
    z = jax.device_put(x, s.with_memory_kind("pinned_host"))
    assert str(jax.typeof(z)) == "float32<host>[3]" and repr(z.sharding) == HOST_KIND
    # unpinned host memory is typed as device memory (as in JAX)
    u = jax.device_put(x, s.with_memory_kind("unpinned_host"))
    assert str(jax.typeof(u)) == "float32[3]" and u.sharding.memory_kind == "unpinned_host"
    back = jax.device_put(z, Space.Device)
    assert back.sharding.memory_kind == "device" and str(jax.typeof(back)) == "float32[3]"
    np.testing.assert_array_equal(back, np.arange(3.))


def test_a_sharded_value_in_host_memory():
    mesh = Mesh(np.array(jax.devices()), ("x",))
    s = NamedSharding(mesh, P("x"))
    a = np.arange(16.).reshape(8, 2).astype(np.float32)
    h = jax.device_put(a, s.with_memory_kind("pinned_host"))
    assert str(jax.typeof(h)) == "float32<host>[8,2]"
    assert h.sharding == s.with_memory_kind("pinned_host")
    out = jax.jit(lambda v: jnp.sin(v) + 1)(h)
    assert out.sharding.memory_kind == "pinned_host"
    np.testing.assert_allclose(out, np.sin(a) + 1, rtol=1e-6)
    g = jax.jit(lambda v: v * 3, out_shardings=s.with_memory_kind("pinned_host"))(a)
    assert str(jax.typeof(g)) == "float32<host>[8,2]"
    np.testing.assert_array_equal(g, a * 3)
    # parameters streamed in from host memory, inside jit
    square = jax.jit(lambda u, v: jnp.multiply(*jax.device_put((u, v), s)))
    out = square(h, h)
    assert str(jax.typeof(out)) == "float32[8,2]" and out.sharding == s
    np.testing.assert_array_equal(out, a * a)


def test_jit_out_shardings_with_a_memory_kind():
    x = jnp.arange(3.)
    f = jax.jit(lambda a: a * 2, out_shardings=x.sharding.with_memory_kind("pinned_host"))
    out = f(x)
    # (JAX types the result by its jaxpr here: only a NamedSharding retypes it)
    assert str(jax.typeof(out)) == "float32[3]" and repr(out.sharding) == HOST_KIND
    np.testing.assert_array_equal(out, [0., 2., 4.])
    text = f.lower(x).as_text()
    assert ('-> (tensor<3xf32> {jax.result_info = "result", mhlo.memory_kind = '
            '"pinned_host"' in text)
    assert ('    %2 = stablehlo.custom_call @annotate_device_placement(%1) {backend_config '
            '= "", has_side_effect = true, mhlo.frontend_attributes = '
            '{_xla_buffer_placement = "pinned_host"}} : (tensor<3xf32>) -> tensor<3xf32>\n'
            '    return %2 : tensor<3xf32>\n') in text


def test_a_program_moving_values_to_host_memory_lowers_as_in_jax():
    x = jnp.arange(3.)
    g = jax.jit(lambda a: on_host(a) * 2)
    assert g.lower(x).as_text() == """\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result", \
mhlo.memory_kind = "pinned_host"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
"""
    out = g(x)
    assert repr(out.sharding) == HOST_KIND
    np.testing.assert_array_equal(out, [0., 2., 4.])
    text = jax.jit(lambda a: a * 2).lower(on_host(x)).as_text()
    assert '%arg0: tensor<3xf32> {mhlo.memory_kind = "pinned_host"' in text
    # a sharding with a memory kind moves values too
    to_host = jax.jit(lambda a: jax.device_put(a, x.sharding.with_memory_kind(
        "pinned_host")) * 2)
    assert ('@main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result", '
            'mhlo.memory_kind = "pinned_host"})') in to_host.lower(x).as_text()
    out = to_host(x)
    assert str(jax.typeof(out)) == "float32<host>[3]" and repr(out.sharding) == HOST_KIND


def test_cotangents_of_host_values_go_back_to_host_memory():
    h = on_host(jnp.arange(3.))
    f = lambda w: jnp.sum(jax.device_put(w, SingleDeviceSharding(jax.devices()[0])) ** 2)
    g = jax.grad(f)(h)
    assert str(jax.typeof(g)) == "float32<host>[3]"
    np.testing.assert_array_equal(g, [0., 2., 4.])
    assert str(jax.make_jaxpr(jax.grad(f))(h)).endswith("""\
    g:f32<host>[3] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(MemorySpace.Host,)
      srcs=(SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device),)
    ] f
  in (g,) }""")


# -- offloading residuals ----------------------------------------------------------------

OFFLOAD_X = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=[], names_which_can_be_offloaded=["x"],
    offload_src="device", offload_dst="pinned_host")


def _model(x, w):
    x = checkpoint_name(jnp.sin(x), "x")
    return jnp.sum(jnp.cos(x @ w))


def _inputs():
    rng = np.random.default_rng(1)
    return (jnp.asarray(rng.standard_normal((2, 3)), jnp.float32),
            jnp.asarray(rng.standard_normal((3, 4)), jnp.float32))


def _printed(jaxpr):
    return re.sub(r" at 0x[0-9a-fA-F]+>", " at 0xXXXXXXXXXXXX>", str(jaxpr))


def test_offloaded_residual_is_moved_to_host_and_back():
    x, w = _inputs()
    g = jax.checkpoint(_model, policy=OFFLOAD_X)
    assert _printed(jax.make_jaxpr(jax.grad(g))(x, w)) == """\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,3] = sin a
    d:f32[2,3] = name[name=x] c
    e:f32<host>[2,3] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(MemorySpace.Host,)
      srcs=(None,)
    ] d
    f:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] d b
    g:f32[2,4] = cos f
    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g
    h:f32[2,3] = remat2[
      differentiated=True
      jaxpr={ lambda ; i:f32<host>[2,3] j:f32[2,3] k:f32[3,4] l:f32[]. let
          m:f32[2,3] = cos j
          n:f32[2,3] = device_put[
            copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
            devices=(MemorySpace.Device,)
            srcs=(None,)
          ] i
          o:f32[2,4] = dot_general[
            dimension_numbers=(([1], [0]), ([], []))
            preferred_element_type=float32
          ] n k
          p:f32[2,4] = sin o
          q:f32[2,4] = broadcast_in_dim l
          r:f32[2,4] = neg q
          s:f32[2,4] = mul r p
          t:f32[2,3] = dot_general[
            dimension_numbers=(([1], [1]), ([], []))
            preferred_element_type=float32
          ] s k
          u:f32[2,3] = mul t m
        in (u,) }
      policy=<function save_and_offload_only_these_names.<locals>.policy at 0xXXXXXXXXXXXX>
      prevent_cse=True
    ] e a b 1.0:f32[]
  in (h,) }"""
    for argnums in (0, 1):
        np.testing.assert_allclose(jax.grad(g, argnums)(x, w),
                                   jax.grad(_model, argnums)(x, w), rtol=1e-6)
        np.testing.assert_allclose(jax.jit(jax.grad(g, argnums))(x, w),
                                   jax.grad(_model, argnums)(x, w), rtol=1e-6)


def test_offloaded_residuals_are_printed_as_saved(capsys):
    jax.ad_checkpoint.print_saved_residuals(jax.checkpoint(_model, policy=OFFLOAD_X),
                                            *_inputs())
    assert capsys.readouterr().out == """\
f32[2,3] from the argument x
f32[3,4] from the argument w
f32<host>[2,3] output of device_put from 
"""


def test_offload_dot_with_no_batch_dims():
    x, w = _inputs()
    policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    g = jax.checkpoint(_model, policy=policy)
    text = _printed(jax.make_jaxpr(jax.grad(g, argnums=(0, 1)))(x, w))
    assert text.startswith("""\
let jaxpr = { lambda ; a:f32<host>[2,4] b:f32[2,3] c:f32[3,4] d:f32[]. let
    e:f32[2,3] = sin b
    f:f32[2,3] = cos b
    g:f32[2,3] = name[name=x] e
    h:f32[2,4] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(MemorySpace.Device,)
      srcs=(None,)
    ] a
""")
    assert """\
    v:f32<host>[2,4] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(MemorySpace.Host,)
      srcs=(None,)
    ] u
""" in text
    for got, want in zip(jax.grad(g, argnums=(0, 1))(x, w),
                         jax.grad(_model, argnums=(0, 1))(x, w)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_offloading_inside_a_scan_gives_the_plain_gradients():
    """The host-offloading tutorial's pattern: a remat'd layer scanned over weights."""
    def layer(x, w):
        w1, w2 = w
        x = checkpoint_name(x, "x")
        return jnp.tanh(x @ w1) @ w2, None

    def scanned(layer_fn, w, x):
        return jnp.sum(jax.lax.scan(layer_fn, x, w)[0])

    rng = np.random.default_rng(2)
    x = jnp.asarray(rng.standard_normal((4, 4)), jnp.float32)
    w = (jnp.asarray(rng.standard_normal((3, 4, 8)) * 0.3, jnp.float32),
         jnp.asarray(rng.standard_normal((3, 8, 4)) * 0.3, jnp.float32))
    remat = jax.remat(layer, policy=OFFLOAD_X, prevent_cse=False)
    got = jax.jit(jax.grad(lambda w, x: scanned(remat, w, x)))(w, x)
    want = jax.grad(lambda w, x: scanned(layer, w, x))(w, x)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)
    text = str(jax.make_jaxpr(jax.grad(lambda w, x: scanned(remat, w, x)))(w, x))
    assert "f32<host>[3,4,4]" in text      # the stacked residual lives in host memory


def test_names_both_saved_and_offloaded_are_an_error():
    with pytest.raises(ValueError, match="The names should be exclusive"):
        jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["x"], names_which_can_be_offloaded=["x"],
            offload_src="device", offload_dst="pinned_host")


def test_a_cotangent_must_be_in_its_outputs_memory():
    x = jnp.arange(3.)
    y, f_vjp = jax.vjp(lambda a: on_host(a) * 2, x)
    assert str(jax.typeof(y)) == "float32<host>[3]"
    np.testing.assert_array_equal(f_vjp(on_host(jnp.ones(3)))[0], [2., 2., 2.])
    with pytest.raises(ValueError, match=re.escape(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            "float32[3], but expected float32<host>[3] because the corresponding output "
            "of the differentiated function had JAX type float32<host>[3]")):
        f_vjp(jnp.ones(3))
    # grad's cotangent 1 is made in device memory: a loss in host memory is an error
    with pytest.raises(ValueError, match=re.escape("got float32[], but expected "
                                                   "float32<host>[]")):
        jax.grad(lambda a: (on_host(a) ** 2).sum())(x)
    s = on_host(jnp.float32(2))
    assert str(jax.typeof(jax.jvp(lambda a: a.sum(), (on_host(x),), (on_host(x),))[0])) \
        == "float32<host>[]"
    assert str(jax.typeof(jax.lax.convert_element_type(s, jnp.int32))) == "int32[]"


def test_jit_in_shardings_do_not_move_values_between_memories():
    x = jnp.arange(3.)
    host = x.sharding.with_memory_kind("pinned_host")
    f = jax.jit(lambda a: a * 2, in_shardings=host)
    with pytest.raises(ValueError, match=re.escape(
            "Memory kinds passed to jax.jit does not match memory kind on the respective "
            "arg. Got jit memory kind: pinned_host, arg memory kind: device for arg type: "
            "float32[3]")):
        f(x)
    out = f(jax.device_put(x, host))
    assert str(jax.typeof(out)) == "float32<host>[3]" and repr(out.sharding) == HOST_KIND
    compiled = jax.jit(lambda a: a * 2).lower(jax.device_put(x, host)).compile()
    assert repr(compiled.input_shardings) == f"(({HOST_KIND},), {{}})"
    assert repr(compiled.output_shardings) == HOST_KIND


def test_a_shape_dtype_struct_in_host_memory():
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    named = NamedSharding(mesh, P(), memory_kind="pinned_host")
    single = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    twice = lambda a: a * 2
    # (JAX types the value by a NamedSharding's memory kind only)
    assert str(jax.make_jaxpr(twice)(jax.ShapeDtypeStruct((3,), jnp.float32,
                                                          sharding=named))) == \
        "{ lambda ; a:f32<host>[3]. let b:f32<host>[3] = mul a 2.0:f32[] in (b,) }"
    assert str(jax.make_jaxpr(twice)(jax.ShapeDtypeStruct((3,), jnp.float32,
                                                          sharding=single))) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"
