"""Pictures of many-device programs, through a real IPython shell with ``%load_ext glassjax``.

pmap (a jit of one shard_map) and shard_map are clusters titled with their mesh; the
edges that cross them carry the in/out specs; collectives are filled with the colour of
each named axis they communicate across; an axis environment is a legend; results that
live on several devices are shown one row per device. We read the graph's DOT text
(written by ``--save FILE.dot``) and the published bundles, never Graphviz's SVG bytes.
"""
import html
import re

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import glassjax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook import display, to_graphviz
from test_notebook_graph import clusters, edges, nodes

SETUP = """
import numpy as np
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P

def total_and_rank(x):
    return lax.psum(x, 'i') + lax.axis_index('i')

def grid_step(a):
    return lax.psum(a, 'x'), lax.all_gather(a, 'y'), lax.psum(a, ('x', 'y'))

backwards = Mesh(np.array(jax.devices())[::-1].reshape(4, 2), ('x', 'y'))
"""


@pytest.fixture(scope="module")
def shell():
    assert len(glassjax.devices()) == 8, "conftest.py gives the tests 8 CPU devices"
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext glassjax", store_history=False).raise_error()
    ip.run_cell(SETUP).raise_error()
    return ip


def shown(shell, cell) -> tuple[dict, str]:
    """Run a cell that must succeed and publish one bundle; (its data, printed text)."""
    with capture_output() as captured:
        result = shell.run_cell(cell)
    result.raise_error()
    assert len(captured.outputs) == 1, captured.outputs
    return captured.outputs[0].data, captured.stdout


def fill(dot: str, nid: str) -> str:
    return re.search(rf'^\t+{nid} \[label=.*? fillcolor=("[^"]*"|\S+)', dot,
                     re.M).group(1).strip('"')


def swatches(dot: str) -> dict:
    """axis name -> its colour in the legend."""
    return {label.removeprefix("axis "): fill(dot, nid)
            for nid, label in nodes(dot).items() if re.fullmatch(r"axis\d+", nid)}


def shard_rows(page: str) -> list[tuple[str, str, str]]:
    """(device, index, value) of each row of the per-device table."""
    table = page[page.index('class="gj-table gj-shards"'):]
    table = table[:table.index("</table>")]
    return [tuple(html.unescape(re.sub(r"<[^>]+>", "", c)) for c in
                  re.findall(r"<td>(.*?)</td>", row, re.S)) for row in
            re.findall(r"<tr>(<td>.*?)</tr>", table, re.S)]


# ----------------------------------------------------------------------------------------
# pmap
# ----------------------------------------------------------------------------------------

def test_pmap_shows_jaxpr_cluster_with_mesh_and_one_row_per_device(shell, tmp_path):
    dot_file = tmp_path / "pmap.dot"
    data, printed = shown(shell, f"%jaxpr --save {dot_file} "
                                 "jax.pmap(total_and_rank, axis_name='i')(jnp.arange(8.0))")
    assert printed == f"Saved the graph to {dot_file}\n"
    expected = make_jaxpr(glassjax.pmap(lambda x: lax.psum(x, "i") + lax.axis_index("i"),
                                        axis_name="i"))(jnp.arange(8.0))
    assert data["text/plain"].startswith(str(expected) + "\n\n")

    dot = dot_file.read_text()
    assert clusters(dot) == {
        "cluster_e0": "jit: _fun",
        "cluster_e0_r0_e0": "shard_map\nmesh: i=8\ndevices: [0, 1, 2, 3, 4, 5, 6, 7]\n"
                            "check_vma=False\nthe body runs once on every device",
        "cluster_legend": "named axes"}
    # The specs are on the edges that enter and leave the shard_map.
    assert ("e0_r0_in0", "e0_r0_e0_r0_in0", "a:f32[8]\nin_specs: P('i',)") in edges(dot)
    assert any(t.startswith("e0_r0_e0_r0_e") and h == "e0_r0_e0_out" and
               lab.endswith("\nout_specs: P('i',)") for t, h, lab in edges(dot))
    # Both collectives are marked with the colour of axis i; other equations are not.
    n = nodes(dot)
    marked = {nid for nid in n if nid.startswith("e0_r0_e0_r0_e")
              and fill(dot, nid) == swatches(dot)["i"]}
    assert {n[nid].split("\n")[0] for nid in marked} == {"psum", "axis_index"}
    assert swatches(dot).keys() == {"i"}

    # The result: 8 devices, one row each, with the piece that device holds.
    values = np.arange(8.0, dtype=np.float32).sum() + np.arange(8)
    rows = shard_rows(data["text/html"])
    assert rows == [(f"CpuDevice(id={d})", f"(slice({d}, {d + 1}, None),)",
                     f"[{values[d]:.0f}.]") for d in range(8)]
    lines = data["text/plain"].splitlines()[-8:]
    assert lines == [f"  CpuDevice(id={d}) (slice({d}, {d + 1}, None),): [{values[d]:.0f}.]"
                     for d in range(8)]
    assert 'class="gj-sharding"' in data["text/html"]            # the sharding grid too
    assert re.findall(r'title="devices (\d+)">CPU \1</td>', data["text/html"]) == \
        [str(d) for d in range(8)]


