"""Jaxpr graphs (glassjax.notebook.to_graphviz): nodes, typed edges, nested clusters.

The programs are the examples of "Understanding jaxprs" and the JAX key-concepts page;
their jaxpr text is checked against JAX's elsewhere, here we check the picture: which
clusters, nodes and edges the DOT source has, that ids are stable, and that depth
collapses clusters.
"""
import re

import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook import to_graphviz
from glassjax.notebook.display import svg


# ----------------------------------------------------------------------------------------
# The seed examples
# ----------------------------------------------------------------------------------------

def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3.], arg)


def func7(arg):
    return lax.cond(arg >= 0., lambda xtrue: xtrue + 3., lambda xfalse: xfalse - 3., arg)


def func8(arg1, arg2):
    return lax.cond(arg1 >= 0., lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1], arg2)


def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)


def func11(arr, extra):
    ones = jnp.ones(arr.shape)

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))


def func12(arg):
    @glassjax.jit
    def inner(x):
        return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)


def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


# ----------------------------------------------------------------------------------------
# Reading DOT
# ----------------------------------------------------------------------------------------

def nodes(dot: str) -> dict:
    """node id -> label."""
    found = {}
    for m in re.finditer(r'^\t+(\w+) \[label=("(?:[^"\\]|\\.)*"|\S+?)[ \]]', dot, re.M):
        found[m.group(1)] = m.group(2).strip('"').replace("\\n", "\n")
    return found


def edges(dot: str) -> set:
    """(tail, head, label or None)."""
    found = set()
    for m in re.finditer(r'^\t(\w+) -> (\w+)(?: \[(.*)\])?$', dot, re.M):
        lab = re.search(r'label=("(?:[^"\\]|\\.)*"|\S+)', m.group(3) or "")
        found.add((m.group(1), m.group(2),
                   lab.group(1).strip('"').replace("\\n", "\n") if lab else None))
    return found


def clusters(dot: str) -> dict:
    """cluster name -> label."""
    found = {}
    for m in re.finditer(r'subgraph (cluster_\w+) \{\n\t+(.*)', dot):
        lab = re.search(r'label=("(?:[^"\\]|\\.)*"|\S+)', m.group(2))
        found[m.group(1)] = lab.group(1).strip('"').replace("\\n", "\n")
    return found


def dot_of(fun, *args, **kw):
    return to_graphviz(make_jaxpr(fun)(*args), **kw).source


# ----------------------------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------------------------

def test_first_order_program_nodes_and_typed_edges():
    def func1(first, second):
        temp = first + jnp.sin(second) * 3.
        return jnp.sum(temp)
    dot = dot_of(func1, jnp.zeros(8), jnp.ones(8))
    n = nodes(dot)
    assert n["in0"] == "a:f32[8]\nfirst" and n["in1"] == "b:f32[8]\nsecond"
    assert n["e0"] == "sin" and n["e1"] == "mul" and n["e2"] == "add"
    assert n["e3"] == "reduce_sum\naxes=(0,)"            # out_sharding=None is left out
    assert n["e1_lit1"] == "3.0:f32[]"
    assert n["out0"] == "output 0"
    assert edges(dot) == {("in1", "e0", "b:f32[8]"), ("e0", "e1", "c:f32[8]"),
                          ("e1_lit1", "e1", None), ("in0", "e2", "a:f32[8]"),
                          ("e1", "e2", "d:f32[8]"), ("e2", "e3", "e:f32[8]"),
                          ("e3", "out0", "f:f32[]")}
    assert "cluster" not in dot


def test_cond_branches_are_clusters_labelled_by_index():
    dot = dot_of(func7, 5.)
    assert clusters(dot) == {"cluster_e2": "cond\nthe index picks one branch",
                             "cluster_e2_r0": "branch 0", "cluster_e2_r1": "branch 1"}
    n = nodes(dot)
    assert n["e2"] == "cond" and n["e2_r0_e0"] == "sub" and n["e2_r1_e0"] == "add"
    assert n["e2_r0_in0"] == "e:f32[]" and n["e2_r1_in0"] == "g:f32[]"   # as printed
    assert n["e2_out"] == "d:f32[]"
    e = edges(dot)
    assert ("e1", "e2", "c:i32[]") in e                          # the index picks
    assert {("in0", "e2_r0_in0", "a:f32[]"), ("in0", "e2_r1_in0", "a:f32[]")} <= e
    assert {("e2", "e2_r0_in0", "0"), ("e2", "e2_r1_in0", "1")} <= e
    assert {("e2_r0_e0", "e2_out", "f:f32[]"), ("e2_r1_e0", "e2_out", "h:f32[]"),
            ("e2_out", "out0", "d:f32[]")} <= e


