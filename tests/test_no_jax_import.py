"""glassjax must never import the real `jax` package (jaxlib is fine).

Two checks: a fresh interpreter imports every module of the package and runs a few
computations, then we look for `jax` in what it imported; and a static scan of the sources.
The run matters because jaxlib itself may reach for `jax` lazily (e.g. to build output
avals), which no scan of our sources can see.
"""
import ast
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "glassjax"


def _is_jax(name):
    return name == "jax" or name.startswith("jax.")


def _module_names():
    """Every module under glassjax/, found on disk so that no directory is missed."""
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


# Runs in the child interpreter. A meta-path finder records every attempt to import
# `jax`, so an attempt is caught even when jax is not installed (the import then fails
# and never reaches sys.modules, but the code that tried is still wrong).
_CHILD = textwrap.dedent("""
    import importlib, json, sys, traceback

    attempts = []

    class RecordJaxImports:
        def find_spec(self, name, path=None, target=None):
            if name == "jax" or name.startswith("jax."):
                frames = [f for f in traceback.extract_stack()[:-1]
                          if not f.filename.startswith("<frozen importlib")]
                attempts.append({"module": name,
                                 "stack": "".join(traceback.format_list(frames[-6:]))})
            return None  # let the normal import machinery continue

    sys.meta_path.insert(0, RecordJaxImports())

    failures = {}
    def attempt(label, thunk):
        try:
            thunk()
            return True
        except Exception:
            failures[label] = traceback.format_exc(limit=-3)
            return False

    for name in json.loads(sys.argv[1]):
        attempt(f"import {name}", lambda: importlib.import_module(name))

    # Run computations through the runtime: jaxlib builds output arrays lazily.
    ran = []
    import numpy as np
    glassjax = sys.modules.get("glassjax")
    gnp = sys.modules.get("glassjax.numpy")
    computations = []
    if hasattr(gnp, "sin") and hasattr(gnp, "ones"):
        computations.append(("glassjax.numpy.sin(glassjax.numpy.ones(3))",
                             lambda: repr(np.asarray(gnp.sin(gnp.ones(3))))))
    if hasattr(glassjax, "jit"):
        computations.append(("glassjax.jit(lambda x: x * 2)(1.0)",
                             lambda: repr(np.asarray(glassjax.jit(lambda x: x * 2)(1.0)))))
    if hasattr(glassjax, "make_jaxpr"):
        computations.append(("glassjax.make_jaxpr(lambda x: x * 2)(1.0)",
                             lambda: str(glassjax.make_jaxpr(lambda x: x * 2)(1.0))))
    for label, thunk in computations:
        if attempt(label, thunk):
            ran.append(label)

    print(json.dumps({
        "attempts": attempts,
        "in_sys_modules": sorted(m for m in sys.modules if m == "jax" or m.startswith("jax.")),
        "failures": failures,
        "ran": ran,
    }))
""")


def test_importing_and_running_glassjax_never_imports_jax():
    names = _module_names()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(names)],
        capture_output=True, text=True, cwd=PACKAGE_DIR.parent, timeout=600,
    )
    assert proc.returncode == 0, f"child interpreter failed:\n{proc.stderr}"
    report = json.loads(proc.stdout.strip().splitlines()[-1])

    problems = []
    if report["in_sys_modules"]:
        problems.append("jax modules in sys.modules: " + ", ".join(report["in_sys_modules"]))
    for attempt in report["attempts"]:
        problems.append(f"attempt to import {attempt['module']!r} from:\n{attempt['stack']}")
    for label, error in report["failures"].items():
        problems.append(f"{label} failed (so it was not checked):\n{error}")
    if problems:
        ran = ", ".join(report["ran"]) or "none (that API is not there yet)"
        pytest.fail(f"computations run: {ran}\n\n" + "\n".join(problems), pytrace=False)


def _jax_imports(source, filename):
    """(line, statement) for each import of jax: statements and import_module/__import__ calls."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] if node.level == 0 else []
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "__import__")):
            modules = [node.args[0].value]
        else:
            continue
        if any(_is_jax(m) for m in modules):
            found.append((node.lineno, ast.get_source_segment(source, node)))
    return found


def test_no_source_file_imports_jax():
    offenders = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        for line, statement in _jax_imports(path.read_text(), str(path)):
            offenders.append(f"{path.relative_to(PACKAGE_DIR.parent)}:{line}: {statement}")
    assert not offenders, "glassjax sources import jax:\n" + "\n".join(offenders)


def test_the_source_scan_finds_jax_imports_and_spares_jaxlib():
    source = textwrap.dedent("""
        import jaxlib
        from jaxlib import xla_client
        import glassjax as jax
        import os, jax.numpy as jnp
        from jax import lax
        importlib.import_module("jax.tree_util")
    """)
    assert [line for line, _ in _jax_imports(source, "<test>")] == [5, 6, 7]