def test_pmap_over_some_devices_names_those_devices(shell, tmp_path):
    dot_file = tmp_path / "some.dot"
    data, _ = shown(shell, f"%jaxpr --save {dot_file} jax.pmap(total_and_rank, "
                           "axis_name='i', devices=jax.devices()[4:])(jnp.arange(4.0))")
    assert clusters(dot_file.read_text())["cluster_e0_r0_e0"].startswith(
        "shard_map\nmesh: i=4\ndevices: [4, 5, 6, 7]\n")
    assert [r[0] for r in shard_rows(data["text/html"])] == \
        [f"CpuDevice(id={d})" for d in (4, 5, 6, 7)]


# ----------------------------------------------------------------------------------------
# shard_map over a 2-D mesh
# ----------------------------------------------------------------------------------------

def test_shard_map_on_a_2d_mesh_colours_each_axis(shell, tmp_path):
    dot_file = tmp_path / "grid.dot"
    shown(shell, f"%jaxpr --no-run --save {dot_file} jax.shard_map(grid_step, "
                 "mesh=backwards, in_specs=P('x', 'y'), out_specs=(P(None, 'y'), P('x'), P()), "
                 "check_vma=False)"
                 "(jnp.ones((8, 4)))")
    dot = dot_file.read_text()
    assert clusters(dot)["cluster_e0"] == (
        "shard_map\nmesh: x=4, y=2\ndevices: [[7, 6], [5, 4], [3, 2], [1, 0]]\n"
        "check_vma=False\nthe body runs once on every device")
    colour = swatches(dot)
    assert list(colour) == ["x", "y"] and colour["x"] != colour["y"]
    n = nodes(dot)
    by_label = {n[nid]: fill(dot, nid) for nid in n if nid.startswith("e0_r0_e")}
    assert by_label["psum\naxes=('x',)"] == colour["x"]
    assert by_label["psum\naxes=('x', 'y')"] == f"{colour['x']}:{colour['y']}"
    assert [c for lab, c in by_label.items() if lab.startswith("all_gather")] == [colour["y"]]
    assert ("in0", "e0_r0_in0", "a:f32[8,4]\nin_specs: P('x', 'y')") in edges(dot)
    specs = sorted(lab.split("\n")[-1] for t, h, lab in edges(dot) if h == "e0_out")
    assert specs == ["out_specs: P('x',)", "out_specs: P()", "out_specs: P(None, 'y')"]


def test_colours_follow_the_order_axes_are_met():
    def two(x):
        return lax.pmax(x, "j") + lax.psum(x, "i")
    closed = make_jaxpr(two, axis_env=[("i", 4), ("j", 2)])(1.0)
    env_first = to_graphviz(closed, axis_env=[("i", 4), ("j", 2)]).source
    met_first = to_graphviz(closed).source                  # j is met first
    assert swatches(env_first) == {"i": swatches(met_first)["j"],
                                   "j": swatches(met_first)["i"]}
    assert fill(env_first, "e0") == swatches(env_first)["j"]
    assert to_graphviz(closed).source == met_first          # the same picture every time


def test_collapsed_shard_map_keeps_its_mesh():
    # (Auto axes: over Explicit ones an unsplit argument does not match in_specs P("d"),
    # JAX's ValueError)
    mesh = glassjax.make_mesh((8,), ("d",), axis_types=(glassjax.sharding.AxisType.Auto,))
    sm = glassjax.shard_map(lambda a: lax.psum(a, "d"), mesh=mesh,
                            in_specs=glassjax.sharding.PartitionSpec("d"),
                            out_specs=glassjax.sharding.PartitionSpec())
    dot = to_graphviz(make_jaxpr(sm)(jnp.ones(8)), depth=0).source
    assert nodes(dot)["e0"] == ("shard_map\nmesh: d=8\ndevices: [0, 1, 2, 3, 4, 5, 6, 7]\n"
                                "check_vma=True\nthe body runs once on every device\n"
                                "(1 equation inside)")


