"""Where the user wrote an equation, named as the reader knows the place.

An equation's source info holds the innermost frame of the user's code that staged it.
In a notebook that frame's file is a temporary file IPython compiled the cell into
(``/tmp/ipykernel_81/3574131940.py``), a name nobody has seen. IPython remembers which
cell each of those files holds (``get_ipython().compile``), and prints the place in its
tracebacks as ``Cell In[24], line 7``; we name it the same way, and a file outside the
notebook as ``model.py:7``. The line itself comes from ``linecache``, where IPython
keeps each cell's code, and Python finds files.
"""
from __future__ import annotations

import linecache
import os

from glassjax import source_info


def _ipython():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def place(file_name: str, line: int) -> str:
    """``Cell In[24], line 7`` for a notebook cell, else ``model.py:7``."""
    compiler = getattr(_ipython(), "compile", None)
    named = getattr(compiler, "format_code_name", lambda _: None)(file_name)
    if named:
        return f"{named[0]} {named[1]}, line {line}"
    return f"{os.path.basename(file_name)}:{line}"


def origin(eqn) -> dict:
    """Where the user wrote the equation, for its hover card: ``source`` (file, line,
    function, the place as named above and the line's code) when a user frame is known,
    ``scope`` (its name stack) when not empty."""
    info = eqn.source_info
    if info is None:
        return {}
    out = {}
    frame = source_info.user_frame(info.traceback)
    if frame is not None:
        out["source"] = {"file": frame.file_name, "line": frame.start_line,
                         "function": frame.function_name,
                         "place": place(frame.file_name, frame.start_line),
                         "code": linecache.getline(frame.file_name, frame.start_line).strip()}
    if info.name_stack:
        out["scope"] = str(info.name_stack)
    return out


def tooltip(text: str, source: dict | None, max_lines: int = 8) -> str:
    """A node's tooltip in a static picture: the equation's ``text`` as the jaxpr
    prints it (its first ``max_lines`` lines) and the user's line it came from
    (``origin``'s ``source``)."""
    text_lines = text.splitlines()
    lines = text_lines[:max_lines] + (["..."] if len(text_lines) > max_lines else [])
    if source is not None:
        lines += [f"{source['place']} ({source['function']})",
                  *([source["code"]] if source["code"] else [])]
    return "\n".join(lines)
