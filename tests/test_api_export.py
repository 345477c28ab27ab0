"""jax.export: export a jitted function, serialize it, load it back and call it
(eagerly, under jit and grad); values against NumPy / the original function, jaxpr text
and error messages against JAX 0.10.2's."""
import collections

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import export

F32 = jax.ShapeDtypeStruct((3,), jnp.float32)


def f(x, y):
    return jnp.sin(x) * y + 1.0


def _exported():
    return export.export(jax.jit(f))(F32, F32)


def _xy():
    rng = np.random.default_rng(0)
    return (rng.normal(size=3).astype(np.float32), rng.normal(size=3).astype(np.float32))


def test_exported_describes_the_function():
    exp = _exported()
    assert exp.fun_name == "f"
    assert str(exp.in_avals) == "(ShapedArray(float32[3]), ShapedArray(float32[3]))"
    assert str(exp.out_avals) == "(ShapedArray(float32[3]),)"
    assert str(exp.in_tree) == "PyTreeDef(((*, *), {}))"
    assert str(exp.out_tree) == "PyTreeDef(*)"
    assert exp.platforms == (export.default_export_platform(),) == ("cpu",)
    assert exp.calling_convention_version == \
        export.maximum_supported_calling_convention_version == 10
    assert export.minimum_supported_calling_convention_version == 9
    assert str(exp) == "Exported(fun_name=f, ...)"
    text = exp.mlir_module()
    # (with locations, as JAX's: the arguments at their names)
    assert text.startswith('#loc1 = loc("x")\n#loc2 = loc("y")\n'
                           "module @jit_f attributes {jax.uses_shape_polymorphism = false")
    assert "stablehlo.sine" in text and "func.func public @main(%arg0: tensor<3xf32> " \
        'loc("x"), %arg1: tensor<3xf32> loc("y"))' in text


def test_unused_arguments_are_dropped_from_the_module():
    exp = export.export(jax.jit(lambda x, y: x * 2))(F32, jax.ShapeDtypeStruct((5,), jnp.int32))
    assert exp.module_kept_var_idx == (0,)
    assert str(exp.in_avals) == "(ShapedArray(float32[3]), ShapedArray(int32[5]))"
    out = exp.call(np.arange(3, dtype=np.float32), np.zeros(5, np.int32))
    np.testing.assert_array_equal(out, [0., 2., 4.])


def test_serialize_round_trip_calls_eagerly_and_under_jit():
    x, y = _xy()
    blob = _exported().serialize()
    assert isinstance(blob, bytearray)
    loaded = export.deserialize(blob)
    assert (loaded.fun_name, loaded.in_avals, loaded.out_avals, loaded.in_tree,
            loaded.out_tree) == ("f", _exported().in_avals, _exported().out_avals,
                                 _exported().in_tree, _exported().out_tree)
    expected = np.sin(x) * y + 1
    np.testing.assert_allclose(loaded.call(x, y), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(loaded.call)(x, y), expected, rtol=1e-6)
    twice = jax.jit(lambda a: loaded.call(a, a) + loaded.call(a, 2 * a))(x)
    np.testing.assert_allclose(twice, np.sin(x) * x * 3 + 2, rtol=1e-6)


def test_call_prints_as_in_jax():
    x, y = _xy()
    assert str(jax.make_jaxpr(_exported().call)(x, y)) == """\
{ lambda ; a:f32[3] b:f32[3]. let
    c:f32[3] = custom_vjp_call[
      name=f_flat
      bwd=f_flat_vjp_bwd
      call_jaxpr={ lambda ; d:f32[3] e:f32[3]. let
          f:f32[3] = call_exported[exported=Exported(fun_name=f, ...)] d e
        in (f,) }
      fwd=f_flat_vjp_fwd
      symbolic_zeros=False
    ] a b
  in (c,) }"""


def test_grad_in_memory_and_after_serializing_vjps():
    x, _ = _xy()
    want = jax.grad(lambda x: f(x, x).sum())(x)
    np.testing.assert_allclose(jax.grad(lambda x: _exported().call(x, x).sum())(x), want,
                               rtol=1e-6)
    no_vjp = export.deserialize(_exported().serialize())
    with pytest.raises(ValueError, match="No VJP is available"):
        jax.grad(lambda x: no_vjp.call(x, x).sum())(x)
    two = export.deserialize(_exported().serialize(vjp_order=2))
    np.testing.assert_allclose(jax.grad(lambda x: two.call(x, x).sum())(x), want, rtol=1e-6)
    second = lambda g: jax.grad(lambda x: jax.grad(lambda x: g(x, x).sum())(x).sum())(x)
    np.testing.assert_allclose(second(two.call), second(f), rtol=1e-5)


def test_vjp_is_exported_with_float0_cotangents_for_integer_outputs():
    exp = export.export(jax.jit(lambda x, n: (x * 2, n + 1)))(F32, jax.ShapeDtypeStruct((5,), jnp.int32))
    vjp = exp.vjp()
    assert vjp.fun_name == "fun_vjp_jax"
    assert str(vjp.in_avals) == ("(ShapedArray(float32[3]), ShapedArray(int32[5]), "
                                 "ShapedArray(float32[3]), ShapedArray(float0[5]))")
    assert str(vjp.out_avals) == "(ShapedArray(float32[3]), ShapedArray(float0[5]))"


