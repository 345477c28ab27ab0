"""Which ``jax.*`` names the JAX libraries use, and which of them glassjax lacks.

    python tools/ecosystem/names.py record     (with the JAX venv's Python)
        walk the installed libraries' sources, keep the names that exist in the real JAX
        (libraries also name things of other JAX versions, behind version checks or
        ``try``), and write tests/ecosystem/recorded/names.json.
    python tools/ecosystem/names.py missing    (with the project's Python)
        the recorded names that glassjax, under the switch, does not have.

A name is what the source spells: ``jax.lax.scan``, ``jax.core.find_top_trace``, ``from
jax._src import traceback_util`` (``jax._src.traceback_util``), with import aliases
followed (``import jax.numpy as jnp``; ``jnp.where`` is ``jax.numpy.where``).
"""
from __future__ import annotations

import ast
import datetime
import importlib
import importlib.metadata
import json
import pathlib
import sys
import sysconfig

LIBRARIES = ["optax", "chex", "flax", "equinox", "brainstate", "einops", "jaxtyping"]
RECORDED = pathlib.Path(__file__).resolve().parents[2] / "tests" / "ecosystem" / \
    "recorded" / "names.json"


def _names_in(tree: ast.AST) -> set[str]:
    """The dotted ``jax...`` names one module's syntax tree uses."""
    aliases, found = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "jax" or a.name.startswith("jax."):
                    found.add(a.name)
                    if a.asname:
                        aliases[a.asname] = a.name
                    else:
                        aliases["jax"] = "jax"
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                (node.module == "jax" or node.module.startswith("jax.")):
            for a in node.names:
                if a.name != "*":
                    found.add(f"{node.module}.{a.name}")
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = []
            inner = node
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in aliases:
                found.add(".".join([aliases[inner.id]] + chain[::-1]))
    return found


def used_names(site: pathlib.Path) -> dict[str, list[str]]:
    """``{name: [libraries using it]}`` over every ``.py`` file of the libraries."""
    users: dict[str, set[str]] = {}
    for lib in LIBRARIES:
        for path in sorted((site / lib).rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for name in _names_in(tree):
                users.setdefault(name, set()).add(lib)
    return {name: sorted(libs) for name, libs in sorted(users.items())}


def resolves(name: str) -> bool:
    """Whether ``name`` exists: the longest importable module prefix, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:      # noqa: BLE001 (not a module, or a module failing to import)
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except Exception:      # noqa: BLE001 (a property may raise anything)
            return False
        return True
    return False


def site_packages() -> pathlib.Path:
    return pathlib.Path(sysconfig.get_paths()["purelib"])


def record() -> None:
    import jax
    names = {n: libs for n, libs in used_names(site_packages()).items() if resolves(n)}
    versions = {lib: importlib.metadata.version(lib) for lib in LIBRARIES + ["jax"]}
    RECORDED.write_text(json.dumps({
        "provenance": {"versions": versions, "recorded": datetime.date.today().isoformat(),
                       "by": "tools/ecosystem/names.py record (the JAX venv's Python)",
                       "command": "python tools/ecosystem/names.py record",
                       "jax": jax.__version__},
        "names": names}, indent=0, sort_keys=True) + "\n")
    print(f"{len(names)} names of JAX {jax.__version__} used by {', '.join(LIBRARIES)}")


def missing() -> list[str]:
    """The recorded names (those JAX has) still used by the installed libraries that
    glassjax lacks under the switch."""
    import glassjax
    glassjax.as_jax()
    recorded = json.loads(RECORDED.read_text())["names"]
    used = used_names(site_packages())
    return [f"{n} ({', '.join(used[n])})" for n in sorted(recorded)
            if n in used and not resolves(n)]


if __name__ == "__main__":
    if sys.argv[1:] == ["record"]:
        record()
    elif sys.argv[1:] == ["missing"]:
        gaps = missing()
        for gap in gaps:
            print(gap)
        print(f"{len(gaps)} names missing", file=sys.stderr)
    else:
        raise SystemExit(__doc__)
