"""The ``>>>`` examples of JAX 0.10.2's API docstrings, run with ``import jax`` giving
glassjax: each example must print and display what it did under JAX
(``tests/docstrings/``; see ``extract.py`` there for how the examples are extracted, run
and recorded). One subprocess per module, so a crash is one failed test.

Examples that still differ are listed, each with its reason, in
``tests/docstrings/known_differences.json`` (by docstring name and example index); a
listed example that starts to agree fails the test too, so the list stays true.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_jax_programs import _same_output

HERE = pathlib.Path(__file__).resolve().parent / "docstrings"
MODULES = sorted(p.stem for p in HERE.glob("jax*.json"))
KNOWN = json.loads((HERE / "known_differences.json").read_text())


def run_module(name: str) -> list[list[str]]:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(HERE / "extract.py"), "run", name,
                           "--glassjax"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def differences(name: str) -> dict[str, str]:
    """``docstring#index`` of each example whose output differs, with a report."""
    corpus = json.loads((HERE / f"{name}.json").read_text())["docstrings"]
    got = run_module(name)
    assert len(got) == len(corpus)
    differ = {}
    for d, outputs in zip(corpus, got):
        for i, ((source, expected), out) in enumerate(zip(d["examples"], outputs)):
            if expected is not None and not (out == expected or _same_output(out, expected)):
                differ[f"{d['name']}#{i}"] = (f">>> {source}--- printed:\n{out}"
                                              f"--- JAX printed:\n{expected}")
    return differ


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_print_what_jax_printed(name):
    differ = differences(name)
    known = KNOWN.get(name, {})
    unexpected = sorted(set(differ) - set(known))
    fixed = sorted(set(known) - set(differ))
    report = "".join(f"\n=== {k}\n{differ[k]}" for k in unexpected[:5])
    assert not unexpected, f"{len(unexpected)} examples differ from JAX: {unexpected}{report}"
    assert not fixed, f"{fixed} now agree: take them off known_differences.json"


def test_the_known_differences_stay_few():
    total = sum(out is not None for m in MODULES
                for d in json.loads((HERE / f"{m}.json").read_text())["docstrings"]
                for _, out in d["examples"])
    known = sum(len(v) for v in KNOWN.values())
    assert total > 2000 and known / total < 0.2
