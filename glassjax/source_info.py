"""Where each equation came from: the user's line of code and the name stack.

Every equation staged into a jaxpr keeps a ``SourceInfo``: the Python traceback at the
moment it was staged, and the *name stack* in force then (``named_scope``/``named_call``
names and the transformations applied, e.g. ``transpose(jvp(layer1))/dense``). They are
what ``jaxpr.pretty_print(source_info=True, name_stack=True)`` prints, as in JAX 0.10.2:

    b:f32[] = sin a    # /path/to/model.py:6:12 (f)
                       # [jvp(layer1)]

Capturing must be cheap, since it happens once per equation while tracing: we take
jaxlib's C++ ``Traceback`` (code objects and instruction offsets, about a microsecond;
no frame objects, so no local variables are kept alive) and find the *user* frame, its
line and column, only when something asks (printing, the notebook's hover card). The user frame is the innermost frame that is not
glassjax's own code nor the standard library.

The current name stack (and a traceback that overrides the live one, set while a
transformation re-stages an existing equation so the new equation points at the original
user line) is one value per thread, like ``core.trace_ctx``, swapped in and out by the
context managers here.

A name stack is relative to the jaxpr its equation is in: a trace that stages a new
jaxpr leaves out the entries that were already on the stack when it was created, so a jit
body's equations do not repeat the names of wherever the jit was called. (The stack only
ever grows by entries pushed on top, and re-staging puts an equation's stack on top of
the current one, so "the first n entries" are always the enclosing ones.)
"""
from __future__ import annotations

import functools
import os
import sysconfig
import threading
from typing import NamedTuple

from glassjax.xla.errors import Traceback, TracebackScope  # noqa: F401  (re-exported)

from glassjax import caches


class Frame(NamedTuple):
    file_name: str
    function_name: str
    start_line: int
    start_column: int
    end_line: int
    end_column: int


# ----------------------------------------------------------------------------------------
# Name stacks
# ----------------------------------------------------------------------------------------

class Scope(NamedTuple):
    """A ``named_scope``/``named_call`` name: a new path component."""
    name: str

    def wrap(self, stack: list):
        stack.append(self.name)


class Transform(NamedTuple):
    """A transformation (``jvp``, ``transpose``, ``vmap``): wraps the component below it,
    so ``jvp`` applied outside the scope ``layer`` reads ``jvp(layer)``."""
    name: str

    def wrap(self, stack: list):
        if stack:
            stack[-1] = f"{self.name}({stack[-1]})"
        else:
            stack.append(f"{self.name}()")


class NameStack(tuple):
    """A tuple of ``Scope``/``Transform`` entries, outermost first; ``str`` gives JAX's
    notation, e.g. ``(Transform('jvp'), Scope('a'), Scope('b'))`` -> ``jvp(a)/b``."""
    __slots__ = ()

    def extend(self, name: str) -> NameStack:
        return NameStack((*self, Scope(name)))

    def transform(self, name: str) -> NameStack:
        return NameStack((*self, Transform(name)))

    def __add__(self, other) -> NameStack:
        return NameStack(tuple(self) + tuple(other)) if other else self

    def __getitem__(self, idx):
        item = tuple.__getitem__(self, idx)
        return NameStack(item) if isinstance(idx, slice) else item

    def __str__(self) -> str:
        scope: list = []
        for elem in reversed(self):
            elem.wrap(scope)
        return "/".join(reversed(scope))

    def __repr__(self) -> str:
        return f"NameStack({str(self)!r})"


EMPTY = NameStack()


class SourceInfo:
    """An equation's origin: ``traceback`` (jaxlib ``Traceback`` or None) and
    ``name_stack``; and ``xla_metadata``, the ``set_xla_metadata`` attributes in force
    when it was staged (sorted ``(key, value)`` pairs), which lowering gives its ops."""
    __slots__ = ("traceback", "name_stack", "xla_metadata")

    def __init__(self, traceback, name_stack: NameStack = EMPTY, xla_metadata: tuple = ()):
        self.traceback = traceback
        self.name_stack = name_stack
        self.xla_metadata = xla_metadata


