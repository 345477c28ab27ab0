"""Run JAX libraries' own shipped tests under JAX 0.10.2 and under glassjax, test by test.

    python tools/ecosystem/suites.py record LIB [--full] [--python PY]
        run LIB's tests with the real JAX (the pinned venv `make jax-venv` builds) and
        write tests/ecosystem/recorded/LIB[-full].json: each test's outcome, with the
        versions, the command and the date it was recorded.
    python tools/ecosystem/suites.py check LIB [--full] [--python PY]
        run the same tests with ``import jax`` meaning glassjax (``-p glassjax.as_jax``)
        and list every test that passed under JAX and does not under glassjax, less those
        tests/ecosystem/known_differences.json lists with a reason; exit 1 if any.

The tests are those the library ships in its wheel, run where pip installed them (no
library code is copied into this project). ``SELECTIONS`` is the part ``make test`` runs
(a few minutes); ``--full`` runs every shipped test file (``make ecosystem``).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "ecosystem" / "recorded"
KNOWN = ROOT / "tests" / "ecosystem" / "known_differences.json"
HERE = pathlib.Path(__file__).resolve().parent

LIBRARIES = ["optax", "chex", "brainstate"]
# The shipped test files ``make test`` runs, relative to site-packages.
SELECTIONS = {
    "optax": ["optax/_src/alias_test.py", "optax/_src/transform_test.py",
              "optax/_src/update_test.py", "optax/_src/utils_test.py",
              "optax/_src/combine_test.py", "optax/losses/_classification_test.py",
              "optax/schedules/_schedule_test.py", "optax/tree_utils/_tree_math_test.py"],
    # fake_test first: its setUpModule sets the CPU device count, which only works
    # before any test has made the backends (later, it and variants_test only error).
    "chex": ["chex/_src/fake_test.py", "chex/_src/variants_test.py",
             "chex/_src/asserts_test.py", "chex/_src/dataclass_test.py",
             "chex/_src/dimensions_test.py", "chex/_src/asserts_chexify_test.py",
             "chex/_src/asserts_internal_test.py", "chex/_src/warnings_test.py"],
    "brainstate": ["brainstate/_state_test.py", "brainstate/transform/_jit_test.py",
                   "brainstate/transform/_grad_transform_test.py",
                   "brainstate/transform/_make_jaxpr_test.py",
                   "brainstate/transform/_loop_collect_return_test.py",
                   "brainstate/nn/_rnns_test.py", "brainstate/random/_fun_test.py",
                   "brainstate/transform/_conditions_test.py"],
}


def site_packages(python: str) -> pathlib.Path:
    out = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                          "['purelib'])"], capture_output=True, text=True, check=True)
    return pathlib.Path(out.stdout.strip())


def versions(python: str, names: list[str]) -> dict:
    code = ("import importlib.metadata as m, json, sys; print(json.dumps({n: "
            "m.version(n) for n in sys.argv[1:]}))")
    out = subprocess.run([python, "-c", code, *names], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def test_files(lib: str, full: bool, site: pathlib.Path) -> list[str]:
    if not full:
        return SELECTIONS[lib]
    return sorted(str(p.relative_to(site)) for p in (site / lib).rglob("*_test.py"))


def clean_env(extra_path: str | None = None) -> dict:
    """The environment a suite runs in: no ``PYTEST_*`` of a calling pytest, no switch
    inherited from the caller, 8 CPU devices as the libraries' multi-device tests expect."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") and k not in ("GLASSJAX_AS_JAX", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), extra_path) if p)
    env.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    env["JAX_PLATFORMS"] = "cpu"
    return env


