"""``debug.visualize_sharding`` / ``visualize_array_sharding``: the grid JAX draws with
``rich``, as text and as notebook HTML.

Every expected picture below was printed by JAX 0.10.2 (``rich`` 15,
``use_color=False``) for the same ``NamedSharding(Mesh(devices.reshape(mesh_shape),
axis_names), P(*spec))`` over 8 CPU devices (16 for ``CASES_16``).
"""
from __future__ import annotations

import html
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
from typing import NamedTuple

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent


class Case(NamedTuple):
    name: str
    shape: tuple
    mesh_shape: tuple
    axis_names: tuple
    spec: tuple                # the arguments of P(...)
    options: dict
    expected: str


CASES = [
    Case('split_1d', (8,), (8,), ('x',), ('x',), {}, '''\
┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
│ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
└───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘'''),
    Case('replicated_1d', (8,), (8,), ('x',), (), {}, '''\
┌───────────────────┐
│CPU 0,1,2,3,4,5,6,7│
└───────────────────┘'''),
    Case('tiles_2x4', (8, 8), (2, 4), ('x', 'y'), ('x', 'y'), {}, '''\
┌───────┬───────┬───────┬───────┐
│       │       │       │       │
│ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │
│       │       │       │       │
│       │       │       │       │
├───────┼───────┼───────┼───────┤
│       │       │       │       │
│ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
│       │       │       │       │
│       │       │       │       │
└───────┴───────┴───────┴───────┘'''),
    Case('tiles_4x2_transposed', (8, 8), (2, 4), ('x', 'y'), ('y', 'x'), {}, '''\
┌──────────┬──────────┐
│  CPU 0   │  CPU 4   │
├──────────┼──────────┤
│  CPU 1   │  CPU 5   │
├──────────┼──────────┤
│  CPU 2   │  CPU 6   │
├──────────┼──────────┤
│  CPU 3   │  CPU 7   │
└──────────┴──────────┘'''),
    Case('rows_replicated', (8, 8), (2, 4), ('x', 'y'), ('x',), {}, '''\
┌───────────────────────┐
│                       │
│      CPU 0,1,2,3      │
│                       │
│                       │
├───────────────────────┤
│                       │
│      CPU 4,5,6,7      │
│                       │
│                       │
└───────────────────────┘'''),
    Case('columns_replicated', (8, 8), (2, 4), ('x', 'y'), (None, 'y'), {}, '''\
┌───────┬───────┬───────┬───────┐
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│CPU 0,4│CPU 1,5│CPU 2,6│CPU 3,7│
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
│       │       │       │       │
└───────┴───────┴───────┴───────┘'''),
    Case('tall', (16, 4), (4, 2), ('x', 'y'), ('x', 'y'), {}, '''\
┌───────┬───────┐
│ CPU 0 │ CPU 1 │
├───────┼───────┤
│ CPU 2 │ CPU 3 │
├───────┼───────┤
│ CPU 4 │ CPU 5 │
├───────┼───────┤
│ CPU 6 │ CPU 7 │
└───────┴───────┘'''),
    Case('too_wide', (4, 16), (4, 2), ('x', 'y'), ('y', 'x'), {}, '''\
┌───────────────────┬───────────────────┬───────────────────┬──────────────────┐
│                   │                   │                   │                  │
│         …         │         …         │         …         │                  │
│         0         │         2         │         4         │                  │
│                   │                   │                   │                  │
│                   │                   │                   │                  │
├───────────────────┼───────────────────┼───────────────────┼──────────────────┤
│                   │                   │                   │                  │
│         …         │         …         │         …         │                  │
│         1         │         3         │         5         │                  │
│                   │                   │                   │                  │
│                   │                   │                   │                  │
└───────────────────┴───────────────────┴───────────────────┴──────────────────┘'''),
    Case('eight_rows', (8, 8), (8, 1), ('x', 'y'), (('x', 'y'),), {}, '''\
┌───────────────────────┐
│         CPU 0         │
├───────────────────────┤
│         CPU 1         │
├───────────────────────┤
│         CPU 2         │
├───────────────────────┤
│         CPU 3         │
├───────────────────────┤
│         CPU 4         │
├───────────────────────┤
│         CPU 5         │
├───────────────────────┤
│         CPU 6         │
├───────────────────────┤
│         CPU 7         │
└───────────────────────┘'''),
    Case('replicated_2d', (8, 8), (2, 4), ('x', 'y'), (), {}, '''\
┌───────────────────────┐
│                       │
│                       │
│                       │
│                       │
│  CPU 0,1,2,3,4,5,6,7  │
│                       │
│                       │
│                       │
│                       │
└───────────────────────┘'''),
    Case('scale_2', (8, 8), (2, 4), ('x', 'y'), ('x', 'y'), {'scale': 2}, '''\
┌──────────┬──────────┬──────────┬──────────┐
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│  CPU 0   │  CPU 1   │  CPU 2   │  CPU 3   │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
├──────────┼──────────┼──────────┼──────────┤
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│  CPU 4   │  CPU 5   │  CPU 6   │  CPU 7   │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
│          │          │          │          │
└──────────┴──────────┴──────────┴──────────┘'''),
    Case('narrow', (8,), (8,), ('x',), ('x',), {'min_width': 3, 'max_width': 40}, '''\
┌────┬────┬────┬────┬────┬────┬───┬────┐
│CPU │CPU │CPU │CPU │CPU │CPU │CPU│CPU │
│0   │1   │2   │3   │4   │5   │6  │7   │
└────┴────┴────┴────┴────┴────┴───┴────┘'''),
]

