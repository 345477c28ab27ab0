"""Run the programs of ``tests/ecosystem/programs/`` on glassjax and compare what they
print with what JAX 0.10.2 printed (``NAME.expected``).

    python tools/ecosystem/compare.py [NAME ...]

Each program is written against a library (flax, equinox, optax) and ``jax``; it runs
as a user would run it, ``python -m glassjax run NAME.py``, in the environment the
library suites run in (``suites.clean_env``: no ``PYTEST_*`` of a calling pytest, 8 CPU
devices). The text must be identical, except that each floating point number may differ
from the recorded one by float32 round-off: a relative 1e-5, or one unit in the last
digit printed (a value on the edge of a rounding step prints either way). A difference
is shown as a unified diff. Record an expectation with
``XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu
/tmp/jaxref/bin/python NAME.py > NAME.expected`` (any Python with JAX 0.10.2).
"""
from __future__ import annotations

import difflib
import importlib.util
import math
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import suites  # noqa: E402

PROGRAMS = suites.ROOT / "tests" / "ecosystem" / "programs"
# The libraries a program needs, read from its imports (a missing one skips it).
LIBRARIES = ("flax", "equinox", "optax", "diffrax", "numpyro", "haiku")

_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+"
                    r"|\b(?:nan|inf)\b")


def programs() -> list[str]:
    return sorted(p.stem for p in PROGRAMS.glob("*.py"))


def missing_libraries(name: str) -> list[str]:
    """The libraries program ``name`` imports that are not installed here."""
    source = (PROGRAMS / f"{name}.py").read_text()
    return [lib for lib in LIBRARIES
            if re.search(rf"^\s*(?:import|from) {lib}\b", source, re.M)
            and importlib.util.find_spec(lib) is None]


def run(name: str, python: str = sys.executable, timeout: float = 900) -> tuple[str, str]:
    """``(stdout, stderr)`` of program ``name`` run on glassjax."""
    proc = subprocess.run([python, "-m", "glassjax", "run", f"{name}.py"], cwd=PROGRAMS,
                          env=suites.clean_env(str(suites.ROOT)), capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        return proc.stdout, proc.stderr or f"exit code {proc.returncode}"
    return proc.stdout, ""


def _last_digit(number: str) -> float:
    """One unit in the last digit of a printed number (``0.69315`` -> 1e-5)."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _close(got: str, expected: str) -> bool:
    a, b = float(got), float(expected)
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return got == expected
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1.01 * _last_digit(expected))


def same_output(got: str, expected: str) -> bool:
    """Identical text outside numbers (white space aside: NumPy pads arrays to the widest
    number printed) and each number within float32 round-off of the recorded one."""
    split = lambda text: [t for t in re.split(r"\s+", _FLOAT.sub(" # ", text)) if t]
    got_numbers, expected_numbers = _FLOAT.findall(got), _FLOAT.findall(expected)
    return (split(got) == split(expected) and len(got_numbers) == len(expected_numbers)
            and all(map(_close, got_numbers, expected_numbers)))


def diff(got: str, expected: str, name: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                        f"{name}.expected (JAX)", f"{name} (glassjax)"))


def compare(name: str) -> tuple[bool, str]:
    """``(same, report)`` for program ``name``."""
    expected = (PROGRAMS / f"{name}.expected").read_text()
    got, error = run(name)
    if error:
        return False, f"{name}: failed on glassjax\n{error[-4000:]}\n{diff(got, expected, name)}"
    if got == expected or same_output(got, expected):
        return True, f"{name}: same"
    return False, f"{name}: differs\n{diff(got, expected, name)}"


def main(argv: list[str]) -> int:
    names = argv or programs()
    same = 0
    for name in names:
        missing = missing_libraries(name)
        if missing:
            print(f"{name}: skipped ({', '.join(missing)} not installed)")
            continue
        ok, report = compare(name)
        same += ok
        print(report)
    print(f"{same}/{len(names)} programs print what JAX printed")
    return 0 if same == len(names) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
