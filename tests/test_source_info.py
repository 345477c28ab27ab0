"""Source information on equations: the user's line and the name stack of each equation,
as ``jaxpr.pretty_print(source_info=True, name_stack=True)`` prints them.

The programs in ``source_info_programs/`` are run as scripts and each jaxpr they make is
printed and compared with what JAX 0.10.2 printed for the same file (``NAME.expected``,
recorded by ``source_info_programs/render.py``). Only the programs' directory is
normalised, to ``DIR``.
"""
import importlib.util
import inspect
import pathlib

import pytest

PROGRAMS = pathlib.Path(__file__).parent / "source_info_programs"
_spec = importlib.util.spec_from_file_location("render", PROGRAMS / "render.py")
render = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render)


@pytest.mark.parametrize("name", render.CASES)
def test_prints_what_jax_prints(name):
    expected = (PROGRAMS / f"{name}.expected").read_text()
    assert render.render(name) == expected


# ----------------------------------------------------------------------------------------
# What is recorded
# ----------------------------------------------------------------------------------------

def _line_of(fun, marker: str) -> int:
    """The line number of the first line of ``fun``'s source holding ``marker``."""
    lines, start = inspect.getsourcelines(fun)
    return start + next(i for i, line in enumerate(lines) if marker in line)


def _frames(eqns):
    from glassjax import source_info
    return [source_info.user_frame(e.source_info.traceback) for e in eqns]


def test_each_equation_records_its_user_line_and_function():
    import glassjax as jax
    import glassjax.numpy as jnp

    def model(x):
        y = jnp.sin(x)             # first
        z = jnp.cos(y) * 2.0       # second
        return jnp.tanh(z)         # third

    jaxpr = jax.make_jaxpr(model)(1.0).jaxpr
    frames = _frames(jaxpr.eqns)
    lines = [_line_of(model, m) for m in ("# first", "# second", "# second", "# third")]
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "cos", "mul", "tanh"]
    assert [f.start_line for f in frames] == lines
    assert {f.file_name for f in frames} == {__file__}
    assert {f.function_name for f in frames} == {
        "test_each_equation_records_its_user_line_and_function.<locals>.model"}
    # The column is where the call starts: ``jnp.sin(x)`` after ``y = ``.
    assert frames[0].start_column == _source_line(frames[0]).index("jnp.sin")


def _source_line(frame) -> str:
    return pathlib.Path(frame.file_name).read_text().splitlines()[frame.start_line - 1]


def test_transformed_equations_point_at_the_line_they_came_from():
    import glassjax as jax
    import glassjax.numpy as jnp

    def model(x):
        return jnp.sin(x) * 3.0    # the line

    line = _line_of(model, "# the line")
    for transformed, arg in ((jax.grad(model), 1.0), (jax.vmap(model), jnp.ones(3)),
                             (jax.jit(model), 1.0)):
        eqns = jax.make_jaxpr(transformed)(arg).jaxpr.eqns
        if eqns[0].primitive.name == "jit":
            eqns = eqns[0].params["jaxpr"].jaxpr.eqns
        assert [f.start_line for f in _frames(eqns)] == [line] * len(eqns)


def test_name_stacks():
    import glassjax as jax
    import glassjax.numpy as jnp

    @jax.named_scope("dense")
    def dense(x):
        return jnp.sin(x) * 2.0

    def model(x):
        with jax.named_scope("layer1"):
            return dense(x)

    stacks = lambda f, *a: [str(e.source_info.name_stack)
                            for e in jax.make_jaxpr(f)(*a).jaxpr.eqns]
    assert stacks(model, 1.0) == ["layer1/dense", "layer1/dense"]
    assert stacks(jax.grad(model), 1.0) == [
        "jvp(layer1)/dense", "jvp(layer1)/dense", "jvp(layer1)/dense",
        "transpose(jvp(layer1))/dense", "transpose(jvp(layer1))/dense"]
    assert stacks(jax.vmap(model), jnp.ones(2)) == ["vmap(layer1)/dense"] * 2
    # A jit body's stacks are relative to the jit: the caller's scopes are on the jit
    # equation, and those around make_jaxpr itself on neither.
    with jax.named_scope("outside"):
        jaxpr = jax.make_jaxpr(lambda x: jax.named_scope("call")(jax.jit(model))(x))(1.0)
    jit_eqn, = jaxpr.jaxpr.eqns
    assert str(jit_eqn.source_info.name_stack) == "call"
    assert [str(e.source_info.name_stack) for e in
            jit_eqn.params["jaxpr"].jaxpr.eqns] == ["layer1/dense"] * 2


