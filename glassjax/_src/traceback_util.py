"""``jax._src.traceback_util``: where a library built on JAX says its own files are not
the user's (``register_exclusion``), and the filter that drops such frames from a Python
traceback (``filter_traceback``), as brainstate uses them for its error messages."""
import types
import traceback

from glassjax.source_info import is_user_filename, register_exclusion

__all__ = ["filter_traceback", "include_frame", "register_exclusion"]


def include_frame(f: types.FrameType) -> bool:
    return is_user_filename(f.f_code.co_filename)


def filter_traceback(tb: types.TracebackType) -> types.TracebackType | None:
    """``tb`` with only the user's frames (None if none is)."""
    out = None
    for f, lineno in reversed(list(traceback.walk_tb(tb))):
        if include_frame(f):
            out = types.TracebackType(out, f, f.f_lasti, lineno)
    return out
