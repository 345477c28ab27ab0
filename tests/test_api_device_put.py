"""jax.device_put inside traced functions: the device_put primitive, printed, differentiated
(transpose puts cotangents back, as copies) and batched as in JAX 0.10.2."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


def test_staged_device_put_prints_as_in_jax():
    assert str(jax.make_jaxpr(lambda x: jax.device_put(x) * 2)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(None,)
      srcs=(None,)
    ] a
    c:f32[] = mul b 2.0:f32[]
  in (c,) }"""
    assert str(jax.make_jaxpr(lambda x, y: jax.device_put((x, y)))(1.0, 2)) == """\
{ lambda ; a:f32[] b:i32[]. let
    c:f32[] d:i32[] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT, ArrayCopySemantics.REUSE_INPUT)
      devices=(None, None)
      srcs=(None, None)
    ] a b
  in (c, d) }"""


def test_grad_transposes_to_a_copy_back_to_the_source():
    dev = jax.devices()[0]
    f = lambda x: jax.device_put(x, dev) * 2
    assert jax.grad(f)(1.0) == 2.0
    assert str(jax.make_jaxpr(jax.grad(f))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(CpuDevice(id=0),)
      srcs=(None,)
    ] a
    _:f32[] = mul b 2.0:f32[]
    c:f32[] = mul 1.0:f32[] 2.0:f32[]
    d:f32[] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(None,)
      srcs=(CpuDevice(id=0),)
    ] c
  in (d,) }"""


def test_values_under_jit_and_vmap():
    x = np.arange(4.0, dtype=np.float32)
    out = jax.jit(lambda x: jax.device_put(x, jax.devices()[1]) * 2)(x)
    np.testing.assert_array_equal(out, x * 2)
    assert out.devices() == {jax.devices()[0]}          # (placement is jit's, as in JAX)
    np.testing.assert_array_equal(jax.vmap(lambda v: jax.device_put(v) + 1)(x), x + 1)
    tree = jax.jit(lambda a, b: jax.device_put({"a": a, "b": b}))(x, 3)
    assert tree["b"] == 3
    mesh = jax.make_mesh((2,), ("i",))       # (a put on a mesh runs on its devices)
    out = jax.jit(lambda x: jax.device_put(
        x, jax.sharding.NamedSharding(mesh, jax.P("i"))) * 2)(x)
    assert str(jax.typeof(out)) == "float32[4@i]"
    assert repr(out.sharding) == ("NamedSharding(mesh=Mesh('i': 2, axis_types=(Explicit,)), "
                                  "spec=P('i',), memory_kind=device)")
    np.testing.assert_array_equal(out, x * 2)


def test_may_alias_and_donate_choose_the_copy_semantics():
    x = jnp.arange(3.)
    assert jax.device_put(x, may_alias=True) is x
    copy = jax.device_put(x, may_alias=False)
    assert copy is not x and not x.is_deleted()
    copy.delete()                  # its own buffer: x lives on
    np.testing.assert_array_equal(x, [0., 1., 2.])
    assert jax.device_put(x, donate=True) is not x and not x.is_deleted()   # (CPU)
    with pytest.raises(ValueError, match="may_alias and donate cannot be True at the same"):
        jax.device_put(x, donate=True, may_alias=True)
    assert str(jax.make_jaxpr(lambda a: jax.device_put(a, may_alias=False))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = device_put[
      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)
      devices=(None,)
      srcs=(None,)
    ] a
  in (b,) }"""
    assert "copy_semantics=(ArrayCopySemantics.DONATE_INPUT,)" in str(
        jax.make_jaxpr(lambda a: jax.device_put(a, donate=True))(1.0))
