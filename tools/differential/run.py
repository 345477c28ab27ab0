"""Differential testing of glassjax against JAX 0.10.2.

Runs seeded random programs (``generate.py``) and mistake scripts (``mistakes.py``) under
glassjax and under JAX (a Python whose environment has JAX 0.10.2, given by
``--jax-python``), or against results recorded earlier (``--against FILE``), and compares:
exception types (and, for mistakes, the key information of the message), values, dtypes,
weak types, shapes and the exact jaxpr text. Mismatches are grouped by cause; with
``--shrink`` (needs ``--jax-python``) each mismatching program is reduced to the fewest
steps that still differ.

    python -m tools.differential.run --programs 200 --mistakes 100 \\
        --jax-python /work/jaxref/bin/python
    python -m tools.differential.run --programs 2000 --mistakes 595 \\
        --jax-python /work/jaxref/bin/python --record tests/differential/corpus.json
    python -m tools.differential.run --against tests/differential/corpus.json

Each implementation runs in a worker process; a worker that dies (a crash) is recorded
as ``crash`` for the case it was running and a new worker continues after it.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from tools.differential import generate, mistakes as mistakes_lib

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


# ----------------------------------------------------------------------------------------
# Cases and running them
# ----------------------------------------------------------------------------------------

def make_cases(n_programs: int, n_mistakes: int, seed: int = 0) -> list[dict]:
    cases = [{"kind": "program", "id": f"p{seed + i}",
              "program": generate.generate(seed + i)} for i in range(n_programs)]
    for case in cases:
        case["source"] = generate.source(case["program"])
    cases += [{"kind": "mistake", "id": f"m{i}", "source": text}
              for i, text in enumerate(mistakes_lib.mistakes(n_mistakes))]
    return cases


def execute(python: str, impl: str, cases: list[dict], timeout: float = 3600) -> list:
    """Each case's result under ``impl`` run by ``python``; a crash is
    ``{"error": "crash: <signal or exit code>"}``."""
    results: list = [None] * len(cases)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([{"kind": c["kind"], "source": c["source"]} for c in cases], f)
        path = f.name
    start = 0
    try:
        while start < len(cases):
            proc = subprocess.run([python, WORKER, impl, path, str(start)],
                                  capture_output=True, text=True, timeout=timeout)
            current = start
            for line in proc.stdout.splitlines():
                msg = json.loads(line)
                if "start" in msg:
                    current = msg["start"]
                else:
                    results[msg["index"]] = msg["result"]
            if proc.returncode == 0:
                break
            results[current] = {"error": f"crash: exit code {proc.returncode}"}
            start = current + 1
    finally:
        os.unlink(path)
    return results


# ----------------------------------------------------------------------------------------
# Comparing
# ----------------------------------------------------------------------------------------

_TOLERANCE = {"float16": 1e-2, "bfloat16": 5e-2}


def _close(a, b, dtype) -> bool:
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    tol = _TOLERANCE.get(dtype, 1e-5)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def compare_program(expected: dict, got: dict):
    """None if they agree, else ``(cause, detail)``."""
    if (got.get("error") or "").startswith("crash") and not (
            expected.get("error") or "").startswith("crash"):
        return "crash", got["error"]
    if "error" in expected or "error" in got:
        e_type = expected.get("error", "no error").split(":")[0]
        g_type = got.get("error", "no error").split(":")[0]
        if e_type != g_type:
            return "exception type", f"JAX {expected.get('error')!r} / glassjax {got.get('error')!r}"
        return None
    if expected["jaxpr"] != got["jaxpr"]:
        e_lines, g_lines = expected["jaxpr"].splitlines(), got["jaxpr"].splitlines()
        first = next((i for i, (a, b) in enumerate(zip(e_lines, g_lines)) if a != b),
                     min(len(e_lines), len(g_lines)))
        return "jaxpr", (f"line {first}: JAX {e_lines[first] if first < len(e_lines) else ''!r}"
                         f" / glassjax {g_lines[first] if first < len(g_lines) else ''!r}")
    if len(expected["outs"]) != len(got["outs"]):
        return "outputs", f"{len(expected['outs'])} / {len(got['outs'])}"
    for e, g in zip(expected["outs"], got["outs"]):
        for field in ("shape", "dtype", "weak_type"):
            if e[field] != g[field]:
                return field, f"JAX {e[field]} / glassjax {g[field]}"
        if not all(_close(a, b, e["dtype"]) for a, b in zip(e["value"], g["value"])):
            return "value", f"JAX {e['value'][:4]} / glassjax {g['value'][:4]}"
    return None


_KEY_INFO = re.compile(r"\(\d+(?:, \d+)*,?\)|\b[a-z]+\d*\[[\d,]*\]|\b(?:float|int|uint|"
                       r"bfloat|complex)\d+\b|\bbool\b|'[^']{1,40}'|`[^`]{1,40}`")


_NUMPY_SCALAR = re.compile(r"\bnp\.(?:u?int|float|bool_?)\d*\((-?[\d.]+|True|False)\)")


def key_information(message: str) -> set[str]:
    """Shapes, avals, dtypes and quoted names in an error message's first line. A NumPy
    scalar's repr counts as its value (``(np.int64(7),)`` is the shape ``(7,)``): which
    one JAX prints depends on what its dispatch cache saw earlier in the process."""
    return set(_KEY_INFO.findall(_NUMPY_SCALAR.sub(r"\1", message or "")))


def compare_mistake(expected: dict, got: dict) -> tuple[bool, bool]:
    """(same exception type, JAX's key information all present in glassjax's message)."""
    e, g = expected.get("error") or "no error:", got.get("error") or "no error:"
    same_type = e.split(":")[0] == g.split(":")[0]
    return same_type, same_type and key_information(e) <= key_information(g)


def cause_of(detail: str) -> str:
    """A short key grouping similar mismatches: the primitive or exception named."""
    m = re.search(r"= (\w+)|'(\w+Error)|(\w+Error)", detail)
    return next((g for g in m.groups() if g), "") if m else ""


def report(cases, expected, got) -> dict:
    programs = [(c, e, g) for c, e, g in zip(cases, expected, got) if c["kind"] == "program"]
    mistake_cases = [(c, e, g) for c, e, g in zip(cases, expected, got)
                     if c["kind"] == "mistake"]
    groups = collections.defaultdict(list)
    jaxpr_total = jaxpr_same = 0
    for c, e, g in programs:
        diff = compare_program(e, g)
        if "jaxpr" in e:
            jaxpr_total += 1
            jaxpr_same += "jaxpr" in g and e["jaxpr"] == g["jaxpr"]
        if diff:
            groups[(diff[0], c["program"]["transform"], cause_of(diff[1]))].append(
                (c["id"], diff[1]))
    types = info = 0
    for c, e, g in mistake_cases:
        same_type, same_info = compare_mistake(e, g)
        types += same_type
        info += same_info
        if not same_info:
            groups[("mistake " + ("key information" if same_type else "exception type"),
                    "", cause_of(e.get("error") or ""))].append(
                (c["id"], f"JAX {e.get('error')!r} / glassjax {g.get('error')!r}"))
    crashes = sum(1 for r in got if r and (r.get("error") or "").startswith("crash"))
    summary = {
        "programs": len(programs),
        "programs agreeing": len(programs) - sum(
            len(v) for k, v in groups.items() if not k[0].startswith("mistake")),
        "jaxpr text agreeing": f"{jaxpr_same}/{jaxpr_total}",
        "mistakes": len(mistake_cases),
        "mistake exception types agreeing": types,
        "mistake key information agreeing": info,
        "crashes": crashes,
    }
    return {"summary": summary, "groups": {" | ".join(k): v for k, v in sorted(
        groups.items(), key=lambda kv: -len(kv[1]))}}


# ----------------------------------------------------------------------------------------
# Shrinking
# ----------------------------------------------------------------------------------------

def shrink(program: dict, jax_python: str, glassjax_python: str) -> dict:
    """Drop steps of ``program`` (one at a time, greedily) while JAX and glassjax still
    disagree (and neither fails to define the program)."""
    def differs(p):
        case = [{"kind": "program", "source": generate.source(p)}]
        (e,), (g,) = execute(jax_python, "jax", case), execute(glassjax_python, "glassjax",
                                                                 case)
        if e.get("stage") == "define" or "NameError" in e.get("error", ""):
            return False
        return compare_program(e, g) is not None

    steps = list(program["steps"])
    i = 0
    while i < len(steps) - 1:
        candidate = dict(program, steps=steps[:i] + steps[i + 1:])
        if differs(candidate):
            steps = candidate["steps"]
        else:
            i += 1
    return dict(program, steps=steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--mistakes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jax-python", help="a Python with JAX 0.10.2 installed")
    parser.add_argument("--glassjax-python", default=sys.executable)
    parser.add_argument("--against", help="compare with results recorded in this file")
    parser.add_argument("--record", help="write JAX's results (and the cases) to this file")
    parser.add_argument("--shrink", action="store_true")
    parser.add_argument("--report", help="write the full report (JSON) to this file")
    parser.add_argument("--write-known", metavar="FILE",
                        help="write the current differences ({case id: cause}) to FILE, "
                             "the list tests/test_differential.py accepts")
    opts = parser.parse_args()

    if opts.against:
        with open(opts.against) as f:
            recorded = json.load(f)
        cases, expected = recorded["cases"], recorded["results"]
    else:
        if not opts.jax_python:
            parser.error("give --jax-python or --against")
        cases = make_cases(opts.programs, opts.mistakes, opts.seed)
        expected = execute(opts.jax_python, "jax", cases)
        if opts.record:
            with open(opts.record, "w") as f:
                json.dump({"cases": cases, "results": expected}, f, indent=0)
            print(f"recorded {len(cases)} cases in {opts.record}")
    got = execute(opts.glassjax_python, "glassjax", cases)
    result = report(cases, expected, got)
    print(json.dumps(result["summary"], indent=1))
    for group, members in result["groups"].items():
        print(f"\n{len(members):4d}  {group}")
        for case_id, detail in members[:3]:
            print(f"        {case_id}: {detail[:200]}")
    if opts.shrink and opts.jax_python:
        by_id = {c["id"]: c for c in cases}
        for group, members in result["groups"].items():
            case = by_id[members[0][0]]
            if case["kind"] == "program":
                small = shrink(case["program"], opts.jax_python, opts.glassjax_python)
                print(f"\n# smallest reproducer of {group}:\n{generate.source(small)}")
    if opts.report:
        with open(opts.report, "w") as f:
            json.dump(result, f, indent=1)
    if opts.write_known:
        known = {case_id: f"{group}: {detail}"
                 for group, members in result["groups"].items()
                 for case_id, detail in members}
        with open(opts.write_known, "w") as f:
            json.dump(dict(sorted(known.items())), f, indent=0)


if __name__ == "__main__":
    main()