def test_switch_has_one_cluster_per_branch():
    dot = dot_of(one_of_three, 1, 5.)
    c = clusters(dot)
    assert [c[f"cluster_e2_r{k}"] for k in range(3)] == ["branch 0", "branch 1", "branch 2"]
    n = nodes(dot)
    assert n["e1"] == "clamp" and [n[f"e2_r{k}_e0"] for k in range(3)] == ["add", "sub", "add"]
    assert ("e1", "e2", "d:i32[]") in edges(dot)


def test_cond_with_constvar_and_pytree_operand():
    dot = dot_of(func8, 5., (jnp.zeros(1), 2.))
    n = nodes(dot)
    assert n["const0"] == "a:i32[1]\nconstant\n[1]"
    assert n["in1"] == "c:f32[1]\narg2[0]" and n["in2"] == "d:f32[]\narg2[1]"
    e = edges(dot)
    assert {("const0", "e2_r0_in0", "a:i32[1]"), ("const0", "e2_r1_in0", "a:i32[1]"),
            ("in1", "e2_r1_in1", "c:f32[1]"), ("in2", "e2_r0_in2", "d:f32[]")} <= e
    # branch 1 returns its binder n unchanged
    assert n["e2_r1_in1"] == "n:f32[1]" and ("e2_r1_in1", "e2_out", "n:f32[1]") in e


def test_while_has_cond_and_body_clusters_and_a_carry_back_edge():
    dot = dot_of(func10, np.ones(16), 5)
    c = clusters(dot)
    assert c["cluster_e2"] == ("while\ncond_nconsts=0 body_nconsts=2\n"
                               "repeat body while cond is True")
    assert c["cluster_e2_r0"] == "cond_jaxpr" and c["cluster_e2_r1"] == "body_jaxpr"
    n = nodes(dot)
    assert n["e2_r0_e0"] == "lt" and n["e2_out"] == "_:i32[]\n_:i32[]\ne:f32[16]"
    e = edges(dot)
    assert ("e2_r0_e0", "e2_out", "r:bool[]\nFalse: the loop ends") in e
    # body consts c and a, then the carry (0, b, d)
    assert {("e0", "e2_r1_in0", "c:f32[16]"), ("in0", "e2_r1_in1", "a:f32[16]"),
            ("e2_r1_in2_lit2", "e2_r1_in2", "carry"), ("in1", "e2_r1_in3", "b:i32[]\ncarry"),
            ("e1", "e2_r1_in4", "d:f32[16]\ncarry")} <= e
    back = re.findall(r"(\w+) -> (\w+) \[label=\"([^\"]*)\" color=\"#b45309\" "
                      r"constraint=false style=dashed\]", dot)
    assert sorted(back) == sorted([("e2_r1_e0", "e2_r1_in2", "k:i32[]\\ncarry: next step"),
                                   ("e2_r1_in3", "e2_r1_in3", "i:i32[]\\ncarry: next step"),
                                   ("e2_r1_e3", "e2_r1_in4", "n:f32[16]\\ncarry: next step")])


def test_scan_shows_slicing_stacking_length_reverse_and_carry():
    dot = dot_of(func11, np.ones(16), 5.)
    c = clusters(dot)
    assert c == {"cluster_e1": "scan\nlength=16 reverse=False\nnum_consts=1 num_carry=1\n"
                               "steps run from the start"}
    e = edges(dot)
    assert {("in1", "e1_r0_in0", "b:f32[]"),
            ("e1_r0_in1_lit1", "e1_r0_in1", "carry"),
            ("in0", "e1_r0_in2", "a:f32[16]\nxs[i]: one slice per step"),
            ("e0", "e1_r0_in3", "c:f32[16]\nxs[i]: one slice per step"),
            ("e1_r0_e4", "e1_out", "n:f32[]"),
            ("e1_r0_in1", "e1_out", "g:f32[]\nys: stacked, 16 steps"),
            ("e1_r0_e4", "e1_r0_in1", "n:f32[]\ncarry: next step"),
            ("e1_out", "out0", "d:f32[]"), ("e1_out", "out1", "e:f32[16]")} <= e


def test_reverse_scan():
    dot = dot_of(lambda xs: lax.scan(lambda c, x: (c + x, c), 0., xs, reverse=True),
                 np.ones(4, np.float32))
    assert "length=4 reverse=True" in clusters(dot)["cluster_e0"]
    assert "steps run from the end" in clusters(dot)["cluster_e0"]


def test_jit_cluster_is_named_by_the_function():
    dot = dot_of(func12, 1.)
    assert clusters(dot) == {"cluster_e1": "jit: inner"}
    n = nodes(dot)
    assert n["e1_r0_in0"] == "a:f32[]" and n["e1_r0_in1"] == "b:f32[]"
    e = edges(dot)
    assert {("in0", "e1_r0_in0", "a:f32[]"), ("e0", "e1_r0_in1", "b:f32[]"),
            ("e1_r0_e4", "e1_out", "c:f32[1]"), ("e1_out", "e3", "c:f32[1]")} <= e


