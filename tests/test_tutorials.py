"""JAX 0.10.2's own tutorials, run unchanged with ``import jax`` giving glassjax: every
code cell must print and display what it printed under JAX (``tests/tutorials/``; see
``cells.py`` there for how cells are extracted, run and recorded).

Cells that still differ are listed, each with its reason, in
``tests/tutorials/known_differences.json``; a listed cell that starts to agree fails the
test too, so the list stays true (unless its reason says its output varies from run to
run).
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_jax_programs import _same_output

HERE = pathlib.Path(__file__).resolve().parent / "tutorials"
NAMES = sorted(p.stem for p in HERE.glob("*.expected"))
KNOWN = json.loads((HERE / "known_differences.json").read_text())
# A listed cell whose output is not the same from run to run (under JAX too) may agree.
VARIES = "varies from run to run"


def run_tutorial(name: str) -> list[str]:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(HERE / "cells.py"), "run", name,
                           "--glassjax"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", NAMES)
def test_tutorial_cells_print_what_jax_printed(name):
    expected = json.loads((HERE / f"{name}.expected").read_text())
    got = run_tutorial(name)
    assert len(got) == len(expected)
    known = KNOWN.get(name, {})
    differ = {str(i) for i, (g, e) in enumerate(zip(got, expected))
              if not _same_output(g, e)}
    unexpected = sorted(differ - set(known), key=int)
    fixed = sorted({i for i in known if not known[i].startswith(VARIES)} - differ, key=int)
    report = "".join(f"\n--- cell {i} printed:\n{got[int(i)]}--- JAX printed:\n"
                     f"{expected[int(i)]}" for i in unexpected[:3])
    assert not unexpected, f"cells {unexpected} differ from JAX:{report}"
    assert not fixed, f"cells {fixed} now agree: take them off known_differences.json"


def test_the_tutorials_cover_most_cells():
    """The known differences stay a small part of the whole."""
    total = sum(len(json.loads((HERE / f"{n}.expected").read_text())) for n in NAMES)
    known = sum(len(cells) for cells in KNOWN.values())
    assert total > 400 and known / total < 0.2