def run_suite(lib: str, python: str, glassjax: bool, full: bool = False,
              workers: int = 0, timeout: float = 5400) -> tuple[dict, list[str]]:
    """``({node id: outcome}, command)`` of LIB's tests run by ``python``."""
    site = site_packages(python)
    files = test_files(lib, full, site)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "outcomes.json")
        command = [python, "-m", "pytest", "-q", "-p", "outcomes_plugin",
                   "-p", "no:cacheprovider", "-c", str(HERE / "pytest.ini"),
                   "--rootdir", str(site), "-o", "addopts=", "--tb=no", "-rN"]
        if glassjax:
            command[3:3] = ["-p", "glassjax.as_jax"]
        if workers:
            command += ["-n", str(workers)]
        env = clean_env(str(ROOT) if glassjax else None)
        env["ECOSYSTEM_OUTCOMES"] = out
        subprocess.run(command + [str(site / f) for f in files], cwd=tmp, env=env, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f), command[1:] + files


def recorded_path(lib: str, full: bool) -> pathlib.Path:
    return RECORDED / f"{lib}{'-full' if full else ''}.json"


def record(lib: str, python: str, full: bool, workers: int) -> None:
    outcomes, command = run_suite(lib, python, glassjax=False, full=full, workers=workers)
    provenance = {"versions": versions(python, ["jax", "jaxlib", lib]),
                  "python": sys.version.split()[0],
                  "command": "python " + " ".join(command),
                  "recorded": datetime.date.today().isoformat(),
                  "by": f"tools/ecosystem/suites.py record {lib}{' --full' if full else ''}"}
    RECORDED.mkdir(parents=True, exist_ok=True)
    recorded_path(lib, full).write_text(json.dumps(
        {"provenance": provenance, "outcomes": outcomes}, indent=0, sort_keys=True) + "\n")
    counts = {o: list(outcomes.values()).count(o) for o in sorted(set(outcomes.values()))}
    print(f"{lib}: recorded {len(outcomes)} tests under JAX: {counts}")


def known_differences(lib: str) -> dict:
    known = json.loads(KNOWN.read_text()) if KNOWN.exists() else {}
    return known.get(lib, {})


def compare(lib: str, full: bool, outcomes: dict) -> tuple[int, int, list[str]]:
    """``(passing under JAX, of those passing under glassjax, regressions)``: the tests
    that passed under JAX and do not now, less the known differences."""
    expected = json.loads(recorded_path(lib, full).read_text())["outcomes"]
    passing = [t for t, o in expected.items() if o == "passed"]
    known = known_differences(lib)
    regressions = [f"{t}: {outcomes.get(t, 'not run')}" for t in passing
                   if outcomes.get(t) != "passed" and t not in known]
    return len(passing), sum(outcomes.get(t) == "passed" for t in passing), regressions


def assert_no_regressions(lib: str) -> None:
    """For tests/ecosystem/test_LIB.py: LIB's selection under glassjax, in this Python,
    passes every test that passed under JAX, less the known differences."""
    outcomes, _ = run_suite(lib, sys.executable, glassjax=True, workers=0)
    total, ok, regressions = compare(lib, False, outcomes)
    assert total > 0 and not regressions, (
        f"{ok}/{total} of {lib}'s tests that pass under JAX pass under glassjax; "
        "regressions:\n" + "\n".join(regressions))


def check(lib: str, python: str, full: bool, workers: int) -> int:
    outcomes, _ = run_suite(lib, python, glassjax=True, full=full, workers=workers)
    total, ok, regressions = compare(lib, full, outcomes)
    print(f"{lib}: {ok}/{total} of the tests that pass under JAX 0.10.2 pass under "
          f"glassjax ({100 * ok / max(total, 1):.1f}%); "
          f"{len(known_differences(lib))} known differences")
    for line in regressions:
        print("  REGRESSION", line)
    return 1 if regressions else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record", "check"])
    parser.add_argument("libraries", nargs="*", default=LIBRARIES)
    parser.add_argument("--full", action="store_true", help="every shipped test file")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("-n", "--workers", type=int, default=0, help="pytest-xdist workers")
    args = parser.parse_args(argv)
    status = 0
    for lib in args.libraries:
        if args.command == "record":
            record(lib, args.python, args.full, args.workers)
        else:
            status |= check(lib, args.python, args.full, args.workers)
    return status


if __name__ == "__main__":
    sys.exit(main())