def test_selu_where_is_a_jit_cluster():
    dot = dot_of(selu, jnp.arange(5.0))
    assert clusters(dot) == {"cluster_e4": "jit: _where"}
    n = nodes(dot)
    assert [n[f"e{i}"] for i in (0, 1, 2, 3, 5)] == ["gt", "exp", "mul", "sub", "mul"]
    assert n["e4_r0_e0"] == "select_n"
    assert n["e2_lit0"] == "1.6699999570846558:f32[]"
    assert ("e4_out", "e5", "f:f32[5]") in edges(dot)


def test_depth_collapses_clusters_into_nodes():
    def nested(x):
        return lax.cond(x > 0., lambda y: glassjax.jit(jnp.sin)(y), jnp.cos, x)
    closed = make_jaxpr(nested)(1.)
    full = to_graphviz(closed).source
    assert {"cluster_e2", "cluster_e2_r0", "cluster_e2_r1", "cluster_e2_r1_e0"} == set(
        clusters(full))
    one = to_graphviz(closed, depth=1).source
    assert set(clusters(one)) == {"cluster_e2", "cluster_e2_r0", "cluster_e2_r1"}
    assert nodes(one)["e2_r1_e0"] == "jit: sin\n(1 equation inside)"
    zero = to_graphviz(closed, depth=0).source
    assert clusters(zero) == {}
    assert nodes(zero)["e2"] == "cond\nthe index picks one branch\n(3 equations inside)"
    assert {("e1", "e2", "c:i32[]"), ("in0", "e2", "a:f32[]"),
            ("e2", "out0", "d:f32[]")} <= edges(zero)


def test_same_program_gives_byte_identical_dot():
    first = dot_of(func11, np.ones(16), 5.)
    assert first == dot_of(func11, np.ones(16), 5.)
    assert dot_of(func10, np.ones(16), 5) == dot_of(func10, np.ones(16), 5)


def test_rankdir_and_bad_arguments():
    closed = make_jaxpr(func7)(5.)
    assert "rankdir=LR" in to_graphviz(closed, rankdir="LR").source
    with pytest.raises(ValueError, match="rankdir"):
        to_graphviz(closed, rankdir="XY")
    with pytest.raises(ValueError, match="depth"):
        to_graphviz(closed, depth=-1)


def test_axis_env_legend_and_result_names():
    closed = make_jaxpr(func7)(5.)
    dot = to_graphviz(closed, axis_env=[("i", 4), ("j", 2)],
                      result_names=["result"]).source
    n = nodes(dot)
    assert n["legend"] == "axis environment\ni: size 4\nj: size 2"
    assert n["out0"] == "output 0\nresult"


def test_highlight_marks_one_equation():
    closed = make_jaxpr(selu)(jnp.arange(5.0))
    dot = to_graphviz(closed, depth=0, highlight=["e3"]).source
    assert re.search(r'\te3 \[label=sub fillcolor="#fde68a"', dot)
    assert not re.search(r'\te2 \[label=mul fillcolor="#fde68a"', dot)


def _jit_named(fun, name):
    """``jit(fun)`` with the function renamed: jit names its equation after it."""
    fun.__name__ = name
    return glassjax.jit(fun)


def test_labels_are_text_never_markup():
    evil = "<script>alert(1)</script>"
    named = _jit_named(lambda x: x + 1., evil)
    closed = make_jaxpr(lambda d: named(d["<b>k</b>"]) * 2.)({"<b>k</b>": 1.0})
    g = to_graphviz(closed)
    assert clusters(g.source)["cluster_e0"] == f"jit: {evil}"
    assert nodes(g.source)["in0"] == "a:f32[]\nd['<b>k</b>']"
    picture = svg(g)
    assert "<script" not in picture and "<b>" not in picture
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in picture
    assert "&lt;b&gt;k&lt;/b&gt;" in picture
    # a lambda's name looks like an HTML-like DOT label; it must stay a plain string
    lam = make_jaxpr(glassjax.jit(lambda x: x * 2.))(1.)
    assert 'label="jit: <lambda>"' in to_graphviz(lam).source
    assert "jit: &lt;lambda&gt;" in svg(to_graphviz(lam))


def test_backslashes_in_names_are_literal():
    f = _jit_named(lambda x: x, r"a\nb\l")
    dot = dot_of(f, 1.)
    assert r'label="jit: a\\nb\\l"' in dot


