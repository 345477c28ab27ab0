"""The parts of JAX's internals that libraries built on JAX call (flax nnx and linen,
equinox): opaque trace states, ``linear_util``'s WrappedFun with ``flatten_fun`` and
partial evaluation, the older batching-rule table, ``mlir.lower_fun``, traceback
exclusions, ``NamedSharding.update``. Expected values are JAX 0.10.2's, recorded by
running the same calls under it."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import api_util, lax
from glassjax._src import traceback_util
from glassjax._src.tree_util import _registry
from glassjax.core import AbstractValue, ShapedArray
from glassjax.experimental import hijax
from glassjax.extend import core as jex
from glassjax.extend import linear_util as lu
from glassjax.interpreters import batching, mlir
from glassjax.interpreters import partial_eval as pe
from glassjax.sharding import PartitionSpec as P


def test_opaque_trace_state_compares_the_current_trace():
    top = jex.get_opaque_trace_state(convention="flax")
    assert top == jex.get_opaque_trace_state() and not top == 1
    seen = []

    def f(x):
        seen.extend([jex.get_opaque_trace_state(), jex.get_opaque_trace_state()])
        return x
    glassjax.jit(f)(1.0)
    assert seen[0] == seen[1] and not seen[0] == top      # JAX: True False
    assert type(jex.find_top_trace(())).__name__ == "EvalTrace"
    names = []
    glassjax.make_jaxpr(lambda x: names.append(type(jex.find_top_trace([x])).__name__)
                        or x)(1.0)
    assert names == ["DynamicJaxprTrace"]


def test_wrapped_fun_flattened_and_partially_evaluated():
    def g(a, b):
        return {"s": lax.mul(b, lax.broadcast(a * 2.0, (3,))), "c": jnp.cos(a)}
    args = (1.0, jnp.ones(3))
    _, in_tree = glassjax.tree.flatten(args)
    debug = api_util.debug_info("probe", g, args, {})
    flat, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(g, debug_info=debug),
                                                   in_tree)
    pvals = [pe.PartialVal.known(jnp.float32(1.0)),
             pe.PartialVal.unknown(ShapedArray((3,), jnp.float32))]
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(flat, pvals)
    assert str(jaxpr) == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul b a in (c,) }"
    assert [pv[0] for pv in out_pvals] == [None, ShapedArray((3,), jnp.float32)]
    np.testing.assert_allclose(out_pvals[0][1], 0.5403022766113281, rtol=1e-6)
    assert out_pvals[1][1] is None
    assert str(out_tree()) == "PyTreeDef({'c': *, 's': *})"
    np.testing.assert_array_equal(consts[0], [2.0, 2.0, 2.0])


def test_transformations_stack_on_a_wrapped_fun():
    @lu.transformation2
    def plus_one(f, x):
        return f(x + 1) * 10

    def scaled(x):
        out = yield (x * 3,), {}
        yield out - 1

    wrapped = lu.wrap_init(lambda x: x * 2, debug_info=None)
    assert plus_one(wrapped).call_wrapped(3) == 80
    # (Curried as JAX's: given the function, still a partial to call.)
    assert lu.transformation(scaled, plus_one(wrapped))().call_wrapped(1) == 79
    with pytest.raises(lu.StoreException):
        api_util.flatten_fun_nokwargs(wrapped, glassjax.tree.structure((1,)))[1]()


def test_axis_primitive_batchers_rule_and_lower_fun():
    p = jex.Primitive("twice")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda a: a)
    calls = []

    def rule(axis_size, axis_name, trace_type, vals, dims):
        calls.append((axis_size, axis_name, trace_type, dims))
        return p.bind(*vals), dims[0]
    batching.axis_primitive_batchers[p] = rule
    mlir.register_lowering(p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
    np.testing.assert_array_equal(
        glassjax.vmap(lambda x: p.bind(x), axis_name="i")(jnp.arange(3.0)), [0., 2., 4.])
    assert calls == [(3, "i", None, (0,))]
    np.testing.assert_array_equal(glassjax.jit(lambda x: p.bind(x) + 1)(jnp.arange(3.0)),
                                  [1., 3., 5.])


def test_mapped_and_unmapped_avals():
    a = ShapedArray((2, 3, 4), jnp.float32)
    assert str(jex.mapped_aval(3, 1, a)) == "float32[2,4]"
    assert str(jex.unmapped_aval(5, 0, a)) == "float32[5,2,3,4]"
    assert jex.mapped_aval(3, None, a) is a
    assert isinstance(a, AbstractValue)


def test_sharding_on_no_mesh():
    sh = glassjax.typeof(jnp.ones((2, 3))).sharding
    assert repr(sh.update(spec=P(None))) == \
        "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
    assert str(ShapedArray((3,), jnp.float32, sharding=sh.update(spec=(None,)))) == \
        "float32[3]"
    # A sharding on no mesh asks for nothing (nnx.Dropout passes typeof(x).sharding).
    np.testing.assert_array_equal(glassjax.random.bernoulli(
        glassjax.random.key(0), 0.5, (4,), out_sharding=sh.update(spec=P(None))),
        [False, False, True, True])


def test_registry_and_traceback_exclusions():
    assert dict in _registry and tuple in _registry and int not in _registry
    assert traceback_util.include_filename("/some/user/file.py")
    traceback_util.register_exclusion("/some/lib/")
    assert not traceback_util.include_filename("/some/lib/x.py")
    assert traceback_util.include_filename("/some/user/file.py")


def test_hijax_primitives_are_refused():
    p = hijax.HiPrimitive("hi")
    with pytest.raises(NotImplementedError, match="hijax"):
        p.bind(1.0)


def test_einsum_takes_a_dot_general_of_the_callers():
    calls = []

    def dot_general(lhs, rhs, dims, precision=None, preferred_element_type=None, **kw):
        calls.append((dims, preferred_element_type, sorted(kw)))
        return 2 * lax.dot_general(lhs, rhs, dims, precision,
                                   preferred_element_type=preferred_element_type)
    a, b = jnp.arange(6.0).reshape(2, 3), jnp.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(jnp.einsum("ij,jk->ik", a, b, _dot_general=dot_general),
                                  [[40., 46., 52., 58.], [112., 136., 160., 184.]])
    np.testing.assert_array_equal(jnp.einsum("ij,jk->ki", a, b, _dot_general=dot_general),
                                  [[40., 112.], [46., 136.], [52., 160.], [58., 184.]])
    assert calls == [((((1,), (0,)), ((), ())), np.dtype("float32"), []),
                     ((((0,), (1,)), ((), ())), np.dtype("float32"), [])]


def test_trace_main_tells_one_jvp_from_another():
    from glassjax.interpreters import ad
    seen = {}

    def inner(x):
        seen["inner"] = jex.find_top_trace([x]).main
        return x * 2

    def outer(x, y):
        seen["outer"] = jex.find_top_trace([x]).main
        out = glassjax.jvp(inner, (y,), (1.0,))[1]
        seen["x is outer's"] = isinstance(x, ad.JVPTracer) and x._trace.main is seen["outer"]
        seen["x is inner's"] = x._trace.main is seen["inner"]
        return x + out
    glassjax.jvp(outer, (1.0, 2.0), (1.0, 0.0))
    # JAX: True False False
    assert (seen["x is outer's"], seen["x is inner's"], seen["inner"] is seen["outer"]) == \
        (True, False, False)


def test_constraint_to_a_sharding_over_the_abstract_mesh():
    """flax lays parameters out with ``NamedSharding(get_abstract_mesh(), spec)``."""
    from glassjax.sharding import AxisType, NamedSharding
    mesh = glassjax.make_mesh((4, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
    assert mesh.are_all_axes_auto and not mesh.are_all_axes_explicit
    assert not mesh.abstract_mesh.are_all_axes_manual
    with glassjax.set_mesh(mesh):
        s = NamedSharding(glassjax.sharding.get_abstract_mesh(), P("a", None))
        x = lax.with_sharding_constraint(jnp.ones((8, 2)), s)
        assert type(x.sharding.mesh).__name__ == "Mesh" and x.sharding.spec == P("a", None)
        y = glassjax.jit(lambda v: lax.with_sharding_constraint(v * 2, s))(jnp.ones((8, 2)))
        assert y.sharding.spec == P("a") and float(y.sum()) == 32.0
    with pytest.raises(TypeError):          # JAX: TypeError (no mesh to lay it out on)
        lax.with_sharding_constraint(jnp.ones((8, 2)), s)
