"""chex's own shipped tests (``SELECTIONS["chex"]`` of tools/ecosystem/suites.py) run with
``import jax`` meaning glassjax: every test that passed under JAX 0.10.2 (as recorded in
tests/ecosystem/recorded/chex.json) must pass, less the known differences listed with a
reason in tests/ecosystem/known_differences.json. ``suites.py check chex --full`` runs
every shipped test file the same way."""
import importlib.util
import pathlib
import sys

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools" / "ecosystem"
sys.path.insert(0, str(TOOLS))
import suites  # noqa: E402

if importlib.util.find_spec("chex") is None:
    pytest.skip("chex is not installed (the ecosystem extra of pyproject.toml)",
                allow_module_level=True)


def test_chex_suite_passes_where_it_passes_under_jax():
    outcomes, _ = suites.run_suite("chex", sys.executable, glassjax=True, workers=0)
    total, ok, regressions = suites.compare("chex", False, outcomes)
    assert total > 0 and not regressions, (
        f"{ok}/{total} of chex's tests that pass under JAX pass under glassjax; "
        "regressions:\n" + "\n".join(regressions))