# ----------------------------------------------------------------------------------------
# The axis environment
# ----------------------------------------------------------------------------------------

def test_axis_env_line_magic_takes_an_axis_name_argument(shell, tmp_path):
    dot_file = tmp_path / "env.dot"
    data, _ = shown(shell, f"%jaxpr --axis-env i=4 --save {dot_file} "
                           "lax.psum(jnp.arange(3.0), 'i')")
    expected = make_jaxpr(lambda x: lax.psum(x, "i"), axis_env=[("i", 4)])(jnp.arange(3.0))
    assert data["text/plain"] == str(expected)               # traced only: no result
    dot = dot_file.read_text()
    assert nodes(dot)["legend"] == "axis environment\ni: size 4"
    assert fill(dot, "e0") == swatches(dot)["i"]
    assert "communicates across i (4 devices)" in dot


def test_axis_env_cell_magic_draws_the_legend(shell, tmp_path):
    dot_file = tmp_path / "cell.dot"
    data, _ = shown(shell, f"%%jaxpr --axis-env i=4,j=2 --save {dot_file}\n"
                           "def both(x):\n"
                           "    return lax.psum(x, 'i') * lax.pmean(x, ('i', 'j'))\n"
                           "both(jnp.ones(2))")
    dot = dot_file.read_text()
    assert nodes(dot)["legend"] == "axis environment\ni: size 4\nj: size 2"
    assert list(swatches(dot)) == ["i", "j"]
    assert "communicates across i (4 devices), j (2 devices)" in dot
    assert "<svg" in data["text/html"] and "axis environment" in data["text/html"]


def test_axis_names_are_text_never_markup():
    closed = make_jaxpr(lambda x: lax.psum(x, "<b>&"), axis_env=[("<b>&", 2)])(1.0)
    page = display.graph_html(closed, axis_env=[("<b>&", 2)])
    assert "<b>&" not in page and "axis &lt;b&gt;&amp;" in page


# ----------------------------------------------------------------------------------------
# Sharded jit results
# ----------------------------------------------------------------------------------------

def test_sharded_jit_result_one_row_per_device(shell):
    shell.run_cell("xs = jax.device_put(jnp.arange(32.0).reshape(8, 4), "
                   "NamedSharding(backwards, P('x', 'y')))").raise_error()
    data, _ = shown(shell, "%jaxpr --view text jnp.sin(xs)")
    xs = shell.user_ns["xs"]
    rows = shard_rows(data["text/html"])
    assert sorted(r[:2] for r in rows) == sorted((repr(s.device), str(s.index))
                                                 for s in xs.addressable_shards)
    assert len(rows) == 8
    whole = np.sin(np.arange(32.0, dtype=np.float32).reshape(8, 4))
    for device, index, value in rows:
        piece = whole[eval(index, {"slice": slice})]
        np.testing.assert_allclose(np.array(eval(value)), piece, rtol=1e-6)
    grid = re.findall(r'title="devices (\d+)">CPU (\d+)</td>', data["text/html"])
    assert [int(d) for d, _ in grid] == [7, 6, 5, 4, 3, 2, 1, 0]   # row by row


def test_axis_names_given_by_keyword_and_the_explorer(shell):
    data, _ = shown(shell, "%jaxpr --axis-env i=4 --view text lax.pmean(jnp.ones(2), "
                           "axis_name='i')")
    expected = make_jaxpr(lambda x: lax.pmean(x, axis_name="i"),
                          axis_env=[("i", 4)])(jnp.ones(2))
    assert data["text/plain"] == str(expected)
    data, _ = shown(shell, "%jaxpr --axis-env i=4 --view widget lax.psum(jnp.ones(2), 'i')")
    assert data["text/plain"] == "glassjax explorer: psum"
    from glassjax.notebook.widgets import TABS, explore
    ex = explore(lax.psum, jnp.ones(2), "i", axis_env=[("i", 4)])
    ex.tabs.selected_index = TABS.index("Graph")
    graph = ex.panes[TABS.index("Graph")].value
    assert "axis environment" in graph and "axis i" in graph
    ex.tabs.selected_index = TABS.index("Step")
    assert "only traced, so it cannot be stepped" in ex.step_pane.children[0].value
    ex.tabs.selected_index = TABS.index("Result")
    assert "only traced" in ex.panes[TABS.index("Result")].value
