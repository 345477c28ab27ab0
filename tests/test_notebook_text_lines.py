"""Finding each equation in a jaxpr's printed text (the explorer links text and graph)."""
import textwrap

import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.naming import PrintedNames
from glassjax.notebook.explorer import View
from glassjax.notebook.text_lines import TextLinks, eqn_lines, parse_node_id
from test_explorer import nested as while_scan_cond


def nested(x):
    y = while_scan_cond(x)
    jax.debug.print("y {}", y)                  # an equation with no outputs
    return jax.jit(lambda z: jnp.tanh(z) + 1.0)(y)


def identity_branch(x):
    return lax.cond(x > 0, lambda x: -(x * 2), lambda x: x, x), lax.cond(
        x > 1, lambda x: jnp.sin(x), lambda x: x, x)      # a one-line branch


def locations(jaxpr, trail=()):
    for k, eqn in enumerate(jaxpr.eqns):
        yield (*trail, k), eqn
        for r, region in enumerate(graph_lib.eqn_layout(eqn).regions):
            yield from locations(region.jaxpr, (*trail, (k, r)))


@pytest.mark.parametrize("fun,arg", [(nested, jnp.ones(3)), (identity_branch, 2.0)])
def test_every_equation_is_found_where_it_is_printed(fun, arg):
    closed = jax.make_jaxpr(fun)(arg)
    text, names = str(closed), PrintedNames(closed.jaxpr)
    lines = text.split("\n")
    found = eqn_lines(closed.jaxpr, text, names)
    every = list(locations(closed.jaxpr))
    assert sorted(found, key=str) == sorted((loc for loc, _ in every), key=str)
    for loc, eqn in every:
        first, last = found[loc]
        lhs = " ".join(names.typed_name(v) for v in eqn.outvars)
        prefix = f"{lhs} = {eqn.primitive.name}" if lhs else eqn.primitive.name
        assert prefix in lines[first]
        if len(loc) > 1:                           # inside its equation's lines
            outer = found[(*loc[:-2], loc[-2][0])]
            assert outer[0] <= first <= last <= outer[1]
    for loc, eqn in every:
        if len(loc) == 1 and not any(True for _ in jax.core.jaxprs_in_params(eqn.params)):
            first, last = found[loc]
            block = textwrap.dedent("\n".join(lines[first:last + 1]))
            assert block == names.eqn_text(eqn)


def test_equations_of_one_jaxpr_come_in_order_and_do_not_overlap():
    closed = jax.make_jaxpr(nested)(jnp.ones(3))
    found = eqn_lines(closed.jaxpr, str(closed), PrintedNames(closed.jaxpr))
    top = [found[(k,)] for k in range(len(closed.jaxpr.eqns))]
    assert top[0][0] == 1 and top[-1][1] == len(str(closed).split("\n")) - 2
    for (a0, a1), (b0, b1) in zip(top, top[1:]):
        assert a1 < b0


def test_linked_selection_between_nodes_and_lines():
    closed = jax.make_jaxpr(nested)(jnp.ones(3))
    text = str(closed)
    view = View(closed)
    links = TextLinks(closed.jaxpr, text, view)
    lines = text.split("\n")
    found = eqn_lines(closed.jaxpr, text, view.names)
    # the cond inside the scan inside the while's body: node e0.r1.e0.r0.e3
    loc = ((0, 1), (0, 0), 3)
    assert view.locate(loc) == {"open": ["e0", "e0.r1.e0"], "id": "e0.r1.e0.r0.e3"}
    assert links.node_lines("e0.r1.e0.r0.e3") == list(found[loc])
    assert lines[found[loc][0]].strip() == "j:f32[3] = cond["
    assert links.node_lines("e0.r1.e0.r0.in0") is None
    # a line of the cos branch: the innermost equation there, and where it is drawn
    cos_line = next(k for k, l in enumerate(lines) if "= cos" in l)
    reply = links.handle({"type": "select_line", "line": cos_line})
    assert reply["id"] == "e0.r1.e0.r0.e3.r0.e0"
    assert reply["open"] == ["e0", "e0.r1.e0", "e0.r1.e0.r0.e3"]
    assert reply["lines"] == [cos_line, cos_line]
    assert links.handle({"type": "select_line", "line": 0})["id"] is None   # the header
    reply = links.handle({"type": "select", "id": "e1"})
    assert lines[reply["lines"][0]].strip().startswith("debug_print[")


def test_a_folded_run_selects_the_lines_of_all_its_equations():
    def big(x):
        for _ in range(30):
            x = jnp.sin(x) * 2.0
        return x
    closed = jax.make_jaxpr(big)(jnp.ones(3))
    view = View(closed, budget=20)
    (run,) = [n for n in view.root["nodes"] if n["type"] == "cluster"]
    assert run["id"] == "g0-59"
    links = TextLinks(closed.jaxpr, str(closed), view)
    assert links.node_lines("g0-59") == [1, 60]
    assert parse_node_id("g0-59.s.g0-19.s.e7") == ((), (7, 7))
    assert links.handle({"type": "select_line", "line": 8}) == {   # in a chunk of 20
        "type": "selected", "open": ["g0-59", "g0-59.s.g0-19"], "id": "g0-59.s.g0-19.s.e7",
        "lines": [8, 8]}
