"""The step-through debugger: into / over / out of jit, cond, while and scan bodies.

Every value the stepper shows is checked against the program itself: the stepped
outputs of a body against the outputs of the equation that called it (bound whole),
and the program's stepped outputs against the jitted function's."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook.debugger import Debugger
from glassjax.notebook.explorer import View
from glassjax.notebook.stepper import Stepper
from glassjax.sharding import NamedSharding, PartitionSpec as P


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def titles(s):
    return [f.describe() for f in s.stack]


def step_body_to_end(s):
    """Step over a body's equations; the stack depth stays."""
    depth = len(s.stack)
    while s.eqn is not None:
        s.over()
        assert len(s.stack) == depth


def test_stepping_over_a_flat_program_gives_its_values():
    def f(x, y):
        return jnp.sin(x) * y + 1.0
    x = jnp.arange(3.0)
    s = Stepper(make_jaxpr(f)(x, 2.0), [x, 2.0])
    assert s.location() == (0,) and s.eqn.primitive.name == "sin"
    close(s.inputs()[0], x)
    close(s.outputs()[0], np.sin(np.arange(3.0)))         # known at arrival
    seen = []
    while not s.done:
        seen.append(s.eqn.primitive.name)
        s.over()
    assert seen == ["sin", "convert_element_type", "mul", "add"]
    assert s.eqn is None and s.outputs() == []
    close(s.inputs()[0], jax.jit(f)(x, 2.0))              # at the end: the results
    s.over()                                               # stays at the end
    assert s.done and s.location() == (4,)


def test_into_a_jit_body_and_out_again():
    def inner(x):
        return jnp.tanh(x) * 3.0

    def f(x):
        return jnp.cos(jax.jit(inner)(x))
    x = jnp.array([0.5, -1.0])
    s = Stepper(make_jaxpr(f)(x), [x])
    outer_outputs = s.outputs()
    s.into()
    assert titles(s) == ["program", "jit: inner"]
    assert s.location() == ((0, 0), 0) and s.eqn.primitive.name == "tanh"
    close(s.inputs()[0], x)
    s.into()                                  # no body: the same as over
    assert s.eqn.primitive.name == "mul"
    close(s.inputs()[0], np.tanh([0.5, -1.0]))
    step_body_to_end(s)
    close(s.inputs()[0], outer_outputs[0])    # the body's result is the call's
    s.over()                                  # out of the body at its end
    assert titles(s) == ["program"] and s.location() == (1,)
    assert s.eqn.primitive.name == "cos"
    close(s.run()[0], jax.jit(f)(x))


def test_out_leaves_a_body_at_once():
    def f(x):
        return jax.jit(lambda y: jnp.sin(y) + jnp.cos(y))(x) * 2.0
    s = Stepper(make_jaxpr(f)(1.0), [1.0])
    s.into()
    assert len(s.stack) == 2
    s.out()
    assert titles(s) == ["program"] and s.eqn.primitive.name == "mul"
    s.out()                                   # in the program: to its end
    assert s.done
    close(s.inputs()[0], f(1.0))


@pytest.mark.parametrize("x,branch", [(2.0, 1), (-2.0, 0)])
def test_into_a_cond_enters_the_branch_taken(x, branch):
    def f(x):
        return lax.cond(x > 0, lambda x: jnp.sin(x) * 2.0, lambda x: jnp.cos(x) - 1.0, x)
    s = Stepper(make_jaxpr(f)(x), [x])
    s.over()                                  # gt
    assert s.eqn.primitive.name == "convert_element_type"
    s.over()
    assert s.eqn.primitive.name == "cond"
    result = s.outputs()[0]
    s.into()
    assert titles(s) == ["program", f"branch {branch} (taken)"]
    assert s.location() == ((2, branch), 0)
    assert s.eqn.primitive.name == ("sin" if branch else "cos")
    step_body_to_end(s)
    close(s.inputs()[0], result)
    close(result, f(x))


def test_a_while_loop_is_stepped_test_and_body_per_iteration():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 1.5),
                              (0, x))
    x = jnp.array([1.0, 2.0])
    s = Stepper(make_jaxpr(f)(x), [x])
    assert s.eqn.primitive.name == "while"
    final = s.outputs()
    s.into()
    visited, carry = [], None
    while len(s.stack) > 1:
        f_ = s.frame
        visited.append((f_.title, f_.iteration))
        assert s.location()[0] == (0, 0 if f_.title == "cond_jaxpr" else 1)
        step_body_to_end(s)
        if f_.title == "body_jaxpr":
            carry = s.inputs()                # the iteration's new carry
        s.over()
    assert visited == [("cond_jaxpr", 0), ("body_jaxpr", 0), ("cond_jaxpr", 1),
                       ("body_jaxpr", 1), ("cond_jaxpr", 2), ("body_jaxpr", 2),
                       ("cond_jaxpr", 3), ("body_jaxpr", 3), ("cond_jaxpr", 4)]
    for a, b in zip(carry, final):
        close(a, b)
    close(carry[1], x * 1.5 ** 4)
    assert s.done


