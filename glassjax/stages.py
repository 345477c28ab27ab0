"""``jax.stages``: the ahead-of-time stages of a jitted function under JAX's names.

``jit(f)`` is ``Wrapped``; ``.trace(*args)`` gives ``Traced`` (the jaxpr),
``.lower()`` gives ``Lowered`` (StableHLO text), ``.compile()`` gives ``Compiled`` (an
executable for those argument types); each describes its arguments with ``ArgInfo``.
The classes live with ``jit`` (``glassjax.jit``); this module only names them.
"""
from __future__ import annotations

from typing import Protocol, Union

from glassjax.jit import ArgInfo, Compiled, Lowered, Traced

# What ``Lowered.compile(compiler_options=...)`` accepts in JAX: XLA option names to
# values.
CompilerOptions = dict[str, Union[str, bool]]


class Wrapped(Protocol):
    """The type of ``jit(f)``: callable, and staged with ``trace``/``lower``."""

    def __call__(self, *args, **kwargs):
        ...

    def trace(self, *args, **kwargs) -> Traced:
        ...

    def lower(self, *args, **kwargs) -> Lowered:
        ...


__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]
