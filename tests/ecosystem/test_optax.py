"""optax's own shipped tests (``SELECTIONS["optax"]`` of tools/ecosystem/suites.py) run
with ``import jax`` meaning glassjax: every test that passed under JAX 0.10.2 (recorded in
tests/ecosystem/recorded/optax.json) must pass, less the known differences listed with a
reason in tests/ecosystem/known_differences.json. ``make ecosystem`` runs every shipped
test file the same way."""
import importlib.util
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "ecosystem"))
import suites  # noqa: E402

pytestmark = pytest.mark.skipif(importlib.util.find_spec("optax") is None,
                                reason="optax is not installed (the ecosystem extra)")


def test_optax_passes_where_it_passes_under_jax():
    suites.assert_no_regressions("optax")