def test_custom_derivative_and_checkpoint_clusters():
    @glassjax.custom_jvp
    def cj(x):
        return jnp.sin(x)
    cj.defjvp(lambda p, t: (cj(p[0]), t[0] * jnp.cos(p[0])))

    @glassjax.custom_vjp
    def cv(x):
        return jnp.sin(x)
    cv.defvjp(lambda x: (jnp.sin(x), x), lambda r, g: (g * jnp.cos(r),))

    for fun, title in [(cj, "custom_jvp_call: cj\nits derivative is a custom JVP rule"),
                       (cv, "custom_vjp_call: cv\nits derivative is a custom fwd/bwd pair")]:
        dot = dot_of(fun, 1.0)
        assert clusters(dot) == {"cluster_e0": title}
        assert nodes(dot)["e0_r0_e0"] == "sin"
        assert {("in0", "e0_r0_in0", "a:f32[]"), ("e0_r0_e0", "e0_out", "d:f32[]"),
                ("e0_out", "out0", "b:f32[]")} <= edges(dot)
    dot = dot_of(glassjax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), 1.0)
    assert clusters(dot) == {
        "cluster_e0": "checkpoint\nrecomputed in the backward pass\npolicy=None"}
    assert [nodes(dot)[f"e0_r0_e{i}"] for i in (0, 1)] == ["sin", "sin"]
    # under grad, the checkpointed body (an open Jaxpr param) is drawn the same way
    dot = dot_of(glassjax.grad(glassjax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))), 1.0)
    assert "cluster_e2" in clusters(dot)
    assert ("e2_r0_e4", "e2_out", "j:f32[]") in edges(dot)


def test_unknown_higher_order_primitives_get_one_region_per_jaxpr_param():
    inner = make_jaxpr(lambda x, y: x * y)(1.0, 2.0)
    outer = make_jaxpr(lambda x: jnp.sin(x))(1.0)
    a, b = outer.jaxpr.invars[0], outer.jaxpr.eqns[0].outvars[0]
    out = glassjax.core.Var(b.aval)
    fancy = glassjax.core.Primitive("fancy_call")
    eqn = glassjax.core.new_jaxpr_eqn([a, b], [out], fancy,
                                      {"body": inner, "mode": "fast", "hook": print})
    jaxpr = outer.jaxpr.replace(eqns=[*outer.jaxpr.eqns, eqn], outvars=[out])
    dot = to_graphviz(glassjax.core.ClosedJaxpr(jaxpr, [])).source
    assert clusters(dot) == {"cluster_e1": "fancy_call\nmode=fast"}   # callables left out
    assert {("in0", "e1_r0_in0", "a:f32[]"), ("e0", "e1_r0_in1", "b:f32[]"),
            ("e1_r0_e0", "e1_out", "f:f32[]")} <= edges(dot)


def test_collectives_are_marked_and_reductions_are_not():
    from glassjax.lax import parallel
    closed = make_jaxpr(lambda x: parallel.psum(jnp.sum(x), "i"),
                        axis_env=[("i", 4)])(jnp.ones(3))
    dot = to_graphviz(closed, axis_env=[("i", 4)]).source
    assert re.search(r'\te0 \[label="reduce_sum\\naxes=\(0,\)" fillcolor=white', dot)
    assert re.search(r'\te1 \[label="psum\\naxes=\(\'i\',\)" fillcolor="#fee2e2"', dot)
    assert nodes(dot)["legend"] == "axis environment\ni: size 4"


def test_a_primitive_declares_its_drawing_and_the_notebook_follows():
    """The notebook reads ``eqn.primitive.drawing``, not a table of primitive names: a
    new call primitive is drawn generically until it declares a ``core.Drawing``, then
    as a call cluster with its label and note, and the stepper can enter it."""
    from glassjax import core
    from glassjax.notebook.stepper import Stepper
    call_p = core.Primitive("my_call")
    call_p.multiple_results = True
    call_p.def_abstract_eval(lambda x, body: body.out_avals)
    call_p.def_impl(lambda x, body: core.eval_jaxpr(body.jaxpr, body.consts, x))
    inner = make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
    program = make_jaxpr(lambda x: call_p.bind(x, body=inner)[0] + 1)(1.0)
    plain = to_graphviz(program).source
    assert "label=my_call " in plain and "my call:" not in plain
    stepper = Stepper(program, [1.0])
    stepper.into()                             # not enterable: steps over it
    assert stepper.location() == (1,) and len(stepper.stack) == 1

    call_p.drawing = core.Drawing("jit", "my call", body="body", note="runs its body")
    drawn = to_graphviz(program).source
    assert 'label="my call: <lambda>\\nruns its body"' in drawn
    assert 'fillcolor="#e0f2fe"' in drawn      # the colour of a call cluster
    stepper = Stepper(program, [1.0])
    stepper.into()
    assert stepper.location() == ((0, 0), 0) and stepper.frame.title == "my call: <lambda>"
    assert stepper.eqn.primitive is lax.sin_p
    np.testing.assert_allclose(stepper.outputs()[0], np.sin(1.0), rtol=1e-6)