def test_named_scope_checks_its_name():
    import glassjax as jax
    with pytest.raises(TypeError, match="named_scope name argument must be a string"):
        jax.named_scope(3)


def test_printing_without_flags_is_unchanged():
    import glassjax as jax
    import glassjax.numpy as jnp

    def f(x):
        with jax.named_scope("s"):
            return jnp.sin(x)

    jaxpr = jax.make_jaxpr(f)(1.0)
    assert jaxpr.pretty_print() == str(jaxpr) == \
        "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"


def test_explorer_hover_cards_carry_the_source_line_and_scope():
    import glassjax as jax
    import glassjax.numpy as jnp
    from glassjax import lax
    from glassjax.notebook import explorer

    def model(x):
        with jax.named_scope("block"):
            y = jnp.sin(x)                                         # sin here
        return lax.cond(y > 0, lambda a: a * 2.0, jnp.cos, y)      # cond here

    view = explorer.View(jax.make_jaxpr(model)(1.0))
    cards = {}

    def visit(graph):
        for node in graph["nodes"]:
            if "card" in node:
                cards[node["id"]] = node["card"]
            for child in node.get("children") or []:
                visit(child)
    visit(view.root)
    sin = cards["g0-0.s.e0"]                 # inside the cluster of its named scope
    assert sin["text"] == "b:f32[] = sin a"
    line = _line_of(model, "# sin here")
    assert sin["source"] == {"file": __file__, "line": line,
                             "function": model.__qualname__,
                             "place": f"test_source_info.py:{line}",
                             "code": "y = jnp.sin(x)                                         # sin here"}
    assert sin["scope"] == "block"
    cond = next(c for c in cards.values() if c["text"].startswith("e:f32[] = cond["))
    assert cond["source"]["line"] == _line_of(model, "# cond here")
    assert "scope" not in cond                         # an empty name stack is not shown
    # inside the branches: the user's lambda; none for jnp.cos, a branch with no user
    # code (as JAX prints it: ``# `` and nothing)
    branch_cards = [cards[k] for k in sorted(cards) if k.startswith("e3.")]
    assert [c["text"] for c in branch_cards] == ["g:f32[] = cos f",
                                                 "i:f32[] = mul h 2.0:f32[]"]
    assert "source" not in branch_cards[0]
    assert branch_cards[1]["source"]["function"] == f"{model.__qualname__}.<locals>.<lambda>"


def test_an_equation_without_source_info_prints_empty_comments():
    """As JAX prints an equation made with no source info (``empty2`` in a cond's
    linearization, in the recorded programs): an empty location, an empty name stack."""
    import glassjax as jax
    import glassjax.numpy as jnp

    closed = jax.make_jaxpr(jnp.sin)(1.0)
    eqn, = closed.jaxpr.eqns
    bare = closed.jaxpr.replace(eqns=[eqn.replace(source_info=None)])
    assert bare.pretty_print(source_info=True, name_stack=True) == (   # JAX's text
        "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) } # \n"
        "                                                  # []")


def test_lowered_text_locates_operations_at_their_scope_and_line():
    import glassjax as jax
    import glassjax.numpy as jnp

    def f(x):
        with jax.named_scope("outer"):
            return jnp.sin(x) * 2.0                                # here

    lowered = jax.jit(jax.grad(f)).lower(1.0)
    assert "loc(" not in lowered.as_text()
    text = lowered.as_text(debug_info=True)
    line = _line_of(f, "# here")
    assert f'loc("{__file__}":{line}:' in text
    assert 'loc("jvp(outer)/cos"(' in text
    assert 'loc("transpose(jvp(outer))/mul"(' in text
    assert f'loc("{f.__qualname__}"(' in text
