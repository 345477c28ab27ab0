"""Tests of the tests: every test file's syntax tree is scanned for tests that cannot fail.

A test that returns early, asserts a constant or is skipped without a reason passes
while checking nothing, and a green run then says less than it seems to.  The rules:

- no `return` in a test function's own body (a parametrized case that returns early
  passes having tested nothing: assert what JAX does instead, its refusal, or skip it
  with a reason, or leave it out of the grid);
- no assert that is always true (`assert True`, `assert x or True`, an assert on a
  non-empty tuple or string);
- no `or True` anywhere;
- `pytest.skip`, `pytest.mark.skip` and `pytest.mark.skipif` always say why;
- `pytest.mark.xfail` is strict (an unexpected pass fails), and the imperative
  `pytest.xfail`, which ends a test the way a skip does, is not used.

And every recorded expectation says where it comes from: each corpus directory of tests/
has the PROVENANCE.json that tests/record.py (``make record``) writes.
"""
import ast
import json
import pathlib

import pytest

import record

TESTS = pathlib.Path(__file__).resolve().parent
FILES = sorted(p for p in TESTS.rglob("*.py") if p.name.startswith(("test_", "conftest")))


def _dotted(node):
    """'pytest.mark.skip' for the expression `pytest.mark.skip`, None if not a name chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _own_nodes(func):
    """The nodes of a function's body, not descending into nested functions and classes."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    todo = [node for node in func.body if not isinstance(node, nested)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, nested))


def _always_true(test):
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr)):
        return bool(getattr(test, "elts", None) or getattr(test, "keys", None)
                    or getattr(test, "values", None))
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_always_true(v) for v in test.values)
    return False


def _has_kw(call, name, value=None):
    return any(k.arg == name and (value is None or (
        isinstance(k.value, ast.Constant) and k.value.value is value)) for k in call.keywords)


def _marker_problem(node):
    """The problem with a skip/xfail marker or call, or None.  `node` is the marker used
    bare (`@pytest.mark.skip`) or called."""
    call = node if isinstance(node, ast.Call) else None
    name = _dotted(call.func if call else node)
    if name is None:
        return None
    short = name.removeprefix("pytest.")
    if short == "xfail" and call:
        return "imperative pytest.xfail ends the test early: skip with a reason instead"
    if short == "mark.xfail" and not (call and _has_kw(call, "strict", True)):
        return "xfail that is not strict=True"
    if short == "skip" and call and not (call.args or _has_kw(call, "reason")):
        return "pytest.skip without a reason"
    if short == "mark.skip" and not (call and (call.args or _has_kw(call, "reason"))):
        return "pytest.mark.skip without a reason"
    if short == "mark.skipif" and not (call and _has_kw(call, "reason")):
        return "pytest.mark.skipif without a reason"
    return None


def problems(source, filename="<test>"):
    """[(line, problem)] for one test file's source."""
    tree = ast.parse(source, filename)
    found = []
    tests = [node for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name.startswith("test")]
    for func in tests:
        for node in _own_nodes(func):
            if isinstance(node, ast.Return):
                found.append((node.lineno, f"return in test {func.name}: the case ends "
                                           "early having tested nothing"))
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and _always_true(node.test):
            found.append((node.lineno, "assert that is always true"))
        if (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
                and any(isinstance(v, ast.Constant) and v.value is True
                        for v in node.values)):
            found.append((node.lineno, "`or True`"))
        if isinstance(node, ast.Call) or (isinstance(node, ast.Attribute)
                                          and id(node) not in called):
            problem = _marker_problem(node)
            if problem:
                found.append((node.lineno, problem))
    return sorted(set(found))


def test_the_scan_sees_every_test_file():
    assert TESTS / "conftest.py" in FILES and pathlib.Path(__file__).resolve() in FILES
    assert set(TESTS.glob("test_*.py")) <= set(FILES) and len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(TESTS)))
def test_tests_can_fail(path):
    rel = str(path.relative_to(TESTS))
    bad = [f"{rel}:{line}: {problem}" for line, problem in problems(path.read_text(), rel)]
    assert not bad, "\n".join(bad)


_FLAGGED = {
    "def test_a(x):\n    if x:\n        return\n    assert x\n": "return in test",
    "def test_a():\n    assert True\n": "always true",
    "def test_a(x):\n    assert x == 1 or True\n": "always true",
    "def test_a(x):\n    assert (x, 'why')\n": "always true",
    "def test_a():\n    assert 'not yet'\n": "always true",
    "def test_a(x):\n    assert f'{x} is fine'\n": "always true",
    "def test_a(x):\n    if x or True:\n        assert x\n": "`or True`",
    "import pytest\ndef test_a():\n    pytest.skip()\n": "pytest.skip without",
    "import pytest\n@pytest.mark.skip\ndef test_a():\n    pass\n": "mark.skip without",
    "import pytest\n@pytest.mark.skipif(1 > 0)\ndef test_a():\n    pass\n": "skipif without",
    "import pytest\n@pytest.mark.xfail(reason='r')\ndef test_a():\n    pass\n": "not strict",
    "import pytest\ndef test_a():\n    pytest.xfail('r')\n": "imperative pytest.xfail",
}


@pytest.mark.parametrize("source", _FLAGGED)
def test_the_scanner_flags_each_kind(source):
    assert [problem for _, problem in problems(source) if _FLAGGED[source] in problem]


def test_the_scanner_passes_tests_that_can_fail():
    source = """
import pytest

@pytest.mark.xfail(strict=True, reason="r")
@pytest.mark.skipif(1 > 2, reason="never")
def test_a(x):
    def helper():
        return x                       # a nested function may return
    if x:
        pytest.skip("not on this platform")
    assert helper() == x or x is None
    assert (x, 1) == (1, 1), "a message"
"""
    assert problems(source) == []


# -- provenance of the recorded expectations -----------------------------------------------

def test_every_directory_of_tests_is_a_corpus_that_make_record_records():
    directories = {d.name for d in TESTS.iterdir() if d.is_dir() and d.name != "__pycache__"}
    assert directories == set(record.CORPORA) | {"ecosystem"}    # (which has its own)


@pytest.mark.parametrize("key", record.CORPORA)
def test_each_corpus_says_which_jax_recorded_it_when_and_how(key):
    provenance = json.loads((TESTS / key / "PROVENANCE.json").read_text())
    assert provenance["what"] and provenance["command"] == record.CORPORA[key].command
    recordings = provenance["recordings"]
    assert recordings[0]["files"] == "all"
    for entry in recordings:
        assert entry["recorded"] and entry["by"]
        assert (entry["versions"]["jax"], entry["versions"]["jaxlib"]) == ("0.10.2",) * 2


@pytest.mark.parametrize("key", [k for k, c in record.CORPORA.items() if c.each])
def test_each_program_of_a_corpus_has_its_recorded_output(key):
    directory = TESTS / key
    names = record.CORPORA[key].names(directory)
    assert names and not [n for n in names if not (directory / f"{n}.expected").exists()]


def test_the_libraries_outcomes_say_which_jax_recorded_them():
    for path in (TESTS / "ecosystem" / "recorded").glob("*.json"):
        provenance = json.loads(path.read_text())["provenance"]
        assert provenance["recorded"] and provenance["command"], path
        assert provenance["versions"]["jax"] == "0.10.2", path
