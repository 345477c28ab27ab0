"""Small programs written against JAX, run with ``jax`` aliased to glassjax; each must
print exactly what JAX 0.10.2 printed for it (``tests/jax_programs/NAME.expected``,
recorded by running the same file under JAX 0.10.2).

The programs exercise API breadth (values, dtypes, printed arrays, jaxprs, error
messages) in the way a user's script would."""
import contextlib
import io
import pathlib
import sys
import types

import pytest

import glassjax

PROGRAMS = pathlib.Path(__file__).parent / "jax_programs"
CASES = sorted(p.stem for p in PROGRAMS.glob("*.py"))


@contextlib.contextmanager
def _jax_is_glassjax():
    """``import jax`` (and ``jax.numpy``, ``jax.lax``, ...) gives glassjax's modules."""
    saved = {k: v for k, v in sys.modules.items() if k == "jax" or k.startswith("jax.")}
    names = [k for k in sys.modules if k == "glassjax" or k.startswith("glassjax.")]
    for name in names:
        sys.modules["jax" + name[len("glassjax"):]] = sys.modules[name]
    try:
        yield
    finally:
        for k in [k for k in sys.modules if k == "jax" or k.startswith("jax.")]:
            del sys.modules[k]
        sys.modules.update(saved)


@pytest.mark.parametrize("name", CASES)
def test_program_prints_what_jax_prints(name):
    source = (PROGRAMS / f"{name}.py").read_text()
    expected = (PROGRAMS / f"{name}.expected").read_text()
    out = io.StringIO()
    with _jax_is_glassjax(), contextlib.redirect_stdout(out):
        exec(compile(source, f"{name}.py", "exec"), {"__name__": "__main__"})
    assert out.getvalue() == expected