@pytest.mark.parametrize("reverse", [False, True])
def test_a_scan_body_is_stepped_per_iteration_with_its_slices(reverse):
    xs = jnp.array([1.0, 2.0, 3.0])

    def f(c, xs):
        return lax.scan(lambda c, x: (c * x, c + x), c, xs, reverse=reverse)
    s = Stepper(make_jaxpr(f)(0.5, xs), [0.5, xs])
    while s.eqn.primitive.name != "scan":
        s.over()
    carry_out, ys_out = s.outputs()
    s.into()
    ys = []
    for it in range(3):
        t = 2 - it if reverse else it
        assert s.frame.iteration == it and s.frame.title == "body"
        close(s.value(s.frame.jaxpr.invars[1]), xs[t])  # the iteration's slice
        step_body_to_end(s)
        carry, y = s.inputs()
        ys.append(y)
        s.over()
    assert titles(s) == ["program"]
    close(carry, carry_out)
    close(np.stack(ys[::-1] if reverse else ys), ys_out)
    ref = jax.jit(f)(0.5, xs)
    close(ys_out, ref[1])


def test_a_jit_inside_a_scan_shows_the_call_stack_and_values():
    def body(x):
        return jnp.tanh(x) + 1.0

    def f(x):
        return lax.scan(lambda c, _: (jax.jit(body)(c), c.sum()), x, None, length=2)
    x = jnp.ones(2)
    s = Stepper(make_jaxpr(f)(x), [x])
    s.into()
    s.over()                                 # first iteration's reduce_sum, then end
    s.over()
    s.over()                                 # second iteration
    assert titles(s) == ["program", "body (iteration 1 of 2)"]
    s.into()
    assert titles(s) == ["program", "body (iteration 1 of 2)", "jit: body"]
    assert s.location() == ((0, 0), (0, 0), 0)
    once = np.tanh(1.0) + 1.0
    close(s.inputs()[0], [once, once])       # the carry after one iteration
    close(s.outputs()[0], np.tanh([once, once]))
    close(s.value(s.frame.jaxpr.invars[0]), [once, once])
    s.out()
    s.out()
    assert titles(s) == ["program"] and s.done
    for a, b in zip(s.inputs(), f(x)):
        close(a, b)


def test_a_failing_equation_is_reported_where_the_cursor_stands():
    closed = make_jaxpr(jnp.dot)(jnp.ones(3), jnp.ones(3))
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        Stepper(closed, [jnp.ones(3)])
    s = Stepper(closed, [jnp.ones(3), jnp.ones(4)])      # shapes that cannot meet
    assert s.eqn.primitive.name == "dot_general"
    with pytest.raises(TypeError, match="dot_general"):
        s.outputs()
    with pytest.raises(TypeError, match="dot_general"):
        s.over()
    assert s.location() == (0,)


# ----------------------------------------------------------------------------------------
# The debugger: the stepper as the explorer widget's messages
# ----------------------------------------------------------------------------------------

def scan_of_jit():
    def body(x):
        return jnp.tanh(x) + 1.0

    def f(x):
        return lax.scan(lambda c, _: (jax.jit(body)(c), c.sum()), x, None, length=2)
    x = jnp.ones(2)
    closed = make_jaxpr(f)(x)
    return closed, Debugger(closed, [x], View(closed)), f(x)


def test_the_debugger_marks_the_current_equation_in_the_graph_and_the_text():
    closed, dbg, _ = scan_of_jit()
    names = dbg.names
    state = dbg.handle({"type": "step", "how": "restart"})
    assert state["stack"] == ["program"] and state["id"] == "e0" and state["open"] == []
    state = dbg.handle({"type": "step", "how": "into"})
    assert state["stack"] == ["program", "body (iteration 0 of 2)"]
    assert (state["open"], state["id"]) == (["e0"], "e0.r0.e0")
    state = dbg.handle({"type": "step", "how": "into"})
    assert state["stack"] == ["program", "body (iteration 0 of 2)", "jit: body"]
    assert (state["open"], state["id"]) == (["e0", "e0.r0.e0"], "e0.r0.e0.r0.e0")
    jit_body = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr.eqns[0].params["jaxpr"].jaxpr
    assert [line["text"] for line in state["lines"]] == [
        names.eqn_text(e) for e in jit_body.eqns]
    assert state["current"] == 0
    assert state["inputs"][0]["value"] == "[1., 1.]"
    t = np.float32(np.tanh(1.0))
    assert state["outputs"][0]["value"] == np.array2string(np.array([t, t]),
                                                           separator=", ")
    dbg.handle({"type": "step", "how": "over"})
    state = dbg.handle({"type": "step", "how": "over"})     # the body's end
    assert state["end"] and state["lines"][-1]["text"].startswith("in (")
    assert (state["open"], state["id"]) == (["e0", "e0.r0.e0"], "e0.r0.e0.r0.out0")
    state = dbg.handle({"type": "step", "how": "out"})
    assert state["stack"] == ["program", "body (iteration 0 of 2)"] and state["current"] == 1
    assert dbg.handle({"type": "step", "how": "here"}) == state      # stays
    with pytest.raises(ValueError, match="one of into, over, out, restart, here"):
        dbg.handle({"type": "step", "how": "sideways"})