# Grids wider than max_width: columns shrink, labels wrap and are cut with "…".
CASES_16 = [
    Case('sixteen_split', (16,), (16,), ('x',), ('x',), {}, '''\
┌────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬────┬───┬────┐
│ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │ C… │CPU │CPU │CPU │CPU │C… │CPU │
│ 0  │ 1  │ 2  │ 3  │ 4  │ 5  │ 6  │ 7  │ 8  │ 9  │10  │11  │12  │13  │14 │15  │
└────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴────┴───┴────┘'''),
    Case('wide_collapsed', (4, 64), (4, 4), ('x', 'y'), ('x', 'y'), {}, '''\
┌───────────────────┬───────────────────┬───────────────────┬──────────────────┐
│                   │                   │                   │                  │
├───────────────────┼───────────────────┼───────────────────┼──────────────────┤
│                   │                   │                   │                  │
├───────────────────┼───────────────────┼───────────────────┼──────────────────┤
│                   │                   │                   │                  │
├───────────────────┼───────────────────┼───────────────────┼──────────────────┤
│                   │                   │                   │                  │
└───────────────────┴───────────────────┴───────────────────┴──────────────────┘'''),
    Case('rows_over_y_small', (8, 8), (4, 4), ('x', 'y'), ('y',), {'scale': 0.5}, '''\
┌─────────────┐
│CPU 0,4,8,12 │
├─────────────┤
│CPU 1,5,9,13 │
├─────────────┤
│CPU 2,6,10,14│
├─────────────┤
│CPU 3,7,11,15│
└─────────────┘'''),
    Case('columns_min_width', (12, 6), (2, 8), ('x', 'y'), (None, 'x'), {'min_width': 20}, '''\
┌───────────────────┬─────────────────────────┐
│                   │                         │
│                   │                         │
│                   │                         │
│                   │                         │
│CPU 0,1,2,3,4,5,6,7│CPU 8,9,10,11,12,13,14,15│
│                   │                         │
│                   │                         │
│                   │                         │
│                   │                         │
└───────────────────┴─────────────────────────┘'''),
    Case('very_narrow', (4, 64), (4, 4), ('x', 'y'), ('x', 'y'), {'max_width': 30, 'min_width': 1}, '''\
┌──────┬──────┬───────┬──────┐
│      │      │       │      │
├──────┼──────┼───────┼──────┤
│      │      │       │      │
├──────┼──────┼───────┼──────┤
│      │      │       │      │
├──────┼──────┼───────┼──────┤
│      │      │       │      │
└──────┴──────┴───────┴──────┘'''),
    Case('replicated_wrapped', (128,), (16,), ('x',), (), {'max_width': 12}, '''\
┌──────────┐
│CPU       │
│0,1,2,3,4…│
└──────────┘'''),
]

