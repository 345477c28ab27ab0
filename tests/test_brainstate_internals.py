"""The parts of JAX's internals that libraries built on JAX reach into (brainstate,
saiunit, brainevent import them at load time), as glassjax's own objects: a library's
state lifted into a jaxpr with ``trace.new_arg``, its files excluded from user
tracebacks, its lowerings written with ``mlir.lower_fun``, its jaxprs built by hand with
JAX's ``DebugInfo`` and ``JaxprEqnContext``, and the sparse primitives it binds. Texts
are JAX 0.10.2's."""
import sys
import traceback

import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax._src import core as src_core
from glassjax._src import sharding_impls, source_info_util, traceback_util
from glassjax._src.dispatch import apply_primitive
from glassjax._src.interpreters import batching as src_batching
from glassjax.api_util import flatten_axes, shaped_abstractify
from glassjax.experimental import sparse
from glassjax.extend import core as xcore
from glassjax.extend import linear_util
from glassjax.extend.core import primitives
from glassjax.interpreters import mlir


def test_new_arg_adds_an_input_while_tracing():
    """brainstate's way of making a state an input: ``new_arg`` on the current trace."""
    def f(x):
        s = src_core.trace_ctx.trace.new_arg(shaped_abstractify(jnp.ones(2)),
                                             source_info=source_info_util.current())
        return x * s
    assert str(glassjax.make_jaxpr(f)(jnp.ones(2))) == (
        "{ lambda ; a:f32[2] b:f32[2]. let\n"
        "    _:f32[2] = broadcast_in_dim 1.0:f32[]\n"
        "    c:f32[2] = mul a b\n"
        "  in (c,) }")


def test_jit_takes_jax_unspecified_shardings():
    f = glassjax.jit(lambda x: x + 1, in_shardings=sharding_impls.UNSPECIFIED,
                     out_shardings=sharding_impls.UNSPECIFIED)
    assert float(f(1.0)) == 2.0
    assert repr(sharding_impls.UNSPECIFIED) == "UnspecifiedValue"


def test_debug_info_helpers():
    jaxpr = glassjax.make_jaxpr(lambda x, y: x + y)(1.0, 2.0).jaxpr
    debug = jaxpr.debug_info
    assert debug.safe_arg_names(2) == ("x", "y")
    unknown = debug.with_unknown_names()
    assert unknown.arg_names is None and unknown.safe_arg_names(2) == ("", "")
    assert unknown.func_name == "<lambda>"
    built = xcore.DebugInfo("eqns_to_jaxpr", "<unknown>", None, None)
    hand_made = xcore.Jaxpr([], jaxpr.invars, jaxpr.outvars, jaxpr.eqns, debug_info=built)
    assert xcore.jaxpr_as_fun(xcore.ClosedJaxpr(hand_made, []))(1.0, 2.0)[0] == 3.0


def test_equations_built_with_jax_context():
    x = xcore.Var(glassjax.core.ShapedArray((), np.float32))
    y = xcore.Var(glassjax.core.ShapedArray((), np.float32))
    eqn = xcore.JaxprEqn([x], [y], primitives.sin_p, {"accuracy": None}, set(),
                         source_info_util.new_source_info(), src_core.JaxprEqnContext())
    jaxpr = xcore.Jaxpr([], [x], [y], [eqn], debug_info=xcore.DebugInfo("t", "f", None, None))
    assert str(jaxpr) == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"
    assert src_core.JaxprEqnContext().threefry_partitionable is True


def test_extend_core_names():
    aval = glassjax.core.ShapedArray((4, 3), np.float32)
    assert xcore.mapped_aval(4, 0, aval).shape == (3,)
    assert xcore.mapped_aval(4, None, aval) is aval
    assert xcore.unmapped_aval(5, 1, aval).shape == (4, 5, 3)
    assert xcore.gensym()(aval).aval is aval
    assert primitives.dot_general_p is lax.dot_general_p
    assert src_core.is_constant_dim(3)
    states = []
    glassjax.jit(lambda x: states.append(xcore.get_opaque_trace_state()) or x)(1.0)
    assert states[0] != xcore.get_opaque_trace_state()
    assert xcore.get_opaque_trace_state() == xcore.get_opaque_trace_state()
    assert xcore.find_top_trace(()) is src_core.trace_ctx.trace
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'my_call'"):
        xcore.CallPrimitive("my_call").bind(1.0)   # a library's own call, without rules


def test_linear_util_wrap_init():
    f = linear_util.wrap_init(lambda x, *, k: x * k, {"k": 3})
    assert f.call_wrapped(2) == 6 and f.__name__ == "<lambda>"