def test_pytrees_and_weak_types():
    def g(d, s):
        return {"a": d["u"] * s, "b": (d["v"],)}
    args = ({"u": np.ones((2, 3), np.float32), "v": np.int32(3)}, 2.0)
    exp = export.export(jax.jit(g))(*args)
    assert str(exp.in_avals) == ("(ShapedArray(float32[2,3]), ShapedArray(int32[]), "
                                 "ShapedArray(float32[], weak_type=True))")
    assert str(exp.in_tree) == "PyTreeDef((({'u': *, 'v': *}, *), {}))"
    loaded = export.deserialize(exp.serialize())
    assert loaded.in_tree == exp.in_tree and loaded.out_tree == exp.out_tree
    assert loaded.in_avals == tuple(a.update(weak_type=False) for a in exp.in_avals)
    out = loaded.call(*args)
    np.testing.assert_array_equal(out["a"], np.full((2, 3), 2, np.float32))
    assert out["b"][0] == 3


def test_weak_types_are_kept_in_memory_and_lost_by_serialization():
    """As in JAX 0.10.2, whose serialization format has no weak types."""
    exp = export.export(jax.jit(lambda x: x * 2.))(2.0)
    assert str(exp.in_avals) == "(ShapedArray(float32[], weak_type=True),)"
    assert str(exp.out_avals) == "(ShapedArray(float32[], weak_type=True),)"
    assert exp.call(3.0).weak_type
    loaded = export.deserialize(exp.serialize())
    assert str(loaded.out_avals) == "(ShapedArray(float32[]),)"
    assert repr(loaded.call(3.0)) == "Array(6., dtype=float32)"


def test_call_errors_name_the_argument_as_jax_does():
    exp = export.export(jax.jit(lambda d, s: d["u"] * s))(
        {"u": np.ones((2, 3), np.float32), "v": np.int32(3)}, 2.0)
    cases = [
        ({"u": np.ones((2, 4), np.float32), "v": np.int32(3)},
         r"Shape mismatch for args\[0\]\['u'\].shape\[1\] \(expected same constant\): "
         r"expected \(2, 3\) and called with \(2, 4\)"),
        ({"u": np.ones((2, 3), np.int32), "v": np.int32(3)},
         r"Dtype mismatch for args\[0\]\['u'\]: expected float32 and called with int32"),
        ({"u": np.ones((3,), np.float32), "v": np.int32(3)},
         r"Rank mismatch for args\[0\]\['u'\]: expected \(2, 3\) and called with \(3,\)"),
        ({"u": np.ones((2, 3), np.float32)},
         r"must have the same pytree structure as when the function '<lambda>' was "
         r"exported.*\n   - args\[0\] is a <class 'dict'> with 1 child"),
    ]
    for d, message in cases:
        with pytest.raises(ValueError, match=message):
            exp.call(d, 2.0)
    with pytest.raises(ValueError, match="must be the result of `jit`"):
        export.export(f)


Point = collections.namedtuple("Point", "a b")


class Box:
    def __init__(self, v, tag):
        self.v, self.tag = v, tag


jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), b.tag),
                                   lambda tag, ch: Box(ch[0], tag))


def test_custom_nodes_serialize_only_when_registered():
    x, y = _xy()
    exp = export.export(jax.jit(lambda p: Point(p.a + p.b, p.a)))(Point(x, y))
    with pytest.raises(ValueError, match="unregistered type"):
        exp.serialize()
    export.register_namedtuple_serialization(Point, serialized_name="test.Point")
    box_exp = export.export(jax.jit(lambda b: Box(b.v * 2, b.tag)))(Box(x, "t"))
    with pytest.raises(ValueError, match="unregistered type"):
        box_exp.serialize()
    export.register_pytree_node_serialization(
        Box, serialized_name="test.Box", serialize_auxdata=str.encode,
        deserialize_auxdata=bytes.decode)
    with pytest.raises(ValueError, match="Duplicate"):
        export.register_namedtuple_serialization(Point, serialized_name="test.Point")
    loaded = export.deserialize(exp.serialize())
    assert loaded.out_tree == exp.out_tree
    out = loaded.call(Point(x, y))
    assert isinstance(out, Point)
    np.testing.assert_allclose(out.a, x + y, rtol=1e-6)
    box = export.deserialize(box_exp.serialize()).call(Box(x, "t"))
    assert box.tag == "t"
    np.testing.assert_allclose(box.v, 2 * x)


def test_custom_call_safety_check():
    a = np.eye(3, dtype=np.float32) * 2
    spec = jax.ShapeDtypeStruct((3, 3), jnp.float32)
    exp = export.export(jax.jit(jnp.linalg.inv))(spec)     # LAPACK getrf: a stable target
    np.testing.assert_allclose(export.deserialize(exp.serialize()).call(a), np.eye(3) / 2)
    cb = lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((3,), np.float32), x)
    with pytest.raises(ValueError, match="Cannot serialize code with custom calls"):
        export.export(jax.jit(cb))(F32)
    check = export.DisabledSafetyCheck.custom_call("xla_ffi_python_cpu_callback")
    assert str(check) == "custom_call:xla_ffi_python_cpu_callback"
    assert check.is_custom_call() == "xla_ffi_python_cpu_callback"
    assert export.DisabledSafetyCheck.platform().is_custom_call() is None
    exp = export.export(jax.jit(cb), disabled_checks=[check])(F32)
    assert "xla_ffi_python_cpu_callback" in exp.mlir_module()
    with pytest.raises(ValueError, match="contains host callbacks"):
        exp.call(np.ones(3, np.float32))     # (its Python function was not exported)


def test_deserialize_rejects_other_bytes():
    with pytest.raises(ValueError, match="magic"):
        export.deserialize(b"not an export")