CHILD = """
import io, json, contextlib
import numpy as np
import glassjax as jax
import glassjax.numpy as jnp
from glassjax.debug import ShardingGrid
from glassjax.notebook import sharding_grid
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P

devices = np.array(jax.devices())
cases = json.loads(CASES)

def sharding(mesh_shape, axis_names, spec):
    spec = [tuple(p) if isinstance(p, list) else p for p in spec]   # JSON made lists
    return NamedSharding(Mesh(devices.reshape(mesh_shape), axis_names), P(*spec))

def printed(f, *args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f(*args, **kwargs)
    return out.getvalue()

report = {"text": {}, "html": {}}
for name, shape, mesh_shape, axis_names, spec, options in cases:
    s = sharding(mesh_shape, axis_names, spec)
    report["text"][name] = printed(jax.debug.visualize_sharding, tuple(shape), s,
                                   use_color=False, **options)
    report["html"][name] = sharding_grid.grid_html(ShardingGrid(tuple(shape), s, **options))
"""

# The rest of the checks, run with the 8-device pictures.
CHILD_EXTRAS = """
report["array_one_device"] = printed(jax.debug.visualize_array_sharding, jnp.arange(8))
report["array_2d_one_device"] = printed(jax.debug.visualize_array_sharding,
                                        jnp.ones((4, 4)))
report["array_split"] = printed(jax.debug.visualize_array_sharding,
                                jax.device_put_sharded(list(jnp.arange(8.0)),
                                                       list(devices)))
try:
    jax.debug.visualize_array_sharding(jnp.ones((2, 2, 2)))
except ValueError as err:
    report["three_dims"] = str(err)
report["uncoloured_html"] = sharding_grid.grid_html(
    ShardingGrid((8, 8), sharding((2, 4), ("x", "y"), ("x", "y")), use_color=False))

# Through a real IPython shell with the extension loaded: a rich display, not print.
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
jax.load_ipython_extension(shell)
with capture_output() as captured:
    jax.debug.visualize_sharding((8,), sharding((8,), ("x",), ("x",)))
report["shell_stdout"] = captured.stdout
report["shell_outputs"] = [o.data for o in captured.outputs]
jax.unload_ipython_extension(shell)
report["after_unload"] = printed(jax.debug.visualize_sharding, (8,), sharding((8,), ("x",), ("x",)))
"""


