"""``jax.extend``, ``jax.interpreters`` and the few ``jax._src`` modules JAX's tutorials
import: a primitive written the way JAX's "JAX primitives" tutorial writes it (impl,
abstract eval, MLIR lowering, JVP, transpose, batching) works under every
transformation (the tutorial itself runs in tests/test_tutorials.py)."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax._src.lib.mlir.dialects import hlo
from glassjax._src.util import safe_map, safe_zip
from glassjax.extend import core as xcore
from glassjax.interpreters import ad, batching, mlir

fma_p = xcore.Primitive("fma")
fma_p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
fma_p.def_abstract_eval(lambda x, y, z: glassjax.core.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(fma_p, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result],
                       platform="cpu")


def _fma_jvp(primals, tangents):
    x, y, z = primals
    zero = lambda t: lax.full_like(x, 0) if type(t) is ad.Zero else t
    xt, yt, zt = map(zero, tangents)
    return fma_p.bind(x, y, z), fma_p.bind(xt, y, fma_p.bind(x, yt, zt))


def _fma_transpose(ct, x, y, z):
    if ad.is_undefined_primal(x):
        return fma_p.bind(ct, y, lax.full_like(y, 0)), None, ct
    return None, fma_p.bind(x, ct, lax.full_like(x, 0)), ct


ad.primitive_jvps[fma_p] = _fma_jvp
ad.primitive_transposes[fma_p] = _fma_transpose
batching.primitive_batchers[fma_p] = lambda args, dims: (fma_p.bind(*args), dims[0])


def square_add(a, b):
    return fma_p.bind(a, a, b)


def test_a_tutorial_style_primitive_runs_under_every_transformation():
    assert square_add(2.0, 10.0) == 14.0
    assert glassjax.jit(square_add)(2.0, 10.0) == 14.0
    assert glassjax.jvp(square_add, (2.0, 10.0), (1.0, 1.0)) == (14.0, 5.0)
    assert glassjax.grad(square_add)(2.0, 10.0) == 4.0
    assert glassjax.jit(glassjax.grad(square_add))(3.0, 10.0) == 6.0
    xs, ys = np.array([2.0, 3.0]), np.array([10.0, 20.0])
    np.testing.assert_allclose(glassjax.vmap(square_add)(xs, ys), xs * xs + ys)
    np.testing.assert_allclose(glassjax.jit(glassjax.vmap(square_add))(xs, ys), xs * xs + ys)
    assert str(glassjax.make_jaxpr(square_add)(2.0, 10.0)) == (
        "{ lambda ; a:f32[] b:f32[]. let c:f32[] = fma a a b in (c,) }")


def test_rules_receive_tuples_as_in_jax():
    seen = {}
    p = xcore.Primitive("spy")
    p.def_abstract_eval(lambda x: x)
    p.def_impl(lambda x: x)
    ad.primitive_jvps[p] = lambda primals, tangents: (
        seen.setdefault("jvp", (type(primals), type(tangents))) and p.bind(*primals),
        tangents[0])
    batching.primitive_batchers[p] = lambda args, dims: (
        seen.setdefault("batch", (type(args), type(dims))) and p.bind(*args), dims[0])
    glassjax.jvp(p.bind, (1.0,), (1.0,))
    glassjax.vmap(p.bind)(jnp.ones(3))
    assert seen == {"jvp": (tuple, tuple), "batch": (tuple, tuple)}


def test_weak_python_int_literals_are_typed_as_in_jax():
    jaxpr = glassjax.make_jaxpr(lambda x: x + 1)(5).jaxpr
    assert repr(jaxpr.eqns[0].invars[1]) == "Literal(TypedInt(1, dtype=int32))"


def test_safe_map_and_zip_insist_on_equal_lengths():
    assert safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    assert safe_zip("ab", [1, 2]) == [("a", 1), ("b", 2)]
    with pytest.raises(ValueError, match="length mismatch"):
        safe_map(print, [1], [1, 2])