def test_a_variable_shows_its_value_in_the_program_or_where_the_stepper_stands():
    closed, dbg, (carry, ys) = scan_of_jit()
    names = dbg.names
    out0 = names.name(closed.jaxpr.outvars[1])
    reply = dbg.value(out0)                          # the program's value: evaluated
    assert reply["rows"][0]["value"] == np.array2string(np.asarray(ys), separator=", ")
    inner = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr.eqns[1].outvars[0]
    assert "step into it" in dbg.value(names.name(inner))["message"]
    dbg.step("into")
    dbg.step("over")                                 # the reduce_sum has run
    assert dbg.value(names.name(inner))["rows"][0]["value"] == "2."
    assert "no variable named" in dbg.value("nope")["message"]


def test_a_sharded_value_shows_one_row_per_device():
    mesh = jax.make_mesh((4,), ("d",))
    x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("d")))
    closed = make_jaxpr(jnp.sin)(x)
    dbg = Debugger(closed, [x], View(closed))
    (row,) = dbg.value(dbg.names.name(closed.jaxpr.invars[0]))["rows"]
    assert [(s["index"], s["value"]) for s in row["shards"]] == [
        (str((slice(2 * k, 2 * k + 2),)), np.array2string(np.arange(2.0 * k, 2 * k + 2),
                                                          separator=", "))
        for k in range(4)]
    assert [s["device"] for s in row["shards"]] == [repr(d) for d in mesh.devices.flat]


def test_into_custom_jvp_and_checkpoint_bodies():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))
    softplus.defjvp(lambda primals, tangents: (softplus(primals[0]),
                                               tangents[0] * jax.nn.sigmoid(primals[0])))

    def f(x):
        return jax.checkpoint(lambda y: jnp.sin(y) * 2.0)(softplus(x))
    x = jnp.array([0.5, -1.0])
    s = Stepper(make_jaxpr(f)(x), [x])
    assert s.eqn.primitive.name == "custom_jvp_call"
    called = s.outputs()[0]
    s.into()
    assert titles(s) == ["program", "custom_jvp_call: softplus"]
    step_body_to_end(s)
    close(s.inputs()[0], called)
    close(called, np.log1p(np.exp([0.5, -1.0])))
    s.over()
    assert s.eqn.primitive.name in ("checkpoint", "remat2")
    s.into()
    assert titles(s) == ["program", "checkpoint"]
    assert s.eqn.primitive.name == "sin"
    close(s.inputs()[0], called)
    close(s.run()[0], f(x))


def test_stepping_into_a_failing_call_finds_the_failing_equation():
    def f(x, y):
        return jax.jit(lambda a, b: jnp.dot(jnp.sin(a), b))(x, y)
    closed = make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
    s = Stepper(closed, [jnp.ones(3), jnp.ones(4)])      # the jit fails as a whole
    with pytest.raises(Exception, match="f32\\[4\\]"):
        s.outputs()
    s.into()                                             # inside, sin still runs
    assert s.eqn.primitive.name == "sin"
    close(s.outputs()[0], np.sin(np.ones(3)))
    s.over()
    assert s.eqn.primitive.name == "dot_general"         # the equation that fails
    with pytest.raises(TypeError):
        s.outputs()
    s.out()                                              # back on the failed call
    assert titles(s) == ["program"] and s.location() == (0,)


def test_the_stepper_runs_nothing_ahead_of_its_cursor():
    """Each equation runs when the cursor arrives at it (the walk, ``core.steps``, waits
    in between): a callback in the program is called once the stepper reaches it."""
    calls = []

    def f(x):
        y = jnp.sin(x)
        jax.debug.callback(lambda v: calls.append(np.asarray(v)), y)
        return y * 2.0
    x = jnp.float32(0.5)
    s = Stepper(make_jaxpr(f)(x), [x])
    assert s.eqn.primitive.name == "sin" and calls == []
    s.over()
    assert s.eqn.primitive.name == "debug_callback"
    assert len(calls) == 1 and np.asarray(calls[0]) == np.sin(np.float32(0.5))
    close(s.run()[0], 2 * np.sin(np.float32(0.5)))
    assert len(calls) == 1
