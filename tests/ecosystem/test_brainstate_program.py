"""``programs/brainstate_model.py``, a brainstate program written against JAX, run with
``python -m glassjax run``: its stdout must be what JAX 0.10.2 printed for it
(``programs/brainstate_model.expected``, recorded with ``/tmp/jaxref/bin/python``), the
text exactly (jaxprs included) and floats within float32 round-off."""
import importlib.util
import math
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = pathlib.Path(__file__).parent / "programs"
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+")


def same_output(got: str, expected: str, rtol=1e-5, atol=1e-6) -> bool:
    """Equal words and punctuation (white space only separates), each float within
    ``rtol``/``atol`` of the recorded one."""
    tokens = lambda text: re.findall(r"#|\w+|\S", _FLOAT.sub("#", text))
    if tokens(got) != tokens(expected):
        return False
    return all(math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=atol)
               for a, b in zip(_FLOAT.findall(got), _FLOAT.findall(expected)))


def test_comparison_is_not_vacuous():
    assert same_output("loss: 0.4159501", "loss: 0.41595")
    assert not same_output("loss: 0.4160", "loss: 0.41595")
    assert not same_output("f:f32[] = reduce_sum e", "f:f32[] = reduce_max e")


@pytest.mark.skipif(importlib.util.find_spec("brainstate") is None,
                    reason="brainstate is not installed (the ecosystem extra)")
def test_brainstate_model_prints_what_jax_printed():
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-m", "glassjax", "run",
                          str(PROGRAMS / "brainstate_model.py")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    expected = (PROGRAMS / "brainstate_model.expected").read_text()
    assert same_output(run.stdout, expected), run.stdout
