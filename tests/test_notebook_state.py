"""Pictures of stateful programs (issue 15), through a real IPython shell with
``%load_ext glassjax``: the values of ``glassjax.state`` objects are drawn as cylinders
(the store they live in) labelled with the state, both where they are read (inputs) and
where the new values are written (outputs). ``%jaxpr`` on a function that writes states
shows the program ``glassjax.state.make_jaxpr`` gives, and says how to run it."""
import re

import pytest
from IPython.utils.capture import capture_output

import glassjax.numpy as jnp
from glassjax import state
from glassjax.notebook import to_graphviz
from test_notebook_graph import nodes
from test_notebook_magics import loaded_shell

SETUP = """
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import state

w = state.ParamState(jnp.ones(3))
count = state.ShortTermState(jnp.zeros(()))

def step(x):
    count.value = count.value + 1
    return (w.value * x).sum()
"""


@pytest.fixture(scope="module")
def shell():
    return loaded_shell(SETUP)


def _shapes(dot: str) -> dict:
    return dict(re.findall(r'^\t+(\w+) \[label=.*? shape=(\w+)', dot, re.M))


def test_state_inputs_and_outputs_are_cylinders_labelled_with_the_state():
    w = state.ParamState(jnp.ones(3))
    count = state.ShortTermState(jnp.zeros(()))

    def step(x):
        count.value = count.value + 1
        return (w.value * x).sum()

    jaxpr, states = state.make_jaxpr(step)(jnp.arange(3.))
    dot = to_graphviz(jaxpr).source
    labels, shapes = nodes(dot), _shapes(dot)
    assert shapes["in0"] == "invhouse"                      # the argument x
    assert [shapes[n] for n in ("in1", "in2", "out1", "out2")] == ["cylinder"] * 4
    assert labels["in1"].endswith("ShortTermState") and labels["in2"].endswith(
        "ParamState")
    assert labels["out1"] == "output 1\nShortTermState"
    assert shapes["out0"] == "house" and labels["out0"] == "output 0"
    assert len(states) == 2


def test_the_magic_draws_a_stateful_function(shell, tmp_path):
    dot_file = tmp_path / "g.dot"
    with capture_output() as captured:
        shell.run_cell(f"%jaxpr --save {dot_file} step(jnp.arange(3.0))").raise_error()
    dot = dot_file.read_text()
    assert sorted(n for n, s in _shapes(dot).items() if s == "cylinder") == [
        "in1", "in2", "out1", "out2"]
    page = captured.outputs[0].data["text/html"]
    assert "run it with glassjax.state.jit(f)" in page        # the run stage says how
    text = captured.outputs[0].data["text/plain"]
    assert "add b 1.0:f32[]" in text                          # the count's update


def test_the_explorer_marks_the_states_too():
    from glassjax.notebook import explorer
    w = state.ParamState(jnp.ones(3))

    def scale(x):
        w.value = w.value * x
        return w.value.sum()

    jaxpr, _ = state.make_jaxpr(scale)(jnp.arange(3.))
    view = explorer.View(jaxpr)
    kinds = {n["id"]: n.get("kind") for n in view.root["nodes"]}
    assert kinds["in1"] == "state" and kinds["out1"] == "state"
    assert kinds["in0"] is None and kinds["out0"] is None
    dot = explorer.to_dot(view).source
    assert sorted(n for n, s in _shapes(dot).items() if s == "cylinder") == ["in1", "out1"]