NO_SOURCE = SourceInfo(None)


# ----------------------------------------------------------------------------------------
# The current context
# ----------------------------------------------------------------------------------------

class _Context(threading.local):
    """The current SourceInfo (one per thread, like ``core.trace_ctx``), and the last
    name stack made relative: (name stack, base) -> its entries after base."""

    def __init__(self):
        self.info = NO_SOURCE
        self.relative: list = [None, 0, EMPTY]


_context = _Context()
_get_traceback = Traceback.get_traceback
# traceback -> the SourceInfo last made for an equal one (by ``current``), and
# (SourceInfo, keep its traceback, name stack) -> its restaged SourceInfo (``restage``)
_SHARED_SIZE = 1024
_shared = caches.table("source_info.shared", bound=_SHARED_SIZE)


def current(base: int = 0) -> SourceInfo:
    """The source info for an equation staged now: the overriding traceback if a
    transformation set one, else the live traceback; the name stack without its first
    ``base`` entries (those of the enclosing jaxprs: see ``DynamicJaxprTrace``).

    Called once per staged equation, so kept to a C++ traceback and a dictionary
    lookup. Big programs come from loops, whose equations are staged again and again
    from the same lines (equal tracebacks: the same code and instruction of every
    frame): such equations share one SourceInfo, so a jaxpr keeps one traceback per
    line of code rather than one per equation."""
    context = _context
    info = context.info
    traceback = info.traceback
    if traceback is None:
        traceback = _get_traceback()
    elif not base:
        return info
    name_stack = info.name_stack
    if base:
        cache = context.relative       # equations in a row share their stack: slice once
        if cache[0] is not name_stack or cache[1] != base:
            cache[:] = name_stack, base, name_stack[base:]
        name_stack = cache[2]
    shared = _shared.get(traceback)
    if shared is None or shared.name_stack is not name_stack or \
            shared.xla_metadata is not info.xla_metadata:
        shared = _remember(traceback, SourceInfo(traceback, name_stack, info.xla_metadata))
    return shared


def _remember(key, info: SourceInfo) -> SourceInfo:
    """``_shared[key] = info``, in a table cleared when full (it only saves memory)."""
    if len(_shared) >= _SHARED_SIZE:
        _shared.clear()
    _shared[key] = info
    return info


def current_name_stack() -> NameStack:
    return _context.info.name_stack


class _Swap:
    """Set the context's SourceInfo for the ``with`` body."""
    __slots__ = ("info", "prev")

    def __init__(self, info: SourceInfo):
        self.info = info

    def __enter__(self):
        self.prev = _context.info
        _context.info = self.info
        return self.info.name_stack

    def __exit__(self, *exc):
        _context.info = self.prev


class extend_name_stack:
    """``named_scope(name)``: a new path component for what is staged inside the
    ``with`` body or, used as a decorator, inside each call (``named_call``). The stack is
    read on entry, so one object may be entered anywhere and any number of times."""
    __slots__ = ("name", "prev")

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        self.prev = prev = _context.info
        name_stack = prev.name_stack.extend(self.name)
        _context.info = SourceInfo(prev.traceback, name_stack, prev.xla_metadata)
        return name_stack

    def __exit__(self, *exc):
        _context.info = self.prev

    def __call__(self, fun):
        @functools.wraps(fun)
        def named(*args, **kwargs):
            with extend_name_stack(self.name):
                return fun(*args, **kwargs)
        return named


def transform_name_stack(name: str) -> _Swap:
    """A transformation (``jvp``, ``vmap``, ``transpose``) of what is staged inside."""
    info = _context.info
    return _Swap(SourceInfo(info.traceback, info.name_stack.transform(name),
                            info.xla_metadata))


