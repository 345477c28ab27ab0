"""The ``>>>`` examples of JAX 0.10.2's API docstrings, run with ``import jax`` giving
glassjax: each example must print and display what it did under JAX
(``tests/docstrings/``; see ``extract.py`` there for how the examples are extracted, run
and recorded). A few subprocesses, run at once, so that a crash fails only its modules.

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

# Three processes of about equal work, run at once (jax.numpy holds 60% of the examples).
BATCHES = [["jax.numpy@0/2"], ["jax.numpy@1/2"],
           [m for m in MODULES if m != "jax.numpy"]]


@pytest.fixture(scope="module")
def outputs():
    """Each part's outputs under glassjax (a future per batch, all started at once)."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               MPLBACKEND="Agg")
    procs = [(batch, subprocess.Popen(
        [sys.executable, str(HERE / "extract.py"), "run", *batch, "--glassjax"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        for batch in BATCHES]
    results = {}

    def get(part):
        while part not in results:
            batch, proc = procs.pop(0)
            out, err = proc.communicate(timeout=900)
            if proc.returncode:
                results.update({p: err[-3000:] for p in batch})
            else:
                results.update(json.loads(out))
        assert not isinstance(results[part], str), results[part]
        return results[part]
    yield get
    for _, proc in procs:
        proc.kill()


def differences(name: str, outputs) -> dict[str, str]:
    """``docstring#index`` of each example whose output differs, with a report."""
    corpus = json.loads((HERE / f"{name}.json").read_text())["docstrings"]
    parts = [p for batch in BATCHES for p in batch if p.partition("@")[0] == name]
    got = [None] * len(corpus)
    for part in parts:
        i, n = map(int, (part.partition("@")[2] or "0/1").split("/"))
        got[i::n] = outputs(part)
    differ = {}
    for d, outs in zip(corpus, got):
        for i, ((source, expected), out) in enumerate(zip(d["examples"], outs)):
            if expected is not None and not (out == expected or _same_output(out, expected)):
                differ[f"{d['name']}#{i}"] = (f">>> {source}--- printed:\n{out}"
                                              f"--- JAX printed:\n{expected}")
    return differ


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_print_what_jax_printed(name, outputs):
    differ = differences(name, outputs)
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
