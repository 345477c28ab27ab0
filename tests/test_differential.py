"""The recorded differential corpus: random programs and mistake scripts, with the results
JAX 0.10.2 gave for them (``tests/differential/corpus.json``, recorded by
``make record CORPORA=differential``; ``PROVENANCE.json`` there says with what), run now
under glassjax.

Every program must agree with JAX (exception type; else exact jaxpr text, then shapes,
dtypes, weak types and values), every mistake must raise JAX's exception type with the
key information of JAX's message (shapes, dtypes, quoted names), and nothing may crash.
The differences not fixed yet are listed, each with its reason, in
``tests/differential/known_differences.json``; a listed case that starts agreeing fails
the test too, so the list only shrinks.

``make test`` runs every 4th case (a fixed sample, about a quarter of the time);
``make differential`` runs them all (``GLASSJAX_DIFFERENTIAL_EVERY=1``).
"""
import json
import os
import pathlib
import sys

import pytest

from tools.differential import run

HERE = pathlib.Path(__file__).parent / "differential"
CORPUS = HERE / "corpus.json"
KNOWN = HERE / "known_differences.json"
EVERY = int(os.environ.get("GLASSJAX_DIFFERENTIAL_EVERY", "4"))


@pytest.fixture(scope="module")
def outcome():
    recorded = json.loads(CORPUS.read_text())
    cases, expected = recorded["cases"][::EVERY], recorded["results"][::EVERY]
    got = run.execute(sys.executable, "glassjax", cases)
    known = json.loads(KNOWN.read_text()) if KNOWN.exists() else {}
    return cases, expected, got, {k: v for k, v in known.items()
                                  if k in {c["id"] for c in cases}}


def _differs(case, expected, got) -> str | None:
    if case["kind"] == "program":
        diff = run.compare_program(expected, got)
        return None if diff is None else f"{diff[0]}: {diff[1]}"
    same_type, same_info = run.compare_mistake(expected, got)
    return None if same_info else (f"JAX {expected.get('error')!r} / glassjax "
                                   f"{got.get('error')!r}")


def test_the_corpus_is_large_enough():
    cases = json.loads(CORPUS.read_text())["cases"]
    assert sum(c["kind"] == "program" for c in cases) >= 2000
    assert sum(c["kind"] == "mistake" for c in cases) >= 400


def test_nothing_crashes(outcome):
    _, _, got, _ = outcome
    assert not [r for r in got if (r.get("error") or "").startswith("crash")]


def test_every_case_agrees_with_jax_except_the_listed_ones(outcome):
    cases, expected, got, known = outcome
    new = [f"{c['id']}: {d}" for c, e, g in zip(cases, expected, got)
           if (d := _differs(c, e, g)) and c["id"] not in known]
    assert not new, "differences from JAX:\n" + "\n".join(new[:30])


def test_listed_differences_still_differ(outcome):
    cases, expected, got, known = outcome
    fixed = [c["id"] for c, e, g in zip(cases, expected, got)
             if c["id"] in known and not _differs(c, e, g)]
    assert not fixed, f"now agreeing with JAX, remove from the list: {fixed}"


def test_agreement_rates(outcome):
    cases, expected, got, _ = outcome
    summary = run.report(cases, expected, got)["summary"]
    same, total = map(int, summary["jaxpr text agreeing"].split("/"))
    assert same / total >= 0.995
    assert summary["mistake exception types agreeing"] == summary["mistakes"]
    assert summary["mistake key information agreeing"] / summary["mistakes"] >= 0.98
