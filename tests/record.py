"""Records JAX 0.10.2's outputs for the corpora of tests/ anew, with each one's provenance.

    make record                                 # every corpus, and the libraries' outcomes
    make record CORPORA="jax_programs tutorials"
    .jax-venv/bin/python tests/record.py --glassjax-python .venv/bin/python \\
        jax_programs --only 'api_einsum*'        # some files of a corpus

Run by the Python of the pinned JAX venv the Makefile builds (``.jax-venv``): the JAX it
imports is the JAX that is recorded. A corpus is a directory of tests/ holding what JAX
printed for its programs; its ``PROVENANCE.json`` says which JAX (and NumPy, SciPy,
Python) printed it, when, and by which command, so that a reader can judge a recorded
expectation and make it again. Recording a whole corpus starts its list of recordings
anew; recording some of its files (``--only``) adds an entry naming them.

Every program runs as the tests run it: eight CPU devices (tests/conftest.py), plots to
no display, and never glassjax (no PYTHONPATH). Floats printed by LAPACK and
reductions may differ in their last digit from the recorded ones; the tests allow it.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import fnmatch
import importlib.metadata
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent
JAX_VERSION = "0.10.2"
VERSIONS = ["jax", "jaxlib", "numpy", "scipy", "ml_dtypes"]


@dataclasses.dataclass(frozen=True)
class Corpus:
    """A directory of recorded outputs and the command that records them: run in the
    directory (in the project's root if `from_root`), where `python` is the JAX venv's
    and {glassjax_python} the engine's. A corpus whose programs (the files `each`
    matches, less `not_programs`) are recorded one at a time has {name} in its command,
    and `output` names the file a program's standard output goes to, if it writes none."""
    what: str
    command: str
    each: str | None = None
    output: str | None = None
    not_programs: tuple = ()
    from_root: bool = False

    def names(self, directory: pathlib.Path) -> list[str]:
        return sorted(p.stem for p in directory.glob(self.each)
                      if p.stem not in self.not_programs)


CORPORA = {
    "jax_programs": Corpus(
        "what each program NAME.py prints (NAME.expected)",
        "python {name}.py", each="*.py", output="{name}.expected"),
    "source_info_programs": Corpus(
        "each program's jaxprs printed with source lines and name stacks (NAME.expected)",
        "python render.py {name}", each="*.py", not_programs=("render",)),
    "tutorials": Corpus(
        "what each cell of JAX's tutorials prints and shows (NAME.expected; the cells, "
        "NAME.json, are extracted from JAX's docs by `cells.py extract`)",
        "python cells.py run {name}", each="*.json", output="{name}.expected",
        not_programs=("known_differences", "PROVENANCE")),
    "docstrings": Corpus(
        "the examples of JAX's API docstrings with their outputs (MODULE.json, "
        "summary.json)", "python extract.py extract"),
    "differential": Corpus(
        "seeded random programs and mistake scripts with JAX's results (corpus.json)",
        "python -m tools.differential.run --programs 2000 --mistakes 595 --jax-python "
        "python --glassjax-python {glassjax_python} --record tests/differential/corpus.json",
        from_root=True),
}


def environment() -> dict:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               MPLBACKEND="Agg")
    env.pop("PYTHONPATH", None)
    return env


def run(corpus: Corpus, directory: pathlib.Path, glassjax_python: str, name=None):
    words = shlex.split(corpus.command.format(name=name, glassjax_python=glassjax_python))
    words = [sys.executable if w == "python" else w for w in words]
    done = subprocess.run(words, cwd=ROOT if corpus.from_root else directory,
                          env=environment(), text=True, check=True,
                          stdout=subprocess.PIPE if corpus.output else None)
    if corpus.output:
        (directory / corpus.output.format(name=name)).write_text(done.stdout)


def record(key: str, glassjax_python: str, only: list[str]) -> None:
    corpus, directory = CORPORA[key], TESTS / key
    names = None
    if corpus.each:
        names = [n for n in corpus.names(directory)
                 if not only or any(fnmatch.fnmatch(n, pattern) for pattern in only)]
        for name in names:
            print(f"{key}: {name}", flush=True)
            run(corpus, directory, glassjax_python, name)
    else:
        if only:
            raise SystemExit(f"{key} is recorded whole: --only does not apply")
        print(f"{key}: {corpus.command}", flush=True)
        run(corpus, directory, glassjax_python)
    entry = {"recorded": datetime.date.today().isoformat(),
             "by": "tests/record.py " + key + "".join(f" --only {p}" for p in only),
             "files": names if only else "all",
             "versions": {p: importlib.metadata.version(p) for p in VERSIONS},
             "python": platform.python_version()}
    path = directory / "PROVENANCE.json"
    old = json.loads(path.read_text())["recordings"] if path.exists() and only else []
    path.write_text(json.dumps({"what": corpus.what, "command": corpus.command,
                                "recordings": old + [entry]}, indent=1) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", metavar="CORPUS",
                        help=f"of {', '.join(CORPORA)} (default: all)")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB",
                        help="record only the files of these names (one corpus)")
    parser.add_argument("--glassjax-python", required=True,
                        help="glassjax's Python (the differential corpus compares)")
    opts = parser.parse_args(argv)
    if set(opts.corpora) - set(CORPORA):
        parser.error(f"unknown corpora {sorted(set(opts.corpora) - set(CORPORA))}")
    try:
        version = importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        version = None
    if version != JAX_VERSION:
        raise SystemExit(f"{sys.executable} has jax {version}, not {JAX_VERSION}: run this "
                         "with the Makefile's .jax-venv")
    if opts.only and len(opts.corpora) != 1:
        raise SystemExit("--only needs exactly one corpus")
    for key in opts.corpora or CORPORA:
        record(key, opts.glassjax_python, opts.only)


if __name__ == "__main__":
    main()