def restage(info: SourceInfo | None, traceback: bool = True) -> _Swap:
    """The context for binding an existing equation again (eval_jaxpr under a
    transformation, a backward pass): its name stack on top of the current one, and its
    traceback (or, with ``traceback=False``, the live one: an inlined call's equations
    point at the call site, as in JAX)."""
    if info is None:
        info = NO_SOURCE
    stack, metadata = _context.info.name_stack, _context.info.xla_metadata
    key = (info, traceback, stack, metadata)   # (as in ``current``: share equal results)
    restaged = _shared.get(key)
    if restaged is None:
        restaged = _remember(key, SourceInfo(
            info.traceback if traceback else None, stack + info.name_stack,
            merge_metadata(metadata, info.xla_metadata)))
    return _Swap(restaged)


def user_context(traceback, *, name_stack: NameStack | None = None) -> _Swap:
    """Stage what runs inside the ``with`` body as if from ``traceback`` (and under
    ``name_stack`` if given): how a library points equations it stages later (a state's
    read, say) at the user line that made them."""
    info = _context.info
    return _Swap(SourceInfo(traceback, info.name_stack if name_stack is None
                            else name_stack, info.xla_metadata))


def merge_metadata(outer: tuple, inner: tuple) -> tuple:
    """``set_xla_metadata`` attributes ``inner`` inside ``outer`` (inner ones win)."""
    if not outer or not inner:
        return inner or outer
    return tuple(sorted({**dict(outer), **dict(inner)}.items()))


def set_xla_metadata(metadata: tuple) -> _Swap:
    """Stage what runs inside the ``with`` body with these XLA attributes too."""
    info = _context.info
    return _Swap(SourceInfo(info.traceback, info.name_stack,
                            merge_metadata(info.xla_metadata, metadata)))


# ----------------------------------------------------------------------------------------
# Finding the user's frame (lazily, when printing)
# ----------------------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_excluded = tuple({_PACKAGE_DIR, sysconfig.get_path("stdlib") + os.sep,
                   os.path.dirname(functools.__file__) + os.sep})


def register_exclusion(path: str) -> None:
    """Count the files under ``path`` (or the file ``path``) as library code, not the
    user's: libraries built on JAX (equinox) register their own sources so, and an
    equation they stage points at the line of *their* caller."""
    global _excluded
    _excluded = (*_excluded, path)
    is_user_filename.cache_clear()


@caches.lru("source_info.is_user_filename", None, why="one entry per source file")
def is_user_filename(file_name: str) -> bool:
    """Not glassjax's own code, not the standard library and not a registered library
    (test files named ``*_test.py`` count as user code, as in JAX)."""
    return file_name.endswith("_test.py") or not file_name.startswith(_excluded)


def user_frames(traceback):
    """The user's frames in ``traceback``, innermost first."""
    if traceback is None:
        return
    codes, lastis = traceback.raw_frames()
    for code, lasti in zip(codes, lastis):
        if is_user_filename(code.co_filename):
            start_line, start_col, end_line, end_col = Traceback.code_addr2location(
                code, lasti)
            name = getattr(code, "co_qualname", code.co_name)     # (Python 3.10: none)
            yield Frame(code.co_filename, name, start_line, start_col, end_line, end_col)


@caches.lru("source_info.user_frame", 256)
def user_frame(traceback) -> Frame | None:
    """The innermost user frame (None if the equation was staged by glassjax alone)."""
    return next(user_frames(traceback), None)


def summarize_frame(frame: Frame) -> str:
    """``file:line:column (function)``; the column is left out when it is 0."""
    col = f":{frame.start_column}" if frame.start_column != 0 else ""
    return f"{frame.file_name}:{frame.start_line}{col} ({frame.function_name})"


def summarize(info: SourceInfo | None) -> str:
    """What ``pretty_print(source_info=True)`` writes after ``#`` ("" if no user frame)."""
    frame = user_frame(info.traceback) if info is not None else None
    return summarize_frame(frame) if frame is not None else ""
