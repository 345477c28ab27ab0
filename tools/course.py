"""Writes the course's student notebooks from their solutions.

The notebooks in ``notebooks/solutions/`` are the sources: executed, with their outputs,
and each exercise's answer between nbgrader's ``### BEGIN SOLUTION`` and
``### END SOLUTION`` markers (nbval runs them, so every answer is known to pass its
check). This script does what nbgrader's ``ClearSolutions`` does with those markers,
without nbgrader's hundred dependencies: each answer becomes a placeholder, and the
notebook is written to ``notebooks/`` with the outputs of the other cells kept.

The placeholder is ``...`` rather than ``raise NotImplementedError()``, so that running an
unsolved exercise fails in its *check*, with the check's hint: an answer assigned at the
top level keeps its name (``n_sin = ...``), anything else (a function's body) becomes
``...``. An exercise cell is tagged ``raises-exception``, so that "Run All" goes on past
the exercises not yet done.

    python tools/course.py          # regenerate notebooks/*.ipynb
    python tools/course.py --check  # exit 1 if they are not current
"""
import argparse
import pathlib
import re
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ROOT / "notebooks" / "solutions"
STUDENT = ROOT / "notebooks"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
ASSIGNMENT = re.compile(r"([A-Za-z_]\w*) = ")


def placeholder(region, indent):
    """The stub for one answer: its top-level names bound to ``...``, or ``...``."""
    names = [m.group(1) for line in region if not indent
             for m in [ASSIGNMENT.match(line)] if m]
    return [f"{indent}{name} = ...  # your answer" for name in names] or \
        [f"{indent}...  # your answer"]


def clear_solutions(source, answer=None):
    """A cell's source with every marked answer replaced by its placeholder (or by
    ``answer``: the tests put wrong answers there)."""
    lines, out, region = source.split("\n"), [], None
    for line in lines:
        if line.strip() == BEGIN:
            region, indent = [], line[:len(line) - len(line.lstrip())]
        elif line.strip() == END:
            out += placeholder(region, indent) if answer is None else [answer]
            region = None
        elif region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise ValueError(f"{BEGIN} without {END} in:\n{source}")
    return "\n".join(out)


def is_exercise(cell):
    return cell.cell_type == "code" and BEGIN in cell.source


def student_notebook(path):
    """The student version of one solution notebook."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if is_exercise(cell):
            cell.source = clear_solutions(cell.source)
            cell.outputs, cell.execution_count = [], None
            tags = cell.metadata.setdefault("tags", [])
            if "raises-exception" not in tags:
                tags.append("raises-exception")
    return nb


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that notebooks/ matches its solutions")
    args = parser.parse_args(argv)
    stale = []
    for path in sorted(SOURCES.glob("*.ipynb")):
        text = nbformat.writes(student_notebook(path)) + "\n"
        target = STUDENT / path.name
        if not target.exists() or target.read_text() != text:
            stale.append(target.name)
            if not args.check:
                target.write_text(text)
    if args.check and stale:
        sys.exit(f"not current (run `make course`): {', '.join(stale)}")
    print(("stale: " if args.check else "written: ") + (", ".join(stale) or "none"))


if __name__ == "__main__":
    main()