def draw(cases, devices: int, extras: bool) -> dict:
    """Run CHILD (the pictures of ``cases``; with ``extras``, the other checks too) in
    a fresh interpreter with ``devices`` CPU devices."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
               CASES=json.dumps([c[:6] for c in cases]))
    code = ("import os\nCASES = os.environ['CASES']\n" + CHILD +
            (CHILD_EXTRAS if extras else "") + "print(json.dumps(report))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def drawn():
    return draw(CASES, 8, extras=True)


@pytest.fixture(scope="module")
def drawn_16():
    return draw(CASES_16, 16, extras=False)


@pytest.mark.parametrize("case", CASES_16, ids=[c.name for c in CASES_16])
def test_text_grid_is_jaxs_when_it_overflows(drawn_16, case):
    assert drawn_16["text"][case.name] == case.expected + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_text_grid_is_jaxs(drawn, case):
    assert drawn["text"][case.name] == case.expected + "\n"


def test_visualize_array_sharding(drawn):
    assert drawn["array_one_device"] == textwrap.dedent("""\
        ┌───────┐
        │ CPU 0 │
        └───────┘
        """)
    assert drawn["array_2d_one_device"] == "\n".join(
        ["┌───────────────────────┐"] + ["│                       │"] * 4 +
        ["│         CPU 0         │"] + ["│                       │"] * 4 +
        ["└───────────────────────┘", ""])
    split_1d = next(c for c in CASES if c.name == "split_1d")
    assert drawn["array_split"] == split_1d.expected + "\n"
    assert drawn["three_dims"] == \
        "`visualize_sharding` only works for shapes with 1 and 2 dimensions."


def _cells(page: str) -> list[list[tuple[str, str]]]:
    """(style, text) of every cell of the grid table, row by row."""
    table = page[page.index('<table class="gj-sharding"'):]
    return [re.findall(r'<td style="([^"]*)"[^>]*>([^<]*)</td>', row)
            for row in re.findall(r"<tr>(.*?)</tr>", table)]


@pytest.mark.parametrize("case", CASES + CASES_16, ids=[c.name for c in CASES + CASES_16])
def test_html_grid_has_the_text_grids_cells_and_sizes(drawn, drawn_16, case):
    """The HTML table has the text grid's blocks: the same labels in the same places,
    as many characters wide and lines high."""
    text_rows = case.expected.split("\n")
    boundaries = [i for i, line in enumerate(text_rows) if line[0] in "┌├└"]
    cells = _cells((drawn if case in CASES else drawn_16)["html"][case.name])
    assert len(cells) == len(boundaries) - 1
    widths = [len(part) for part in text_rows[0][1:-1].split("┬")]
    for row, (top, bottom) in zip(cells, zip(boundaries, boundaries[1:])):
        assert len(row) == len(widths)
        lines = text_rows[top + 1:bottom]
        for j, (style, label) in enumerate(row):
            assert f"width:{widths[j]}ch;" in style
            assert f"height:{1.2 * len(lines):.1f}em;" in style
            block = " ".join(line[1:-1].split("│")[j].strip() for line in lines)
            if block.strip() and "…" not in block:  # labels cut short in the text are whole here
                assert " ".join(block.split()) == html.unescape(label)


def test_html_grid_colours_neighbours_differently(drawn):
    pytest.importorskip("matplotlib")
    cells = _cells(drawn["html"]["tiles_2x4"])
    colours = [[re.search(r"background:(#[0-9A-F]{6})", style).group(1)
                for style, _ in row] for row in cells]
    assert all(a != b for row in colours for a, b in zip(row, row[1:]))
    assert all(a != b for column in zip(*colours) for a, b in zip(column, column[1:]))
    assert len({c for row in colours for c in row}) == 8
    for style, _ in _cells(drawn["uncoloured_html"])[0]:
        assert "background" not in style and "border:1px solid currentColor" in style


def test_in_ipython_the_grid_is_displayed_not_printed(drawn):
    assert drawn["shell_stdout"] == ""
    [bundle] = drawn["shell_outputs"]
    split_1d = next(c for c in CASES if c.name == "split_1d")
    assert bundle["text/plain"] == split_1d.expected
    assert bundle["text/html"].startswith('<div class="glassjax"><style>')
    assert [label for _, label in _cells(bundle["text/html"])[0]] == \
        [f"CPU {i}" for i in range(8)]
    assert drawn["after_unload"] == split_1d.expected + "\n"


def test_labels_are_escaped():
    from glassjax.debug import GridCell, ShardingGrid
    from glassjax.notebook import sharding_grid
    grid = ShardingGrid.__new__(ShardingGrid)
    grid.rows, grid.max_width = [[GridCell([0], "<b>&", (0, 0, 0, 0))]], 80
    grid.use_color, grid.color_map = False, None
    page = sharding_grid.grid_html(grid)
    assert "&lt;b&gt;&amp;</td>" in page and "<b>&" not in page
