"""``jax.extend.linear_util``: ``wrap_init``, JAX's way of handing a Python function with
its keyword parameters (and its ``DebugInfo``) to the machinery that traces it. glassjax's
tracers take plain callables, so a ``WrappedFun`` here is just that bundle, called with
``call_wrapped``; JAX's transformation stacking on it (``transformation``) is not
provided."""
from __future__ import annotations

from typing import Callable


class WrappedFun:
    """``f`` with fixed keyword ``params``: ``call_wrapped(*args)`` is ``f(*args,
    **params)``."""
    __slots__ = ("f", "params", "debug_info")

    def __init__(self, f: Callable, params: dict, debug_info=None):
        self.f = f
        self.params = params
        self.debug_info = debug_info

    @property
    def __name__(self):
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def call_wrapped(self, *args):
        return self.f(*args, **self.params)

    def __repr__(self):
        return f"Wrapped function: {self.__name__}"


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
    return WrappedFun(f, dict(params or {}), debug_info)


__all__ = ["WrappedFun", "wrap_init"]
