"""``jax._src.traceback_util``: which frames are the user's. Libraries built on JAX
(equinox, flax, brainstate) register their own files here so that source locations point
past them, and brainstate filters its error messages' tracebacks with
``filter_traceback``.

glassjax does not filter the tracebacks of exceptions (every frame stays visible, which
suits a teaching kernel), so ``api_boundary`` leaves the function as it is."""
import traceback
import types

from glassjax import source_info

# The registered library paths (flax adds and removes its own here).
_exclude_paths: list[str] = []


def register_exclusion(path: str) -> None:
    _exclude_paths.append(path)
    source_info.register_exclusion(path)


def include_filename(filename: str) -> bool:
    """Neither glassjax's nor the standard library's nor a registered library's file."""
    return (source_info.is_user_filename(filename)
            and not any(filename.startswith(p) for p in _exclude_paths))


def include_frame(frame) -> bool:
    """Whether the frame object ``frame`` is the user's code."""
    return include_filename(frame.f_code.co_filename)


def filter_traceback(tb: types.TracebackType) -> types.TracebackType | None:
    """``tb`` with only the user's frames (None if none is)."""
    out = None
    for f, lineno in reversed(list(traceback.walk_tb(tb))):
        if include_frame(f):
            out = types.TracebackType(out, f, f.f_lasti, lineno)
    return out


def api_boundary(fun=None, *, repro_api_name=None, repro_user_func=False):
    """Where JAX starts filtering tracebacks; glassjax does not filter, so ``fun`` is
    returned unchanged."""
    del repro_api_name, repro_user_func
    return api_boundary if fun is None else fun


__all__ = ["api_boundary", "filter_traceback", "include_filename", "include_frame",
           "register_exclusion"]
