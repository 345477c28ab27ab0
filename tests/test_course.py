"""The course's exercises are real: unsolved, each one fails in its check, with a hint.

The solution notebooks (``notebooks/solutions/``) are nbval's: ``make test`` re-runs them
and compares their stored outputs. Here, the student notebooks that ``tools/course.py``
writes from them must be current, every notebook must have exercises, and each student
notebook, run from top to bottom, must fail in its exercise cells only, each with an
``AssertionError`` whose message is a hint (never a bare assert, never an unrelated
error from the placeholder).
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
        else:
            assert not errors, (index, cell.source, errors)
