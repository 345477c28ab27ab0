"""glassjax vs JAX 0.10.2, side by side in one run.

    python benchmarks/run.py [--rounds N] [--cases a,b] [--no-jax] [--jax-python PATH]

Each round runs every case once with each implementation, in alternating order, each in
a fresh process (so neither benefits from the other's warm caches or a quieter machine).
The table shows medians over rounds and the ratio glassjax / JAX (lower is better for
glassjax). JAX lives in its own virtual environment, never in glassjax's: glassjax must
not import it. It is the pinned one the Makefile builds (``.jax-venv``, by ``make bench``)
and the recorded expectations of tests/ are made with. Results are saved as JSON in
``benchmarks/results/latest.json``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JAX_VENV = HERE.parent / ".jax-venv"

sys.path.insert(0, str(HERE))
import cases  # noqa: E402


def jax_python(explicit):
    """The interpreter that has JAX 0.10.2: given, or the project's pinned JAX venv."""
    if explicit:
        return explicit
    python = JAX_VENV / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"no {JAX_VENV}: `make .jax-venv/.installed` builds it "
                         "(or give --jax-python, or --no-jax)")
    return str(python)


def compile_bytecode(python, module):
    """Write the bytecode caches of ``module``'s package, as pip does when it installs
    a package (an editable install of glassjax has none, and with
    PYTHONDONTWRITEBYTECODE=1 Python never writes them): import time then measures
    importing, not compiling the sources, for both implementations alike."""
    code = ("import compileall, importlib.util, os; compileall.compile_dir(os.path.dirname("
            f"importlib.util.find_spec({module!r}).origin), quiet=1)")
    subprocess.run([python, "-c", code], check=True, env=_env())


def import_time(python, module):
    """Seconds to import ``module`` in a fresh interpreter, less the interpreter's own
    start-up (measured the same way with nothing imported)."""
    def run(code):
        start = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, env=_env())
        return time.perf_counter() - start
    return run(f"import {module}") - run("pass")


def _env():
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")   # (pmap cases)
    # jaxlib's LAPACK kernels (the eig cases) run in SciPy's OpenBLAS, whose worker
    # threads spin while they wait: on a busy 2-core machine a 256x256 eig then varies
    # 5x between runs. One thread does the same work in both libraries, measurably.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def run_cases(python, impl, names):
    out = subprocess.run([python, str(HERE / "worker.py"), impl, *names], check=True,
                         capture_output=True, text=True, env=_env(), cwd=str(HERE))
    return {k: statistics.median(v) for k, v in json.loads(out.stdout).items()}


def fmt(seconds):
    if seconds >= 1:
        return f"{seconds:8.2f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} us"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cases", default=",".join(cases.CASES))
    parser.add_argument("--no-jax", action="store_true", help="time glassjax alone")
    parser.add_argument("--jax-python", help="an interpreter with JAX 0.10.2 installed")
    parser.add_argument("--glassjax-python", default=sys.executable)
    args = parser.parse_args()
    names = [n for n in args.cases.split(",") if n]
    impls = {"glassjax": args.glassjax_python}
    if not args.no_jax:
        impls["jax"] = jax_python(args.jax_python)

    for impl, python in impls.items():
        compile_bytecode(python, impl)
    samples = {impl: {name: [] for name in ["import"] + names} for impl in impls}
    for r in range(args.rounds):
        order = list(impls) if r % 2 == 0 else list(reversed(impls))
        for impl in order:
            samples[impl]["import"].append(import_time(impls[impl], impl))
            for name, t in run_cases(impls[impl], impl, names).items():
                samples[impl][name].append(t)
        print(f"round {r + 1}/{args.rounds} done", flush=True)

    medians = {impl: {k: statistics.median(v) for k, v in s.items() if v}
               for impl, s in samples.items()}
    print(f"\n{'case':<20}{'glassjax':>12}{'jax 0.10.2':>14}{'ratio':>9}")
    for name in ["import"] + names:
        g = medians["glassjax"].get(name)
        if g is None:
            continue
        j = medians.get("jax", {}).get(name)
        ratio = f"{g / j:9.2f}" if j else f"{'-':>9}"
        print(f"{name:<20}{fmt(g):>12}{fmt(j) if j else '-':>14}{ratio}")
    differences = {}
    for name, (case, baseline, limit) in cases.DIFFERENCES.items():
        if case in medians["glassjax"] and baseline in medians["glassjax"]:
            differences[name] = medians["glassjax"][case] - medians["glassjax"][baseline]
            print(f"{name}: {case} - {baseline} = {fmt(differences[name]).strip()} "
                  f"(target <= {fmt(limit).strip()})")
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "latest.json").write_text(json.dumps(
        {"medians": medians, "samples": samples, "differences": differences,
         "rounds": args.rounds}, indent=1))
    print(f"\nsaved {results / 'latest.json'}")


if __name__ == "__main__":
    main()