def test_library_files_leave_user_tracebacks(tmp_path):
    """A registered library folder is not the user's: equations point past it, and its
    frames are filtered out of Python tracebacks."""
    lib = tmp_path / "mylib"
    lib.mkdir()
    (lib / "ops.py").write_text("def double(x):\n    return x * 2\n\n"
                                "def fail():\n    raise ValueError('no')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        from mylib import ops
        traceback_util.register_exclusion(str(lib))
        assert not source_info_util.is_user_filename(str(lib / "ops.py"))
        jaxpr = glassjax.make_jaxpr(lambda x: ops.double(x))(1.0)
        frame = glassjax.source_info.user_frame(jaxpr.eqns[0].source_info.traceback)
        assert frame.file_name == __file__
        try:
            ops.fail()
        except ValueError as e:
            files = [f.filename for f in traceback.extract_tb(
                traceback_util.filter_traceback(e.__traceback__))]
        assert files == [__file__]
    finally:
        sys.path.remove(str(tmp_path))


def test_user_context_sets_the_traceback_of_what_is_staged():
    tb = source_info_util.current().traceback
    with source_info_util.user_context(None):
        pass
    def f(x):
        with source_info_util.user_context(tb):
            return x + 1
    eqn = glassjax.make_jaxpr(f)(1.0).eqns[0]
    assert eqn.source_info.traceback is tb


def test_lower_fun_lowers_a_primitive_as_a_jax_function():
    softplus_p = xcore.Primitive("my_softplus")
    softplus_p.def_impl(lambda x: apply_primitive(softplus_p, x))
    softplus_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(softplus_p, mlir.lower_fun(lambda x: jnp.logaddexp(x, 0.0),
                                                      multiple_results=False))
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    expected = np.logaddexp(x, 0.0)
    np.testing.assert_allclose(softplus_p.bind(x), expected, rtol=1e-6)
    np.testing.assert_allclose(glassjax.jit(softplus_p.bind)(x), expected, rtol=1e-6)


def test_flatten_axes():
    treedef = glassjax.tree_util.tree_structure(((1, {"a": 2, "b": 3}),))
    assert flatten_axes("vmap in_axes", treedef, ((0, None),)) == [0, None, None]
    with pytest.raises(ValueError, match="vmap in_axes specification must be a tree "
                                         "prefix of the corresponding value"):
        flatten_axes("vmap in_axes", treedef, ((0, 1, 2),))


def test_batch_tracers_made_by_hand():
    """``to_elt`` makes a value batched along an axis an element of the current vmap."""
    table = np.arange(6.0, dtype=np.float32).reshape(3, 2)

    def f(x):
        trace = src_core.trace_ctx.trace
        row = src_batching.to_elt(trace, None, table, 0)        # table[i] in element i
        assert src_batching.to_elt(trace, None, table, None) is table
        return x * row.sum()
    np.testing.assert_array_equal(glassjax.vmap(f)(jnp.arange(3.0)),
                                  np.arange(3.0) * table.sum(1))
    assert src_batching.make_iota(4).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("jit", [False, True])
def test_sparse_primitives_give_the_dense_products(jit):
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(3, 4)).astype(np.float32) * (rng.random((3, 4)) < 0.5)
    row, col = np.nonzero(dense)
    data = dense[row, col]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=3))]).astype(np.int32)
    indices = col.astype(np.int32)
    v, m = rng.normal(size=4).astype(np.float32), rng.normal(size=(4, 2)).astype(np.float32)
    u = rng.normal(size=3).astype(np.float32)
    run = glassjax.jit(lambda f, *a: f(*a), static_argnums=0) if jit else (lambda f, *a: f(*a))
    todense = lambda d: sparse.coo_todense_p.bind(d, row, col,
                                                  spinfo=sparse.coo.COOInfo((3, 4)))
    np.testing.assert_array_equal(run(todense, data), dense)
    matvec = lambda d, x, t: sparse.csr_matvec_p.bind(d, indices, indptr, x, shape=(3, 4),
                                                      transpose=t)
    np.testing.assert_allclose(run(lambda d, x: matvec(d, x, False), data, v), dense @ v,
                               rtol=1e-5)
    np.testing.assert_allclose(run(lambda d, x: matvec(d, x, True), data, u), dense.T @ u,
                               rtol=1e-5)
    matmat = lambda d, b: sparse.csr_matmat_p.bind(d, indices, indptr, b, shape=(3, 4),
                                                   transpose=False)
    np.testing.assert_allclose(run(matmat, data, m), dense @ m, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="BCOO"):
        sparse.BCOO((data, np.stack([row, col], 1)), shape=(3, 4))
