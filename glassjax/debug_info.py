"""What a jaxpr says about the function it was traced from: its name and source line,
argument and result names. Error messages (``f at file.py:3 for jit``) and the
notebook's pictures read it. JAX keeps it in its core (``jax.core.DebugInfo``), and so
does glassjax's core, importing it from here: it needs nothing else of the engine."""
from __future__ import annotations

from typing import NamedTuple


class DebugInfo(NamedTuple):
    """What error messages say about a traced function: ``f at file.py:3 for jit``.
    ``result_names`` label the outputs where a tracer knows them, and ``states`` marks
    the inputs and outputs (``("in", i)``, ``("out", j)``) that carry the values of
    ``glassjax.state`` objects, so that pictures can show them as such."""
    traced_for: str
    func_src_info: str | None
    arg_names: tuple
    result_names: tuple | None = None
    states: frozenset = frozenset()

    # JAX's names and helpers, for libraries that read or build one (``arg_names`` and
    # ``result_names`` may be None there: unknown, e.g. for a jaxpr built by hand).
    result_paths = property(lambda self: self.result_names)
    func_name = property(lambda self: (self.func_src_info or "<unknown>").split(" ")[0])

    def with_unknown_names(self) -> DebugInfo:
        return self._replace(arg_names=None, result_names=None)

    def safe_arg_names(self, expected_count: int) -> tuple:
        """The argument names, or ``""`` for each when unknown."""
        assert self.arg_names is None or len(self.arg_names) == expected_count, self
        return ("",) * expected_count if self.arg_names is None else self.arg_names

    def safe_result_paths(self, expected_count: int) -> tuple:
        assert self.result_names is None or len(self.result_names) == expected_count
        return ("",) * expected_count if self.result_names is None else self.result_names
