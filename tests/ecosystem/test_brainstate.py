"""brainstate's own shipped tests (``SELECTIONS["brainstate"]`` of
``tools/ecosystem/suites.py``) run with ``import jax`` meaning glassjax: every test that
passed under JAX 0.10.2 (``recorded/brainstate.json``) must pass, less the known
differences listed with their reasons."""
import importlib.util
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "ecosystem"))
import suites  # noqa: E402

pytestmark = pytest.mark.skipif(importlib.util.find_spec("brainstate") is None,
                                reason="brainstate is not installed (the ecosystem extra)")


def test_brainstate_selection_passes_where_jax_does():
    outcomes, _ = suites.run_suite("brainstate", sys.executable, glassjax=True, workers=0)
    total, ok, regressions = suites.compare("brainstate", False, outcomes)
    assert total > 0
    assert not regressions, f"{ok}/{total} pass; regressions:\n" + "\n".join(regressions)
