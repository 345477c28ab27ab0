"""Programs written against flax, equinox and optax (``tests/ecosystem/programs/``) run
on glassjax under the switch and print what they printed under JAX 0.10.2 (see
``tools/ecosystem/compare.py``)."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "ecosystem"))
import compare  # noqa: E402


def test_comparison_is_not_vacuous():
    assert compare.same_output("loss 0.693151 [1.0 2.5]", "loss 0.69315 [1.  2.5]")
    assert not compare.same_output("loss 0.69325", "loss 0.69315")
    assert not compare.same_output("loss 0.69315 f32[3]", "loss 0.69315 f32[4]")
    assert not compare.same_output("a:f32[] = sin b", "a:f32[] = cos b")
    assert not compare.same_output("[1. 2.]", "[1. 2. 3.]")


@pytest.mark.parametrize("name", compare.programs())
def test_program_prints_what_jax_prints(name):
    missing = compare.missing_libraries(name)
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    same, report = compare.compare(name)
    assert same, report
