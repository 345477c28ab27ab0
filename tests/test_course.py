"""The course's exercises are real: unsolved, each one fails in its check, with a hint.

The solution notebooks (``notebooks/solutions/``) are nbval's: ``make test`` re-runs them
and compares their stored outputs. Here, the student notebooks that ``tools/course.py``
writes from them must be current, every notebook must have exercises, and each student
notebook, run from top to bottom, must fail in its exercise cells only, each with an
``AssertionError`` whose message is a hint (never a bare assert, never an unrelated
error from the placeholder); a lesson cell fails only where its solution's stored output
shows the same error (00 demonstrates one).
"""
import pathlib

import nbformat
import pytest

from tools import course

nbclient = pytest.importorskip("nbclient")

SOLUTIONS = sorted(course.SOURCES.glob("*.ipynb"))


def test_student_notebooks_are_generated_from_the_solutions():
    for path in SOLUTIONS:
        expected = nbformat.writes(course.student_notebook(path)) + "\n"
        assert (course.STUDENT / path.name).read_text() == expected, (
            f"{path.name}: run `make course`")
    assert {p.name for p in course.STUDENT.glob("*.ipynb")} == {p.name for p in SOLUTIONS}


def test_placeholder_keeps_top_level_names_and_indents_bodies():
    source = "\n".join([
        "def f(x):", "    ### BEGIN SOLUTION", "    y = x + 1", "    return y",
        "    ### END SOLUTION", "### BEGIN SOLUTION", "a = 1", "b = f(a)",
        "### END SOLUTION", "assert a == 1, 'hint'"])
    assert course.clear_solutions(source).split("\n") == [
        "def f(x):", "    ...  # your answer", "a = ...  # your answer",
        "b = ...  # your answer", "assert a == 1, 'hint'"]
    with pytest.raises(ValueError, match="without"):
        course.clear_solutions("### BEGIN SOLUTION\nx = 1")


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_every_notebook_has_exercises_and_a_path(path):
    nb = nbformat.read(path, as_version=4)
    assert sum(map(course.is_exercise, nb.cells)) >= 2
    assert "**Assumes:**" in nb.cells[0].source
    assert "**Next:**" in nb.cells[-1].source and "https://" in nb.cells[-1].source


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_unsolved_exercises_fail_with_a_hint_and_nothing_else_fails(path):
    solutions = nbformat.read(path, as_version=4)
    student = nbformat.read(course.STUDENT / path.name, as_version=4)
    nbclient.NotebookClient(student, kernel_name="python3", timeout=600, allow_errors=True,
                            resources={"metadata": {"path": str(course.STUDENT)}}).execute()
    for index, (solved, cell) in enumerate(zip(solutions.cells, student.cells)):
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if course.is_exercise(solved):
            assert [(e.ename, bool(e.evalue.strip())) for e in errors] == \
                [("AssertionError", True)], (index, cell.source, errors)
        else:       # a lesson cell fails only where its solution did (00 shows an error)
            expected = [o.ename for o in solved.get("outputs", []) if o.output_type == "error"]
            assert [e.ename for e in errors] == expected, (index, cell.source, errors)


# Answers that give the right numbers while breaking the exercise's rule: (notebook,
# start of the exercise cell, wrong answer, words of the hint the check must give).
RULE_BREAKERS = [
    ("03", "from unittest import mock", "    return jax.grad(f)(x)", "no jax.grad"),
    ("04", "rng = np.random", "batched_outer = lambda u, v: jnp.zeros((5, 2, 3))", "must equal"),
    ("04", "rng = np.random", "batched_outer = lambda u, v: jnp.stack("
     "[jnp.outer(a, b) for a, b in zip(u, v)])", "not one per example"),
    ("05", "def relu_where", "    return lax.cond(x > 0, lambda v: v, jnp.zeros_like, x)",
     "no lax.cond"),
    ("05", "def fib", "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
     "    return a", "lax.fori_loop"),
]


@pytest.mark.parametrize("notebook, start, answer, hint", RULE_BREAKERS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(RULE_BREAKERS)])
def test_checks_refuse_answers_that_break_the_rule(notebook, start, answer, hint):
    (path,) = course.SOURCES.glob(notebook + "-*.ipynb")
    solved = nbformat.read(path, as_version=4)
    (cell,) = [c for c in solved.cells if course.is_exercise(c) and c.source.startswith(start)]
    imports = solved.cells[1]             # every notebook's imports and definitions
    wrong = nbformat.v4.new_notebook(cells=[
        imports, nbformat.v4.new_code_cell(course.clear_solutions(cell.source, answer))])
    nbclient.NotebookClient(wrong, kernel_name="python3", timeout=600, allow_errors=True,
                            resources={"metadata": {"path": str(course.STUDENT)}}).execute()
    assert not [o for o in wrong.cells[0].outputs if o.output_type == "error"]
    (error,) = [o for o in wrong.cells[1].outputs if o.output_type == "error"]
    assert (error.ename, hint in error.evalue) == ("AssertionError", True), error.evalue
