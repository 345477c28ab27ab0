"""``glassjax.debug``: look at values inside traced and compiled functions.

``print`` and ``callback`` work everywhere, including inside ``jit``, ``vmap`` and
``grad``: they bind the debug primitives of ``glassjax.callbacks``, which the compiled
program calls back at run time, so they show the actual values of every call (a Python
``print`` inside ``jit`` would show tracers, once, while tracing).
"""
from __future__ import annotations

import string
from typing import Any, Callable

import numpy as np

from glassjax.callbacks import (check_format, debug_callback_p, debug_effect,
                                debug_print_p, merge_static_args, ordered_debug_effect,
                                split_static_args)

__all__ = ["callback", "print"]


def debug_callback(callback: Callable[..., None] | None = None, *args: Any,
                   ordered: bool = False, partitioned: bool = False, **kwargs: Any):
    """Call ``callback(*args, **kwargs)`` with the values of ``args`` (host arrays), also
    from inside transformed functions; returns None.

    ``ordered=True`` keeps the calls in program order relative to other ordered
    callbacks. Also usable in two steps: ``debug.callback(ordered=True)(f, x)``."""
    def _debug_callback(callback: Callable[..., None], *c_args: Any, **c_kwargs: Any):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, but "
                            f"got an object of type {type(callback)}")
        in_tree, dynamic, static = split_static_args(c_args, c_kwargs)

        def _flat_callback(*dynamic_flat):
            args_, kwargs_ = merge_static_args(in_tree, dynamic_flat, static)
            callback(*args_, **kwargs_)
            return ()

        debug_callback_p.bind(*dynamic, callback=_flat_callback,
                              effect=ordered_debug_effect if ordered else debug_effect,
                              partitioned=partitioned)

    return _now_or_later("debug_callback", _debug_callback, callback, args, kwargs)


def debug_print(fmt: str | None = None, *args, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with the values of ``args`` at run time.

    Pass the values as arguments, not in an f-string: formatting happens when the values
    are known, e.g. ``debug.print("x = {}", x)`` prints ``x = [0. 1. 2.]``. Also usable
    in two steps: ``debug.print(ordered=True)("x = {}", x)``."""
    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            check_format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        in_tree, dynamic, static = split_static_args(c_args, c_kwargs)
        debug_print_p.bind(*dynamic, fmt=fmt, ordered=ordered, partitioned=partitioned,
                           in_tree=in_tree, static_args=tuple(static.items()),
                           np_printoptions=tuple(np.get_printoptions().items()),
                           has_placeholders=has_placeholders, logging_record=None)

    return _now_or_later("debug_print", _debug_print, fmt, args, kwargs)


def _now_or_later(name, run, first, args, kwargs):
    """``run(first, *args, **kwargs)`` now, or, in the two-call form (no ``first``: only
    options were given), ``run`` itself to be called with the arguments later."""
    if first is not None:
        run(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"{args=} {kwargs=}")
    return run


callback = debug_callback
print = debug_print  # noqa: A001 - the public name is jax.debug.print
